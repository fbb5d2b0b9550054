"""parser/srl/constituents.py: the tree of the parse bits, with spans, parents and children."""
from __future__ import annotations

from polyparse.parser.formats.gold_conll import bracket_tree
from polyparse.parser.srl.constituents import ConstituentTree
from tests.parser.srl.brackets import parse_bits, tree_of

SENTENCE = "(TOP (S (NP (NNP Ann)) (VP (VBD gave) (NP (NNP Bob)) (NP (DT a) (NN book))) (. .)))"


def test_nodes_in_pre_order_with_spans() -> None:
    tree = tree_of(SENTENCE)
    assert [(n.label, n.first, n.last, n.parent) for n in tree.nodes] == [
        ("TOP", 0, 5, -1), ("S", 0, 5, 0), ("NP", 0, 0, 1), ("NNP", 0, 0, 2),
        ("VP", 1, 4, 1), ("VBD", 1, 1, 4), ("NP", 2, 2, 4), ("NNP", 2, 2, 6),
        ("NP", 3, 4, 4), ("DT", 3, 3, 8), ("NN", 4, 4, 8), (".", 5, 5, 1),
    ]
    assert tree.preterminals == [3, 5, 7, 9, 10, 11]
    assert tree.nodes[4].children == [5, 6, 8]
    assert [tree.nodes[k].word for k in tree.preterminals] == \
        ["Ann", "gave", "Bob", "a", "book", "."]


def test_brackets_give_back_the_tree_of_the_parse_bits() -> None:
    words, tags, bits = parse_bits(SENTENCE)
    tree = ConstituentTree.from_parse_bits(words, tags, bits)
    assert tree.brackets(0) == SENTENCE == bracket_tree(words, tags, bits)
    assert tree.brackets(8) == "(NP (DT a) (NN book))"


def test_ancestors_and_lowest_common_ancestor() -> None:
    tree = tree_of(SENTENCE)
    assert tree.ancestors(9) == [9, 8, 4, 1, 0]
    assert tree.lowest_common_ancestor(9, 5) == 4
    assert tree.lowest_common_ancestor(3, 5) == 1
    assert tree.lowest_common_ancestor(8, 10) == 8
    assert tree.subtree_end(4) == 11 and tree.subtree_end(3) == 4


def test_brackets_in_words_and_tags_are_escaped() -> None:
    tree = ConstituentTree.from_parse_bits(["(", "x", ")"], ["(", "NN", ")"],
                                           ["(TOP(NP*", "*", "*))"])
    assert tree.brackets(0) == "(TOP (NP (-LRB- -LRB-) (NN x) (-RRB- -RRB-)))"
