"""parser/segmentation/boundary_templates.pyx: the keys of every decision equal the plain-Python
reference's."""
from __future__ import annotations

import pytest

from polyparse.parser.segmentation.boundary_templates import (
    GAP_KEYS,
    INNER_KEYS,
    SENTENCE_KEYS,
    TokenTable,
    gap_keys_at,
    inner_keys_at,
    sentence_keys_at,
)
from polyparse.parser.segmentation.characters import character_arrays
from polyparse.parser.segmentation.text_units import TextUnits
from tests.parser.segmentation import reference
from tests.parser.segmentation.texts import random_text


def setup(text: str) -> tuple[TextUnits, reference.Units, list[tuple[int, int]]]:
    units = TextUnits(*character_arrays(text))
    expected = reference.units_of(text)
    return units, expected, reference.regions_of(expected)


@pytest.mark.parametrize("seed", range(6))
def test_inner_and_gap_keys_equal_the_reference(seed: int) -> None:
    units, expected, regions = setup(random_text(seed))
    checked = {"inner": 0, "gap": 0}
    for lo, hi in regions:
        for i in range(lo + 1, hi + 1):
            # Tokens so far of every length, short and longer than the templates read.
            for ts in sorted({lo, max(lo, i - 1), max(lo, i - 5), max(lo, i - 30)}):
                if expected.kind[i] == reference.CHAR and expected.kind[i - 1] == reference.CHAR:
                    keys = inner_keys_at(units, i, ts, lo, hi).tolist()
                    assert len(keys) == INNER_KEYS
                    assert keys == reference.inner_keys(expected, i, ts, lo, hi)
                    checked["inner"] += 1
                elif expected.kind[i] == reference.GAP:
                    keys = gap_keys_at(units, i, ts, lo, hi).tolist()
                    assert len(keys) == GAP_KEYS
                    assert keys == reference.gap_keys(expected, i, ts, lo, hi)
                    checked["gap"] += 1
    assert checked["inner"] and checked["gap"]


@pytest.mark.parametrize("seed", range(6))
def test_sentence_keys_and_token_hashes_equal_the_reference(seed: int) -> None:
    units, expected, regions = setup(random_text(seed))
    # Tokens: every chunk, cut once more in its middle when long enough.
    first, last, offsets = [], [], [0]
    for lo, hi in regions:
        for u in range(lo, hi + 1):
            if expected.kind[u] == reference.CHAR and expected.chunk_first[u] == u:
                end = expected.chunk_last[u]
                middle = (u + end) // 2
                if end - u >= 3:
                    first += [u, middle + 1]
                    last += [middle, end]
                else:
                    first.append(u)
                    last.append(end)
        offsets.append(len(first))
    table = TokenTable(units, first, last)
    tokens = reference.tokens_of(expected, first, last)
    n = len(first)
    assert table.whole[:n].tolist() == tokens.whole
    assert table.shape[:n].tolist() == tokens.shape
    assert table.suffix2[:n].tolist() == tokens.suffix2
    assert table.suffix3[:n].tolist() == tokens.suffix3
    assert table.prefix3[:n].tolist() == tokens.prefix3
    checked = 0
    for r0, stop in zip(offsets, offsets[1:]):
        r1 = stop - 1
        for t in range(r0, r1):
            for st in sorted({r0, t, max(r0, t - 12)}):
                keys = sentence_keys_at(units, table, t, st, r0, r1).tolist()
                assert len(keys) == SENTENCE_KEYS
                assert keys == reference.sentence_keys(expected, tokens, t, st, r0, r1)
                checked += 1
    assert checked


def test_keys_of_the_three_decisions_never_meet() -> None:
    units, _, _ = setup("ab c.")
    inner = inner_keys_at(units, 1, 0, 0, 4)
    gap = gap_keys_at(units, 2, 0, 0, 4)
    table = TokenTable(units, [0, 3, 4], [1, 3, 4])
    sentence = sentence_keys_at(units, table, 0, 0, 0, 2)
    templates = [{int(k) >> 56 for k in keys} for keys in (inner, gap, sentence)]
    assert not (templates[0] & templates[1] or templates[0] & templates[2]
                or templates[1] & templates[2])
    assert max(templates[2]) < 255  # never the hash table's empty key


def test_bad_positions_are_refused() -> None:
    units, _, _ = setup("ab c")
    with pytest.raises(ValueError):
        inner_keys_at(units, 2, 0, 0, 3)  # a gap
    with pytest.raises(ValueError):
        gap_keys_at(units, 1, 0, 0, 3)  # a character
    with pytest.raises(ValueError):
        inner_keys_at(units, 1, 2, 0, 3)  # the token so far starts after i
    with pytest.raises(ValueError):
        TokenTable(units, [0], [7])
