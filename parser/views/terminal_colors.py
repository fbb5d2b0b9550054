"""Colour in a terminal: ANSI SGR sequences for the parts of a text tree, used only when the
output is a terminal, `--no-color` is not given and the environment does not ask for none
(NO_COLOR, https://no-color.org)."""
from __future__ import annotations

import os
from typing import IO

__all__ = ["STYLES", "paint", "wants_color"]

# The SGR parameters of each part of a text tree.
STYLES = {
    "form": "1",          # bold
    "tag": "36",          # cyan
    "label": "33",        # yellow
    "crossing": "35",     # magenta: the lines of non-projective arcs
    "type": "32",         # green: the dependency types of a bunsetsu tree
}


def paint(text: str, style: str) -> str:
    """text in the style's colour (STYLES), reset after it."""
    return f"\x1b[{STYLES[style]}m{text}\x1b[0m" if text else text


def wants_color(stream: IO, no_color: bool = False) -> bool:
    """Whether to colour what is written to stream: it is a terminal, no_color is not set and
    NO_COLOR is not set (to anything but the empty string) in the environment."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
