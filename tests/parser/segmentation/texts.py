"""Random texts for the equivalence tests: letters of several scripts and cases, digits,
punctuation, spaces, tabs, line feeds, blank lines, control characters, a paragraph separator,
a no-break space, a lone surrogate, an astral character and a combining mark."""
from __future__ import annotations

import random

PIECES = (list("abcdefgXYZ") * 4 + list("0189.,!?\"'()-:") * 2 + list("日本語한국어") +
          [chr(0xE000 + k) for k in range(5)] + [" "] * 12 + ["\t", "\n", "\n\n", "\x00",
          "\x07", "\u2029", "\u00a0", "\ud800", "\U0001F600", "e\u0301", "  \n  ", "\r\n"])


def random_text(seed: int, length: int = 300) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(PIECES) for _ in range(length))
