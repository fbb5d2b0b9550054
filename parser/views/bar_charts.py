"""Horizontal bar charts as plain SVG: a row per group, one bar per series (side by side) or
one bar of stacked parts, the value written after each bar. Plain SVG made here rather than a
plotting library: the charts are simple, the pages stay self-contained and small, and no
package is added to polyparse's dependencies."""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

from polyparse.parser.views.text_metrics import text_width

__all__ = ["bar_chart"]

FONT_SIZE = 11
ROW_GAP = 6
BAR_HEIGHT = 12
BAR_AREA = 300
LEGEND_HEIGHT = 20
MARGIN = 6


def _value_text(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


def bar_chart(title: str, rows: Sequence[tuple[str, Sequence[float]]],
              series: Sequence[tuple[str, str]], stacked: bool = False,
              maximum: float | None = None, decimals: int = 0) -> str:
    """An SVG chart (class pp-chart) titled title: rows of (group, one value per series);
    series: (name, CSS class of its bars); stacked: the values of a row make one bar (their
    sum is written), else each series has its bar; maximum: the value of a full bar (default:
    the largest bar)."""
    label_width = max([text_width(group, FONT_SIZE) for group, _ in rows] + [20]) + 8
    bars_per_row = 1 if stacked else len(series)
    row_height = bars_per_row * BAR_HEIGHT + ROW_GAP
    largest = max([sum(values) if stacked else max(values, default=0)
                   for _, values in rows] + [0])
    full = maximum if maximum is not None else largest or 1
    width = MARGIN + label_width + BAR_AREA + 60
    height = MARGIN + LEGEND_HEIGHT + len(rows) * row_height + MARGIN
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="pp-chart" width="{width:.0f}" '
             f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
             f"<title>{escape(title)}</title>"]
    x = MARGIN + label_width
    for name, css in series:
        parts.append(f'<rect class="{css}" x="{x:.0f}" y="{MARGIN + 3}" width="10" '
                     'height="10"/>')
        parts.append(f'<text x="{x + 14:.0f}" y="{MARGIN + 12}">{escape(name)}</text>')
        x += 14 + text_width(name, FONT_SIZE) + 16
    top = MARGIN + LEGEND_HEIGHT
    left = MARGIN + label_width
    parts.append(f'<line class="pp-axis" x1="{left}" y1="{top - 2}" x2="{left}" '
                 f'y2="{height - MARGIN}"/>')
    for row, (group, values) in enumerate(rows):
        y = top + row * row_height
        parts.append(f'<text x="{left - 6:.0f}" y="{y + bars_per_row * BAR_HEIGHT / 2 + 4:.0f}" '
                     f'text-anchor="end">{escape(group)}</text>')
        if stacked:
            start = left
            for value, (_, css) in zip(values, series):
                length = BAR_AREA * value / full
                parts.append(f'<rect class="{css}" x="{start:.1f}" y="{y:.0f}" '
                             f'width="{length:.1f}" height="{BAR_HEIGHT}"/>')
                start += length
            parts.append(f'<text x="{start + 4:.1f}" y="{y + BAR_HEIGHT - 2:.0f}">'
                         f"{_value_text(sum(values), decimals)}</text>")
            continue
        for bar, (value, (_, css)) in enumerate(zip(values, series)):
            length = BAR_AREA * value / full
            bar_y = y + bar * BAR_HEIGHT
            parts.append(f'<rect class="{css}" x="{left}" y="{bar_y:.0f}" width="{length:.1f}" '
                         f'height="{BAR_HEIGHT - 1}"/>')
            parts.append(f'<text x="{left + length + 4:.1f}" y="{bar_y + BAR_HEIGHT - 2:.0f}">'
                         f"{_value_text(value, decimals)}</text>")
    parts.append("</svg>")
    return "".join(parts)
