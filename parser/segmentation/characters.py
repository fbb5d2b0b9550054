"""Characters as the segmenter reads them, from the Unicode Character Database alone (no
language, script or word list of our own):

- value: the lower-cased code point (when lower-casing gives one character), every decimal digit
  (category Nd) read as ``0``;
- class: the general category, and for letters and marks (L*, M*) also the first word of the
  character's Unicode name, which names its script (LATIN, GREEK, CJK, HIRAGANA, KATAKANA,
  HANGUL, ...); the class string is hashed to a 32-bit id;
- flags: FLAG_GAP for whitespace (str.isspace) and control characters (category Cc), which
  separate tokens as parser/tokenize/segmenter.py's GAP does; FLAG_NEWLINE for a line feed;
  FLAG_PARAGRAPH for the paragraph separator U+2029.

character_arrays(text) gives the three arrays of a text; a table remembers the characters of
the Basic Multilingual Plane it has met, so that a text costs a few NumPy gathers.
"""
from __future__ import annotations

import unicodedata
import zlib

import numpy as np

from polyparse.parser.segmentation.text_units import FLAG_GAP, FLAG_NEWLINE, FLAG_PARAGRAPH

__all__ = ["CharacterTable", "character_arrays", "character_class", "character_features",
           "code_points"]

_BMP = 0x10000
# Class ids below this are the segmenter's own (text_units.pxd: GAP_CLASS, EDGE_CLASS).
_RESERVED_CLASSES = 16


def character_class(char: str) -> str:
    """The class string of one character (see the module notes)."""
    category = unicodedata.category(char)
    if category[0] in "LM":
        name = unicodedata.name(char, "")
        script = name.split(" ", 1)[0] if name else ""
        return f"{category}:{script}"
    return category


def character_features(code: int) -> tuple[int, int, int]:
    """(value, class id, flags) of the character with this code point."""
    char = chr(code)
    category = unicodedata.category(char)
    flags = 0
    if char.isspace() or category == "Cc":
        flags |= FLAG_GAP
    if char == "\n":
        flags |= FLAG_NEWLINE
    if char == "\u2029":
        flags |= FLAG_PARAGRAPH
    if category == "Nd":
        value = ord("0")
    else:
        lower = char.lower()
        value = ord(lower) if len(lower) == 1 else code
    klass = _RESERVED_CLASSES + (zlib.crc32(character_class(char).encode("utf-8"))
                                 & 0xFFFFFF)
    return value, klass, flags


def code_points(text: str) -> np.ndarray:
    """The code points of text (lone surrogates included) as uint32."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


class CharacterTable:
    """character_features of the characters met so far: BMP characters in arrays, the others
    in a dictionary."""

    def __init__(self) -> None:
        self.value = np.zeros(_BMP, dtype=np.uint32)
        self.klass = np.zeros(_BMP, dtype=np.uint32)
        self.flags = np.zeros(_BMP, dtype=np.uint8)
        self.known = np.zeros(_BMP, dtype=bool)
        self.astral: dict[int, tuple[int, int, int]] = {}

    def arrays(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(value, class, flags) arrays of the code points."""
        if codes.size and int(codes.max()) >= _BMP:
            unique, inverse = np.unique(codes, return_inverse=True)
            rows = np.array([self._features(int(code)) for code in unique],
                            dtype=np.uint32).reshape(-1, 3)
            return (rows[inverse, 0], rows[inverse, 1], rows[inverse, 2].astype(np.uint8))
        missing = codes[~self.known[codes]]
        if missing.size:
            for code in np.unique(missing).tolist():
                self._features(code)
        return self.value[codes], self.klass[codes], self.flags[codes]

    def _features(self, code: int) -> tuple[int, int, int]:
        if code < _BMP:
            if not self.known[code]:
                value, klass, flags = character_features(code)
                self.value[code], self.klass[code], self.flags[code] = value, klass, flags
                self.known[code] = True
            return int(self.value[code]), int(self.klass[code]), int(self.flags[code])
        found = self.astral.get(code)
        if found is None:
            found = self.astral[code] = character_features(code)
        return found


_TABLE: CharacterTable | None = None


def character_arrays(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, class, flags) of every character of text."""
    global _TABLE
    if _TABLE is None:
        _TABLE = CharacterTable()
    return _TABLE.arrays(code_points(text))
