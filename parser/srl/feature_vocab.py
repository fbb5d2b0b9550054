"""The feature vocabulary of the SRL boundary dataset (datasets/srl_boundary/README.md,
"Vector"): feature strings numbered from 1 in the order of their first appearance in the
training instances (per instance in the order pt, lem, path, pos, voice, hw, subcat); features
never seen in training are dropped from dev and test instances.

The file ``features.vocab`` has one line per feature, ``ID<TAB>FEATURE``, ids 1, 2, 3, ... in
order. This is the dataset's own numbering, not the frequency ranking of features/vocab.py:
the dataset's files are the contract here.
"""
from __future__ import annotations

import os
from collections.abc import Iterable

from polyparse.features.errors import InputError
from polyparse.features.output_files import output_stream
from polyparse.parser.formats.text_lines import text_lines

__all__ = ["FeatureVocabError", "FirstSeenVocab"]


class FeatureVocabError(InputError):
    """A malformed ``features.vocab`` file: ``path:LINE: problem``."""


class FirstSeenVocab:
    """Feature strings to ids from 1 in order of first appearance; frozen, it only looks up."""

    __slots__ = ("ids", "frozen")

    def __init__(self, features: Iterable[str] = (), frozen: bool = False) -> None:
        self.ids: dict[str, int] = {}
        for feature in features:
            self.ids.setdefault(feature, len(self.ids) + 1)
        self.frozen = frozen

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, feature: str) -> bool:
        return feature in self.ids

    @property
    def n_features(self) -> int:
        """One past the largest id (the width of a vector over this vocabulary)."""
        return len(self.ids) + 1

    def vector(self, features: Iterable[str]) -> list[int]:
        """The ascending ids of features: unseen ones are added unless frozen, else dropped."""
        ids = self.ids
        if self.frozen:
            found = {ids[feature] for feature in features if feature in ids}
        else:
            found = {ids.setdefault(feature, len(ids) + 1) for feature in features}
        return sorted(found)

    def features(self) -> list[str]:
        """The feature strings in id order."""
        return list(self.ids)

    @classmethod
    def read(cls, path: str | os.PathLike) -> FirstSeenVocab:
        """The frozen vocabulary of a ``features.vocab`` file."""
        display = os.fspath(path)
        vocab = cls(frozen=True)
        ids = vocab.ids
        for number, line in enumerate(text_lines(path, None, "utf-8", display,
                                                 FeatureVocabError), 1):
            number_text, tab, feature = line.partition("\t")
            if not tab or not feature:
                raise FeatureVocabError(f"{display}:{number}: expected ID<TAB>FEATURE")
            if number_text != str(number):
                raise FeatureVocabError(f"{display}:{number}: id {number_text!r}, expected "
                                        f"{number} (ids count from 1 line by line)")
            if feature in ids:
                raise FeatureVocabError(f"{display}:{number}: feature {feature!r} is already "
                                        f"id {ids[feature]}")
            ids[feature] = number
        return vocab

    def write(self, path: str | os.PathLike) -> None:
        """Write the ``features.vocab`` file (temporary file, then ``os.replace``)."""
        with output_stream(path, newline="\n") as out:
            out.write("".join(f"{number}\t{feature}\n" for feature, number in self.ids.items()))
