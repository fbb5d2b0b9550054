"""parser/segmentation/boundary_decoder.pyx: greedy decoding and training rows equal the
plain-Python reference (random weights over the keys a text has), and LinearWeights scores as
the reference sums."""
from __future__ import annotations

import random

import numpy as np
import pytest

from polyparse.parser.segmentation.boundary_decoder import (
    LinearWeights,
    decode_sentences,
    decode_tokens,
    sentence_training_rows,
    token_training_rows,
)
from polyparse.parser.segmentation.boundary_templates import TokenTable
from polyparse.parser.segmentation.characters import character_arrays
from polyparse.parser.segmentation.text_units import TextUnits
from tests.parser.segmentation import reference
from tests.parser.segmentation.texts import random_text


def random_weights(rows: list[list[int]], rng: random.Random) -> tuple[dict[int, float], float]:
    """Weights for a random half of the keys of rows (float32 values), and a bias."""
    keys = sorted({key for row in rows for key in row})
    chosen = rng.sample(keys, len(keys) // 2)
    return ({key: float(np.float32(rng.uniform(-1, 1))) for key in chosen},
            float(np.float32(rng.uniform(-0.5, 0.5))))


def linear(weights: tuple[dict[int, float], float]) -> LinearWeights:
    table, bias = weights
    keys = sorted(table)
    return LinearWeights(np.array(keys, dtype=np.uint64),
                         np.array([table[k] for k in keys], dtype=np.float32), bias)


def all_rows(expected: reference.Units, regions: list[tuple[int, int]]
             ) -> tuple[list[list[int]], list[list[int]]]:
    inner, gaps = [], []
    for lo, hi in regions:
        for i in range(lo + 1, hi + 1):
            for ts in (lo, max(lo, i - 1), max(lo, i - 3)):
                if expected.kind[i] == reference.CHAR and expected.kind[i - 1] == reference.CHAR:
                    inner.append(reference.inner_keys(expected, i, ts, lo, hi))
                elif expected.kind[i] == reference.GAP:
                    gaps.append(reference.gap_keys(expected, i, ts, lo, hi))
    return inner, gaps


@pytest.mark.parametrize("with_gaps", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_decoding_equals_the_reference(seed: int, with_gaps: bool) -> None:
    rng = random.Random(seed)
    text = random_text(seed)
    units = TextUnits(*character_arrays(text))
    expected = reference.units_of(text)
    regions = reference.regions_of(expected)
    inner_rows, gap_rows = all_rows(expected, regions)
    inner = random_weights(inner_rows, rng)
    gap = random_weights(gap_rows, rng) if with_gaps else None
    first, last, offsets = decode_tokens(units, units.regions(), linear(inner),
                                         linear(gap) if gap else None)
    ref_first, ref_last, ref_offsets = reference.decode_tokens(expected, regions, inner, gap)
    assert (first.tolist(), last.tolist(), offsets.tolist()) == (ref_first, ref_last,
                                                                 ref_offsets)
    assert len(set(np.diff(first).tolist())) > 1  # the weights made varied tokens
    tokens = reference.tokens_of(expected, ref_first, ref_last)
    sentence_rows = [reference.sentence_keys(expected, tokens, t, r0, r0, stop - 1)
                     for r0, stop in zip(ref_offsets, ref_offsets[1:]) for t in range(r0,
                                                                                  stop - 1)]
    sentence = random_weights(sentence_rows, rng)
    ends = decode_sentences(units, TokenTable(units, first, last), offsets, linear(sentence))
    assert ends.tolist() == reference.decode_sentences(expected, tokens, ref_offsets, sentence)


@pytest.mark.parametrize("seed", range(4))
def test_training_rows_equal_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    text = random_text(seed)
    units = TextUnits(*character_arrays(text))
    expected = reference.units_of(text)
    regions = reference.regions_of(expected)
    gold = [int(rng.random() < 0.4) for _ in expected.kind]
    for with_gaps in (False, True):
        inner, inner_labels, gaps, gap_labels, first, last, offsets = token_training_rows(
            units, units.regions(), np.array(gold, dtype=np.uint8), with_gaps)
        ref = reference.token_training_rows(expected, regions, gold, with_gaps)
        assert inner.tolist() == ref[0] and inner_labels.tolist() == ref[1]
        assert gaps.tolist() == ref[2] and gap_labels.tolist() == ref[3]
        assert len(first) == len(last) == offsets[-1]
        tokens = TokenTable(units, first, last)
        sentence_gold = [int(rng.random() < 0.3) for _ in range(len(first))]
        keys, labels = sentence_training_rows(units, tokens, offsets,
                                              np.array(sentence_gold, dtype=np.uint8))
        ref_tokens = reference.tokens_of(expected, first.tolist(), last.tolist())
        ref_rows, ref_labels = [], []
        for r0, stop in zip(offsets.tolist(), offsets[1:].tolist()):
            st = r0
            for t in range(r0, stop - 1):
                ref_rows.append(reference.sentence_keys(expected, ref_tokens, t, st, r0,
                                                        stop - 1))
                ref_labels.append(sentence_gold[t])
                if sentence_gold[t]:
                    st = t + 1
        assert keys.tolist() == ref_rows and labels.tolist() == ref_labels


def test_constant_weights_split_everywhere_or_nowhere() -> None:
    units = TextUnits(*character_arrays("ab cd\n\nef"))
    regions = units.regions()
    empty = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.float32))
    first, last, offsets = decode_tokens(units, regions, LinearWeights(*empty, 1.0))
    assert [units.start[a] for a in first] == [0, 1, 3, 4, 7, 8]
    first, last, offsets = decode_tokens(units, regions, LinearWeights(*empty, -1.0),
                                         LinearWeights(*empty, -1.0))
    assert (first.tolist(), last.tolist(), offsets.tolist()) == ([0, 6], [4, 7], [0, 1, 2])


def test_linear_weights_score_as_the_reference() -> None:
    rng = random.Random(1)
    for width in (6, 100):  # rows longer than a decision's, too
        rows = [[rng.randrange(1, 50) for _ in range(width)] for _ in range(20)]
        weights = random_weights(rows, rng)
        scores = linear(weights).scores(np.array(rows, dtype=np.uint64))
        assert scores.tolist() == [reference.score(*weights, row) for row in rows]


def test_linear_weights_refuse_repeated_keys() -> None:
    with pytest.raises(ValueError):
        LinearWeights(np.array([3, 3], dtype=np.uint64), np.ones(2, dtype=np.float32), 0.0)
