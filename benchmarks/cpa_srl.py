"""Cutting-plane SVMs (uSVM, SDAG, SDAG+, uSVM+j) on the SRL boundary files: Table 1 of
Severyn & Moschitti (2010) and its class-imbalance table, on our data.

    python benchmarks/cpa_srl.py [--parts training,classification,imbalance,threads,all]
        [--datasets DIR] [--samples 250,500,1000,2000] [--iterations 50]
        [--usvm-max-sample 2000] [--models train.5k.tk,train.20k.tk,train.50k.tk]
        [--test test.tk] [--plain-limit 2000] [-j 2,5] [--threads 2] [--smoke]

Parts (each prints one JSON object per measurement: what, data, figure, unit, machine,
settings):
- training: on train.50k.tk with SST alone, for each sample size r, the same number of
  iterations for uSVM, SDAG and SDAG+ (epsilon 1e-9, so none stops early), one thread: fit
  seconds with the MVC / Gram / QP split, the speed-up over uSVM, and the largest difference of
  alpha to uSVM's relative to the largest alpha;
- classification: SDAG+ models (r 1000, at most 500 iterations, epsilon 1e-3) trained on each
  file of --models; microseconds per test tree by the DAG (all of --test) and by the plain kernel
  sum over the model's trees (the uSVM model; its first --plain-limit trees), the speed-up and the
  largest relative difference of the two decision values;
- imbalance: on train.20k.tk with SST, precision / recall / F1 on --test of uSVM (uniform),
  uSVM+j (rejection sampling, j = n_neg / n_pos) and the SMO C-SVC (tree_svm.py) with -j 1 and
  -j 5, beside SVM-light-TK's figures quoted from the dataset README;
- threads: SDAG+ on train.50k.tk, r 1000, --iterations iterations, MVC seconds with one and two
  threads, and whether the two models are identical;
- all: SDAG+ with uSVM+j sampling on all of train.tk, SST + poly2, for each -j (and the default
  n_neg / n_pos), at most 500 iterations: fit seconds and F1 on dev.tk and test.tk.
The full run is the command above with `--parts training,classification,imbalance,threads,all`
(about 25 minutes on 2 cores, most of it uSVM with r = 2,000). --smoke: train.5k.tk, r 100,
3 iterations, test.10k.tk with --plain-limit 200, in under a minute.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from machine import Records

REPO = Path(__file__).resolve().parents[1]

PARTS = ("training", "classification", "imbalance", "threads", "all")
# SVM-light-TK 1.5 on train.20k.tk with SST alone (datasets/srl_boundary/README.md): F1, P, R.
SVM_LIGHT_TK_20K = {1.0: (74.95, 89.25, 64.60), 5.0: (80.48, 82.46, 78.59)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding srl_boundary/")
    ap.add_argument("--parts", default="training,classification,imbalance,threads")
    ap.add_argument("--samples", default="250,500,1000,2000", help="sample sizes r (training)")
    ap.add_argument("--iterations", type=int, default=50, help="fixed iterations (training, "
                    "threads)")
    ap.add_argument("--usvm-max-sample", type=int, default=2000,
                    help="skip uSVM for larger r (training)")
    ap.add_argument("--train", default="train.50k.tk", help="training file (training, threads)")
    ap.add_argument("--models", default="train.5k.tk,train.20k.tk,train.50k.tk")
    ap.add_argument("--imbalance-train", default="train.20k.tk")
    ap.add_argument("--test", default="test.tk")
    ap.add_argument("--plain-limit", type=int, default=2000,
                    help="test trees timed by the plain kernel sum (classification)")
    ap.add_argument("-j", default="2,5", help="positive costs for the `all` part")
    ap.add_argument("--threads", type=int, default=2, help="threads of the `all` part")
    ap.add_argument("--smoke", action="store_true", help="tiny settings, under a minute")
    args = ap.parse_args()
    if args.smoke:
        args.samples, args.iterations, args.train = "100", 3, "train.5k.tk"
        args.models, args.imbalance_train = "train.5k.tk", "train.5k.tk"
        args.test, args.plain_limit = "test.10k.tk", 200
    parts = args.parts.split(",")
    unknown = [part for part in parts if part not in PARTS]
    if unknown:
        print(f"cpa_srl: unknown part {unknown[0]!r} (expected {', '.join(PARTS)})",
              file=sys.stderr)
        return 2
    folder = Path(args.datasets) / "srl_boundary"
    if not (folder / args.test).is_file():
        print(f"cpa_srl: missing {folder / args.test}", file=sys.stderr)
        return 2
    records = Records(f"srl_boundary ({folder})")
    for part in parts:
        globals()[f"run_{part}"](folder, args, records)
    return 0


def _read(folder: Path, name: str, like=None):
    from features.svmlight_tk import read_svmlight_tk

    if like is None:
        return read_svmlight_tk(folder / name)
    return read_svmlight_tk(folder / name, like.forest.labels, like.forest.productions)


def _labels(data) -> np.ndarray:
    return np.where(data.labels > 0, 1, -1)


def _fit(data, algorithm: str, degree: int | None = None, **options):
    from classifiers.tree_kernels.cutting_plane.cutting_plane_svm import CuttingPlaneSVM
    from classifiers.tree_kernels.tree_model import TreeKernelSpec

    svm = CuttingPlaneSVM(TreeKernelSpec(degree=degree), algorithm, **options)
    result = svm.fit(data.forest, _labels(data), data.vectors if degree else None)
    return svm, result


def _scores(gold: np.ndarray, values: np.ndarray) -> dict:
    from classifiers.binary_scores import positive_class_scores

    scores = positive_class_scores(gold > 0, values > 0)
    return {key: round(scores[key], 2) for key in ("precision", "recall", "F1")}


def run_training(folder: Path, args, records: Records) -> None:
    data = _read(folder, args.train)
    for r in (int(value) for value in args.samples.split(",")):
        fits = {}
        for algorithm in ("usvm", "sdag", "sdag+"):
            if algorithm == "usvm" and r > args.usvm_max_sample:
                continue
            svm, result = _fit(data, algorithm, sample=r, iterations=args.iterations,
                               epsilon=1e-9, seed=1, threads=1)
            fits[algorithm] = (svm, result)
            records.emit(f"training seconds, {algorithm}", round(result.seconds, 3), "s",
                         file=args.train, kernel="sst", r=r, iterations=result.iterations,
                         mvc=round(result.mvc_seconds, 3), gram=round(result.gram_seconds, 3),
                         qp=round(result.qp_seconds, 3), cut_members=int(sum(
                             m.size for m, _ in svm.cut_members)))
        if "usvm" not in fits:
            continue
        reference_svm, reference = fits["usvm"]
        scale = float(np.abs(reference_svm.alpha_).max())
        for algorithm in ("sdag", "sdag+"):
            svm, result = fits[algorithm]
            records.emit(f"training speed-up of {algorithm} over usvm",
                         round(reference.seconds / result.seconds, 2), "x", file=args.train,
                         r=r, alpha_difference=float(np.abs(svm.alpha_ - reference_svm.alpha_)
                                                     .max() / scale))


def run_classification(folder: Path, args, records: Records) -> None:
    for name in args.models.split(","):
        data = _read(folder, name)
        test = _read(folder, args.test, data)
        svm, result = _fit(data, "sdag+", sample=min(1000, len(data.forest)), iterations=500,
                           epsilon=1e-3, seed=1, threads=1)
        model = svm.model()
        started = time.perf_counter()
        dag = model.decision_function(test.forest)
        dag_us = 1e6 * (time.perf_counter() - started) / len(test.forest)
        head = np.arange(min(args.plain_limit, len(test.forest)))
        subset = test.forest.select(head)
        started = time.perf_counter()
        plain = model.decision_function(subset, method="plain")
        plain_us = 1e6 * (time.perf_counter() - started) / head.size
        difference = float(np.max(np.abs(plain - dag[head]) / np.maximum(np.abs(plain), 1e-300)))
        settings = {"model": name, "test": args.test, "iterations": result.iterations,
                    "model_trees": model.n_trees, "dag_nodes": model.n_dag_nodes}
        records.emit("classification, SDAG+ model (DAG)", round(dag_us, 2), "us per tree",
                     **settings, **_scores(test.labels, dag))
        records.emit("classification, uSVM model (plain kernel sum)", round(plain_us, 2),
                     "us per tree", **settings, timed_trees=int(head.size))
        records.emit("classification speed-up of the DAG", round(plain_us / dag_us, 1), "x",
                     **settings, largest_relative_difference=difference)


def run_imbalance(folder: Path, args, records: Records) -> None:
    from classifiers.tree_kernels.tree_model import TreeKernelSpec
    from classifiers.tree_kernels.tree_svm import TreeSVM

    data = _read(folder, args.imbalance_train)
    test = _read(folder, args.test, data)
    settings = {"file": args.imbalance_train, "test": args.test, "kernel": "sst"}
    r = min(1000, len(data.forest))
    for sampling in ("uniform", "rejection"):
        svm, result = _fit(data, "sdag+", sample=r, iterations=500, epsilon=1e-3, seed=1,
                           sampling=sampling, threads=1)
        name = "uSVM" if sampling == "uniform" else "uSVM+j"
        records.emit(f"F1, {name} (SDAG+)", **_f1(svm.model().decision_function(test.forest),
                                                    test.labels), **settings,
                     seconds=round(result.seconds, 2), iterations=result.iterations,
                     converged=result.converged, j=result.positive_cost)
    for j in (1.0, 5.0):
        smo = TreeSVM(TreeKernelSpec(), j=j)
        started = time.perf_counter()
        smo.fit(data.forest, _labels(data))
        seconds = time.perf_counter() - started
        quoted = SVM_LIGHT_TK_20K.get(j) if args.imbalance_train == "train.20k.tk" else None
        records.emit(f"F1, SMO C-SVC -j {j:g}", **_f1(smo.decision_function(test.forest),
                                                     test.labels), **settings,
                     seconds=round(seconds, 2), svm_light_tk_quoted=quoted)


def _f1(values: np.ndarray, gold: np.ndarray) -> dict:
    scores = _scores(gold, values)
    return {"figure": scores["F1"], "unit": "%", "precision": scores["precision"],
            "recall": scores["recall"]}


def run_threads(folder: Path, args, records: Records) -> None:
    data = _read(folder, args.train)
    alphas, seconds = [], []
    for threads in (1, 2):
        svm, result = _fit(data, "sdag+", sample=min(1000, len(data.forest)),
                           iterations=args.iterations, epsilon=1e-9, seed=1, threads=threads)
        alphas.append(svm.alpha_)
        seconds.append(result.mvc_seconds)
        records.emit(f"MVC seconds, SDAG+, {threads} thread(s)", round(result.mvc_seconds, 3),
                     "s", file=args.train, iterations=result.iterations,
                     fit_seconds=round(result.seconds, 3))
    records.emit("MVC speed-up of 2 threads", round(seconds[0] / seconds[1], 2), "x",
                 file=args.train, identical_models=bool(np.array_equal(*alphas)))


def run_all(folder: Path, args, records: Records) -> None:
    data = _read(folder, "train.tk")
    dev, test = _read(folder, "dev.tk", data), _read(folder, "test.tk", data)
    for j in [None] + [float(value) for value in args.j.split(",")]:
        svm, result = _fit(data, "sdag+", degree=2, sample=1000, iterations=500, epsilon=1e-3,
                           seed=1, sampling="rejection", j=j, threads=args.threads)
        model = svm.model()
        settings = {"file": "train.tk", "kernel": "sst + poly2", "j": result.positive_cost,
                    "seconds": round(result.seconds, 2), "iterations": result.iterations,
                    "converged": result.converged, "model_trees": model.n_trees,
                    "dag_nodes": model.n_dag_nodes}
        dev_scores = _scores(dev.labels, model.decision_function(dev.forest, dev.vectors))
        records.emit("F1, SDAG+ with uSVM+j sampling", **_f1(
            model.decision_function(test.forest, test.vectors), test.labels), **settings,
            dev_F1=dev_scores["F1"])


if __name__ == "__main__":
    sys.exit(main())
