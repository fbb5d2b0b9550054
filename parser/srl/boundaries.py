"""From node decisions back to argument spans, and those spans written as the argument
columns of a gold_conll file.

A classifier gives one decision value per instance (``> 0``: the node is an argument). The
positive nodes of a predicate become its argument spans; since the spans of one column may
neither nest nor overlap nor cover the predicate's own ``V`` / ``C-V`` words, clashes are
resolved greedily (the dataset README defines labels, not decoding; this is the usual greedy
choice by classifier confidence): spans are taken in order of decreasing decision value (ties:
the earlier node in pre-order, so the outer node of a nested pair), each kept unless it
overlaps one already kept or a verb span. Nodes of a unary chain share their span, which is
kept once. The spans are written with the generic label ``ARG``.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence

from polyparse.features.output_files import output_stream
from polyparse.parser.formats.gold_conll import (
    ArgumentSpan,
    ConllPredicate,
    ConllSrlSentence,
    sentence_lines,
)
from polyparse.parser.srl.candidates import Span, candidate_nodes
from polyparse.parser.srl.constituents import ConstituentTree

__all__ = ["PREDICTED_LABEL", "predicted_lines", "predicted_spans", "write_predictions"]

PREDICTED_LABEL = "ARG"


def predicted_spans(predicate: ConllPredicate, candidate_spans: Sequence[Span],
                    decisions: Sequence[float]) -> list[ArgumentSpan]:
    """The argument spans of a predicate from one decision per candidate (in the order of
    ``candidate_nodes``), clashes resolved as the module notes say; sorted by position."""
    if len(candidate_spans) != len(decisions):
        raise ValueError(f"{len(candidate_spans)} candidates but {len(decisions)} decisions")
    best: dict[Span, tuple[float, int]] = {}
    for order, (span, value) in enumerate(zip(candidate_spans, decisions)):
        value = float(value)
        if value > 0 and span not in best:
            best[span] = (value, order)
        elif value > 0 and value > best[span][0]:
            best[span] = (value, best[span][1])
    taken = [(span.first, span.last) for span in predicate.verb_spans]
    kept: list[Span] = []
    for span in sorted(best, key=lambda span: (-best[span][0], best[span][1])):
        if all(span[1] < first or last < span[0] for first, last in taken):
            taken.append(span)
            kept.append(span)
    return [ArgumentSpan(PREDICTED_LABEL, first, last) for first, last in sorted(kept)]


def predicted_lines(sentences: Iterable[ConllSrlSentence], decisions: Sequence[float]
                    ) -> Iterator[str]:
    """The lines of the sentences (without line ends), each predicate's argument columns
    holding the spans its decisions give. ``decisions`` has one value per instance, in the
    order ``sentence_instances`` builds them; ValueError when there are fewer or more."""
    used = 0
    for sentence in sentences:
        arguments: list[list[ArgumentSpan]] = []
        if sentence.predicates:
            tree = ConstituentTree.of_sentence(sentence)
            for predicate in sentence.predicates:
                nodes = candidate_nodes(tree, predicate.token)
                values = decisions[used:used + len(nodes)]
                if len(values) < len(nodes):
                    raise ValueError(f"{len(decisions)} decisions for more instances (ran out "
                                     f"at sentence {sentence.sentence_index} of "
                                     f"{sentence.document_id})")
                used += len(nodes)
                spans = [(tree.nodes[node].first, tree.nodes[node].last) for node in nodes]
                arguments.append(predicted_spans(predicate, spans, values))
        yield from sentence_lines(sentence, arguments)
    if used != len(decisions):
        raise ValueError(f"{len(decisions)} decisions for {used} instances")


def write_predictions(sentences: Iterable[ConllSrlSentence], decisions: Sequence[float],
                      output: str | os.PathLike | None) -> None:
    """Write ``predicted_lines`` to output (None or "-": standard output; a file through a
    temporary file and ``os.replace``). Every line is made before any is written, so a
    mismatch of decisions and instances (ValueError) writes nothing."""
    lines = list(predicted_lines(sentences, decisions))
    with output_stream(output, newline="\n") as out:
        out.write("".join(f"{line}\n" for line in lines))
