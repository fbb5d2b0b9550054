"""LazyTable against a plain dict: the same mapping, each pending value built once, on use."""
from __future__ import annotations

import pytest

from polyparse.classifiers.lazy_table import LazyTable


def counting_table() -> tuple[LazyTable, list[str]]:
    built: list[str] = []
    table = LazyTable()
    table["a"] = 1
    for key, value in (("b", 2), ("c", 3)):
        table.add_pending(key, lambda key=key, value=value: built.append(key) or value)
    return table, built


def test_keys_build_nothing_and_values_build_once() -> None:
    table, built = counting_table()
    assert list(table) == ["a", "b", "c"] and len(table) == 3 and "c" in table
    assert built == [] and not table.is_built("b") and table.is_built("a")
    assert table["c"] == 3 and table["c"] == 3 and built == ["c"]
    assert table.get("b") == 2 and table.get("z") is None and built == ["c", "b"]
    assert dict(table) == {"a": 1, "b": 2, "c": 3}
    assert built == ["c", "b"]


def test_it_behaves_as_a_dict() -> None:
    table, _ = counting_table()
    plain = {"a": 1, "b": 2, "c": 3}
    table["b"] = 20
    plain["b"] = 20
    del table["c"]
    del plain["c"]
    table["d"] = 4
    plain["d"] = 4
    assert dict(table.items()) == plain and list(table) == list(plain)
    with pytest.raises(KeyError):
        table["c"]


def test_a_failing_build_stays_pending() -> None:
    calls = []

    def build() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("broken")
        return 5

    table = LazyTable()
    table.add_pending("x", build)
    with pytest.raises(ValueError):
        table["x"]
    assert table["x"] == 5 and len(calls) == 2


def test_threads_asking_at_once_get_one_value() -> None:
    import threading

    started = threading.Barrier(4)
    table = LazyTable()
    table.add_pending("x", lambda: (started.wait(), object())[1])
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(table["x"])) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 4 and all(value is got[0] for value in got) and table.is_built("x")
