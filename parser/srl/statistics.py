"""Counts of a set of boundary instances, as datasets/srl_boundary/README.md and its
``counts.json`` give them: instances, positives and negatives, predicates, PAF tree size
(nodes including POS preterminals but not words, and words), and the argument spans that some
candidate node matches (the others can never be found by node classification).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from polyparse.parser.srl.instances import PredicateInstances

__all__ = ["BoundaryStatistics"]


@dataclass(slots=True)
class BoundaryStatistics:
    predicates: int = 0
    instances: int = 0
    positives: int = 0
    tree_nodes: int = 0
    tree_words: int = 0
    max_tree_nodes: int = 0
    argument_spans: int = 0
    matched_spans: int = 0

    def add(self, groups: Iterable[PredicateInstances]) -> BoundaryStatistics:
        for group in groups:
            self.predicates += 1
            candidates = set()
            for instance in group.instances:
                self.instances += 1
                self.positives += instance.label > 0
                nodes = instance.tree.count("(")
                self.tree_nodes += nodes
                self.max_tree_nodes = max(self.max_tree_nodes, nodes)
                self.tree_words += instance.last - instance.first + 2
                candidates.add((instance.first, instance.last))
            arguments = group.predicate.arguments
            self.argument_spans += len(arguments)
            self.matched_spans += sum((span.first, span.last) in candidates
                                      for span in arguments)
        return self

    @property
    def negatives(self) -> int:
        return self.instances - self.positives

    def as_dict(self) -> dict[str, int | float]:
        share = self.instances or 1
        return {
            "instances": self.instances, "positives": self.positives,
            "negatives": self.negatives, "predicates": self.predicates,
            "avg_tree_nodes": round(self.tree_nodes / share, 2),
            "avg_tree_words": round(self.tree_words / share, 2),
            "max_tree_nodes": self.max_tree_nodes,
            "argument_spans": self.argument_spans,
            "argument_spans_matched_by_a_node": self.matched_spans,
        }

    def summary(self, name: str) -> str:
        """One line: ``name: instances (+1 / -1), predicates, tree size, matched spans``."""
        share = self.instances or 1
        matched = 100.0 * self.matched_spans / self.argument_spans if self.argument_spans \
            else 0.0
        return (f"{name}: {self.instances:,} instances ({self.positives:,} +1, "
                f"{self.negatives:,} -1), {self.predicates:,} predicates, avg tree "
                f"{self.tree_nodes / share:.2f} nodes / {self.tree_words / share:.2f} words "
                f"(max {self.max_tree_nodes:,} nodes), argument spans matched by a node "
                f"{self.matched_spans:,} / {self.argument_spans:,} ({matched:.2f} %)")
