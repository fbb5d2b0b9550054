"""StringInterner: strings (words, tags, labels) to dense int ids, with reserved ids 0-2."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

RESERVED = ("<none>", "<root>", "<unknown>")
ROOT_ID = 1
UNKNOWN = 2
# The id of the first string learned: a learned string's index among learned() is its id
# minus FIRST_ID (a parser's label classes are these indices).
FIRST_ID = len(RESERVED)


class StringInterner:
    """Maps strings to ids >= 3; ids 0, 1, 2 mean no token, the root token and unknown."""

    def __init__(self, strings: Iterable[str] = ()) -> None:
        self.strings: list[str] = list(RESERVED)
        self.ids: dict[str, int] = {s: i for i, s in enumerate(self.strings)}
        given = list(strings)
        if len(set(given)) == len(given) and not self.ids.keys() & set(given):
            self.ids.update({s: i for i, s in enumerate(given, len(self.strings))})
            self.strings.extend(given)
        else:
            for s in given:
                self.add(s)

    def __len__(self) -> int:
        return len(self.strings)

    def add(self, s: str) -> int:
        found = self.ids.get(s)
        if found is None:
            found = self.ids[s] = len(self.strings)
            self.strings.append(s)
        return found

    def get(self, s: str) -> int:
        return self.ids.get(s, UNKNOWN)

    def encode(self, strings: Iterable[str], grow: bool = False) -> list[int]:
        if grow:
            return [self.add(s) for s in strings]
        ids = self.ids
        return [ids.get(s, UNKNOWN) for s in strings]

    def learned(self) -> list[str]:
        """The strings beyond the reserved ones, in id order (what a model file stores)."""
        return self.strings[FIRST_ID:]

    def as_array(self, strings: Iterable[str], grow: bool = False) -> np.ndarray:
        return np.asarray(self.encode(strings, grow), dtype=np.int32)
