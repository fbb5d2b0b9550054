"""A small synthetic tagged treebank (written for the tests): sentences from a toy grammar with
ambiguous words, as CoNLL-U text."""
from __future__ import annotations

import random

# word -> (UPOS, XPOS, lemma) choices; "run", "walks", "that" and "fish" are ambiguous.
DETERMINERS = [("the", "DET", "DT", "the"), ("a", "DET", "DT", "a"),
               ("that", "DET", "DT", "that")]
ADJECTIVES = [("big", "ADJ", "JJ", "big"), ("small", "ADJ", "JJ", "small"),
              ("red", "ADJ", "JJ", "red"), ("happier", "ADJ", "JJR", "happy")]
NOUNS = [("dog", "NOUN", "NN", "dog"), ("dogs", "NOUN", "NNS", "dog"),
         ("cat", "NOUN", "NN", "cat"), ("fish", "NOUN", "NN", "fish"),
         ("run", "NOUN", "NN", "run"), ("walks", "NOUN", "NNS", "walk"),
         ("Paris", "PROPN", "NNP", "Paris"), ("houses", "NOUN", "NNS", "house")]
VERBS = [("run", "VERB", "VBP", "run"), ("walks", "VERB", "VBZ", "walk"),
         ("fish", "VERB", "VBP", "fish"), ("barked", "VERB", "VBD", "bark"),
         ("saw", "VERB", "VBD", "see"), ("likes", "VERB", "VBZ", "like")]
COMPLEMENTIZER = ("that", "SCONJ", "IN", "that")
# The features of each XPOS (and of each determiner), as UD English-EWT has them.
FEATURES = {"NN": "Number=Sing", "NNS": "Number=Plur", "NNP": "Number=Sing", "JJ": "Degree=Pos",
            "JJR": "Degree=Cmp", "VBD": "Mood=Ind|Tense=Past|VerbForm=Fin",
            "VBP": "Mood=Ind|Tense=Pres|VerbForm=Fin",
            "VBZ": "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin",
            "the": "Definite=Def|PronType=Art", "a": "Definite=Ind|PronType=Art",
            "that": "Number=Sing|PronType=Dem"}


def noun_phrase(rng: random.Random) -> list[tuple[str, str, str, str]]:
    words = [rng.choice(DETERMINERS)]
    if rng.random() < 0.5:
        words.append(rng.choice(ADJECTIVES))
    words.append(rng.choice(NOUNS))
    return words


def sentence(rng: random.Random) -> list[tuple[str, str, str, str]]:
    words = noun_phrase(rng) + [rng.choice(VERBS)]
    if rng.random() < 0.3:
        words += [COMPLEMENTIZER] + noun_phrase(rng) + [rng.choice(VERBS)]
    elif rng.random() < 0.6:
        words += noun_phrase(rng)
    words.append((".", "PUNCT", ".", "."))
    if rng.random() < 0.5:
        form, upos, xpos, lemma = words[0]
        words[0] = (form.capitalize(), upos, xpos, lemma)
    return words


def features_of(form: str, xpos: str) -> str:
    """The FEATS of a word of the toy grammar."""
    return FEATURES.get(form.lower() if xpos == "DT" else xpos, "_")


def synthetic_conllu(n_sentences: int, seed: int = 0, features: bool = False) -> str:
    """n_sentences sentences of CoNLL-U (heads: a chain, so that every file is a tree); FEATS
    written with features, else "_"."""
    rng = random.Random(seed)
    blocks = []
    for number in range(n_sentences):
        words = sentence(rng)
        lines = [f"# sent_id = s{number}", "# text = " + " ".join(w[0] for w in words)]
        for i, (form, upos, xpos, lemma) in enumerate(words, 1):
            head = 0 if i == 1 else i - 1
            deprel = "root" if i == 1 else "dep"
            feats = features_of(form, xpos) if features else "_"
            lines.append(f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}"
                         "\t_\t_")
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)


def blanked(text: str) -> str:
    """The CoNLL-U text with LEMMA, UPOS, XPOS and FEATS written as _."""
    lines = []
    for line in text.splitlines():
        columns = line.split("\t")
        if len(columns) == 10 and columns[0].isdigit():
            columns[2] = columns[3] = columns[4] = columns[5] = "_"
        lines.append("\t".join(columns))
    return "\n".join(lines) + "\n"
