"""`polyparse clf train|predict|info`: any binary-feature backend on svmlight/libsvm files."""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from classifiers.kernel_svm import KernelSVM
from classifiers.libsvm_model import is_libsvm_model
from classifiers.model_file import ModelFileError, read_model_file, write_model_file
from classifiers.poly2_linear_svm import MODEL_FORMAT, LinearSVM, Poly2LinearSVM
from features.errors import InputError
from features.svmlight import read_svmlight

AVAILABLE = ("linear", "poly2-linear", "kernel-svm")
PLANNED = ("pa-slicing",)
KERNEL_EVAL_MODES = ("naive",)


def register(groups: argparse._SubParsersAction) -> None:
    """Add the `clf` group to the top-level subcommands."""
    from parser.cli import debug_parent

    group = groups.add_parser("clf", help="train, apply and inspect classifiers on svmlight files")
    commands = group.add_subparsers(dest="command", metavar="{train,predict,info}", required=True)

    train = commands.add_parser(
        "train", parents=[debug_parent()], help="train a classifier on an svmlight file"
    )
    train.add_argument("train_file", metavar="TRAIN.svm", help="training examples (svmlight)")
    train.add_argument("--model", required=True, metavar="OUT", help="model file to write")
    train.add_argument(
        "--classifier", required=True, choices=AVAILABLE + PLANNED, help="backend to train"
    )
    train.add_argument(
        "--degree", type=int,
        help="polynomial degree (linear: 1, poly2-linear: 2, kernel-svm: 1-4, default 2)",
    )
    train.add_argument("--gamma", type=float, default=1.0, help="kernel gamma (default 1)")
    train.add_argument("--coef0", type=float, default=1.0, help="kernel coef0 (default 1)")
    train.add_argument("-C", dest="C", type=float, default=1.0, help="SVM cost C (default 1)")
    train.add_argument("--loss", choices=("l1", "l2"), help="hinge loss (default l2)")
    train.add_argument(
        "--eps", type=float,
        help="stopping tolerance (default 0.1; kernel-svm: 1e-3, as libsvm)",
    )
    train.add_argument(
        "--iterations", type=int,
        help="at most this many passes (default 1000; kernel-svm: SMO steps, "
        "default max(10^7, 100 x rows))",
    )
    train.add_argument(
        "--cache-mb", type=float, default=100.0,
        help="kernel-svm: kernel column cache per solver in MB (default 100)",
    )
    train.add_argument(
        "--class-weight", action="append", default=[], metavar="LABEL:WEIGHT",
        help="kernel-svm: multiply C by WEIGHT for class LABEL (repeatable)",
    )
    train.add_argument(
        "--no-shrinking", action="store_true", help="kernel-svm: do not shrink the active set"
    )
    train.add_argument(
        "--threads", type=int, default=1,
        help="kernel-svm: class pairs solved in parallel (default 1)",
    )
    train.add_argument(
        "--min-pair-count", type=int, default=1,
        help="drop feature pairs seen in fewer training rows (default 1)",
    )
    train.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    train.add_argument(
        "--dtype", choices=("float32", "float64"), default="float32", help="stored weight type"
    )
    train.add_argument("--average", action="store_true", help="averaged perceptron (pa-slicing)")
    train.add_argument(
        "--strategy", choices=("kernel", "expand", "split", "slice"),
        help="how kernel models are trained (linear backends always expand)",
    )
    train.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    train.set_defaults(run=run_train)

    predict = commands.add_parser(
        "predict", parents=[debug_parent()], help="apply a model to an svmlight file"
    )
    predict.add_argument("test_file", metavar="TEST.svm", help="examples to classify (svmlight)")
    predict.add_argument("--model", required=True, metavar="M", help="model file")
    predict.add_argument(
        "--eval-mode", choices=("naive", "pki", "pke", "split"),
        help="scoring method for kernel models (linear backends always use their expanded weights)",
    )
    predict.add_argument(
        "--decision-values", metavar="FILE",
        help="write each example's predicted label and decision values to FILE",
    )
    predict.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    predict.set_defaults(run=run_predict)

    info = commands.add_parser("info", parents=[debug_parent()], help="describe a model file")
    info.add_argument("--model", required=True, metavar="M", help="model file")
    info.add_argument("--json", action="store_true", help="print JSON on stdout")
    info.set_defaults(run=run_info)


