"""Argument-boundary precision, recall and F1 over nodes: a node is positive when its span equals
an argument span of the predicate (the SVM-light-TK boundary data's "Candidates" and "Label",
datasets/srl_boundary/README.md; docs/methods.md, the SRL module).

For each predicate, each candidate node of the gold file's tree is gold-positive when its span
equals one of the predicate's gold argument spans and system-positive when it equals one of
the system's argument spans (labels are ignored, ``V`` and ``C-V`` are not arguments). So the
positives are counted as the dataset counts them: a unary chain whose span is an argument is
as many positive nodes as it has nodes (test.tk: 1,980 positive nodes for 1,563 matched
spans), and a system file written from one decision per instance of ``test.tk`` scores what
those decisions score on the nodes.

Two kinds of spans are not nodes. A gold span that no candidate node has can never be found
by node classification (0.7 % of them here); it is not counted, as the dataset does not count
it, and is reported as ``gold_spans_off_nodes``. A system span that no candidate node has is
reported as ``system_spans_off_nodes``; unless it is also a gold span, it is a wrong claim that
no node could carry, so it counts once among the system's positives (against precision). The
gold file scored against itself thus gets 100 / 100 / 100.

Scores are percentages (0.0 when nothing is counted); F1 = 2PR / (P + R).
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from polyparse.features.errors import InputError
from polyparse.features.input_files import input_name
from polyparse.parser.formats.gold_conll import (
    PROPBANK_RELEASE,
    ConllSrlSentence,
    GoldConllLayout,
    read_gold_conll,
)
from polyparse.parser.srl.candidates import argument_spans, candidate_nodes, node_spans
from polyparse.parser.srl.constituents import ConstituentTree

__all__ = ["BoundaryCounts", "SrlEvaluationError", "boundary_counts", "file_scores"]


class SrlEvaluationError(InputError):
    """Gold and system files that cannot be scored together: ``file:line: problem``."""


@dataclass(slots=True)
class BoundaryCounts:
    predicates: int = 0
    gold: int = 0
    system: int = 0
    correct: int = 0
    gold_spans_off_nodes: int = 0
    system_spans_off_nodes: int = 0

    def add_predicate(self, tree: ConstituentTree, token: int, gold: set[tuple[int, int]],
                      system: set[tuple[int, int]]) -> None:
        nodes = candidate_nodes(tree, token)
        self.predicates += 1
        for node in nodes:
            span = (tree.nodes[node].first, tree.nodes[node].last)
            in_gold = span in gold
            in_system = span in system
            self.gold += in_gold
            self.system += in_system
            self.correct += in_gold and in_system
        spans = node_spans(tree, nodes)
        self.gold_spans_off_nodes += len(gold - spans)
        off = system - spans
        self.system_spans_off_nodes += len(off)
        self.system += len(off - gold)

    def scores(self) -> dict[str, float | int]:
        precision = 100.0 * self.correct / self.system if self.system else 0.0
        recall = 100.0 * self.correct / self.gold if self.gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"precision": precision, "recall": recall, "F1": f1,
                "predicates": self.predicates, "gold_nodes": self.gold,
                "system_nodes": self.system, "correct_nodes": self.correct,
                "gold_spans_off_nodes": self.gold_spans_off_nodes,
                "system_spans_off_nodes": self.system_spans_off_nodes}


def boundary_counts(gold: Iterable[ConllSrlSentence], system: Iterable[ConllSrlSentence],
                    gold_name: str, system_name: str) -> BoundaryCounts:
    """Node counts of system against gold, sentence by sentence; SrlEvaluationError when the
    two do not pair up (sentences, words, predicates)."""
    counts = BoundaryCounts()
    system_sentences = iter(system)
    n_gold = 0
    for gold_sentence in gold:
        n_gold += 1
        system_sentence = next(system_sentences, None)
        if system_sentence is None:
            raise SrlEvaluationError(f"{system_name}: ends after {n_gold - 1} sentences; "
                                     f"{gold_name} goes on at line {gold_sentence.first_line}")
        check_pair(gold_sentence, system_sentence, gold_name, system_name)
        if not gold_sentence.predicates:
            continue
        tree = ConstituentTree.of_sentence(gold_sentence)
        for gold_predicate, system_predicate in zip(gold_sentence.predicates,
                                                    system_sentence.predicates):
            counts.add_predicate(tree, gold_predicate.token, argument_spans(gold_predicate),
                                 argument_spans(system_predicate))
    extra = next(system_sentences, None)
    if extra is not None:
        raise SrlEvaluationError(f"{system_name}:{extra.first_line}: a sentence more than the "
                                 f"{n_gold} of {gold_name}")
    return counts


def check_pair(gold: ConllSrlSentence, system: ConllSrlSentence, gold_name: str,
               system_name: str) -> None:
    where = f"{system_name}:{system.first_line}"
    against = f"{gold_name}:{gold.first_line}"
    if system.words != gold.words:
        if len(system.words) != len(gold.words):
            raise SrlEvaluationError(f"{where}: a sentence of {len(system.words)} words where "
                                     f"{against} has {len(gold.words)}")
        index = next(i for i, (a, b) in enumerate(zip(gold.words, system.words)) if a != b)
        raise SrlEvaluationError(f"{system_name}:{system.line_number(index)}: word "
                                 f"{system.words[index]!r} where "
                                 f"{gold_name}:{gold.line_number(index)} has "
                                 f"{gold.words[index]!r}")
    gold_tokens = [predicate.token for predicate in gold.predicates]
    system_tokens = [predicate.token for predicate in system.predicates]
    if gold_tokens != system_tokens:
        raise SrlEvaluationError(f"{where}: predicates at words {system_tokens} where "
                                 f"{against} has them at {gold_tokens}")


def file_scores(gold: str | os.PathLike, system: str | os.PathLike,
                layout: GoldConllLayout = PROPBANK_RELEASE) -> dict[str, float | int]:
    """The scores (module notes) of a system gold_conll file against a gold one (either may
    be "-": standard input)."""
    gold_name, system_name = input_name(gold), input_name(system)
    counts = boundary_counts(read_gold_conll(gold, layout=layout),
                             read_gold_conll(system, layout=layout), gold_name, system_name)
    return counts.scores()
