"""Candidate nodes of a predicate and their boundary labels (datasets/srl_boundary/README.md,
"Candidates" and "Label").

The candidates of a predicate are every node of the tree but the root (``TOP``) and the words,
that is phrases and POS preterminals, minus every node whose span contains the predicate token
(the predicate's ancestors and its own preterminal), in pre-order. A candidate is positive
(``+1``) iff its word span equals the span of one of the predicate's arguments (any label but
``V`` and ``C-V``); the nodes of a unary chain share a span, so all of them are positive when
it is an argument.
"""
from __future__ import annotations

from polyparse.parser.formats.gold_conll import ConllPredicate
from polyparse.parser.srl.constituents import ConstituentTree

__all__ = ["Span", "argument_spans", "boundary_label", "candidate_nodes", "node_spans"]

Span = tuple[int, int]


# datasets/srl_boundary/README.md, "Candidates": phrases and preterminals not above the
# predicate (the boundary-detection candidates of Moschitti 2004).
def candidate_nodes(tree: ConstituentTree, predicate_token: int) -> list[int]:
    """The candidates of the predicate at predicate_token, in pre-order."""
    return [index for index, node in enumerate(tree.nodes)
            if index != 0 and not node.covers(predicate_token)]


def argument_spans(predicate: ConllPredicate) -> set[Span]:
    """The (first, last) word spans of the predicate's arguments (not V or C-V)."""
    return {(span.first, span.last) for span in predicate.arguments}


def boundary_label(tree: ConstituentTree, node: int, arguments: set[Span]) -> int:
    """+1 when the node's span is one of the argument spans, else -1."""
    constituent = tree.nodes[node]
    return 1 if (constituent.first, constituent.last) in arguments else -1


def node_spans(tree: ConstituentTree, nodes: list[int]) -> set[Span]:
    """The word spans of the given nodes."""
    return {(tree.nodes[node].first, tree.nodes[node].last) for node in nodes}
