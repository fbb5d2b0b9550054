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
# object, the evaluation settings and whether the rows are real-valued (a kernel model's
# evaluator is built once per process), or who refuses real-valued rows.
_decision_functions: dict[tuple[int, str | None, Any, bool],
                          tuple[Callable[[Any], Any] | None, str]] = {}


@dataclass(frozen=True)
class ClassifierShardTask:
    """`clf predict` of a shard of an svmlight file, as one process runs it on the whole file
    (classifiers/svmlight_prediction.py): its examples read with their real values and scored,
    their labels and decision values written as `clf predict --decision-values` writes them
    (when write_values; the first shard starts with the header naming several values'
    columns), and the counts the summary needs as tallies: n, correct, the labels the model
    never saw (unseen_labels, one per such example), shards (1 when the shard held examples) and
    real_shards (1 when it held a real value, scored by the real-valued path)."""

    eval_mode: str | None = None
    rare_threshold: Any = None
    write_values: bool = True

    def __call__(self, clf: Any, shard: Shard) -> ShardResult:
        return run_task(self.fill, clf, shard)

    def decision_function(self, clf: Any, real: bool) -> tuple[Callable[[Any], Any] | None,
                                                              str]:
        """The classifier's decision function in this evaluation mode and the mode's name (a
        kernel model's evaluator: classifiers/evaluators/modes.py; real rows: kernel-svm's
        naive sum or a linear backend's weights), or (None, who refuses real rows); built
        once per process; the driver has checked the settings (parser/cli/clf_run.py)."""
        key = (id(clf), self.eval_mode, self.rare_threshold, real)
        found = _decision_functions.get(key)
        if found is None:
            found = self._new_decision_function(clf, real)
            _decision_functions[key] = found
        return found

    def _new_decision_function(self, clf: Any, real: bool
                               ) -> tuple[Callable[[Any], Any] | None, str]:
        from polyparse.classifiers.backends import is_kernel_model
        from polyparse.classifiers.evaluators.choices import (
            DEFAULT_RARE_THRESHOLD,
            default_eval_mode,
        )
        from polyparse.classifiers.evaluators.modes import build_evaluator
        from polyparse.classifiers.svmlight_prediction import real_valued_scoring

        if not is_kernel_model(clf):
            mode = getattr(clf, "evaluator", "explicit-weights")
            return (real_valued_scoring(clf, self.eval_mode, mode) if real
                    else (clf.decision_function, mode))
        real_vectors = getattr(clf.expansion_, "sv_values", None) is not None
        mode = self.eval_mode or ("naive" if real_vectors else default_eval_mode(clf.degree))
        if real:
            return real_valued_scoring(clf, self.eval_mode, mode)
        if mode == "naive" and real_vectors:
            return clf.decision_function, mode
        threshold = DEFAULT_RARE_THRESHOLD if self.rare_threshold is None else self.rare_threshold
        return build_evaluator(clf.expansion_, mode, threshold).decision_function, mode

    def fill(self, clf: Any, shard: Shard, output: io.BytesIO, result: ShardResult) -> None:
        import numpy as np

        from polyparse.classifiers.svmlight_prediction import (
            decision_values_header,
            decision_values_text,
            real_value_refusal,
        )
        from polyparse.features.real_matrix import RealMatrix
        from polyparse.features.svmlight import parse_svmlight

        X, y = parse_svmlight(shard.data, shard.source, first_line=shard.first_line,
                              allow_empty=True, real_values=True)
        if self.write_values and shard.index == 0:
            output.write(decision_values_header(clf.output_names()).encode("utf-8"))
        real = isinstance(X, RealMatrix)
        result.tallies = {"n": len(y), "correct": 0, "unseen_labels": [],
                          "shards": int(len(y) > 0), "real_shards": int(real)}
        if not len(y):
            return
        decision_function, mode_or_who = self.decision_function(clf, real)
        if decision_function is None:
            raise InputError(real_value_refusal(X, shard.data, shard.source, mode_or_who,
                                                shard.first_line))
        values = decision_function(X)
        predicted = clf.predict_from_decision(values)
        unseen = ~np.isin(y, clf.classes_)
        result.records = len(y)
        result.tallies.update(correct=int(np.count_nonzero(predicted == y)),
                              unseen_labels=y[unseen].tolist())
        if self.write_values:
            output.write(decision_values_text(predicted, values).encode("utf-8"))
