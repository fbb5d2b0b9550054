"""Text-mode dependency trees drawn with box characters, one word a line in the order of the
sentence, as udapi's write.TextModeTrees draws them:

    ─┮
     │ ╭─╼ Dogs NOUN nsubj
     ╰─┾ bark VERB root
       ╰─╼ . PUNCT punct

The first line is the root. Every word that has dependents has a vertical line through the
lines of its dependents and its own; each dependent hangs on it by a horizontal line that ends
in the dependent's mark (╼ a word without dependents; ┮, ┶, ┾ a word whose own line goes down,
up, or both). A word's line is placed as far left as it can go without touching another word's
mark or text or another line: in a projective tree that is two columns right of its head's,
so the columns show the depth. The line of a non-projective arc crosses others (╪ where a
horizontal line crosses a vertical one) or passes to the right of the words it spans, and with
colour it is drawn in its own colour.
"""
from __future__ import annotations

from collections.abc import Sequence

from polyparse.parser.views.arc_layout import nonprojective_words
from polyparse.parser.views.display_width import display_width
from polyparse.parser.views.sentence_tree import SentenceTree
from polyparse.parser.views.terminal_colors import paint

__all__ = ["text_tree"]

Cell = tuple[str, str]  # (character, style; "" for none)
WORD_LEAF, WORD_DOWN, WORD_UP, WORD_BOTH = "╼", "┮", "┶", "┾"
TOP, BOTTOM, MIDDLE, PASSING, ACROSS, CROSSING = "╭", "╰", "├", "│", "─", "╪"


def text_tree(tree: SentenceTree, color: bool = False) -> str:
    """The tree's lines (see the module notes) after its `# sent_id` and `# text` lines, each
    line ending in a newline; with color, ANSI colours (terminal_colors)."""
    lines = []
    if tree.sent_id:
        lines.append(f"# sent_id = {tree.sent_id}")
    if tree.text:
        lines.append(f"# text = {tree.text}")
    lines.extend(_render(_grid(tree), color))
    return "".join(line + "\n" for line in lines)


def _row_text(tree: SentenceTree, word: int) -> list[Cell]:
    """The cells of a word's text: form, tag and label, each in its style."""
    cells: list[Cell] = []
    for text, style in ((tree.words[word - 1], "form"), (tree.tag(word), "tag"),
                        (tree.labels[word - 1], "label")):
        if not text or text == "_":
            continue
        if cells:
            cells.append((" ", ""))
        cells.extend(_wide_cells(text, style))
    return cells


def _wide_cells(text: str, style: str) -> list[Cell]:
    """One cell per column: a wide character fills two (the second holds "")."""
    cells: list[Cell] = []
    for character in text:
        width = display_width(character)
        if width == 0 and cells:
            cells[-1] = (cells[-1][0] + character, style)
            continue
        cells.append((character, style))
        if width == 2:
            cells.append(("", style))
    return cells


class _Layout:
    """The columns of the words' lines, chosen word by word from the root down."""

    def __init__(self, tree: SentenceTree) -> None:
        n = len(tree)
        self.heads = [max(head, 0) for head in tree.heads]
        self.children: list[list[int]] = [[] for _ in range(n + 1)]
        for word, head in enumerate(self.heads, 1):
            self.children[head].append(word)
        self.span = [(min([word, *kids]), max([word, *kids])) if kids else None
                     for word, kids in enumerate(self.children)]
        self.widths = [0] + [len(_row_text(tree, word)) for word in range(1, n + 1)]
        self.column: dict[int, int] = {0: 1}

    def text_end(self, word: int) -> int:
        """The last column a placed word's mark and text take."""
        return self.column[word] + 1 + self.widths[word]

    def fits(self, word: int, x: int) -> bool:
        """Whether word can take column x given the words placed before it: no other word's
        line passes through its mark or its text (or the column after it), its own line passes
        through no placed word's mark or text, and no other line overlapping its own takes the
        same column."""
        parent = self.heads[word - 1]
        end = x + 1 + self.widths[word]
        span = self.span[word]
        for other, column in self.column.items():
            other_span = self.span[other]
            if other_span is not None and other != parent and \
                    other_span[0] < word < other_span[1] and x <= column <= end + 1:
                return False
            if span is None:
                continue
            if other != 0 and span[0] < other < span[1] and column <= x <= self.text_end(other) + 1:
                return False
            if other_span is not None and column == x and \
                    max(span[0], other_span[0]) <= min(span[1], other_span[1]):
                return False
        return True

    def place(self) -> None:
        level = [0]
        while level:
            following = []
            for head in level:
                for word in self.children[head]:
                    x = self.column[head] + 2
                    while not self.fits(word, x):
                        x += 1
                    self.column[word] = x
                    following.append(word)
            level = sorted(following)


def _grid(tree: SentenceTree) -> list[list[Cell]]:
    layout = _Layout(tree)
    layout.place()
    crossing = nonprojective_words(tree.heads)
    rows: list[list[Cell]] = [[] for _ in range(len(tree) + 1)]

    def put(row: int, x: int, character: str, style: str) -> None:
        cells = rows[row]
        if len(cells) <= x:
            cells.extend([(" ", "")] * (x + 1 - len(cells)))
        cells[x] = (character, style)

    for head, kids in enumerate(layout.children):
        span = layout.span[head]
        if span is None:
            continue
        x = layout.column[head]
        for row in range(span[0], span[1] + 1):
            if row == head:
                continue
            if row in kids:
                character = TOP if row == span[0] else BOTTOM if row == span[1] else MIDDLE
                put(row, x, character, "crossing" if row in crossing else "")
            else:
                put(row, x, PASSING, "")
    for word in range(len(tree) + 1):
        x = layout.column.get(word)
        if x is None:
            continue
        span = layout.span[word]
        up = span is not None and span[0] < word
        down = span is not None and span[1] > word
        mark = WORD_BOTH if up and down else WORD_UP if up else WORD_DOWN if down else WORD_LEAF
        style = "crossing" if word in crossing else ""
        start = 0 if word == 0 else layout.column[layout.heads[word - 1]] + 1
        for column in range(start, x):
            cells = rows[word]
            passing = column < len(cells) and cells[column][0] == PASSING
            put(word, column, CROSSING if passing else ACROSS, style)
        put(word, x, mark, style)
        if word:
            for offset, cell in enumerate(_row_text(tree, word)):
                put(word, x + 2 + offset, *cell)
    return rows


def _render(rows: Sequence[Sequence[Cell]], color: bool) -> list[str]:
    """The lines of the grid; with color, each run of cells of one style painted at once."""
    lines = []
    for cells in rows:
        parts = []
        run: list[str] = []
        run_style = ""
        for character, style in [*cells, ("", "end")]:
            if style != run_style and run:
                text = "".join(run)
                parts.append(paint(text, run_style) if color and run_style else text)
                run = []
            run_style = style
            run.append(character)
        lines.append("".join(parts).rstrip())
    return lines
