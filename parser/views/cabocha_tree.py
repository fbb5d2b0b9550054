"""Bunsetsu trees as CaboCha prints them with `-f0` (tree.cpp's write_tree): one bunsetsu a
line, right-aligned two columns further right than the line before, then a two-column cell for
each later bunsetsu: `-D` under the head (the dependency type: D, or KNP's P, A, I), ` |` where
an earlier bunsetsu's arc comes down to a later one, `--` on the way to the head, blanks after
it; `EOS` ends the sentence (太郎は, 本を and 次郎に depend on 渡した。):

    太郎は---------D
      花子が-D     |
    読んでいる-D   |
            本を---D
            次郎に-D
            渡した。
    EOS

Widths are display columns (a Japanese character takes two). A sentence with an id starts
with KNP's `# S-ID:` comment line.
"""
from __future__ import annotations

from polyparse.parser.views.display_width import display_width
from polyparse.parser.views.sentence_tree import SentenceTree
from polyparse.parser.views.terminal_colors import paint

__all__ = ["cabocha_tree"]


def cabocha_tree(tree: SentenceTree, color: bool = False) -> str:
    """The tree of a sentence of bunsetsu (a SentenceTree from bunsetsu_tree), every line
    ending in a newline, `EOS` last; with color, surfaces bold and dependency types green."""
    n = len(tree)
    widths = [display_width(word) for word in tree.words]
    longest = max(widths, default=0)
    landed = [False] * n
    lines = [f"# S-ID:{tree.sent_id}"] if tree.sent_id else []
    for i, word in enumerate(tree.words):
        head = tree.heads[i] - 1
        cells = []
        found = False
        for j in range(i + 1, n):
            if j == head:
                dep_type = tree.labels[i] or "D"
                cells.append("-" + (paint(dep_type, "type") if color else dep_type))
                landed[j] = True
                found = True
            elif landed[j]:
                cells.append(" |")
            elif found:
                cells.append("  ")
            else:
                cells.append("--")
        surface = paint(word, "form") if color else word
        line = " " * (longest - widths[i] + 2 * i) + surface + "".join(cells)
        lines.append(line.rstrip())
    lines.append("EOS")
    return "".join(line + "\n" for line in lines)
