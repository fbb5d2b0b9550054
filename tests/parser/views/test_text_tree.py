"""Text-mode trees (parser/views/text_tree.py) of hand-checked sentences."""
from __future__ import annotations

from polyparse.parser.views.text_tree import text_tree
from tests.parser.views.trees import CROSSING, INTERLEAVED, conllu, tree_of

# Checked by hand: each word's line two columns right of its head's, but hearing's, which
# passes right of the words "is" and "scheduled" that it spans and does not govern (the arc
# to "it" is non-projective).
CROSSING_TEXT = """\
# sent_id = crossing-1
# text = A hearing is scheduled on it today
─┮
 │                       ╭─╼ A DET det
 │ ╭─────────────────────┾ hearing NOUN nsubj
 │ ├─╼ is AUX aux        │
 ╰─┾ scheduled VERB root │
   │                     │ ╭─╼ on ADP case
   │                     ╰─┶ it PRON nmod
   ╰─╼ today NOUN obl:tmod
"""

# c's line crosses b's arc (╪); b's own line passes right of c.
INTERLEAVED_TEXT = """\
# text = a b c d e
─┮
 │             ╭─╼ a X dep
 │ ╭─┮ b X dep │
 │ ├─╪─────────┶ c X dep
 │ │ ╰─╼ d X dep
 ╰─┶ e X root
"""


def test_the_crossing_sentence_is_drawn_as_checked_by_hand() -> None:
    assert text_tree(tree_of(CROSSING)) == CROSSING_TEXT


def test_interleaved_arcs_cross_with_their_own_mark() -> None:
    assert text_tree(tree_of(INTERLEAVED)) == INTERLEAVED_TEXT


def test_a_projective_tree_is_indented_by_depth() -> None:
    text = text_tree(tree_of(conllu([("Dogs", "NOUN", "NNS", 2, "nsubj"),
                                     ("bark", "VERB", "VBP", 0, "root"),
                                     (".", "PUNCT", ".", 2, "punct")])))
    assert text.splitlines()[1:] == ["─┮", " │ ╭─╼ Dogs NOUN nsubj", " ╰─┾ bark VERB root",
                                     "   ╰─╼ . PUNCT punct"]


def test_colour_marks_the_parts_and_the_non_projective_arc() -> None:
    plain = text_tree(tree_of(CROSSING))
    coloured = text_tree(tree_of(CROSSING), color=True)
    assert "\x1b[1mh" in coloured and "\x1b[36mN" in coloured and "\x1b[33mn" in coloured
    it_line = next(line for line in coloured.splitlines() if "it" in line and "PRON" in line)
    assert "\x1b[35m╰─┶\x1b[0m \x1b[1mit\x1b[0m" in it_line
    assert "\x1b" not in plain


def test_wide_characters_take_two_columns() -> None:
    text = text_tree(tree_of(conllu([("猫", "NOUN", "_", 2, "nsubj"), ("寝る", "VERB", "_", 0,
                                                                      "root")])))
    assert text.splitlines()[-2:] == [" │ ╭─╼ 猫 NOUN nsubj", " ╰─┶ 寝る VERB root"]
