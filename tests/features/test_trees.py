"""TreeForest arrays against nltk's own view of each tree."""
from __future__ import annotations

import nltk
import numpy as np
import pytest

from polyparse.features.interning import StringInterner
from polyparse.features.trees import TreeForest, TreeSyntaxError, parse_tree


def check_against_nltk(forest: TreeForest, t: int, tree: nltk.Tree) -> None:
    start = int(forest.tree_ptr[t])
    nodes: list = []
    kid_positions: list[list[int]] = []

    def walk(node) -> int:
        index = len(nodes)
        nodes.append(node)
        kid_positions.append([])
        for kid in ([] if isinstance(node, str) else node):
            kid_positions[index].append(start + walk(kid))
        return index

    walk(tree)
    assert forest.tree_size(t) == len(nodes)
    labels, productions = forest.labels.strings, forest.productions.strings
    for k, node in enumerate(nodes):
        n = start + k
        word = isinstance(node, str)
        kids = [] if word else list(node)
        assert labels[forest.label[n]] == (node if word else node.label())
        assert forest.is_word[n] == word
        assert forest.is_leaf[n] == (not kids)
        assert forest.node_children(n).tolist() == kid_positions[k]
        if kids:
            names = [kid if isinstance(kid, str) else kid.label() for kid in kids]
            assert productions[forest.production[n]] == f"{node.label()} -> {' '.join(names)}"
            leaf_kids = all(isinstance(kid, str) or not len(kid) for kid in kids)
            assert forest.is_preterminal[n] == leaf_kids
        else:
            assert forest.production[n] == 0
            assert not forest.is_preterminal[n]
        assert forest.subtree_end[n] == n + (len(node.treepositions()) if not word else 1)
    for order, key in ((forest.production_order, forest.production),
                       (forest.label_order, forest.label)):
        piece = order[start : start + len(nodes)]
        assert sorted(piece.tolist()) == list(range(start, start + len(nodes)))
        assert np.all(np.diff(key[piece]) >= 0)


def test_small_trees_and_round_trip() -> None:
    texts = ["(VP (VB-P join) (NP-B (DT the) (NN board)))", "", "(S (NP (NN)) (VP x y))"]
    forest = TreeForest.from_brackets(texts)
    assert len(forest) == 3 and forest.tree_size(1) == 0
    for t, text in enumerate(texts):
        if text:
            check_against_nltk(forest, t, nltk.Tree.fromstring(text))
        assert forest.to_brackets(t) == (nltk.Tree.fromstring(text).pformat(margin=10**9)
                                         if text else "")
    assert forest.productions.strings[forest.production[1]] == "VB-P -> join"


def test_shared_interners_give_equal_ids() -> None:
    labels, productions = StringInterner(), StringInterner()
    a = TreeForest.from_brackets(["(NP (DT a) (NN dog))"], labels, productions)
    b = TreeForest.from_brackets(["(S (NP (DT a) (NN dog)))"], labels, productions)
    assert a.production[0] == b.production[1] and a.label[1] == b.label[2]


@pytest.mark.parametrize("text", ["(NP (DT a)", "(NP (DT a)))", ") (", "just words"])
def test_bad_brackets(text: str) -> None:
    with pytest.raises(TreeSyntaxError):
        parse_tree(text)


def test_every_tree_of_train_5k(srl_boundary) -> None:
    texts = []
    for line in (srl_boundary / "train.5k.tk").read_text().splitlines():
        texts.append(line.split("|BT|", 1)[1].split("|ET|", 1)[0])
    forest = TreeForest.from_brackets(texts)
    assert len(forest) == 5000
    for t, text in enumerate(texts):
        check_against_nltk(forest, t, nltk.Tree.fromstring(text))
