"""Estimated widths in pixels of text set in a sans-serif font, for laying out SVG pictures
without measuring fonts: ASCII characters by Helvetica's advance widths (as its AFM file gives
them, in thousandths of an em) made a tenth wider, since the fonts the pictures name (DejaVu
Sans, Noto Sans, the system's UI font) are wider; East Asian wide characters one em; anything
else six tenths of an em. Overestimating only leaves a little more room."""
from __future__ import annotations

from polyparse.parser.views.display_width import display_width

__all__ = ["text_width"]

_HELVETICA = {
    " ": 278, "!": 278, '"': 355, "#": 556, "$": 556, "%": 889, "&": 667, "'": 191, "(": 333,
    ")": 333, "*": 389, "+": 584, ",": 278, "-": 333, ".": 278, "/": 278, ":": 278, ";": 278,
    "<": 584, "=": 584, ">": 584, "?": 556, "@": 1015, "[": 278, "\\": 278, "]": 278, "^": 469,
    "_": 556, "`": 333, "{": 334, "|": 260, "}": 334, "~": 584,
    "A": 667, "B": 667, "C": 722, "D": 722, "E": 667, "F": 611, "G": 778, "H": 722, "I": 278,
    "J": 500, "K": 667, "L": 556, "M": 833, "N": 722, "O": 778, "P": 667, "Q": 778, "R": 722,
    "S": 667, "T": 611, "U": 722, "V": 667, "W": 944, "X": 667, "Y": 667, "Z": 611,
    "a": 556, "b": 556, "c": 500, "d": 556, "e": 556, "f": 278, "g": 556, "h": 556, "i": 222,
    "j": 222, "k": 500, "l": 222, "m": 833, "n": 556, "o": 556, "p": 556, "q": 556, "r": 333,
    "s": 500, "t": 278, "u": 556, "v": 500, "w": 722, "x": 500, "y": 500, "z": 500,
}
_DIGIT = 556
_OTHER = 600
_WIDE = 1000
_WIDER_FONTS = 1.1


def _thousandths(character: str) -> int:
    if character.isascii():
        return _HELVETICA.get(character, _DIGIT if character.isdigit() else _OTHER)
    columns = display_width(character)
    return _OTHER if columns == 1 else _WIDE * columns // 2


def text_width(text: str, font_size: float) -> float:
    """The estimated width in pixels of text set at font_size pixels."""
    return sum(_thousandths(character) for character in text) * font_size * _WIDER_FONTS / 1000
