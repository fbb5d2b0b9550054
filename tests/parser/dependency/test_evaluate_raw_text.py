"""Scores of a system whose tokens and sentences differ from the gold ones, against a
plain-Python reading of conll18_ud_eval.py's definitions (Zeman et al. 2018): every metric's
precision, recall and F1 on small hand-made files."""
from __future__ import annotations

import io
import subprocess
import sys
import unicodedata
from functools import cache
from pathlib import Path

import pytest

from polyparse.parser.dependency.evaluate import TABLE_METRICS, evaluate
from polyparse.parser.formats.conll import read_conll

CONTENT = {"nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl",
           "dislocated", "advcl", "advmod", "discourse", "nmod", "appos", "nummod", "acl", "amod",
           "conj", "fixed", "flat", "compound", "list", "parataxis", "orphan", "goeswith",
           "reparandum", "root", "dep"}
FUNCTIONAL = {"aux", "cop", "mark", "det", "clf", "case", "cc"}


def word_line(i: int, form: str, upos: str, xpos: str, head: int, deprel: str,
              lemma: str = "_", feats: str = "_") -> str:
    return f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}\t_\t_"


GOLD = "\n".join([
    "# text = I don't know.",
    word_line(1, "I", "PRON", "PRP", 3, "nsubj"),
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_",
    word_line(2, "do", "AUX", "VBP", 4, "aux"),
    word_line(3, "n't", "PART", "RB", 4, "advmod"),
    word_line(4, "know", "VERB", "VB", 0, "root"),
    word_line(5, ".", "PUNCT", ".", 4, "punct"),
    "",
    "# text = New York is big",
    word_line(1, "New", "PROPN", "NNP", 2, "compound"),
    word_line(2, "York", "PROPN", "NNP", 4, "nsubj"),
    word_line(3, "is", "AUX", "VBZ", 4, "cop"),
    word_line(4, "big", "ADJ", "JJ", 0, "root"),
    "",
    "# text = Call me.",
    word_line(1, "Call", "VERB", "VB", 0, "root"),
    word_line(2, "me", "PRON", "PRP", 1, "obj"),
    word_line(3, ".", "PUNCT", ".", 1, "punct"),
    "", ""])

# Tokens and sentences differ: don't is two tokens, New and York glued, the last two
# sentences one, "Call" lower-case (forms are compared lower-cased in multiword spans).
SYSTEM = "\n".join([
    "# text = I don't know.",
    word_line(1, "I", "PRON", "PRP", 3, "nsubj"),
    word_line(2, "do", "AUX", "VBP", 3, "aux"),
    word_line(3, "n't", "PART", "RB", 4, "advmod"),
    word_line(4, "know", "VERB", "VBP", 0, "root"),
    word_line(5, ".", "PUNCT", ".", 4, "punct"),
    "",
    "# text = NewYork is big Call me.",
    word_line(1, "NewYork", "PROPN", "NNP", 3, "nsubj"),
    word_line(2, "is", "VERB", "VBZ", 3, "cop"),
    word_line(3, "big", "ADJ", "JJ", 0, "root"),
    "4-5\tCallme\t_\t_\t_\t_\t_\t_\t_\t_",
    word_line(4, "call", "VERB", "VB", 3, "parataxis"),
    word_line(5, "me", "PRON", "PRP", 4, "obj"),
    word_line(6, ".", "PUNCT", ".", 4, "punct"),
    "", ""])


class RefWord:
    def __init__(self, columns: list[str], start: int, end: int, multiword: bool) -> None:
        self.form, self.lemma, self.upos, self.xpos = columns[1], columns[2], columns[3], columns[4]
        self.feats, self.head, self.deprel = columns[5], int(columns[6]), columns[7]
        self.start, self.end, self.multiword = start, end, multiword
        self.parent: RefWord | None = None
        self.children: list[RefWord] = []

    @property
    def relation(self) -> str:
        return self.deprel.split(":")[0]


