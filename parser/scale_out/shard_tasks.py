"""What a worker does with one shard, for each prediction command: the one-process stream
function of the command run on the shard's bytes, its first line numbered as in the whole input,
so that the output bytes and any message are those a one-process run gives for that part.

A task is a small frozen object (the command's settings, no model) called with the model and
the shard; it pickles, so that a process pool or a Dask worker receives it with each shard while
the model is sent to each worker once (parser/scale_out/runners.py).
"""
from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from polyparse.features.errors import InputError
from polyparse.parser.scale_out.shards import Shard, ShardResult

# The result a shard task fills in: its output stream, coverage and tallies.
Filler = Callable[[Any, Shard, io.BytesIO, ShardResult], None]


def run_task(fill: Filler, model: Any, shard: Shard) -> ShardResult:
    """fill(model, shard, output, result), timed; an input error is the result's message and
    leaves its output empty."""
    started = time.perf_counter()
    result = ShardResult(shard.index)
    output = io.BytesIO()
    try:
        fill(model, shard, output, result)
        result.output = output.getvalue()
    except InputError as error:
        result.error = str(error)
        result.records = 0
        result.coverage = {}
        result.tallies = {}
    result.seconds = time.perf_counter() - started
    return result


def _text_output(output: io.BytesIO, encoding: str) -> io.TextIOWrapper:
    """A text layer over output in encoding, writing line ends as given (as output_stream)."""
    return io.TextIOWrapper(output, encoding=encoding, newline="", write_through=True)


@dataclass(frozen=True)
class DependencyShardTask:
    """`dep parse` of a shard: the pipeline of the opened parser (its tagger for words without
    UPOS, its parser; parser/pipeline/dependency_service.py) between the CoNLL reader and the
    tree writer, as one process runs it."""

    fmt: str = "conllu"
    encoding: str = "utf-8"
    keep_deps: bool = False

    def __call__(self, parser: Any, shard: Shard) -> ShardResult:
        return run_task(self.fill, parser, shard)

    def fill(self, parser: Any, shard: Shard, output: io.BytesIO, result: ShardResult) -> None:
        coverage = parser.model.tag_coverage()
        text = _text_output(output, self.encoding)

        def count(n: int) -> None:
            result.records += n

        pipeline = parser.file_pipeline(self.fmt, self.encoding, self.keep_deps, coverage)
        pipeline.stream(io.BytesIO(shard.data), lambda: True, text, shard.source,
                        shard.first_line, count)
        text.detach()
        result.coverage = coverage.counts()


@dataclass(frozen=True)
class JapaneseShardTask:
    """`ja parse` of a shard: the pipeline of the opened Japanese parser
    (parser/pipeline/bunsetsu_service.py; fused over the bytes for KNP and CaboCha in UTF-8)
    on the shard's bytes, its first line numbered as in the whole input."""

    fmt: str = "knp"
    encoding: str = "utf-8"
    rechunk: bool = False
    output_format: str | None = None
    # What a byte that is not valid in the encoding does: "strict" or "replace".
    errors: str = "strict"

    def __call__(self, parser: Any, shard: Shard) -> ShardResult:
        return run_task(self.fill, parser, shard)

    def fill(self, parser: Any, shard: Shard, output: io.BytesIO, result: ShardResult) -> None:
        coverage = parser.model.tag_coverage()
        pipeline = parser.pipeline(self.fmt, self.encoding, self.errors, self.rechunk,
                                   self.output_format, coverage)
        if getattr(pipeline, "binary", False):
            # One thread: the workers are the parallelism.
            pipeline.threads = 1
            out: Any = output
        else:
            out = _text_output(output, self.encoding)

        def count(n: int) -> None:
            result.records += n

        pipeline.stream(io.BytesIO(shard.data), lambda: True, out, shard.source,
                        shard.first_line, count)
        if out is not output:
            out.detach()
        result.coverage = coverage.counts()


@dataclass(frozen=True)
class BoundaryShardTask:
    """`srl predict` of a shard: its sentences read with their line numbers, classified, and
    written back with the predicted argument columns (parser/srl/boundaries.py)."""

    layout: str

    def __call__(self, detector: Any, shard: Shard) -> ShardResult:
        return run_task(self.fill, detector, shard)

    def fill(self, detector: Any, shard: Shard, output: io.BytesIO, result: ShardResult
             ) -> None:
        from polyparse.parser.formats.gold_conll import LAYOUTS, read_gold_conll
        from polyparse.parser.srl.boundaries import predicted_lines

        sentences = list(read_gold_conll(None, LAYOUTS[self.layout], io.BytesIO(shard.data),
                                         shard.source, first_line=shard.first_line))
        lines = predicted_lines(sentences, detector.decision_values(sentences).tolist())
        output.write("".join(f"{line}\n" for line in lines).encode("utf-8"))
        result.records = len(sentences)


# The decision function of each classifier this process scores shards with, by the classifier
# object and the evaluation settings (a kernel model's evaluator is built once per process).
_decision_functions: dict[tuple[int, str | None, Any], Callable[[Any], Any]] = {}


@dataclass(frozen=True)
class ClassifierShardTask:
    """`clf predict` of a shard of an svmlight file: its examples scored, their labels and
    decision values written as `clf predict --decision-values` writes them (when
    write_values), and the counts the summary needs as tallies: n, correct, and the labels
    the model never saw (unseen_labels, one per such example)."""

    eval_mode: str | None = None
    rare_threshold: Any = None
    write_values: bool = True

    def __call__(self, clf: Any, shard: Shard) -> ShardResult:
        return run_task(self.fill, clf, shard)

    def decision_function(self, clf: Any) -> Callable[[Any], Any]:
        """The classifier's decision function in this evaluation mode (a kernel model's
        evaluator: classifiers/evaluators/modes.py), built once per process; the driver has
        checked the settings (parser/cli/clf_run.py)."""
        from polyparse.classifiers.backends import is_kernel_model
        from polyparse.classifiers.evaluators.choices import (
            DEFAULT_RARE_THRESHOLD,
            default_eval_mode,
        )
        from polyparse.classifiers.evaluators.modes import build_evaluator

        key = (id(clf), self.eval_mode, self.rare_threshold)
        found = _decision_functions.get(key)
        if found is None:
            found = clf.decision_function
            if is_kernel_model(clf):
                threshold = (DEFAULT_RARE_THRESHOLD if self.rare_threshold is None
                             else self.rare_threshold)
                found = build_evaluator(clf.expansion_,
                                        self.eval_mode or default_eval_mode(clf.degree),
                                        threshold).decision_function
            _decision_functions[key] = found
        return found

    def fill(self, clf: Any, shard: Shard, output: io.BytesIO, result: ShardResult) -> None:
        import numpy as np

        from polyparse.features.svmlight import parse_svmlight

        X, y = parse_svmlight(shard.data, shard.source, first_line=shard.first_line,
                              allow_empty=True)
        if not len(y):
            result.tallies = {"n": 0, "correct": 0, "unseen_labels": []}
            return
        values = self.decision_function(clf)(X)
        predicted = clf.predict_from_decision(values)
        unseen = ~np.isin(y, clf.classes_)
        result.records = len(y)
        result.tallies = {"n": len(y), "correct": int(np.count_nonzero(predicted == y)),
                          "unseen_labels": y[unseen].tolist()}
        if self.write_values:
            output.write("".join(" ".join([str(label)] + [repr(v) for v in row]) + "\n"
                                 for label, row in zip(predicted.tolist(), values.tolist())
                                 ).encode("utf-8"))
