"""Synthetic treebanks written by the tests: random projective trees over a tiny grammar."""
from __future__ import annotations

import random
from pathlib import Path

TAGS = {"DT": "DET", "NN": "NOUN", "VB": "VERB", "JJ": "ADJ", "IN": "ADP", ".": "PUNCT"}
WORDS = {"DT": ["the", "a"], "NN": ["dog", "cat", "park", "man"], "VB": ["saw", "ran", "liked"],
         "JJ": ["big", "old"], "IN": ["in", "with"], ".": ["."]}


def noun_phrase(rng: random.Random) -> list[tuple[str, int, str]]:
    """Tokens (tag, head offset within the phrase or -1 for the phrase head, label)."""
    tokens = [("DT", 2, "det")] if rng.random() < 0.7 else []
    if rng.random() < 0.4:
        tokens.append(("JJ", 1, "amod"))
    tokens.append(("NN", -1, "_"))
    return tokens


def sentence(rng: random.Random, sent_id: int) -> str:
    """One CoNLL-U sentence: NP VB NP (IN NP)? ."""
    words: list[tuple[str, str, int, str]] = []

    def add_phrase(head: int, label: str, prefix: list[tuple[str, int, str]] = ()) -> None:
        phrase = list(prefix) + noun_phrase(rng)
        start = len(words) + 1
        head_index = start + len(phrase) - 1
        for tag, offset, lab in phrase:
            if offset == -1:
                words.append((tag, lab if lab != "_" else label, head, ""))
            else:
                words.append((tag, lab, head_index, ""))

    add_phrase(0, "nsubj")
    subject_head = len(words)
    verb = len(words) + 1
    words.append(("VB", "root", 0, ""))
    words[subject_head - 1] = (words[subject_head - 1][0], "nsubj", verb, "")
    add_phrase(verb, "obj")
    if rng.random() < 0.5:
        add_phrase(verb, "obl", [("IN", -2, "case")])
        n_phrase = len(words)
        case = next(i for i in range(n_phrase, 0, -1) if words[i - 1][0] == "IN")
        words[case - 1] = ("IN", "case", n_phrase, "")
    words.append((".", "punct", verb, ""))
    lines = [f"# sent_id = s{sent_id}", f"# text = synthetic sentence {sent_id}"]
    for i, (tag, label, head, _) in enumerate(words, start=1):
        form = rng.choice(WORDS[tag])
        lines.append(f"{i}\t{form}\t{form}\t{TAGS[tag]}\t{tag}\t_\t{head}\t{label}\t_\t_")
    return "\n".join(lines) + "\n\n"


def write_treebank(path: Path, n: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    path.write_text("".join(sentence(rng, i) for i in range(n)), encoding="utf-8")
    return path