def load(text: str) -> tuple[list[RefWord], list[tuple[int, int]], list[tuple[int, int]]]:
    """Words, token spans and sentence spans over the text without Zs characters."""
    words: list[RefWord] = []
    tokens: list[tuple[int, int]] = []
    sentences: list[tuple[int, int]] = []
    position = 0
    for block in text.strip("\n").split("\n\n"):
        sentence_words: list[RefWord] = []
        start = position
        range_end, range_span = 0, (0, 0)
        for line in block.split("\n"):
            if line.startswith("#"):
                continue
            columns = line.split("\t")
            form = "".join(c for c in columns[1] if unicodedata.category(c) != "Zs")
            if "-" in columns[0]:
                range_end = int(columns[0].split("-")[1])
                range_span = (position, position + len(form))
                tokens.append(range_span)
                position += len(form)
                continue
            if int(columns[0]) <= range_end:
                sentence_words.append(RefWord(columns, *range_span, True))
                continue
            tokens.append((position, position + len(form)))
            sentence_words.append(RefWord(columns, position, position + len(form), False))
            position += len(form)
        for word in sentence_words:
            if word.head:
                word.parent = sentence_words[word.head - 1]
                word.parent.children.append(word)
        words += sentence_words
        sentences.append((start, position))
    return words, tokens, sentences


def align(gold: list[RefWord], system: list[RefWord]) -> dict[int, RefWord]:
    """System word id -> gold word: equal spans outside multiword tokens; inside a stretch of
    text that multiword tokens of either side cover (extended until no word crosses its end),
    the longest common subsequence of lower-cased forms."""
    aligned: dict[int, RefWord] = {}
    g = s = 0
    while g < len(gold) and s < len(system):
        if not gold[g].multiword and not system[s].multiword:
            if (gold[g].start, gold[g].end) == (system[s].start, system[s].end):
                aligned[id(system[s])] = gold[g]
                g, s = g + 1, s + 1
            elif gold[g].start <= system[s].start:
                g += 1
            else:
                s += 1
            continue
        end = max(w.end for w in (gold[g], system[s]) if w.multiword)
        if not gold[g].multiword and gold[g].start < system[s].start:
            g += 1
        if not system[s].multiword and system[s].start < gold[g].start:
            s += 1
        g_end, s_end = g, s
        grew = True
        while grew:
            grew = False
            for words, index in ((gold, "g"), (system, "s")):
                i = g_end if index == "g" else s_end
                while i < len(words) and (words[i].start < end if words[i].multiword
                                          else words[i].end <= end):
                    if words[i].multiword and words[i].end > end:
                        end = words[i].end
                        grew = True
                    i += 1
                if index == "g":
                    g_end = i
                else:
                    s_end = i
        gold_span, system_span = gold[g:g_end], system[s:s_end]
        for gold_word, system_word in lcs_pairs(tuple(w.form.lower() for w in gold_span),
                                                tuple(w.form.lower() for w in system_span)):
            aligned[id(system_span[system_word])] = gold_span[gold_word]
        g, s = g_end, s_end
    return aligned


