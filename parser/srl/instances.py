"""Argument-boundary instances of gold_conll sentences, one per (predicate, candidate node),
as datasets/srl_boundary/README.md defines them: per sentence, per predicate (in the order of
the argument columns), per candidate in pre-order; each with its label, PAF tree and the seven
Gildea & Jurafsky feature strings. Written in SVM-light-TK's format (``-t 5``):
``+1 |BT| (VP (VB-P join) (NP-B (DT the) (NN board))) |ET| 1:1 2:1 ...``.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from polyparse.features.interning import StringInterner
from polyparse.features.svmlight_tk import (
    BEGIN_TREE,
    END_TREES,
    TreeInstances,
    parse_svmlight_tk_bytes,
)
from polyparse.parser.formats.gold_conll import (
    PROPBANK_RELEASE,
    ConllPredicate,
    ConllSrlSentence,
    GoldConllLayout,
    read_gold_conll,
)
from polyparse.parser.srl.candidates import argument_spans, boundary_label, candidate_nodes
from polyparse.parser.srl.constituents import ConstituentTree
from polyparse.parser.srl.feature_vocab import FirstSeenVocab
from polyparse.parser.srl.gildea_jurafsky import PredicateContext, gildea_jurafsky_features
from polyparse.parser.srl.paf import paf_tree

__all__ = ["BoundaryInstance", "PredicateInstances", "file_instances", "instance_count",
           "predicate_instances", "sentence_instances", "tk_line", "tk_lines", "tree_instances"]


@dataclass(frozen=True, slots=True)
class BoundaryInstance:
    """One decision: is this node (``first`` to ``last``, inclusive) exactly an argument of
    this predicate?"""

    node: int
    first: int
    last: int
    label: int
    tree: str
    features: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PredicateInstances:
    """The instances of one predicate of one sentence, and the sentence's tree."""

    sentence: ConllSrlSentence
    tree: ConstituentTree
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
            yield PredicateInstances(sentence, tree, predicate,
                                     predicate_instances(tree, predicate))


def file_instances(path: str | os.PathLike, layout: GoldConllLayout = PROPBANK_RELEASE
                   ) -> list[PredicateInstances]:
    """The instances of a gold_conll file ("-": standard input), per predicate; a malformed
    file raises GoldConllError (one line, ``path:LINE: problem``) before any is returned."""
    return list(sentence_instances(read_gold_conll(path, layout=layout)))


def instance_count(predicates: Iterable[PredicateInstances]) -> int:
    return sum(len(group.instances) for group in predicates)


def tk_line(instance: BoundaryInstance, vocab: FirstSeenVocab) -> str:
    """The instance as one SVM-light-TK line (with its ``\\n``); the vocabulary numbers the
    features (and grows, unless frozen)."""
    ids = " ".join(f"{number}:1" for number in vocab.vector(instance.features))
    return f"{instance.label:+d} {BEGIN_TREE} {instance.tree} {END_TREES} {ids}".rstrip() + "\n"


def tk_lines(predicates: Iterable[PredicateInstances], vocab: FirstSeenVocab) -> Iterator[str]:
    """The SVM-light-TK lines of the instances, in order."""
    for group in predicates:
        for instance in group.instances:
            yield tk_line(instance, vocab)


def tree_instances(predicates: Sequence[PredicateInstances], vocab: FirstSeenVocab,
                   labels: StringInterner | None = None,
                   productions: StringInterner | None = None) -> TreeInstances:
    """The instances as the tree-kernel learners take them: what ``read_svmlight_tk`` gives for
    their ``.tk`` lines (labels, one PAF tree each, the feature vectors through the
    vocabulary, which grows unless frozen), read by the same fast reader. Pass a model's label
    and production interners so that its decision function can score the forest. At least one
    instance is needed (ValueError)."""
    text = "".join(tk_lines(predicates, vocab)).encode("utf-8")
    if not text:
        raise ValueError("no instances (no sentence has a predicate)")
    return parse_svmlight_tk_bytes(text, "<srl instances>", labels, productions,
                                   vocab.n_features)
