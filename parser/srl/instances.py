"""Argument-boundary instances of gold_conll sentences, one per (predicate, candidate node),
as datasets/srl_boundary/README.md defines them: per sentence, per predicate (in the order of
the argument columns), per candidate in pre-order; each with its label, PAF tree and the seven
Gildea & Jurafsky feature strings.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from parser.formats.gold_conll import ConllPredicate, ConllSrlSentence
from parser.srl.candidates import argument_spans, boundary_label, candidate_nodes
from parser.srl.constituents import ConstituentTree
from parser.srl.gildea_jurafsky import PredicateContext, gildea_jurafsky_features
from parser.srl.paf import paf_tree

__all__ = ["BoundaryInstance", "PredicateInstances", "predicate_instances",
           "sentence_instances"]


@dataclass(frozen=True, slots=True)
class BoundaryInstance:
    """One decision: is this node exactly an argument of this predicate?"""

    node: int
    first: int
    last: int
    label: int
    tree: str
    features: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PredicateInstances:
    """The instances of one predicate of one sentence."""

    sentence: ConllSrlSentence
    predicate: ConllPredicate
    instances: tuple[BoundaryInstance, ...]


def predicate_instances(tree: ConstituentTree, predicate: ConllPredicate
                        ) -> tuple[BoundaryInstance, ...]:
    """The instances of one predicate, its candidates in pre-order."""
    context = PredicateContext(tree, predicate.token, predicate.lemma)
    arguments = argument_spans(predicate)
    instances = []
    for node in candidate_nodes(tree, predicate.token):
        ancestor = tree.lowest_common_ancestor(node, context.node)
        constituent = tree.nodes[node]
        instances.append(BoundaryInstance(
            node, constituent.first, constituent.last, boundary_label(tree, node, arguments),
            paf_tree(tree, node, context.node, ancestor),
            tuple(gildea_jurafsky_features(tree, node, context, ancestor))))
    return tuple(instances)


def sentence_instances(sentences: Iterable[ConllSrlSentence]) -> Iterator[PredicateInstances]:
    """The instances of every predicate of every sentence, in order."""
    for sentence in sentences:
        if not sentence.predicates:
            continue
        tree = ConstituentTree.of_sentence(sentence)
        for predicate in sentence.predicates:
            yield PredicateInstances(sentence, predicate, predicate_instances(tree, predicate))
