"""How the benchmarks write figures for a reader: markdown tables and number formats."""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """The lines of a markdown table; None cells are left empty."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join("" if cell is None else str(cell) for cell in row) + " |")
    return lines


def significant(value: float | None, digits: int = 3) -> str:
    """value with `digits` significant digits (at least the units, grouped by thousands):
    0.0483, 0.33, 10.6, 448, 5,239; empty for None."""
    if value is None:
        return ""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def grouped(value: float | None) -> str:
    """A whole number grouped by thousands (5,239); empty for None."""
    return "" if value is None else f"{round(value):,}"


def seconds_text(seconds: float | None) -> str:
    """A duration as a reader takes it in: 0.33 s, 61.3 s, 448 s, 31 min 5 s; empty for None."""
    if seconds is None:
        return ""
    if seconds < 600:
        return f"{significant(seconds)} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"
