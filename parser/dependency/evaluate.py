"""Attachment scores (UAS, LAS) of a system file against a gold file.

Conventions of the CoNLL 2018 shared task scorer ``conll18_ud_eval.py``: only words are
scored (range lines and empty nodes are not), LAS compares the universal part of DEPREL (the
part before the first ':'); ``LAS_exact`` compares the full label. Gold and system must hold
the same sentences with the same words (the 2018 scorer also aligns different tokenizations;
here they are an error).

Punctuation policies (which gold words are left out of every score):

- ``none``: score every word (the 2018 default);
- ``upos``: gold UPOS is PUNCT;
- ``unicode``: every character of the gold form is Unicode punctuation (category P*), as in
  the CoNLL-X scorer ``eval.pl``;
- ``ptb``: gold XPOS is one of the Penn Treebank punctuation tags in ``PTB_PUNCT_TAGS``: two
  backquotes (opening quotes), two single quotes (closing quotes), period, comma, colon,
  -LRB- and -RRB-.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from itertools import zip_longest

from parser.formats.conll import ConllFormatError, Sentence

__all__ = ["PUNCT_POLICIES", "PTB_PUNCT_TAGS", "Scores", "evaluate"]

PUNCT_POLICIES = ("none", "upos", "unicode", "ptb")
PTB_PUNCT_TAGS = frozenset({"``", "''", ".", ",", ":", "-LRB-", "-RRB-"})


@dataclass
class Scores:
    """Percentages over the scored words (UEM/LEM: over sentences)."""

    UAS: float
    LAS: float
    LAS_exact: float
    LA: float
    UEM: float
    LEM: float
    words: int
    sentences: int
    punct: str
    excluded: int

    def as_dict(self) -> dict[str, float | int | str]:
        """UAS, LAS, LAS_exact, LA (label accuracy), UEM/LEM (complete match), words,
        sentences, punct (the policy), excluded (words left out by the policy)."""
        return asdict(self)

    def summary(self) -> str:
        """One line for people, naming the punctuation policy."""
        return (
            f"UAS {self.UAS:.2f}  LAS {self.LAS:.2f}  LAS_exact {self.LAS_exact:.2f}  "
            f"LA {self.LA:.2f}  UEM {self.UEM:.2f}  LEM {self.LEM:.2f}  "
            f"({self.words} words, {self.sentences} sentences, "
            f"punct={self.punct}, {self.excluded} words excluded)"
        )


@dataclass
class _Counts:
    words: int = 0
    excluded: int = 0
    heads: int = 0
    labelled: int = 0
    labelled_exact: int = 0
    labels: int = 0
    sentences: int = 0
    unlabelled_complete: int = 0
    labelled_complete: int = 0


def evaluate(
    gold: Iterable[Sentence],
    system: Iterable[Sentence],
    punct: str = "none",
    gold_name: str = "gold",
    system_name: str = "system",
) -> Scores:
    """Score ``system`` against ``gold`` (see the module comment for the conventions).

    Raises ConllFormatError (``system_name:LINE: ...``) when the files do not hold the same
    sentences and words, and ValueError for an unknown punctuation policy.
    """
    excluded = _punctuation_test(punct)
    counts = _Counts()
    previous: Sentence | None = None
    for gold_sentence, system_sentence in zip_longest(gold, system):
        _check_same_words(
            gold_sentence, system_sentence, previous, gold_name, system_name, counts.sentences
        )
        _count_sentence(gold_sentence, system_sentence, excluded, counts)
        previous = system_sentence
    return _scores(counts, punct)


def _punctuation_test(punct: str) -> Callable[[Sentence, int], bool]:
    """Predicate (gold sentence, 0-based word index) -> is the word left out."""
    if punct == "none":
        return lambda sentence, index: False
    if punct == "upos":
        return lambda sentence, index: sentence.upos[index] == "PUNCT"
    if punct == "ptb":
        return lambda sentence, index: sentence.xpos[index] in PTB_PUNCT_TAGS
    if punct == "unicode":
        return lambda sentence, index: _is_unicode_punctuation(sentence.form[index])
    expected = ", ".join(PUNCT_POLICIES)
    raise ValueError(f"unknown punctuation policy {punct!r}, expected one of {expected}")


_PUNCTUATION_CACHE: dict[str, bool] = {}


def _is_unicode_punctuation(form: str) -> bool:
    """eval.pl's test: every character of the form is in a Unicode P* category."""
    known = _PUNCTUATION_CACHE.get(form)
    if known is None:
        known = bool(form) and all(unicodedata.category(char).startswith("P") for char in form)
        if len(_PUNCTUATION_CACHE) < 100_000:
            _PUNCTUATION_CACHE[form] = known
    return known


def _check_same_words(
    gold: Sentence | None,
    system: Sentence | None,
    previous: Sentence | None,
    gold_name: str,
    system_name: str,
    done: int,
) -> None:
    if system is None:
        line = previous.end_line if previous is not None else 1
        raise ConllFormatError(
            f"{system_name}:{line}: system file ends after {_sentences(done)}, "
            f"but {gold_name} goes on (sentence at line {gold.start_line})"
        )
    if gold is None:
        raise ConllFormatError(
            f"{system_name}:{system.start_line}: "
            f"extra sentence, {gold_name} ends after {_sentences(done)}"
        )
    where = (
        f"{system_name}:{system.start_line}: "
        f"sentence {done + 1} differs from {gold_name}:{gold.start_line}"
    )
    if len(system) != len(gold):
        raise ConllFormatError(f"{where}: {len(system)} words instead of {len(gold)}")
    if system.form != gold.form:
        index = next(i for i, (a, b) in enumerate(zip(system.form, gold.form)) if a != b)
        raise ConllFormatError(
            f"{where}: word {index + 1} is {system.form[index]!r}, gold has {gold.form[index]!r}"
        )


def _sentences(count: int) -> str:
    return f"{count} sentence" if count == 1 else f"{count} sentences"


def _count_sentence(
    gold: Sentence, system: Sentence, excluded: Callable[[Sentence, int], bool], counts: _Counts
) -> None:
    unlabelled_complete = labelled_complete = True
    for index in range(len(gold)):
        if excluded(gold, index):
            counts.excluded += 1
            continue
        counts.words += 1
        gold_label, system_label = gold.deprel[index], system.deprel[index]
        same_head = gold.head[index] == system.head[index]
        same_label = gold_label.partition(":")[0] == system_label.partition(":")[0]
        counts.labels += same_label
        if same_head:
            counts.heads += 1
            counts.labelled += same_label
            counts.labelled_exact += gold_label == system_label
        unlabelled_complete = unlabelled_complete and same_head
        labelled_complete = labelled_complete and same_head and same_label
    counts.sentences += 1
    counts.unlabelled_complete += unlabelled_complete
    counts.labelled_complete += labelled_complete


def _scores(counts: _Counts, punct: str) -> Scores:
    def percent(part: int, whole: int) -> float:
        return 100.0 * part / whole if whole else 0.0

    return Scores(
        UAS=percent(counts.heads, counts.words),
        LAS=percent(counts.labelled, counts.words),
        LAS_exact=percent(counts.labelled_exact, counts.words),
        LA=percent(counts.labels, counts.words),
        UEM=percent(counts.unlabelled_complete, counts.sentences),
        LEM=percent(counts.labelled_complete, counts.sentences),
        words=counts.words,
        sentences=counts.sentences,
        punct=punct,
        excluded=counts.excluded,
    )
