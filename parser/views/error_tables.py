"""Counts of right and wrong units by group (relation, part of speech, arc length, sentence
length ...) for one or more systems, and the HTML tables that show them."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from html import escape

__all__ = ["Breakdown", "Tally", "html_table", "percent", "percent_text"]


@dataclass
class Tally:
    """Units counted, and those with the right head, and with the right head and label."""

    units: int = 0
    head_right: int = 0
    both_right: int = 0

    def add(self, head_right: bool, both_right: bool) -> None:
        self.units += 1
        self.head_right += head_right
        self.both_right += both_right

    @property
    def head_wrong(self) -> int:
        return self.units - self.head_right

    @property
    def label_wrong(self) -> int:
        """Units whose head is right and label wrong."""
        return self.head_right - self.both_right

    @property
    def errors(self) -> int:
        return self.units - self.both_right


@dataclass
class Breakdown:
    """A Tally per group and per system (group -> one Tally per system)."""

    n_systems: int
    groups: dict[str, list[Tally]] = field(default_factory=dict)

    def add(self, group: str, system: int, head_right: bool, both_right: bool) -> None:
        tallies = self.groups.get(group)
        if tallies is None:
            tallies = self.groups[group] = [Tally() for _ in range(self.n_systems)]
        tallies[system].add(head_right, both_right)

    def tally(self, group: str, system: int) -> Tally:
        return self.groups.get(group, [Tally()] * self.n_systems)[system]

    def total(self, system: int) -> Tally:
        total = Tally()
        for tallies in self.groups.values():
            total.units += tallies[system].units
            total.head_right += tallies[system].head_right
            total.both_right += tallies[system].both_right
        return total

    def ordered(self, key: Callable[[str], object] | None = None) -> list[str]:
        """The groups, by key (default: the most units first, then by name)."""
        if key is None:
            return sorted(self.groups, key=lambda g: (-self.groups[g][0].units, g))
        return sorted(self.groups, key=key)


def percent(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def percent_text(part: int, whole: int) -> str:
    """A percentage with two decimals, or an en dash when nothing is counted."""
    return f"{percent(part, whole):.2f}" if whole else "–"


def html_table(header: Sequence[str], rows: Iterable[Sequence[str]],
               total: Sequence[str] | None = None, better: Sequence[tuple[int, int]] = ()) -> str:
    """A table of text cells (escaped here); total: a last row set apart; better: pairs of
    column indices whose larger number is marked in each row (two systems side by side)."""
    def cells(row: Sequence[str], tag: str) -> str:
        marked = set()
        for first, second in better:
            values = [_number(row[first]), _number(row[second])]
            if None not in values and values[0] != values[1]:
                marked.add(first if values[0] > values[1] else second)
        return "".join(f"<{tag}{' class=pp-better' if i in marked else ''}>{escape(cell)}</{tag}>"
                       for i, cell in enumerate(row))

    body = "".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows)
    if total is not None:
        body += f"<tr class=\"pp-total\">{cells(total, 'td')}</tr>"
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    return f'<table class="pp-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