def _build_classifier(args: argparse.Namespace) -> Poly2LinearSVM | KernelSVM:
    name = args.classifier
    if name in PLANNED:
        raise InputError(
            f"clf train: the {name} classifier is not available yet "
            f"(available: {', '.join(AVAILABLE)})"
        )
    if name == "kernel-svm":
        return _build_kernel_svm(args)
    if args.class_weight or args.no_shrinking:
        option = "--class-weight" if args.class_weight else "--no-shrinking"
        raise InputError(f"clf train: {option} applies to kernel-svm, not {name}")
    degree = 1 if name == "linear" else 2
    if args.degree is not None and args.degree != degree:
        if args.degree > 2:
            raise InputError(
                f"clf train: degree {args.degree} needs kernel-svm (--classifier kernel-svm; "
                "pa-slicing is not available yet)"
            )
        other = "linear" if args.degree == 1 else "poly2-linear"
        raise InputError(
            f"clf train: {name} is degree {degree}; "
            f"use --classifier {other} for degree {args.degree}"
        )
    if args.average:
        raise InputError(f"clf train: --average applies to pa-slicing, not {name}")
    if args.strategy not in (None, "expand"):
        raise InputError(f"clf train: {name} always uses the expand strategy")
    options = dict(
        gamma=args.gamma, coef0=args.coef0, C=args.C, loss=args.loss or "l2",
        eps=0.1 if args.eps is None else args.eps,
        max_iter=1000 if args.iterations is None else args.iterations,
        seed=args.seed, dtype=args.dtype,
    )
    try:
        if degree == 1:
            return LinearSVM(**options)
        return Poly2LinearSVM(degree=2, min_pair_count=args.min_pair_count, **options)
    except ValueError as error:
        raise InputError(f"clf train: {error}") from None


def _build_kernel_svm(args: argparse.Namespace) -> KernelSVM:
    if args.loss is not None:
        raise InputError("clf train: --loss applies to the linear backends; kernel-svm is C-SVC")
    if args.average:
        raise InputError("clf train: --average applies to pa-slicing, not kernel-svm")
    if args.strategy not in (None, "kernel"):
        raise InputError("clf train: kernel-svm always uses the kernel strategy")
    weights = {}
    for text in args.class_weight:
        label_text, colon, weight_text = text.rpartition(":")
        try:
            weights[_label_value(label_text)] = float(weight_text)
        except ValueError:
            raise InputError(
                f"clf train: --class-weight {text!r} is not LABEL:WEIGHT"
            ) from None
        if not colon:
            raise InputError(f"clf train: --class-weight {text!r} is not LABEL:WEIGHT")
    try:
        return KernelSVM(
            degree=2 if args.degree is None else args.degree, gamma=args.gamma,
            coef0=args.coef0, C=args.C, eps=1e-3 if args.eps is None else args.eps,
            cache_mb=args.cache_mb, shrinking=not args.no_shrinking, class_weight=weights,
            max_iter=args.iterations, threads=args.threads,
        )
    except ValueError as error:
        raise InputError(f"clf train: {error}") from None


def _label_value(text: str) -> int | float:
    """A class label as the svmlight reader returns it: int when integral, else float."""
    value = float(text)
    return int(value) if value.is_integer() else value


def _canonical_command(args: argparse.Namespace, clf: Poly2LinearSVM | KernelSVM) -> str:
    """The training command rebuilt from the settings (no output path, so equal runs match)."""
    if isinstance(clf, KernelSVM):
        parts = [
            "polyparse clf train", Path(args.train_file).name, "--classifier kernel-svm",
            f"--degree {clf.degree}", f"--gamma {clf.gamma!r}", f"--coef0 {clf.coef0!r}",
            f"-C {clf.C!r}", f"--eps {clf.eps!r}",
        ]
        parts += [f"--class-weight {label}:{weight!r}" for label, weight in
                  clf.class_weight.items()]
        if not clf.shrinking:
            parts.append("--no-shrinking")
        if clf.max_iter is not None:
            parts.append(f"--iterations {clf.max_iter}")
        return " ".join(parts)
    parts = [
        "polyparse clf train", Path(args.train_file).name, f"--classifier {args.classifier}",
        f"--gamma {clf.gamma!r}", f"--coef0 {clf.coef0!r}", f"-C {clf.C!r}", f"--loss {clf.loss}",
        f"--eps {clf.eps!r}", f"--iterations {clf.max_iter}", f"--seed {clf.seed}",
        f"--dtype {clf.dtype}",
    ]
    if clf.degree == 2:
        parts.append(f"--min-pair-count {clf.min_pair_count}")
    return " ".join(parts)


