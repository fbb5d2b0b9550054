"""parser/segmentation/characters.py: the table's arrays equal character_features of each
character; classes name scripts; gaps are whitespace and control characters."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.parser.segmentation.characters import (
    CharacterTable,
    character_class,
    character_features,
    code_points,
)
from polyparse.parser.segmentation.text_units import FLAG_GAP, FLAG_NEWLINE, FLAG_PARAGRAPH
from tests.parser.segmentation.texts import random_text


@pytest.mark.parametrize("seed", range(5))
def test_table_arrays_equal_the_features_of_each_character(seed: int) -> None:
    text = random_text(seed)
    table = CharacterTable()
    for _ in range(2):  # the second time from what the table remembers
        value, klass, flags = table.arrays(code_points(text))
        expected = np.array([character_features(ord(char)) for char in text])
        assert value.tolist() == expected[:, 0].tolist()
        assert klass.tolist() == expected[:, 1].tolist()
        assert flags.tolist() == expected[:, 2].tolist()


def test_bmp_only_text_uses_the_dense_table() -> None:
    table = CharacterTable()
    value, _, _ = table.arrays(code_points("Ab"))
    assert value.tolist() == [ord("a"), ord("b")]
    assert table.known[ord("A")] and table.known[ord("b")] and not table.astral


def test_classes_name_category_and_script() -> None:
    assert character_class("a") == "Ll:LATIN"
    assert character_class("A") == "Lu:LATIN"
    assert character_class("あ") == "Lo:HIRAGANA"
    assert character_class("ア") == "Lo:KATAKANA"
    assert character_class("한") == "Lo:HANGUL"
    assert character_class("日") == "Lo:CJK"
    assert character_class(".") == "Po"
    assert character_class("7") == "Nd"
    assert character_class("\ue000") == "Co"


def test_values_lower_case_and_read_digits_as_zero() -> None:
    assert character_features(ord("Q"))[0] == ord("q")
    assert character_features(ord("7"))[0] == ord("0")
    assert character_features(ord("٣"))[0] == ord("0")  # ARABIC-INDIC DIGIT THREE
    # Lower-casing that gives two characters keeps the character.
    assert character_features(ord("İ"))[0] == ord("İ")


@pytest.mark.parametrize("char, flags", [
    (" ", FLAG_GAP), ("\t", FLAG_GAP), ("\n", FLAG_GAP | FLAG_NEWLINE), ("\x00", FLAG_GAP),
    ("\x85", FLAG_GAP), ("\u00a0", FLAG_GAP), ("\u2029", FLAG_GAP | FLAG_PARAGRAPH),
    ("a", 0), ("\u200b", 0),
])
def test_flags(char: str, flags: int) -> None:
    assert character_features(ord(char))[2] == flags


def test_code_points_keep_lone_surrogates() -> None:
    assert code_points("a\ud800\U0001F600").tolist() == [0x61, 0xD800, 0x1F600]
