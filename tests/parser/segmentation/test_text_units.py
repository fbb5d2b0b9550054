"""parser/segmentation/text_units.pyx: units, chunks and regions equal the plain-Python
reference."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.parser.segmentation.characters import character_arrays
from polyparse.parser.segmentation.text_units import KINDS, TextUnits, combine_values, hash_sequence
from tests.parser.segmentation import reference
from tests.parser.segmentation.texts import random_text


def units(text: str, lines: bool = False) -> TextUnits:
    return TextUnits(*character_arrays(text), lines)


def assert_same_units(found: TextUnits, expected: reference.Units) -> None:
    n = len(found)
    assert n == len(expected.kind)
    assert found.value[:n].tolist() == expected.value
    assert found.klass[:n].tolist() == expected.klass
    assert found.kind[:n].tolist() == expected.kind
    assert found.start.tolist() == expected.start
    assert found.chunk_first[:n].tolist() == expected.chunk_first
    assert found.chunk_last[:n].tolist() == expected.chunk_last
    assert found.chunk_hash[:n].tolist() == expected.chunk_hash


@pytest.mark.parametrize("lines", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_units_and_regions_equal_the_reference(seed: int, lines: bool) -> None:
    text = random_text(seed)
    found = units(text, lines)
    expected = reference.units_of(text, lines)
    assert_same_units(found, expected)
    assert [tuple(region) for region in found.regions().tolist()] == \
        reference.regions_of(expected)


def test_hash_helpers_equal_the_reference() -> None:
    assert hash_sequence([1, 2, 3]) == reference.sequence_hash([1, 2, 3])
    assert hash_sequence([]) == reference.SEED
    assert combine_values(5, 7) == reference.combine(5, 7)


def test_gap_kinds() -> None:
    found = units("a b\nc\n\nd \u2029e\r\n\r\nf")
    kinds = {name: value for name, value in KINDS.items()}
    assert found.kind[:len(found)].tolist() == [
        kinds["char"], kinds["gap"], kinds["char"], kinds["gap"], kinds["char"],
        kinds["paragraph"], kinds["char"], kinds["paragraph"], kinds["char"],
        kinds["paragraph"], kinds["char"]]
    lines = units("a b\nc", lines=True)
    assert lines.kind[:len(lines)].tolist() == [kinds["char"], kinds["gap"], kinds["char"],
                                                kinds["line"], kinds["char"]]


@pytest.mark.parametrize("text, regions", [
    ("", []), ("   ", []), ("\n\n\n", []), ("ab", [(0, 1)]), ("  ab  ", [(1, 2)]),
    ("a\n\nb c", [(0, 0), (2, 4)]), ("x\n\n\n\ny", [(0, 0), (2, 2)]),
])
def test_regions(text: str, regions: list[tuple[int, int]]) -> None:
    assert [tuple(region) for region in units(text).regions().tolist()] == regions


def test_empty_text_has_no_units() -> None:
    found = units("")
    assert len(found) == 0 and found.start.tolist() == [0]


def test_arrays_must_have_one_entry_per_character() -> None:
    with pytest.raises(ValueError):
        TextUnits(np.zeros(3, dtype=np.uint32), np.zeros(2, dtype=np.uint32),
                  np.zeros(3, dtype=np.uint8))