def lcs_pairs(a: tuple[str, ...], b: tuple[str, ...]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence, the earliest gold indices first."""
    @cache
    def best(i: int, j: int) -> tuple[tuple[int, int], ...]:
        if i == len(a) or j == len(b):
            return ()
        if a[i] == b[j]:
            return ((i, j),) + best(i + 1, j + 1)
        skip_gold, skip_system = best(i + 1, j), best(i, j + 1)
        return skip_gold if len(skip_gold) >= len(skip_system) else skip_system

    return list(best(0, 0))


def spans_counts(gold: list[tuple[int, int]],
                 system: list[tuple[int, int]]) -> tuple[int, int, int]:
    return len(gold), len(system), len(set(gold) & set(system))


def reference(gold_text: str, system_text: str) -> dict[str, tuple[float, float, float]]:
    """metric -> (precision, recall, F1) in percent."""
    gold, gold_tokens, gold_sentences = load(gold_text)
    system, system_tokens, system_sentences = load(system_text)
    aligned = align(gold, system)
    pairs = [(aligned[id(s)], s) for s in system if id(s) in aligned]
    counts = {"Tokens": spans_counts(gold_tokens, system_tokens),
              "Sentences": spans_counts(gold_sentences, system_sentences),
              "Words": (len(gold), len(system), len(pairs))}

    def gold_of(word: RefWord | None) -> object:
        return None if word is None else aligned.get(id(word), "unaligned")

    def head(g: RefWord, s: RefWord) -> bool:
        return g.parent is gold_of(s.parent)

    def las(g: RefWord, s: RefWord) -> bool:
        return head(g, s) and g.relation == s.relation

    def functional(word: RefWord, side: str) -> list[tuple]:
        return [(child if side == "gold" else gold_of(child), child.relation, child.upos,
                 child.feats) for child in word.children if child.relation in FUNCTIONAL]

    tests = {
        "UPOS": (lambda g, s: g.upos == s.upos, False),
        "XPOS": (lambda g, s: g.xpos == s.xpos, False),
        "UFeats": (lambda g, s: g.feats == s.feats, False),
        "AllTags": (lambda g, s: (g.upos, g.xpos, g.feats) == (s.upos, s.xpos, s.feats), False),
        "Lemmas": (lambda g, s: g.lemma == "_" or g.lemma == s.lemma, False),
        "UAS": (head, False),
        "LAS": (las, False),
        "CLAS": (las, True),
        "MLAS": (lambda g, s: las(g, s) and g.upos == s.upos and g.feats == s.feats
                 and functional(g, "gold") == functional(s, "system"), True),
        "BLEX": (lambda g, s: las(g, s) and (g.lemma == "_" or g.lemma == s.lemma), True),
    }
    for name, (test, content) in tests.items():
        def keep(word: RefWord, content: bool = content) -> bool:
            return not content or word.relation in CONTENT
        counts[name] = (sum(keep(w) for w in gold), sum(keep(w) for w in system),
                        sum(1 for g, s in pairs if keep(g) and test(g, s)))
    result = {}
    for name, (n_gold, n_system, correct) in counts.items():
        result[name] = (100 * correct / n_system if n_system else 0.0,
                        100 * correct / n_gold if n_gold else 0.0,
                        200 * correct / (n_gold + n_system) if n_gold + n_system else 0.0)
    return result


def scores_of(gold_text: str, system_text: str):
    return evaluate(read_conll(None, stream=io.StringIO(gold_text)),
                    read_conll(None, stream=io.StringIO(system_text)))


@pytest.mark.parametrize("gold_text, system_text", [(GOLD, SYSTEM), (SYSTEM, GOLD),
                                                   (GOLD, GOLD)])
def test_precision_recall_f1_equal_the_reference(gold_text: str, system_text: str) -> None:
    ours = scores_of(gold_text, system_text)
    expected = reference(gold_text, system_text)
    for name in TABLE_METRICS:
        got = (ours.precision[name], ours.recall[name], getattr(ours, name))
        assert got == pytest.approx(expected[name]), name


def test_by_hand() -> None:
    ours = scores_of(GOLD, SYSTEM)
    # Tokens: gold I don't know . New York is big Call me . (11), system I do n't know .
    # NewYork is big Callme . (10); equal spans: I know . is big . (6).
    assert (ours.precision["Tokens"], ours.recall["Tokens"]) == pytest.approx((60.0, 600 / 11))
    # Sentences: only the first one's span is in both.
    assert ours.Sentences == pytest.approx(200 / 5)
    # Words: gold 12, system 11; aligned I do n't know . is big call me . (10).
    assert ours.Words == pytest.approx(2000 / 23)
    assert ours.aligned_accuracy["UPOS"] == pytest.approx(90.0)
    assert "Precision" in ours.table() and "Tokens" in ours.summary()


def test_same_tokenization_summary_is_one_line() -> None:
    assert "\n" not in scores_of(GOLD, GOLD).summary()


def test_word_metrics_equal_udapis_conll18(tmp_path: Path) -> None:
    """udapi's reimplementation of conll18_ud_eval.py (it resegments the gold file into the
    system's sentences, so it reports no Tokens and Sentences rows)."""
    pytest.importorskip("udapi")
    gold, system = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    system.write_text(SYSTEM, encoding="utf-8")
    udapy = Path(sys.executable).parent / "udapy"
    result = subprocess.run(
        [str(udapy), "read.Conllu", "zone=gold", f"files={gold}", "read.Conllu", "zone=pred",
         f"files={system}", "ignore_sent_id=1", "util.ResegmentGold", "eval.Conll18"],
        capture_output=True, text=True, check=True)
    rows = [[cell.strip() for cell in line.split("|")] for line in result.stdout.splitlines()
            if "|" in line][1:]
    ours = scores_of(GOLD, SYSTEM)
    assert len(rows) == 11
    for name, precision, recall, f1, aligned in rows:
        assert round(ours.precision[name], 2) == float(precision), name
        assert round(ours.recall[name], 2) == float(recall), name
        assert round(getattr(ours, name), 2) == float(f1), name
        if aligned:
            assert round(ours.aligned_accuracy[name], 2) == float(aligned), name
