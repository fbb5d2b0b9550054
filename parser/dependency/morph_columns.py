"""The morphological columns that the greedy parser's morph templates and the beam parser's
read (parser/dependency/feature_templates.pyx, zn2011_features.pyx): for each of MORPH_SLOTS
FEATS features, the treebank's most frequent ones, each word's value of it as an atomic string
(`Case=Nom`, `Case=_` when the word has none), and each word's suffix (the last SUFFIX_LENGTH
characters of its lowercase form). The feature names are learned from the training data, so
nothing here knows a language.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from polyparse.features.interning import ROOT_ID, StringInterner
from polyparse.parser.formats.conll import Sentence

# The FEATS features the templates read (a row of the morph column each).
MORPH_SLOTS = 6
# The characters of a word's suffix that the templates read (of its lowercase form).
SUFFIX_LENGTH = 3


def morph_header(names: list[str], values: StringInterner, suffixes: StringInterner
                 ) -> dict[str, list[str]]:
    """A model file's header entries of the morph columns: the feature names read, and the
    values and suffixes learned."""
    return {"morph_names": list(names), "morph_values": values.learned(),
            "suffixes": suffixes.learned()}


def morph_strings(header: dict) -> tuple[list[str], StringInterner, StringInterner]:
    """The feature names, values and suffixes of a model file's header (morph_header's);
    ValueError for more names than the templates have slots."""
    names = [str(name) for name in header["morph_names"]]
    if len(names) > MORPH_SLOTS:
        raise ValueError(f"{len(names)} morph features, at most {MORPH_SLOTS}")
    return names, StringInterner(header["morph_values"]), StringInterner(header["suffixes"])


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


def word_suffix(form: str) -> str:
    """The last SUFFIX_LENGTH characters of a word's lowercase form."""
    return form.lower()[-SUFFIX_LENGTH:]


def morph_columns(sentences: Sequence[Sentence], wanted: bool, names: list[str],
                  values: StringInterner, suffixes: StringInterner, grow: bool, n_tokens: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The columns over every token of the sentences, each sentence's root first (value 1), as
    the parser lays out its other columns: MORPH_SLOTS rows of the ids of the named features'
    values, and the ids of the words' suffixes (grow: unseen strings are added to the
    interners, else they are unknown); zeros when not wanted. Each distinct FEATS string and
    form is worked out once."""
    morph = np.zeros((MORPH_SLOTS, n_tokens), dtype=np.int32)
    suffix = np.zeros(n_tokens, dtype=np.int32)
    if not wanted:
        return morph, suffix
    found = MorphValues(names)
    value_id = values.add if grow else values.get
    suffix_id = suffixes.add if grow else suffixes.get
    feats_ids: dict[str, tuple[int, ...]] = {}
    form_ids: dict[str, int] = {}
    root = (ROOT_ID,) * len(names)
    rows: list[tuple[int, ...]] = []
    ends: list[int] = []
    for sentence in sentences:
        rows.append(root)
        ends.append(ROOT_ID)
        feats = (sentence.feats if len(sentence.feats) == len(sentence.form)
                 else ["_"] * len(sentence.form))
        for word_feats, form in zip(feats, sentence.form):
            ids = feats_ids.get(word_feats)
            if ids is None:
                ids = feats_ids[word_feats] = tuple(value_id(v) for v in found.of(word_feats))
            rows.append(ids)
            end = form_ids.get(form)
            if end is None:
                end = form_ids[form] = suffix_id(word_suffix(form))
            ends.append(end)
    if len(rows) != n_tokens:
        raise ValueError(f"{len(rows)} tokens for columns of {n_tokens}")
    if names:
        morph[:len(names)] = np.asarray(rows, dtype=np.int32).reshape(n_tokens, len(names)).T
    suffix[:] = ends
    return morph, suffix
