"""CoNLL-U files with columns emptied, for the benchmarks that score a model on input it must
fill in itself (no XPOS, or no tags at all)."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

# 0-based CoNLL-U columns.
LEMMA, UPOS, XPOS, FEATS = 2, 3, 4, 5


def blank_columns(source: Path, target: Path, columns: Iterable[int]) -> Path:
    """target: source with the given columns of every word line (not range lines, not empty
    nodes) written as _."""
    columns = tuple(columns)
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            for column in columns:
                fields[column] = "_"
        lines.append("\t".join(fields))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target
