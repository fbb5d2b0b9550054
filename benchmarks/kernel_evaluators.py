"""Exact evaluators of a polynomial-kernel SVM on kwdlc_dep: naive sum, PKI, PKE, split-svm.

    python benchmarks/kernel_evaluators.py [--datasets DIR] [--degrees 2,3] [--with-20k]
                                           [--thresholds 0.001,0.002,...] [--rounds 3]
                                           [--model-dir DIR] [--markdown FILE]
                                           [--results docs/results.md]

A C-SVC model ((x.y + 1)^d, C = 1, the datasets README's setting) is trained on train.5k.svm
(and, with --with-20k, on train.20k.svm): by polyparse's kernel-svm (default), or with
--trainer libsvm by libsvm-official (about 9 minutes per degree on train.20k; read from
--model-dir when a file `<train>.d<degree>.model` is there, and saved there). Each
evaluator is built from it and scores every row of test.svm through decision_function (one
thread, this process pinned to one core; the least CPU time of --rounds rounds, the evaluators
taking turns within a round, the least wall time kept beside it). Printed, one JSON object per
measurement (what, data, figure, unit, machine, settings): the model's test accuracy,
microseconds per decision, speed-up over the naive sum (KernelSumScorer: every support
vector's kernel by merging id lists) and over the naive sum in libsvm's layout (OneVsOneSumScorer,
`clf predict --eval-mode naive`: a row's ids marked once, then counted per support vector),
memory of the evaluator's tables
(memory_bytes(): arrays, hash tables and one call's scratch; its parts in `parts`), build
seconds, and the largest difference from the NumPy kernel sum relative to max(|value|, 1).
Reference figures (datasets/README.md, pecco on opal models): d=2 PKI 121, PKE 1.5, split 1.4
microseconds; d=3 PKI 111, PKE 17.7, split 15.5; svm-predict on the 9,099-SV model about 1,800.
With --results, the run's section of docs/results.md is written.
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
from child_process import pinned_to_one_core
from machine import publish, record, timed
from tables import grouped, markdown_table, seconds_text, significant

from polyparse.classifiers.evaluators.choices import parse_rare_threshold
from polyparse.classifiers.evaluators.kernel_sum import KernelSumScorer
from polyparse.classifiers.evaluators.one_vs_one_expansion import OneVsOneExpansion
from polyparse.classifiers.evaluators.one_vs_one_sum import OneVsOneSumScorer
from polyparse.classifiers.evaluators.pke import PKEScorer
from polyparse.classifiers.evaluators.pki import PKIScorer
from polyparse.classifiers.evaluators.split_svm import SplitSVMScorer
from polyparse.classifiers.kernel_svm.libsvm_model import read_libsvm_model
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.scorer import BinaryScorer
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import read_svmlight

REPO = Path(__file__).resolve().parents[1]

THRESHOLDS = "auto,0.001,0.002,0.005,0.01,0.02,0.05"
# pecco (2015) on opal's PA-I models of the same data, microseconds per example, quoted from
# datasets/README.md (other models than the C-SVC ones measured here).
PECCO_QUOTED = {2: "PKI 121, PKE 1.5, split 1.4", 3: "PKI 111, PKE 17.7, split 15.5"}


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
    clf, fit = timed(lambda: KernelSVM(degree=degree, gamma=1.0, coef0=1.0, C=1.0).fit(X, y))
    emit("polyparse kernel-svm training time", round(fit.wall, 2), "s",
         n_support_vectors=clf.n_support_vectors, cpu_seconds=round(fit.cpu, 2))
    return clf.expansion_


def time_rounds(scorers: dict[str, BinaryScorer], X: BinaryMatrix,
                rounds: int) -> dict[str, tuple[float, float]]:
    """Least (CPU, wall) seconds of decision_function(X) per scorer over the rounds, on one
    core."""
    best = {name: (float("inf"), float("inf")) for name in scorers}
    with pinned_to_one_core():
        for _ in range(rounds):
            for name, scorer in scorers.items():
                _, timing = timed(scorer.decision_function, X)
                best[name] = (min(best[name][0], timing.cpu), min(best[name][1], timing.wall))
    return best


def relative_difference(values: np.ndarray, reference: np.ndarray) -> float:
    return float(np.max(np.abs(values - reference) / np.maximum(np.abs(reference), 1.0)))


def benchmark_model(
    train: Path, test: BinaryMatrix, test_labels: np.ndarray, degree: int,
    args: argparse.Namespace, emit_base: Callable
) -> list[dict]:
    rows: list[dict] = []
    data = f"kwdlc_dep {train.name} -> test.svm, d={degree}"

    def emit(what: str, figure: float, unit: str, **settings: object) -> None:
        emit_base(what, data, figure, unit, **settings)

    if args.trainer == "libsvm":
        model_file = libsvm_model_file(train, degree, Path(args.model_dir), emit)
        ovo = read_libsvm_model(model_file).expansion
    else:
        ovo = polyparse_model(train, degree, emit)
    expansion = ovo.as_kernel_expansion()
    emit("support vectors", expansion.n_support_vectors, "vectors", trainer=args.trainer)
    reference = expansion.naive_decision_function(test)
    predicted = ovo.vote(reference)
    emit("test accuracy", round(100 * float(np.mean(predicted == test_labels)), 2), "%",
         trainer=args.trainer)
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
        scorers[name], built = timed(build)
        build_seconds[name] = built.cpu
    best = time_rounds(scorers, test, args.rounds)
    seconds = {name: cpu for name, (cpu, _) in best.items()}
    naive_us = seconds["naive"] / len(test) * 1e6
    for name, scorer in scorers.items():
        us = seconds[name] / len(test) * 1e6
        settings: dict[str, object] = {"evaluator": name.split()[0]}
        if isinstance(scorer, SplitSVMScorer):
            settings.update(
                rare_threshold=scorer.settings["rare_threshold"],
                min_common_count=scorer.settings["min_common_count"],
                n_common_features=scorer.n_common_features,
                n_rare_features=scorer.n_rare_features,
                layout="dense" if scorer.dense else "hashed",
            )
        difference = relative_difference(scorer.decision_function(test), reference)
        memory = (scorer.memory_bytes() if hasattr(scorer, "memory_bytes")
                  else sum(a.nbytes for a in scorer.arrays.values()))
        libsvm_layout_us = seconds["naive-libsvm-layout"] / len(test) * 1e6
        emit(f"{name}: microseconds per decision", round(us, 3), "us (CPU time)",
             wall_us=round(best[name][1] / len(test) * 1e6, 3), **settings)
        emit(f"{name}: speed-up over the naive sum", round(naive_us / us, 1), "x", **settings)
        emit(f"{name}: speed-up over the naive sum in libsvm's layout (clf --eval-mode naive)",
             round(libsvm_layout_us / us, 1), "x", **settings)
        emit(f"{name}: memory", round(memory / 2**20, 3), "MiB", **settings,
             parts=scorer.memory_report() if hasattr(scorer, "memory_report") else {})
        emit(f"{name}: build time", round(build_seconds[name], 3), "s", **settings)
        emit(f"{name}: largest relative difference from the NumPy kernel sum", difference, "",
             **settings)
        rows.append({"data": data, "evaluator": name, "us": us, "speedup": naive_us / us,
                     "libsvm_layout_speedup": libsvm_layout_us / us,
                     "memory": memory / 2**20, "build": build_seconds[name],
                     "difference": difference, "train": train.name, "degree": degree,
                     "settings": settings})
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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    folder = Path(args.datasets) / "kwdlc_dep"
    trains = [folder / "train.5k.svm"] + ([folder / "train.20k.svm"] if args.with_20k else [])
    if not (folder / "test.svm").is_file() or not all(t.is_file() for t in trains):
        print(f"kernel_evaluators: {folder} lacks test.svm or a training file", file=sys.stderr)
        return 2
    test, test_labels = read_svmlight(folder / "test.svm")
    printed: list[dict] = []

    def emit(what: str, data: str, figure: float, unit: str, **settings: object) -> None:
        printed.append(record(what, data, figure, unit, **settings))
        print(json.dumps(printed[-1]), flush=True)

    rows: list[dict] = []
    for train in trains:
        for degree in (int(d) for d in args.degrees.split(",")):
            rows += benchmark_model(train, test, test_labels, degree, args, emit)
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows), encoding="utf-8")
    if args.results:
        publish(args.results, "kernel_evaluators", "Exact evaluators of a polynomial-kernel SVM",
                section(args, rows, printed))
    return 0


def section(args: argparse.Namespace, rows: list[dict], printed: list[dict]) -> list[str]:
    trainer = ("polyparse `kernel-svm`" if args.trainer == "polyparse"
               else "libsvm-official (models read from --model-dir when there)")
    lines = [(f"C-SVC models ((x.y + 1)^d, C = 1) trained by {trainer} on kwdlc_dep training "
             "files; each evaluator scores all 12,509 rows of `test.svm` through "
             "decision_function, one thread on one core, the least CPU time of "
             f"{args.rounds} round(s) (the evaluators taking turns); `split F`: the features "
             "held by at least s = F x (support vectors) are common (`auto`: chosen by the "
             "model); build: CPU time. Speed-ups are over the naive "
             "sum (every support vector's kernel by merging id lists) and over the naive sum in "
             "libsvm's layout (`clf predict --eval-mode naive`); memory: the evaluator's "
             "tables; difference: the largest from the NumPy kernel sum, relative to "
             "max(|value|, 1).")]
    for data in dict.fromkeys(row["data"] for row in rows):
        chosen = [row for row in rows if row["data"] == data]

        def figure(what: str, data: str = data) -> dict:
            return next(r for r in printed if r["what"] == what and r["data"] == data)

        first = chosen[0]
        model = f"**`{first['train']}`, d = {first['degree']}**: " + grouped(
            figure("support vectors")["figure"]) + " support vectors, test accuracy " + (
            f"{figure('test accuracy')['figure']:.2f} %")
        training = next((r for r in printed if r["data"] == data and r["what"].endswith(
            "training time")), None)
        if training is not None:
            model += f", trained in {seconds_text(training['figure'])}"
        lines += ["", model + ".", ""]
        lines += markdown_table(
            ["evaluator", "us per decision", "speed-up over naive", "over libsvm's layout",
             "memory", "build", "difference"],
            ([row["evaluator"] + (f" (s = {row['settings']['min_common_count']:g}, "
                                  f"{row['settings']['n_common_features']:,} common features)"
                                  if "rare_threshold" in row["settings"] else ""),
              significant(row["us"]), f"{significant(row['speedup'])} x",
              f"{significant(row['libsvm_layout_speedup'])} x",
              f"{significant(row['memory'])} MiB", seconds_text(row["build"]),
              f"{row['difference']:.1e}"] for row in chosen))
    lines += ["", "pecco (2015) on opal's PA-I models of the same data (other models than these), "
              "**quoted from `datasets/README.md`**, microseconds per example: "
              + "; ".join(f"d = {d}: {text}" for d, text in PECCO_QUOTED.items())
              + "; libsvm's `svm-predict` on a 9,099-SV model of `train.20k.svm`: about 1,800."]
    return lines


if __name__ == "__main__":
    sys.exit(main())
