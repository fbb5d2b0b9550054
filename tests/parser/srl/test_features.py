"""Candidates, labels, PAF trees (Moschitti 2004), head words and the Gildea & Jurafsky
features as datasets/srl_boundary/README.md defines them."""
from __future__ import annotations

import pytest

from polyparse.parser.formats.gold_conll import ArgumentSpan, ConllPredicate
from polyparse.parser.srl.candidates import argument_spans, boundary_label, candidate_nodes
from polyparse.parser.srl.gildea_jurafsky import (
    PredicateContext,
    gildea_jurafsky_features,
    path,
    subcategorization,
    voice,
)
from polyparse.parser.srl.head_rules import head_word
from polyparse.parser.srl.paf import paf_tree
from tests.parser.srl.brackets import tree_of

# The README's example: "Pierre Vinken will join the board as a nonexecutive director Nov. 29."
JOIN = ("(TOP (S (NP (NNP Pierre) (NNP Vinken)) (VP (MD will) (VP (VB join) (NP (DT the) "
        "(NN board)) (PP (IN as) (NP (DT a) (JJ nonexecutive) (NN director))) (NP (NNP Nov.) "
        "(CD 29)))) (. .)))")
JOIN_TOKEN = 3


def labels(tree, nodes) -> list[str]:
    return [tree.nodes[node].label for node in nodes]


def test_candidates_are_every_node_but_top_words_and_the_predicates_ancestors() -> None:
    tree = tree_of(JOIN)
    nodes = candidate_nodes(tree, JOIN_TOKEN)
    assert labels(tree, nodes) == ["NP", "NNP", "NNP", "MD", "NP", "DT", "NN", "PP", "IN",
                                   "NP", "DT", "JJ", "NN", "NP", "NNP", "CD", "."]
    assert nodes == sorted(nodes)
    assert not any(tree.nodes[node].covers(JOIN_TOKEN) for node in nodes)


def test_labels_match_argument_spans_not_the_verb() -> None:
    tree = tree_of("(TOP (S (NP (NP (NNP Ann))) (VP (VBD gave) (NP (NN up))) (. .)))")
    predicate = ConllPredicate(1, "give", "give.01", 0, (
        ArgumentSpan("ARG0", 0, 0), ArgumentSpan("V", 1, 1), ArgumentSpan("C-V", 2, 2)))
    arguments = argument_spans(predicate)
    assert arguments == {(0, 0)}
    nodes = candidate_nodes(tree, 1)
    # the unary chain NP NP NNP over "Ann" is positive at every node
    assert [(tree.nodes[n].label, boundary_label(tree, n, arguments)) for n in nodes] == [
        ("NP", 1), ("NP", 1), ("NNP", 1), ("NP", -1), ("NN", -1), (".", -1)]


def test_paf_tree_of_the_readme() -> None:
    tree = tree_of(JOIN)
    predicate = tree.preterminals[JOIN_TOKEN]
    board = next(n for n in candidate_nodes(tree, JOIN_TOKEN)
                 if tree.nodes[n].label == "NP" and tree.nodes[n].first == 4)
    assert paf_tree(tree, board, predicate) == "(VP (VB-P join) (NP-B (DT the) (NN board)))"
    subject = candidate_nodes(tree, JOIN_TOKEN)[0]
    assert paf_tree(tree, subject, predicate) == \
        "(S (NP-B (NNP Pierre) (NNP Vinken)) (VP (VP (VB-P join))))"
    will = tree.preterminals[2]
    assert paf_tree(tree, will, predicate) == "(VP (MD-B will) (VP (VB-P join)))"


def test_gildea_jurafsky_features_of_the_readme() -> None:
    tree = tree_of(JOIN)
    context = PredicateContext(tree, JOIN_TOKEN, "join")
    subject = candidate_nodes(tree, JOIN_TOKEN)[0]
    ancestor = tree.lowest_common_ancestor(subject, context.node)
    assert gildea_jurafsky_features(tree, subject, context, ancestor) == [
        "pt=NP", "lem=join", "path=NP^S!VP!VP!VB", "pos=before", "voice=active",
        "hw=vinken", "subcat=VP>VB_NP_PP_NP"]
    full_stop = tree.preterminals[-1]
    assert path(tree, full_stop, context.node, 1) == ".^S!VP!VP!VB"
    assert gildea_jurafsky_features(tree, full_stop, context, 1)[3] == "pos=after"
    assert subcategorization(tree, context.node) == "VP>VB_NP_PP_NP"


@pytest.mark.parametrize("text, token, expected", [
    ("(TOP (S (NP (NN it)) (VP (VBD was) (VP (VBN taken))) (. .)))", 2, "passive"),
    ("(TOP (S (NP (NN it)) (VP (VBD got) (VP (VBN taken))) (. .)))", 2, "passive"),
    ("(TOP (S (NP (NN it)) (VP (MD will) (VP (VB be) (VP (VBN taken))))))", 3, "passive"),
    ("(TOP (S (NP (NN it)) (VP (VBZ 's) (VP (VBN gone)))))", 2, "passive"),
    ("(TOP (S (NP (NN it)) (VP (VBZ has) (VP (VBN taken)))))", 2, "active"),
    ("(TOP (S (NP (NN it)) (VP (VBD took))))", 1, "active"),
    # the auxiliary must come before the predicate's branch, in its chain of VP ancestors
    ("(TOP (S (NP (NN it)) (VP (VP (VBN taken)) (VBD was))))", 1, "active"),
    ("(TOP (S (VP (VBD was)) (S (VP (VBN taken)))))", 1, "active"),
])
def test_voice(text: str, token: int, expected: str) -> None:
    tree = tree_of(text)
    assert voice(tree, tree.preterminals[token]) == expected


@pytest.mark.parametrize("text, expected", [
    ("(NP (NP (NNP Pierre) (NNP Vinken)) (, ,) (ADJP (CD 61) (NNS years) (JJ old)) (, ,))",
     "vinken"),
    ("(NP (DT the) (NN board) (POS 's))", "board"),
    ("(NP (DT the) (JJ big))", "big"),
    ("(VP (MD will) (VP (VB join)))", "will"),
    ("(VP (ADVP (RB then)) (VP (VB join)))", "join"),
    ("(VP (NNS issues) (NP (NNS forecasts)))", "issues"),
    ("(PP (IN as) (NP (DT a) (NN director)))", "as"),
    ("(PP (PP (IN in) (NP (NN May))) (CC and) (PP (IN off)))", "in"),
    ("(WHPP (IN under) (WHNP (WP$ whose) (NNS auspices)))", "under"),
    ("(S (NP (NNP Tom)) (VP (VBD left)))", "left"),
    ("(S (PP (IN in) (NP (NNP Moscow))) (PP (IN for) (NP (NNS talks))))", "in"),
    ("(SBARQ (WHNP (WP What)) (SQ (VBZ is) (VP (VBG stepping))))", "stepping"),
    ("(SBAR (IN that) (S (NP (NNP Tom)) (VP (VBD left))))", "that"),
    ("(SBAR (S (NP (NNP Tom)) (VP (VBD left))))", "left"),
    ("(ADJP (RB very) (JJ Big) (PP (IN for) (NP (NN it))))", "big"),
    ("(ADVP (RB right) (RB Now) (NP (NN today)))", "now"),
    ("(PRN (-LRB- -LRB-) (NP (CD one)) (-RRB- -RRB-))", "-rrb-"),
    ("(NN Board)", "board"),
])
def test_head_words(text: str, expected: str) -> None:
    tree = tree_of(f"(TOP {text})")
    assert head_word(tree, 1) == expected
