"""The morphological columns that the greedy parser's morph templates and the beam parser's
read (parser/dependency/feature_templates.pyx, zn2011_features.pyx): for each of MORPH_SLOTS
FEATS features, the treebank's most frequent ones, each word's value of it as an atomic string
(`Case=Nom`, `Case=_` when the word has none), and each word's suffix (the last SUFFIX_LENGTH
characters of its lowercase form). The feature names are learned from the training data, so
nothing here knows a language.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from polyparse.features.interning import StringInterner
from polyparse.parser.formats.conll import Sentence

# The FEATS features the templates read (a row of the morph column each).
MORPH_SLOTS = 6
# The characters of a word's suffix that the templates read (of its lowercase form).
SUFFIX_LENGTH = 3


def frequent_feature_names(sentences: Sequence[Sentence], most: int) -> list[str]:
    """The `most` FEATS feature names that the sentences' words carry most often (ties: by
    name), in that order."""
    counts = Counter(pair.split("=", 1)[0] for sentence in sentences
                     for feats in sentence.feats if feats != "_"
                     for pair in feats.split("|") if "=" in pair)
    return [name for name, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            ][:most]


class MorphValues:
    """Each word's `name=value` of its FEATS for each feature name (`name=_` when it has
    none), worked out once for each distinct FEATS string."""

    def __init__(self, names: list[str]) -> None:
        self.prefixes = [name + "=" for name in names]
        self.known: dict[str, tuple[str, ...]] = {}

    def of(self, feats: str) -> tuple[str, ...]:
        found = self.known.get(feats)
        if found is None:
            pairs = feats.split("|")
            found = self.known[feats] = tuple(
                next((pair for pair in pairs if pair.startswith(prefix)), prefix + "_")
                for prefix in self.prefixes)
        return found

    def column(self, sentence: Sentence, slot: int) -> list[str]:
        """The values of one feature (the names' slot-th) of the sentence's words."""
        feats = sentence.feats or ["_"] * len(sentence.form)
        return [self.of(word_feats)[slot] for word_feats in feats]


def word_suffixes(sentence: Sentence) -> list[str]:
    """The last SUFFIX_LENGTH characters of each word's lowercase form."""
    return [form.lower()[-SUFFIX_LENGTH:] for form in sentence.form]


def morph_columns(sentences: Sequence[Sentence], wanted: bool, names: list[str],
                  values: StringInterner, suffixes: StringInterner, grow: bool, n_tokens: int,
                  encoded_columns: Callable[..., tuple[list[np.ndarray], Any]]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The columns over every token, the root's values 1 (encoded_columns lays them out as the
    parser's other columns): MORPH_SLOTS rows of the values of the named features, and the
    suffixes (grow: unseen strings are added to the interners); zeros when not wanted."""
    morph = np.zeros((MORPH_SLOTS, n_tokens), dtype=np.int32)
    if not wanted:
        return morph, np.zeros(n_tokens, dtype=np.int32)
    found = MorphValues(names)
    columns = [(values, partial(found.column, slot=slot), grow) for slot in range(len(names))]
    columns.append((suffixes, word_suffixes, grow))
    encoded, _ = encoded_columns(sentences, columns)
    for slot, column in enumerate(encoded[:-1]):
        morph[slot] = column
    return morph, encoded[-1]