def run_train(args: argparse.Namespace) -> int:
    clf = _build_classifier(args)
    data = Path(args.train_file).read_bytes()
    started = time.perf_counter()
    X, y = read_svmlight(args.train_file)
    read_seconds = time.perf_counter() - started
    started = time.perf_counter()
    clf.fit(X, y)
    fit_seconds = time.perf_counter() - started
    header, arrays = clf.to_arrays()
    header["format"] = MODEL_FORMAT
    header["training"] = {
        "command": _canonical_command(args, clf),
        "data": Path(args.train_file).name,
        "data_sha256": hashlib.sha256(data).hexdigest(),
        "rows": len(X),
        "n_features": X.n_features,
    }
    write_model_file(args.model, header, arrays)
    if isinstance(clf, KernelSVM):
        return _report_kernel_svm(args, clf, len(X), read_seconds, fit_seconds)
    stats = clf.stats_
    summary = {
        "backend": clf.backend,
        "rows": len(X),
        "classes": len(clf.classes_),
        "n_outputs": clf.n_outputs,
        "dims": int(arrays["keys"].size),
        "objective": stats["objective"],
        "iterations": stats["iterations"],
        "converged": stats["converged"],
        "weight_sparsity": stats["weight_sparsity"],
        "read_seconds": round(read_seconds, 3),
        "seconds": round(fit_seconds, 3),
        "model": str(args.model),
    }
    if not all(stats["converged"]):
        gap = max(stats["projected_gradient_gap"])
        print(
            f"polyparse: warning: stopped after --iterations {clf.max_iter} with "
            f"projected-gradient gap {gap:.3g} > --eps {clf.eps:g}",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"trained {clf.backend} on {len(X)} rows, {len(clf.classes_)} classes, "
            f"{summary['dims']} weight rows in {fit_seconds:.2f} s -> {args.model}",
            file=sys.stderr,
        )
    return 0


def _report_kernel_svm(
    args: argparse.Namespace, clf: KernelSVM, rows: int, read_seconds: float, fit_seconds: float
) -> int:
    stats = clf.stats_
    summary = {
        "backend": clf.backend,
        "rows": rows,
        "classes": len(clf.classes_),
        "n_outputs": clf.n_outputs,
        "n_support_vectors": clf.n_support_vectors,
        "objective": stats.get("objective"),
        "iterations": stats.get("iterations"),
        "converged": stats.get("converged"),
        "read_seconds": round(read_seconds, 3),
        "seconds": round(fit_seconds, 3),
        "model": str(args.model),
    }
    if not all(stats.get("converged", [])):
        print(
            f"polyparse: warning: stopped after --iterations {clf.max_iter} SMO steps "
            f"before reaching --eps {clf.eps:g}",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"trained kernel-svm on {rows} rows, {len(clf.classes_)} classes, "
            f"{clf.n_support_vectors} support vectors in {fit_seconds:.2f} s -> {args.model}",
            file=sys.stderr,
        )
    return 0


def load_model(
    path: str,
) -> tuple[Poly2LinearSVM | KernelSVM, dict[str, Any], dict[str, np.ndarray]]:
    """Classifier, header and arrays of a polyparse-clf model file or of a libsvm text model
    (header {"format": "libsvm", ...}); one-line ModelFileError when unusable."""
    if is_libsvm_model(path):
        clf = KernelSVM.load_libsvm(path)
        header = {"format": "libsvm", "backend": clf.backend}
        return clf, header, clf.to_arrays()[1]
    header, arrays = read_model_file(path, MODEL_FORMAT)
    backend = header.get("backend")
    if backend not in AVAILABLE:
        raise ModelFileError(f"{path}: holds a {backend} model, which this polyparse cannot load")
    if backend == "kernel-svm":
        return KernelSVM.from_arrays(header, arrays, source=str(path)), header, arrays
    return Poly2LinearSVM.from_arrays(header, arrays, source=str(path)), header, arrays


