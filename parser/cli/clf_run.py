"""What `polyparse clf train|predict|convert|info` do once their arguments are parsed (parser/
cli/clf.py): the backends on svmlight files, the tree-kernel learners on SVM-light-TK files
(parser/cli/clf_trees.py)."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from polyparse.classifiers.backend_settings import DEFAULTS as BACKEND_DEFAULTS
from polyparse.classifiers.backend_settings import setting_words
from polyparse.classifiers.backends import (
    Classifier,
    KernelModel,
    classifier_of_data,
    convert_classifier,
    new_classifier,
)
from polyparse.classifiers.binary_classifier import (
    REAL_VALUED_BACKENDS,
    class_label_problem,
)
from polyparse.classifiers.evaluators.choices import (
    DEFAULT_RARE_THRESHOLD,
    check_evaluator,
    default_eval_mode,
)
from polyparse.classifiers.evaluators.evaluator_model import KernelEvaluatorModel
from polyparse.classifiers.evaluators.modes import build_evaluator
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.linear.poly2_linear_svm import Poly2LinearSVM
from polyparse.classifiers.model_file import (
    CLASSIFIER_FORMAT,
    model_file_data,
    write_model_file,
)
from polyparse.classifiers.model_info import classifier_info
from polyparse.classifiers.online.pa_slicing import PASlicing
from polyparse.classifiers.scorer import BinaryScorer
from polyparse.classifiers.svmlight_prediction import (
    decision_values_header,
    decision_values_text,
    real_value_refusal,
    real_valued_scoring,
)
from polyparse.features.errors import InputError
from polyparse.features.input_files import (
    SniffedInput,
    check_input_paths,
    input_name,
    sniffed_input,
)
from polyparse.features.output_files import (
    check_output_apart,
    check_output_path,
    is_special,
    output_stream,
)
from polyparse.features.real_matrix import FeatureMatrix, RealMatrix
from polyparse.features.svmlight import example_line, parse_svmlight
from polyparse.parser.cli.clf_trees import (
    check_tree_train_options,
    holds_trees,
    is_example_line,
    is_tree_model,
    reject_tree_options,
    run_tree_predict,
    run_tree_train,
    tree_model_info,
)
from polyparse.parser.cli.common import backend_values, option_error, warn
from polyparse.parser.cli.scale_out import check_scale_out, run_in_shards, wants_scale_out

# How the linear backends are scored: w . phi(x) with the explicit mapping's weights.
EXPLICIT_WEIGHTS = "explicit-weights"


def _build_classifier(args: argparse.Namespace) -> Poly2LinearSVM | KernelModel:
    """The backend of --classifier with the settings given (classifiers/backend_settings.py:
    the others at the backend's defaults); one line for a setting it does not take or a value
    it refuses."""
    try:
        return new_classifier(args.classifier, **backend_values(args, args.classifier,
                                                                BACKEND_DEFAULTS))
    except ValueError as error:
        raise InputError(f"clf train: {option_error(args, error)}") from None


def _canonical_command(args: argparse.Namespace, clf: Poly2LinearSVM | KernelModel) -> str:
    """The training command rebuilt from the classifier's settings (no output path, so equal
    runs match)."""
    params = {keyword: getattr(clf, keyword) for keyword in BACKEND_DEFAULTS[args.classifier]}
    return " ".join(["polyparse clf train", Path(args.train_file).name, "--classifier",
                     args.classifier, *setting_words(args.classifier, params)])


def run_train(args: argparse.Namespace) -> int:
    check_input_paths([args.train_file])
    check_output_apart(args.model, [args.train_file], "model")
    with sniffed_input(args.train_file, is_example_line) as source:
        if holds_trees(source):
            return run_tree_train(args, check_tree_train_options(args), source)
        reject_tree_options(args)
        clf = _build_classifier(args)
        check_output_path(args.model, "model")
        started = time.perf_counter()
        data = source.stream.read()
    data_sha256 = hashlib.sha256(data).hexdigest()
    X, y = parse_svmlight(data, source.name, real_values=True)
    if isinstance(X, RealMatrix) and args.classifier not in REAL_VALUED_BACKENDS:
        raise InputError(real_value_refusal(X, data, source.name, args.classifier))
    read_seconds = time.perf_counter() - started
    problem = class_label_problem(y)
    if problem is not None:
        raise InputError(f"{source.name}:{example_line(data, problem[0])}: {problem[1]}")
    labels = np.unique(y)
    if labels.size == 1:
        warn(f"{args.train_file} holds one class ({labels[0].item()}): the model gives it to "
             "every example")
    started = time.perf_counter()
    clf.fit(X, y)
    fit_seconds = time.perf_counter() - started
    header, arrays = clf.to_arrays()
    header["format"] = CLASSIFIER_FORMAT
    header["training"] = {
        "command": _canonical_command(args, clf),
        "data": Path(args.train_file).name,
        "data_sha256": data_sha256,
        "rows": len(X),
        "n_features": X.n_features,
    }
    write_model_file(args.model, header, arrays)
    _warn_if_stopped(clf)
    stats = clf.stats_
    size = _model_size(clf)
    summary = {
        "backend": clf.backend,
        "rows": len(X),
        "classes": len(clf.classes_),
        "n_outputs": clf.n_outputs,
        **size,
        "objective": stats.get("objective"),
        "iterations": stats.get("iterations"),
        "converged": stats.get("converged"),
        "read_seconds": round(read_seconds, 3),
        "seconds": round(fit_seconds, 3),
        "model": str(args.model),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        what = (f"{size['n_support_vectors']} support vectors"
                if isinstance(clf, (KernelSVM, PASlicing)) else f"{size['dims']} weight rows")
        print(
            f"trained {clf.backend} on {len(X)} rows, {len(clf.classes_)} classes, "
            f"{what} in {fit_seconds:.2f} s -> {args.model}",
            file=sys.stderr,
        )
    return 0


def _model_size(clf: Poly2LinearSVM | KernelModel) -> dict[str, Any]:
    """How big a trained model is: support vectors, or weight rows and their sparsity."""
    if isinstance(clf, (KernelSVM, PASlicing)):
        return {"n_support_vectors": clf.n_support_vectors}
    return {"dims": len(clf.scorer.index), "weight_sparsity": clf.stats_.get("weight_sparsity")}


def _warn_if_stopped(clf: Poly2LinearSVM | KernelModel) -> None:
    stats = clf.stats_
    if all(stats.get("converged", [])):
        return
    if isinstance(clf, KernelSVM):
        reason = f"SMO steps before reaching --eps {clf.eps:g}"
    elif "gradient_ratio" in stats:
        ratio = max(stats["gradient_ratio"])
        reason = (f"Newton steps (or no progress left) with gradient norm {ratio:.3g} of "
                  f"its start, above --eps {clf.eps:g}'s bound")
    else:
        gap = max(stats["projected_gradient_gap"])
        reason = f"with projected-gradient gap {gap:.3g} > --eps {clf.eps:g}"
    warn(f"stopped after --iterations {clf.max_iter} {reason}")


def _kernel_evaluator(
    clf: KernelModel, mode: str, rare_threshold: int | float | str | None
) -> BinaryScorer:
    """The compiled evaluator of a kernel model by mode (classifiers.evaluators.modes)."""
    if rare_threshold is not None and mode != "split":
        raise InputError(
            f"clf predict: --rare-threshold applies to the split evaluator, not {mode}"
        )
    try:
        check_evaluator(mode, clf.degree)
        return build_evaluator(clf.expansion_, mode,
                               DEFAULT_RARE_THRESHOLD if rare_threshold is None else rare_threshold)
    except ValueError as error:
        raise InputError(f"clf predict: {error}") from None


def _reject_rare_threshold(command: str, args: argparse.Namespace, clf: Classifier) -> None:
    if args.rare_threshold is None:
        return
    if isinstance(clf, KernelEvaluatorModel):
        raise InputError(
            f"clf {command}: {args.model} holds a converted {clf.backend} model whose split is "
            "fixed; --rare-threshold applies to kernel models (convert again to change it)"
        )
    raise InputError(
        f"clf {command}: --rare-threshold applies to kernel models, not {clf.backend}"
    )


def _real_decision_function(
    args: argparse.Namespace, clf: Classifier, X: RealMatrix, data: bytes, name: str,
    mode: str,
) -> tuple[Callable[[FeatureMatrix], np.ndarray], str]:
    """The decision function of real-valued rows and its mode (svmlight_prediction); a
    refusal in one line for the backends and evaluators that take binary rows only."""
    found, mode_or_who = real_valued_scoring(clf, args.eval_mode, mode)
    if found is None:
        raise InputError(real_value_refusal(X, data, name, mode_or_who))
    return found, mode_or_who


def _decision_function(
    args: argparse.Namespace, clf: Classifier
) -> tuple[Callable[[FeatureMatrix], np.ndarray], str]:
    """The decision function `clf predict` uses and the name of its evaluation mode (a
    kernel-svm model of real-valued support vectors: naive, the one evaluator they take)."""
    if isinstance(clf, KernelSVM) and clf.expansion_.sv_values is not None:
        mode = args.eval_mode or "naive"
        if mode == "naive":
            if args.rare_threshold is not None:
                raise InputError("clf predict: --rare-threshold applies to the split evaluator, "
                                 "not naive")
            return clf.decision_function, mode
    if isinstance(clf, (KernelSVM, PASlicing)):
        mode = args.eval_mode or default_eval_mode(clf.degree)
        return _kernel_evaluator(clf, mode, args.rare_threshold).decision_function, mode
    _reject_rare_threshold("predict", args, clf)
    if isinstance(clf, KernelEvaluatorModel):
        if args.eval_mode not in (None, clf.evaluator):
            raise InputError(
                f"clf predict: {args.model} holds the {clf.evaluator} evaluator "
                f"(backend {clf.backend}); --eval-mode {args.eval_mode} needs the kernel model "
                "it was converted from"
            )
        return clf.decision_function, clf.evaluator
    if args.eval_mode is not None:
        raise InputError(
            f"clf predict: --eval-mode {args.eval_mode} applies to kernel models; "
            f"{clf.backend} models score with the weights of their explicit mapping"
        )
    return clf.decision_function, EXPLICIT_WEIGHTS


def run_predict(args: argparse.Namespace) -> int:
    args.input = args.test_file
    check_scale_out(args, "clf predict")
    check_input_paths([args.model, args.test_file])
    check_output_apart(args.decision_values, [args.model, args.test_file], "decision values")
    started = time.perf_counter()
    model_data = model_file_data(args.model)
    with sniffed_input(args.test_file, is_example_line) as source:
        if is_tree_model(model_data):
            if wants_scale_out(args):
                raise InputError("clf predict: --workers, --scheduler and --output-dir apply to "
                                 "models of svmlight vectors; "
                                 f"{args.model} is a tree-kernel model")
            return run_tree_predict(args, model_data, source)
        if holds_trees(source):
            raise InputError(f"clf predict: {source.name} holds trees (SVM-light-TK); "
                             f"{args.model} is not a tree-kernel model and reads svmlight "
                             "vectors")
        check_output_path(args.decision_values, "decision values")
        clf, _ = classifier_of_data(model_data, input_name(args.model))
        del model_data
        load_seconds = time.perf_counter() - started
        started = time.perf_counter()
        decision_function, eval_mode = _decision_function(args, clf)
        build_seconds = time.perf_counter() - started
        if wants_scale_out(args):
            return _predict_in_shards(args, clf, eval_mode, load_seconds, build_seconds,
                                      source)
        started = time.perf_counter()
        data = source.stream.read()
        X, y = parse_svmlight(data, source.name, real_values=True)
        if isinstance(X, RealMatrix):
            decision_function, eval_mode = _real_decision_function(args, clf, X, data,
                                                                   source.name, eval_mode)
        del data
    read_seconds = time.perf_counter() - started
    started = time.perf_counter()
    values = decision_function(X)
    seconds = time.perf_counter() - started
    predicted = clf.predict_from_decision(values)
    correct = int(np.count_nonzero(predicted == y))
    n = len(X)
    _warn_unseen(args.test_file, y[~np.isin(y, clf.classes_)], n)
    if args.decision_values:
        _write_decision_values(args.decision_values, predicted, values, clf.output_names())
    return _print_summary(args, {
        "accuracy": 100.0 * correct / n,
        "correct": correct,
        "n": n,
        "seconds": seconds,
        "microseconds_per_example": 1e6 * seconds / n,
        "eval_mode": eval_mode,
        "load_seconds": load_seconds,
        "build_seconds": build_seconds,
        "read_seconds": read_seconds,
        "backend": clf.backend,
    })


def _warn_unseen(test_file: str, unseen: np.ndarray, n: int) -> None:
    """One warning line when examples have labels the model never saw (unseen: their labels)."""
    if len(unseen):
        labels = ", ".join(str(label) for label in np.unique(unseen)[:10].tolist())
        warn(f"{test_file}: {len(unseen)} of {n} examples have labels the model never saw in "
             f"training ({labels}); they count as errors")


def _print_summary(args: argparse.Namespace, result: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"accuracy {result['accuracy']:.2f}% ({result['correct']}/{result['n']}), "
            f"{result['microseconds_per_example']:.1f} us per example ({result['eval_mode']})"
        )
    return 0


def _predict_in_shards(args: argparse.Namespace, clf: Classifier, eval_mode: str,
                       load_seconds: float, build_seconds: float, source: SniffedInput) -> int:
    """`clf predict` with --workers, --scheduler or --output-dir (parser/scale_out): the
    decision values written as one file (--decision-values) or as parts; seconds is the time
    of the whole run in shards, reading included (read_seconds 0)."""
    from polyparse.parser.scale_out.shard_tasks import ClassifierShardTask

    args.input = args.test_file
    task = ClassifierShardTask(args.eval_mode, args.rare_threshold,
                               write_values=bool(args.decision_values or args.output_dir))
    settings = {"eval_mode": args.eval_mode, "rare_threshold": args.rare_threshold}
    started = time.perf_counter()
    totals = run_in_shards(args, "clf predict", task, clf, args.model, "svmlight", settings,
                           output=args.decision_values,
                           discard_output=not args.decision_values, stream=source.stream)
    seconds = time.perf_counter() - started
    n, correct = totals.get("n", 0), totals.get("correct", 0)
    if not n:
        raise InputError(f"{args.test_file}: empty file (no examples)")
    if totals.get("real_shards") and isinstance(clf, KernelSVM):
        _warn_mixed_shards(args, eval_mode, totals["real_shards"],
                           totals.get("shards", totals["real_shards"]))
        eval_mode = "naive"
    _warn_unseen(args.test_file, np.asarray(totals["unseen_labels"]), n)
    return _print_summary(args, {
        "accuracy": 100.0 * correct / n, "correct": correct, "n": n, "seconds": seconds,
        "microseconds_per_example": 1e6 * seconds / n, "eval_mode": eval_mode,
        "load_seconds": load_seconds, "build_seconds": build_seconds, "read_seconds": 0.0,
        "backend": clf.backend})


def _warn_mixed_shards(args: argparse.Namespace, mode: str, real: int, shards: int) -> None:
    """One warning line when a kernel model's run in shards scored some shards of a
    real-valued file by its binary evaluator (they held 0/1 values only) where one process
    scores every row of the file by the naive kernel sum."""
    if real < shards and mode != "naive":
        warn(f"{args.test_file}: {shards - real} of {shards} shards held 0/1 values only and "
             f"were scored by the {mode} evaluator, the others by the naive kernel sum as one "
             "process scores a file of real values (equal up to rounding; --eval-mode naive "
             "gives one process's bytes)")


def _write_decision_values(path: str, predicted: np.ndarray, values: np.ndarray,
                           names: list[str]) -> None:
    """`label value...` per example after the header naming the columns of several values
    (classifiers/svmlight_prediction.py)."""
    with output_stream(path, newline="\n") as out:
        out.write(decision_values_header(names))
        out.write(decision_values_text(predicted, values))


def run_convert(args: argparse.Namespace) -> int:
    if args.rare_threshold is not None and args.to != "split":
        raise InputError(f"clf convert: --rare-threshold applies to --to split, not {args.to}")
    check_output_path(args.output, "model")
    check_input_paths([args.model])
    check_output_apart(args.output, [args.model], "converted model")
    model_data = model_file_data(args.model)
    source_sha256 = hashlib.sha256(model_data).hexdigest()
    clf, header = classifier_of_data(model_data, input_name(args.model))
    del model_data
    rare_threshold = DEFAULT_RARE_THRESHOLD if args.rare_threshold is None else args.rare_threshold
    command = f"polyparse clf convert --to {args.to}"
    if args.to == "split":
        command += f" --rare-threshold {rare_threshold}"
    conversion: dict[str, Any] = {
        "command": command,
        "source": Path(args.model).name,
        "source_format": header["format"],
        "source_sha256": source_sha256,
    }
    stats = {"objective": clf.stats_.get("objective"), "training": header.get("training"),
             "conversion": conversion}
    started = time.perf_counter()
    try:
        model = convert_classifier(clf, args.to, rare_threshold, stats)
    except ValueError as error:
        raise InputError(f"clf convert: {args.model}: {error}") from None
    seconds = time.perf_counter() - started
    if args.to == "split":
        pke_memory = convert_classifier(clf, "pke").memory_bytes()
        model.stats_["conversion"] = dict(
            conversion, pke_memory_total_bytes=sum(pke_memory.values())
        )
    model.save(args.output)
    memory = model.memory_bytes()
    file_bytes = os.stat(args.output).st_size if not is_special(args.output) else None
    summary = {
        "backend": model.backend,
        "evaluator": model.evaluator,
        "n_support_vectors": model.n_support_vectors,
        "classes": len(model.classes_),
        "memory_total_bytes": sum(memory.values()),
        "file_bytes": file_bytes,
        "seconds": round(seconds, 3),
        "output": str(args.output),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        on_disk = "" if file_bytes is None else f", a {file_bytes / 2**20:.1f} MiB file"
        print(
            f"converted {clf.backend} ({model.n_support_vectors} support vectors) to "
            f"{model.backend} in {seconds:.2f} s: {sum(memory.values()) / 2**20:.1f} MiB in "
            f"memory when loaded (its tables and scratch space){on_disk} -> {args.output}",
            file=sys.stderr,
        )
    return 0


def run_info(args: argparse.Namespace) -> int:
    check_input_paths([args.model])
    model_data = model_file_data(args.model)
    if is_tree_model(model_data):
        return _print_info(args, tree_model_info(args, model_data))
    clf, header = classifier_of_data(model_data, input_name(args.model))
    if not isinstance(clf, (KernelSVM, PASlicing)):
        _reject_rare_threshold("info", args, clf)
    try:
        info = classifier_info(clf, header, args.rare_threshold)
    except ValueError as error:
        raise InputError(f"clf info: --rare-threshold: {error}") from None
    return _print_info(args, info)


def _print_info(args: argparse.Namespace, info: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(info))
        return 0
    for line in _info_lines(info):
        print(line)
    return 0


def _info_lines(info: dict[str, Any], prefix: str = "") -> list[str]:
    """`key: value` lines; nested sections as `section.key`, sizes in bytes and MiB."""
    lines = []
    for key, value in info.items():
        name = prefix + key
        if key == "memory_bytes" and isinstance(value, dict):
            value = ", ".join(f"{part} {_bytes_text(size)}" for part, size in value.items())
        elif key.endswith("_bytes") and isinstance(value, int):
            value = _bytes_text(value)
        elif isinstance(value, dict) and key != "training":
            lines += _info_lines(value, name + ".")
            continue
        lines.append(f"{name}: {value}")
    return lines


def _bytes_text(size: int) -> str:
    return f"{size} B ({size / 2**20:.1f} MiB)"
