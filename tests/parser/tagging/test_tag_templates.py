"""The compiled tagger templates and training rows against the plain-Python reference."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.parser.tagging.lexicon import N_ATTRIBUTES
from polyparse.parser.tagging.tag_decoder import training_keys
from polyparse.parser.tagging.tag_templates import template_names, token_keys
from tests.parser.tagging.reference import reference_keys


def random_sentences(seed: int, n_sentences: int = 6, n_entries: int = 30):
    rng = np.random.default_rng(seed)
    lexicon = rng.integers(2, 1 << 20, size=(n_entries, N_ATTRIBUTES)).astype(np.int32)
    lengths = rng.integers(1, 9, size=n_sentences)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    entry = rng.integers(0, n_entries, size=offsets[-1]).astype(np.int32)
    gold = rng.integers(0, 40, size=offsets[-1]).astype(np.int32)
    right = rng.integers(0, 40, size=offsets[-1]).astype(np.int32)
    return lexicon, entry, offsets, gold, right


TEMPLATE_SETS = ["left", "two-pass", "left+splits", "two-pass+splits"]


@pytest.mark.parametrize("template_set", TEMPLATE_SETS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_token_keys_equal_reference(template_set: str, seed: int) -> None:
    lexicon, entry, offsets, gold, right = random_sentences(seed)
    two_pass = template_set.startswith("two-pass")
    splits = template_set.endswith("+splits")
    for k in range(len(offsets) - 1):
        words = entry[offsets[k]:offsets[k + 1]]
        tags = gold[offsets[k]:offsets[k + 1]]
        r = right[offsets[k]:offsets[k + 1]]
        for i in range(len(words)):
            got = token_keys(lexicon, words, tags, r if two_pass else None, i, template_set)
            expected = reference_keys(lexicon, list(words), list(tags), list(r), i, two_pass,
                                      splits)
            assert got.tolist() == expected
            assert len(got) == len(template_names(template_set))


@pytest.mark.parametrize("template_set", TEMPLATE_SETS)
def test_training_keys_are_the_token_keys_with_gold_tags(template_set: str) -> None:
    lexicon, entry, offsets, gold, right = random_sentences(5)
    two_pass = template_set.startswith("two-pass")
    keys = training_keys(lexicon, entry, offsets, gold, right if two_pass else None,
                         template_set)
    row = 0
    for k in range(len(offsets) - 1):
        a, b = offsets[k], offsets[k + 1]
        for i in range(b - a):
            expected = reference_keys(lexicon, list(entry[a:b]), list(gold[a:b]),
                                      list(right[a:b]), i, two_pass,
                                      template_set.endswith("+splits"))
            assert keys[row].tolist() == expected
            row += 1
    assert row == keys.shape[0]


def test_bad_arrays_are_refused() -> None:
    lexicon, entry, offsets, gold, right = random_sentences(3)
    with pytest.raises(ValueError, match="lexicon"):
        training_keys(lexicon[:, :5], entry, offsets, gold, None, "left")
    with pytest.raises(ValueError, match="entry"):
        training_keys(lexicon, entry + 100, offsets, gold, None, "left")
    with pytest.raises(ValueError, match="offsets"):
        training_keys(lexicon, entry, offsets[:-1], gold, None, "left")
    with pytest.raises(ValueError, match="first pass"):
        training_keys(lexicon, entry, offsets, gold, None, "two-pass")
