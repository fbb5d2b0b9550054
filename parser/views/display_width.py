"""How many columns of a terminal (or of a monospaced font) a string takes: East Asian wide and
full-width characters take two, combining marks and zero-width characters none, every other
character one (the rules of POSIX wcwidth, from Unicode's East Asian Width property)."""
from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["display_width", "pad_to_width"]

# Format characters that take no room: zero-width space, joiners, marks of direction.
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u200e\u200f\u2060\ufeff")


@lru_cache(maxsize=65536)
def _character_width(character: str) -> int:
    if character in _ZERO_WIDTH or unicodedata.combining(character):
        return 0
    category = unicodedata.category(character)
    if category in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns the text takes; ASCII text takes its length."""
    if text.isascii():
        return len(text)
    return sum(_character_width(character) for character in text)


def pad_to_width(text: str, width: int) -> str:
    """The text with spaces before it up to width columns (right-aligned)."""
    return " " * max(0, width - display_width(text)) + text
