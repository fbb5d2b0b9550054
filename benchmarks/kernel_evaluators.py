"""Exact evaluators of a polynomial-kernel SVM on kwdlc_dep: naive sum, PKI, PKE, split-svm.

    python benchmarks/kernel_evaluators.py [--datasets DIR] [--degrees 2,3] [--with-20k]
                                           [--thresholds 0.001,0.002,...] [--rounds 3]
                                           [--model-dir DIR] [--markdown FILE]

A C-SVC model ((x.y + 1)^d, C = 1, the datasets README's setting) is trained on train.5k.svm
(and, with --with-20k, on train.20k.svm): by polyparse's kernel-svm (default), or with
--trainer libsvm by libsvm-official (about 9 minutes per degree on train.20k; read from
--model-dir when a file `<train>.d<degree>.model` is there, and saved there). Each
evaluator is built from it and scores every row of test.svm through decision_function (one
thread; the least wall time of --rounds rounds, the evaluators taking turns within a round).
Printed, one JSON object per measurement (what, data, figure, unit, machine, settings):
microseconds per decision, speed-up over the naive sum (KernelSumScorer: every support
vector's kernel by merging id lists) and over the naive sum in libsvm's layout (OneVsOneSumScorer,
`clf predict --eval-mode naive`: a row's ids marked once, then counted per support vector),
memory of the evaluator's tables
(memory_bytes(): arrays, hash tables and one call's scratch; its parts in `parts`), build
seconds, and the largest difference from the NumPy kernel sum relative to max(|value|, 1).
Reference figures (datasets/README.md, pecco on opal models): d=2 PKI 121, PKE 1.5, split 1.4
microseconds; d=3 PKI 111, PKE 17.7, split 15.5; svm-predict on the 9,099-SV model about 1,800.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from machine import record

from classifiers.evaluators.choices import parse_rare_threshold
from classifiers.evaluators.kernel_sum import KernelSumScorer
from classifiers.evaluators.one_vs_one_expansion import OneVsOneExpansion
from classifiers.evaluators.one_vs_one_sum import OneVsOneSumScorer
from classifiers.evaluators.pke import PKEScorer
from classifiers.evaluators.pki import PKIScorer
from classifiers.evaluators.split_svm import SplitSVMScorer
from classifiers.kernel_svm.libsvm_model import read_libsvm_model
from classifiers.kernel_svm.svc import KernelSVM
from classifiers.scorer import BinaryScorer
from features.binary_matrix import BinaryMatrix
from features.svmlight import read_svmlight

REPO = Path(__file__).resolve().parents[1]

THRESHOLDS = "auto,0.001,0.002,0.005,0.01,0.02,0.05"


def libsvm_model_file(train: Path, degree: int, model_dir: Path, emit: Callable) -> Path:
    """The libsvm model of train at this degree: from model_dir, else trained and saved there."""
    path = model_dir / f"{train.stem}.d{degree}.model"
    if path.is_file():
        return path
    from libsvm import svmutil

    y, x = svmutil.svm_read_problem(str(train))
    started = time.perf_counter()
    model = svmutil.svm_train(y, x, f"-q -s 0 -t 1 -d {degree} -g 1 -r 1 -c 1")
    seconds = time.perf_counter() - started
    model_dir.mkdir(parents=True, exist_ok=True)
    svmutil.svm_save_model(str(path), model)
    emit("libsvm-official training time", round(seconds, 2), "s", n_support_vectors=model.l)
    return path


def polyparse_model(train: Path, degree: int, emit: Callable) -> OneVsOneExpansion:
    """Our kernel-svm (libsvm's C-SVC SMO) trained on train at this degree, (x.y + 1)^d, C = 1."""
    X, y = read_svmlight(train)
    started = time.perf_counter()
    clf = KernelSVM(degree=degree, gamma=1.0, coef0=1.0, C=1.0).fit(X, y)
    emit("polyparse kernel-svm training time", round(time.perf_counter() - started, 2), "s",
         n_support_vectors=clf.n_support_vectors)
    return clf.expansion_


def time_rounds(scorers: dict[str, BinaryScorer], X: BinaryMatrix, rounds: int) -> dict:
    """Least wall seconds of decision_function(X) per scorer over the rounds."""
    best = {name: float("inf") for name in scorers}
    for _ in range(rounds):
        for name, scorer in scorers.items():
            started = time.perf_counter()
            scorer.decision_function(X)
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def relative_difference(values: np.ndarray, reference: np.ndarray) -> float:
    return float(np.max(np.abs(values - reference) / np.maximum(np.abs(reference), 1.0)))


def benchmark_model(
    train: Path, test: BinaryMatrix, degree: int, args: argparse.Namespace, emit_base: Callable
) -> list[dict]:
    rows: list[dict] = []
    data = f"kwdlc_dep {train.name} -> test.svm, d={degree}"

    def emit(what: str, figure: float, unit: str, **settings: object) -> None:
        emit_base(what, data, figure, unit, **settings)

    if args.trainer == "libsvm":
        ovo = read_libsvm_model(libsvm_model_file(train, degree, Path(args.model_dir), emit)).expansion
    else:
        ovo = polyparse_model(train, degree, emit)
    expansion = ovo.as_kernel_expansion()
    emit("support vectors", expansion.n_support_vectors, "vectors", trainer=args.trainer)
    reference = expansion.naive_decision_function(test)
    sv = ovo.support_vectors
    builders: dict[str, Callable[[], BinaryScorer]] = {
        "naive": lambda: KernelSumScorer(expansion),
        "naive-libsvm-layout": lambda: OneVsOneSumScorer(
            sv.indptr, sv.indices, ovo.dual_coef, ovo.rho, ovo.n_support, ovo.degree, ovo.gamma,
            ovo.coef0),
        "pki": lambda: PKIScorer(expansion),
        "pke": lambda: PKEScorer(expansion),
    }
    for text in args.thresholds.split(","):
        threshold = parse_rare_threshold(text)
        builders[f"split {text}"] = lambda t=threshold: SplitSVMScorer(expansion, t)
    scorers: dict[str, BinaryScorer] = {}
    build_seconds: dict[str, float] = {}
    for name, build in builders.items():
        started = time.perf_counter()
        scorers[name] = build()
        build_seconds[name] = time.perf_counter() - started
    seconds = time_rounds(scorers, test, args.rounds)
    naive_us = seconds["naive"] / len(test) * 1e6
    for name, scorer in scorers.items():
        us = seconds[name] / len(test) * 1e6
        settings: dict[str, object] = {"evaluator": name.split()[0]}
        if isinstance(scorer, SplitSVMScorer):
            settings.update(
                rare_threshold=scorer.settings["rare_threshold"],
                n_common_features=scorer.n_common_features,
                n_rare_features=scorer.n_rare_features,
                layout="dense" if scorer.dense else "hashed",
            )
        difference = relative_difference(scorer.decision_function(test), reference)
        memory = (scorer.memory_bytes() if hasattr(scorer, "memory_bytes")
                  else sum(a.nbytes for a in scorer.arrays.values()))
        libsvm_layout_us = seconds["naive-libsvm-layout"] / len(test) * 1e6
        emit(f"{name}: microseconds per decision", round(us, 3), "us", **settings)
        emit(f"{name}: speed-up over the naive sum", round(naive_us / us, 1), "x", **settings)
        emit(f"{name}: speed-up over the naive sum in libsvm's layout (clf --eval-mode naive)",
             round(libsvm_layout_us / us, 1), "x", **settings)
        emit(f"{name}: memory", round(memory / 2**20, 3), "MiB", **settings,
             parts=scorer.memory_report() if hasattr(scorer, "memory_report") else {})
        emit(f"{name}: build time", round(build_seconds[name], 3), "s", **settings)
        emit(f"{name}: largest relative difference from the NumPy kernel sum", difference, "",
             **settings)
        rows.append({"data": data, "evaluator": name, "us": us, "speedup": naive_us / us,
                     "memory": memory / 2**20, "build": build_seconds[name],
                     "difference": difference})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [
        "| model | evaluator | us/decision | speed-up | memory MiB | build s | max rel. diff |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['data']} | {row['evaluator']} | {row['us']:.2f} | {row['speedup']:.0f} x "
            f"| {row['memory']:.2f} | {row['build']:.2f} | {row['difference']:.1e} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding kwdlc_dep/")
    ap.add_argument("--degrees", default="2,3", help="kernel degrees, comma-separated")
    ap.add_argument("--with-20k", action="store_true",
                    help="also the model of train.20k.svm")
    ap.add_argument("--trainer", choices=("polyparse", "libsvm"), default="polyparse",
                    help="whose C-SVC model to evaluate: ours (kernel-svm, seconds) or "
                         "libsvm-official's (about 9 minutes per degree on train.20k)")
    ap.add_argument("--thresholds", default=THRESHOLDS,
                    help="split-svm rare thresholds: auto, counts (digits) or fractions")
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds (least time kept)")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    ap.add_argument("--model-dir", default=str(cache / "polyparse" / "kwdlc_models"),
                    help="where libsvm models are looked up and saved")
    ap.add_argument("--markdown", help="also write a markdown table to this file")
    args = ap.parse_args()
    folder = Path(args.datasets) / "kwdlc_dep"
    trains = [folder / "train.5k.svm"] + ([folder / "train.20k.svm"] if args.with_20k else [])
    if not (folder / "test.svm").is_file() or not all(t.is_file() for t in trains):
        print(f"kernel_evaluators: {folder} lacks test.svm or a training file", file=sys.stderr)
        return 2
    test, _ = read_svmlight(folder / "test.svm")

    def emit(what: str, data: str, figure: float, unit: str, **settings: object) -> None:
        print(json.dumps(record(what, data, figure, unit, **settings)), flush=True)

    rows: list[dict] = []
    for train in trains:
        for degree in (int(d) for d in args.degrees.split(",")):
            rows += benchmark_model(train, test, degree, args, emit)
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
