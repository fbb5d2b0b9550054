"""Brackets as words (features/penn_brackets.py): read as a tag's only word where the tree's
shape says so, refused in one line where it is ambiguous or an empty node `()` would be left;
every other tree read exactly as nltk's Tree.fromstring reads it."""
from __future__ import annotations

import numpy as np
import pytest
from nltk import Tree

from polyparse.features.penn_brackets import TreeSyntaxError, parse_tree
from polyparse.features.svmlight_tk import SvmlightTkFormatError, parse_svmlight_tk_bytes
from polyparse.features.trees import TreeForest

from ..classifiers.tree_kernels.test_kernels import random_tree

LRB, RRB = Tree("-LRB-", ["("]), Tree("-RRB-", [")"])


@pytest.mark.parametrize("text, tree", [
    # A tree whose words are brackets: -LRB- and -RRB- hold the words ( and ), NP has three children.
    ("(NP (-LRB- () (NN x) (-RRB- )))", Tree("NP", [LRB, Tree("NN", ["x"]), RRB])),
    ("(NP (-LRB- ( ) (NN x) (-RRB- ) ))", Tree("NP", [LRB, Tree("NN", ["x"]), RRB])),
    ("(S (PRN (-LRB- () (NP (NN y)) (-RRB- ))) (VP (VBZ z)))",
     Tree("S", [Tree("PRN", [LRB, Tree("NP", [Tree("NN", ["y"])]), RRB]),
                Tree("VP", [Tree("VBZ", ["z"])])])),
    ("(S (SYM () (NP (NN a)) (SYM () (NP (NN b)))",
     Tree("S", [Tree("SYM", ["("]), Tree("NP", [Tree("NN", ["a"])]), Tree("SYM", ["("]),
                Tree("NP", [Tree("NN", ["b"])])])),
    ("(NP (NN x) (-RRB- )))", Tree("NP", [Tree("NN", ["x"]), RRB])),
    ("(NP (-RRB- )) (-RRB- )))", Tree("NP", [RRB, RRB])),
    # Childless nodes keep nltk's reading when the brackets balance without a word ")".
    ("(S (X) (-LRB- () (Y))", Tree("S", [Tree("X", []), LRB, Tree("Y", [])])),
    ("(BOW (a) (b ))", Tree("BOW", [Tree("a", []), Tree("b", [])])),
    # Escaped brackets are characters of words and labels, kept verbatim (nltk's reading).
    ("(NN \\()", Tree("NN", ["\\("])),
    ("(NP (NN a\\(b\\)) (X\\( \\)y))", Tree("NP", [Tree("NN", ["a\\(b\\)"]),
                                                  Tree("X\\(", ["\\)y"])])),
])
def test_brackets_read_as_words(text: str, tree: Tree) -> None:
    assert parse_tree(text) == tree


@pytest.mark.parametrize("text, problem", [
    ("(S () (X y))", r"^'\(\)' is a node with neither label nor children; a bracket is a word "
                     r"only as a tag's only word, \(-LRB- \(\) or \(-RRB- \)\); write a bracket "
                     r"word -LRB- / -RRB- or \\\( \\\)$"),
    ("()", "'\\(\\)' is a node with neither label nor children"),
    ("(S (X ()) (Y z))", "'\\(\\)' is a node with neither label nor children"),
    ("(S (A ) (B )) (C ))", r"^1 of the 2 childless nodes before a '\)' would be the word '\)' "
                            r"\(ambiguous\)"),
    ("(NP (NN x) (-RRB- ))))", r"^unbalanced brackets \(3 '\(' and 5 '\)'\); a bracket is a "
                               r"word only as a tag's only word"),
    ("(NP (-LRB- () (NN x)", r"^unbalanced brackets \(4 '\(' and 2 '\)'\)"),
])
def test_what_cannot_be_read_is_refused_in_one_line(text: str, problem: str) -> None:
    with pytest.raises(TreeSyntaxError, match=problem) as error:
        parse_tree(text)
    assert "\n" not in str(error.value)


def test_other_trees_are_read_as_nltk_reads_them() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        tree = random_tree(rng, "AB-C", "xy#é|")
        for margin in (8, 40, 1 << 20):
            text = tree.pformat(margin=margin)
            assert parse_tree(text) == Tree.fromstring(text)
    assert parse_tree("( (S (NP x)))") == Tree("", [Tree("S", [Tree("NP", ["x"])])])


def test_a_line_with_bracket_words_in_both_readers_and_back() -> None:
    """An SVM-light-TK line whose tree has bracket words: the fast scanner hands it to the reference, which
    reads the brackets as words; written back and read again, the same tree."""
    data = b"+1 |BT| (NP (-LRB- () (NN x) (-RRB- ))) |ET| 1:1\n-1 |BT| (NP (NN y)) |ET|\n"
    fast = parse_svmlight_tk_bytes(data, "x.tk", reader="fast")
    reference = parse_svmlight_tk_bytes(data, "x.tk", reader="nltk")
    for forest in (fast.forest, reference.forest):
        assert forest.to_nltk(0) == Tree("NP", [LRB, Tree("NN", ["x"]), RRB])
        words = [forest.labels.strings[label] for label, word
                 in zip(forest.label.tolist(), forest.is_word.tolist()) if word]
        assert words == ["(", "x", ")", "y"]
    again = TreeForest.from_brackets([fast.forest.to_brackets(0)])
    assert again.to_nltk(0) == fast.forest.to_nltk(0)


def test_an_empty_node_in_a_file_names_file_line_and_tree() -> None:
    data = b"+1 |BT| (S x) |ET|\n-1 |BT| (A y) |BT| (S () (X y)) |ET| 2:1\n"
    for reader in ("fast", "nltk"):
        with pytest.raises(SvmlightTkFormatError, match=r"^x.tk:2: tree 2: '\(\)' is a node "):
            parse_svmlight_tk_bytes(data, "x.tk", reader=reader)
