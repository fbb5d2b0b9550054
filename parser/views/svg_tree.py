"""SVG pictures of dependency trees, in the style of displaCy and brat: the words in a row,
each form with its tags (UPOS, XPOS) below it, every arc drawn above the words from its head to
its dependent (the arrow end) with its label on it, and the root as an arrow from the top.
Arcs have straight legs and rounded corners at the heights arc_layout gives, so that crossing
(non-projective) arcs are two lines that cross; they are drawn dashed in another colour.

Every arc is a group (class "arc") holding its line, its arrow and its label, with the head
and the dependent in data-head and data-dependent; the root's arrow is a group of class
"root"; every word is a group (class "word", data-word) holding its form and tags.

A comparison picture draws a gold tree above the words and a system's tree below them, each
system arc marked by what the scores say of it: right, wrong head, or right head with a wrong
label (the words take the same mark).

The pictures are sized from estimated text widths (text_metrics), so they need no font; long
sentences give wide pictures (an HTML page scrolls them sideways). A standalone picture is an
SVG document with its own style sheet; an inline one (for an HTML page that holds the style
once) has none.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from importlib.resources import files

from polyparse.parser.views.arc_layout import arc_levels, endpoint_order, nonprojective_words
from polyparse.parser.views.sentence_tree import SentenceTree
from polyparse.parser.views.text_metrics import text_width

__all__ = ["DrawnArc", "comparison_svg", "tree_style", "tree_svg"]

FORM_SIZE = 15
TAG_SIZE = 11
LABEL_SIZE = 11
TAG_LINE = 14
WORD_GAP = 22
MIN_WORD_WIDTH = 18
LEVEL_HEIGHT = 22
MARGIN = 10
CORNER = 5
SLOT_GAP = 6
LABEL_PADDING = 16
ARROW_WIDTH = 7
ARROW_LENGTH = 7
# The text a side of a comparison picture is named by, at its left edge.
SIDE_NAMES = ("gold", "system")


@dataclass(frozen=True)
class DrawnArc:
    """An arc of a picture: head and dependent from 1 (head 0: the root's arrow), its label,
    and CSS classes beside "arc"."""

    head: int
    dependent: int
    label: str
    classes: str = ""

    @property
    def span(self) -> tuple[int, int]:
        return min(self.head, self.dependent), max(self.head, self.dependent)


def tree_style() -> str:
    """The style sheet of the pictures (classes pp-tree, word, arc, ...)."""
    return files("polyparse.parser.views").joinpath("tree_style.css").read_text(encoding="utf-8")


def tree_svg(tree: SentenceTree, standalone: bool = True) -> str:
    """The picture of a tree; words without a head (-1) have no arc."""
    crossing = nonprojective_words(tree.heads)
    arcs = [DrawnArc(head, word, label, "crossing" if word in crossing else "")
            for word, (head, label) in enumerate(zip(tree.heads, tree.labels), 1) if head >= 0]
    return picture_svg(tree, arcs, [], [""] * len(tree), standalone)


def comparison_svg(gold: SentenceTree, system: SentenceTree, marks: Sequence[str],
                   standalone: bool = False, names: tuple[str, str] = SIDE_NAMES) -> str:
    """The gold tree above the words and the system's below (system: the same words with the
    system's heads and labels, -1 where it has none); marks[i] is word i + 1's mark: "" (right),
    "head-wrong", "label-wrong" or "excluded" (not scored), a class of its system arc and of
    the word. names: the names written at the left edge of each side."""
    above = [DrawnArc(head, word, label, "gold")
             for word, (head, label) in enumerate(zip(gold.heads, gold.labels), 1) if head >= 0]
    below = [DrawnArc(head, word, label, f"system {marks[word - 1]}".strip())
             for word, (head, label) in enumerate(zip(system.heads, system.labels), 1)
             if head >= 0]
    return picture_svg(gold, above, below, marks, standalone, names)


def picture_svg(tree: SentenceTree, above: Sequence[DrawnArc], below: Sequence[DrawnArc],
                word_marks: Sequence[str], standalone: bool,
                names: tuple[str, str] | None = None) -> str:
    """The SVG of tree's words with the arcs above and below them (see the module notes)."""
    n = len(tree)
    n_tags = max((len(tags) for tags in tree.tags), default=0)
    boxes = [max([MIN_WORD_WIDTH, text_width(form, FORM_SIZE)]
                 + [text_width(tag, TAG_SIZE) for tag in tags if tag != "_"])
             for form, tags in zip(tree.words, tree.tags)]
    named = names is not None and bool(below)
    gutter = max(text_width(name, LABEL_SIZE) for name in names) + 10 if named else 0.0
    centres = _centres(boxes, [*above, *below], MARGIN + gutter)
    above_levels = _levels(above)
    below_levels = _levels(below)
    top_height = (max(above_levels, default=0) + 1) * LEVEL_HEIGHT
    base_above = MARGIN + top_height
    form_baseline = base_above + FORM_SIZE + 3
    words_bottom = form_baseline + n_tags * TAG_LINE + 4
    base_below = words_bottom + 2
    bottom_height = (max(below_levels, default=0) + 1) * LEVEL_HEIGHT if below else 0
    height = base_below + bottom_height + MARGIN
    width = (centres[-1] + boxes[-1] / 2 if n else 0) + MARGIN
    parts = [_open_svg(tree, width, height, standalone)]
    if named:
        parts.append(f"<text class='side' x='{MARGIN}' y='{_n(base_above - 4)}'>"
                     f"{escape(names[0])}</text>")
        parts.append(f"<text class='side' x='{MARGIN}' y='{_n(base_below + LABEL_SIZE + 2)}'>"
                     f"{escape(names[1])}</text>")
    for word in range(1, n + 1):
        parts.append(_word(tree, word, centres[word - 1], form_baseline, word_marks[word - 1]))
    parts.extend(_arcs(above, above_levels, centres, boxes, base_above, -1, MARGIN))
    parts.extend(_arcs(below, below_levels, centres, boxes, base_below, 1, height - MARGIN))
    parts.append("</svg>")
    return "".join(parts)


def _n(value: float) -> str:
    """A coordinate, in whole pixels."""
    return str(round(value))


def _centres(boxes: Sequence[float], arcs: Sequence[DrawnArc], start: float) -> list[float]:
    """The x of each word's centre, the first word's box starting at start: each word after
    the one before it, far enough that every arc's label fits between its ends."""
    needed: dict[int, list[tuple[int, float]]] = {}
    for arc in arcs:
        if arc.head > 0:
            left, right = arc.span
            needed.setdefault(right, []).append(
                (left, text_width(arc.label, LABEL_SIZE) + LABEL_PADDING))
    centres: list[float] = []
    for index, box in enumerate(boxes):
        if index == 0:
            centres.append(start + box / 2)
            continue
        x = centres[-1] + (boxes[index - 1] + box) / 2 + WORD_GAP
        for left, room in needed.get(index + 1, ()):
            x = max(x, centres[left - 1] + room)
        centres.append(x)
    return centres


def _levels(arcs: Sequence[DrawnArc]) -> list[int]:
    """Each arc's level; the root's arrows take none (0)."""
    spans = [arc.span for arc in arcs if arc.head > 0]
    levels = iter(arc_levels(spans))
    return [next(levels) if arc.head > 0 else 0 for arc in arcs]


def _open_svg(tree: SentenceTree, width: float, height: float, standalone: bool) -> str:
    title = f"{tree.sent_id}: {tree.text}" if tree.sent_id else tree.text
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n' if standalone else "")
    style = f"<style>{tree_style()}</style>" if standalone else ""
    return (f"{head}<svg xmlns='http://www.w3.org/2000/svg' class='pp-tree' "
            f"width='{_n(width)}' height='{_n(height)}' viewBox='0 0 {_n(width)} {_n(height)}' "
            f"role='img'><title>{escape(title)}</title>{style}")


def _word(tree: SentenceTree, word: int, x: float, baseline: float, mark: str) -> str:
    classes = f"word {mark}".strip()
    texts = [(f"<text class='form' x='{_n(x)}' y='{_n(baseline)}'>"
              f"{escape(tree.words[word - 1])}</text>")]
    for line, tag in enumerate(tree.tags[word - 1], 1):
        if tag and tag != "_":
            texts.append(f"<text class='tag' x='{_n(x)}' y='{_n(baseline + line * TAG_LINE)}'>"
                         f"{escape(tag)}</text>")
    return f"<g class='{classes}' data-word='{word}'>{''.join(texts)}</g>"


def _arcs(arcs: Sequence[DrawnArc], levels: Sequence[int], centres: Sequence[float],
          boxes: Sequence[float], base: float, direction: int, edge: float) -> list[str]:
    """The arcs of one side: above the words (direction -1: upwards from base) or below them
    (1); a root's arrow reaches out to edge."""
    ends = _endpoints(arcs, centres, boxes)
    drawn = []
    for index, arc in enumerate(arcs):
        dependent_x = ends[index][1]
        classes = f"{'root' if arc.head == 0 else 'arc'} {arc.classes}".strip()
        data = f"data-head='{arc.head}' data-dependent='{arc.dependent}'"
        if arc.head == 0:
            if direction < 0:
                label_y = edge + LABEL_SIZE - 1
                far = label_y + 3 if arc.label else edge
            else:
                label_y = edge - 1
                far = label_y - LABEL_SIZE - 1 if arc.label else edge
            line = f"M{_n(dependent_x)} {_n(far)}V{_n(base)}"
            label_at = (dependent_x, label_y)
        else:
            head_x = ends[index][0]
            top = base + direction * levels[index] * LEVEL_HEIGHT
            left, right = sorted((head_x, dependent_x))
            corner = min(CORNER, (right - left) / 2)
            bend = -direction * corner
            line = (f"M{_n(left)} {_n(base)}V{_n(top + bend)}"
                    f"Q{_n(left)} {_n(top)} {_n(left + corner)} {_n(top)}"
                    f"H{_n(right - corner)}Q{_n(right)} {_n(top)} {_n(right)} {_n(top + bend)}"
                    f"V{_n(base)}")
            label_at = ((left + right) / 2, top + LABEL_SIZE * 0.36)
        arrow = (f"M{_n(dependent_x)} {_n(base)}l{_n(-ARROW_WIDTH / 2)} "
                 f"{_n(direction * ARROW_LENGTH)}h{_n(ARROW_WIDTH)}z")
        drawn.append(f"<g class='{classes}' {data}><path class='line' d='{line}'/>"
                     f"<path class='arrow' d='{arrow}'/>{_label(arc.label, *label_at)}</g>")
    return drawn


def _label(label: str, x: float, baseline: float) -> str:
    if not label:
        return ""
    width = text_width(label, LABEL_SIZE) + 4
    return (f"<rect x='{_n(x - width / 2)}' y='{_n(baseline - LABEL_SIZE + 1)}' "
            f"width='{_n(width)}' height='{LABEL_SIZE + 2}'/>"
            f"<text class='label' x='{_n(x)}' y='{_n(baseline)}'>{escape(label)}</text>")


def _endpoints(arcs: Sequence[DrawnArc], centres: Sequence[float],
               boxes: Sequence[float]) -> list[tuple[float, float]]:
    """(x at the head, x at the dependent) of each arc: the arcs that reach a word spread over
    its width in endpoint_order's order."""
    reaching: dict[int, list[tuple[int, int, int]]] = {}
    for index, arc in enumerate(arcs):
        reaching.setdefault(arc.dependent, []).append(
            (index, 1, arc.head if arc.head > 0 else arc.dependent))
        if arc.head > 0:
            reaching.setdefault(arc.head, []).append((index, 0, arc.dependent))
    ends = [[0.0, 0.0] for _ in arcs]
    for word, found in reaching.items():
        order = endpoint_order([other for _, _, other in found])
        count = len(found)
        gap = min(SLOT_GAP, (boxes[word - 1] - 4) / (count - 1)) if count > 1 else 0.0
        for (index, end, _), rank in zip(found, order):
            ends[index][end] = centres[word - 1] + (rank - (count - 1) / 2) * gap
    return [(head, dependent) for head, dependent in ends]
