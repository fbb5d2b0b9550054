"""LazyTable: a dict whose values may be left as builders, each called when its value is first
asked for, so that loading a model builds only the classifiers a run uses."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, MutableMapping
from typing import Any


class LazyTable(MutableMapping):
    """A mutable mapping in insertion order; add_pending(key, build) stores build() in place of
    a value until the key is read (then it is built once and kept). Iterating over keys builds
    nothing; values(), items() and get() build what they return."""

    def __init__(self) -> None:
        self._values: dict[Hashable, Any] = {}
        self._pending: dict[Hashable, Callable[[], Any]] = {}
        self._order: dict[Hashable, None] = {}

    def add_pending(self, key: Hashable, build: Callable[[], Any]) -> None:
        self._values.pop(key, None)
        self._pending[key] = build
        self._order[key] = None

    def is_built(self, key: Hashable) -> bool:
        """Whether key holds a value (False for a pending key or a missing one)."""
        return key in self._values

    def __getitem__(self, key: Hashable) -> Any:
        if key in self._values:
            return self._values[key]
        build = self._pending[key]
        value = build()
        # Threads that asked at once (a build may release the GIL) all get the first value.
        value = self._values.setdefault(key, value)
        self._pending.pop(key, None)
        return value

    def __setitem__(self, key: Hashable, value: Any) -> None:
        self._pending.pop(key, None)
        self._values[key] = value
        self._order[key] = None

    def __delitem__(self, key: Hashable) -> None:
        del self._order[key]
        self._values.pop(key, None)
        self._pending.pop(key, None)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, key: object) -> bool:
        return key in self._order

    def __repr__(self) -> str:
        return (f"LazyTable({len(self._values)} built, {len(self._pending)} pending: "
                f"{list(self._order)!r})")
