"""Whether an input gives the parser the tags it was trained on.

A model reads one tag column in its templates (`tag_column`) and splits its states by another
(`split_column`); it knows the tags each column held in training. Words whose tag is missing
("_") or was never seen in that column make the model's features meaningless, and a whole file
of them parses at a fraction of the model's accuracy. TagCoverage counts both while a file is
parsed and gives one warning line when they are more than WARN_SHARE of the words. The
fallback the parser applies is the one of DependencyParser: a missing XPOS is read as the
word's UPOS.
"""
from __future__ import annotations

from collections.abc import Iterable

from parser.dependency.dependency_parser import DependencyParser
from parser.formats.conll import Sentence

# Share of words with a missing or unknown tag above which the input is reported.
WARN_SHARE = 0.1
COLUMN_NAMES = {"xpos": "XPOS", "upos": "UPOS"}


class TagCoverage:
    """Counts, per tag column the model reads, the words without a tag and with unknown tags."""

    def __init__(self, parser: DependencyParser) -> None:
        config = parser.config
        self.columns = [column for column in dict.fromkeys((config.tag_column,
                                                            config.split_column))
                        if column in COLUMN_NAMES]
        self.known = {column: frozenset(parser.column_tags(column)) for column in self.columns}
        self.words = 0
        self.missing = dict.fromkeys(self.columns, 0)
        self.unknown = dict.fromkeys(self.columns, 0)

    def add(self, sentences: Iterable[Sentence]) -> None:
        for sentence in sentences:
            self.words += len(sentence)
            for column in self.columns:
                known = self.known[column]
                for tag in getattr(sentence, column):
                    if tag == "_":
                        self.missing[column] += 1
                    elif tag not in known:
                        self.unknown[column] += 1

    def warning(self, source: str) -> str | None:
        """One line about the worst column when its missing and unknown tags exceed WARN_SHARE
        of the words, else None."""
        if not self.words or not self.columns:
            return None
        column = max(self.columns, key=lambda c: self.missing[c] + self.unknown[c])
        missing, unknown = self.missing[column], self.unknown[column]
        if missing + unknown <= WARN_SHARE * self.words:
            return None
        name = COLUMN_NAMES[column]
        parts = []
        if missing:
            parts.append(f"{missing} of {self.words} words have no {name} (\"_\")")
        if unknown:
            parts.append(f"{unknown} have {name} tags the model never saw in training")
        fallback = " (a missing XPOS is read as the UPOS)" if missing and column == "xpos" else ""
        return (f"{source}: {' and '.join(parts)}; the model reads {name}, so these words are "
                f"parsed with little of its accuracy{fallback}")