def run_predict(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    clf, _, _ = load_model(args.model)
    load_seconds = time.perf_counter() - started
    if isinstance(clf, KernelSVM):
        if args.eval_mode not in (None,) + KERNEL_EVAL_MODES:
            raise InputError(
                f"clf predict: --eval-mode {args.eval_mode} is not available yet for kernel-svm "
                f"models (available: {', '.join(KERNEL_EVAL_MODES)})"
            )
    elif args.eval_mode not in (None, "pke"):
        raise InputError(
            f"clf predict: --eval-mode {args.eval_mode} applies to kernel models; "
            f"{clf.backend} models score with their expanded weights (pke)"
        )
    started = time.perf_counter()
    X, y = read_svmlight(args.test_file)
    read_seconds = time.perf_counter() - started
    started = time.perf_counter()
    values = clf.decision_function(X)
    seconds = time.perf_counter() - started
    predicted = clf.predict_from_decision(values)
    correct = int(np.count_nonzero(predicted == y))
    n = len(X)
    if args.decision_values:
        _write_decision_values(args.decision_values, predicted, values)
    result = {
        "accuracy": 100.0 * correct / n,
        "correct": correct,
        "n": n,
        "seconds": seconds,
        "microseconds_per_example": 1e6 * seconds / n,
        "load_seconds": load_seconds,
        "read_seconds": read_seconds,
        "backend": clf.backend,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"accuracy {result['accuracy']:.2f}% ({correct}/{n}), "
            f"{result['microseconds_per_example']:.1f} us per example"
        )
    return 0


def _write_decision_values(path: str, predicted: np.ndarray, values: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for label, row in zip(predicted.tolist(), values.tolist()):
            out.write(" ".join([str(label)] + [repr(v) for v in row]) + "\n")


def _kernel_svm_info(clf: KernelSVM, header: dict[str, Any]) -> dict[str, Any]:
    expansion = clf.expansion_
    assert expansion is not None
    from_libsvm = header.get("format") == "libsvm"
    trained = {} if from_libsvm else clf.parameters()
    return {
        "backend": clf.backend,
        "format": "libsvm" if from_libsvm else MODEL_FORMAT,
        "objective": clf.stats_.get("objective"),
        "n_support_vectors": clf.n_support_vectors,
        "n_support": expansion.n_support.tolist(),
        "classes": clf.classes_.tolist(),
        "n_outputs": clf.n_outputs,
        "degree": clf.degree,
        "gamma": clf.gamma,
        "coef0": clf.coef0,
        "rho": expansion.rho.tolist(),
        **{key: trained.get(key) for key in ("C", "eps", "class_weight", "shrinking")},
        "iterations": clf.stats_.get("iterations"),
        "converged": clf.stats_.get("converged"),
        "n_bounded": clf.stats_.get("n_bounded"),
        "training": header.get("training"),
    }


def run_info(args: argparse.Namespace) -> int:
    clf, header, arrays = load_model(args.model)
    memory = clf.memory_bytes()
    if isinstance(clf, KernelSVM):
        info = _kernel_svm_info(clf, header)
        info.update(memory_bytes=memory, memory_total_bytes=sum(memory.values()))
        return _print_info(args, info)
    info: dict[str, Any] = {
        "backend": clf.backend,
        "objective": clf.stats_.get("objective"),
        "classes": clf.classes_.tolist(),
        "n_outputs": clf.n_outputs,
        "dims": int(arrays["keys"].size),
        "degree": clf.degree,
        "gamma": clf.gamma,
        "coef0": clf.coef0,
        "C": clf.C,
        "loss": clf.loss,
        "eps": clf.eps,
        "max_iter": clf.max_iter,
        "min_pair_count": clf.min_pair_count,
        "seed": clf.seed,
        "dtype": clf.dtype,
        "layout": header.get("layout"),
        "iterations": clf.stats_.get("iterations"),
        "converged": clf.stats_.get("converged"),
        "projected_gradient_gap": clf.stats_.get("projected_gradient_gap"),
        "n_support": clf.stats_.get("n_support"),
        "weight_sparsity": clf.stats_.get("weight_sparsity"),
        "memory_bytes": memory,
        "memory_total_bytes": sum(memory.values()),
        "training": header.get("training"),
    }
    return _print_info(args, info)


def _print_info(args: argparse.Namespace, info: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(info))
        return 0
    for key, value in info.items():
        if key == "memory_bytes":
            value = ", ".join(f"{name} {size / 2**20:.1f} MiB" for name, size in value.items())
        print(f"{key}: {value}")
    return 0
