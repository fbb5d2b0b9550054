"""Cutting-plane SVMs (uSVM, SDAG, SDAG+, uSVM+j) on the SRL boundary files: Table 1 of
Severyn & Moschitti (2010) and its class-imbalance table, on our data.

    python benchmarks/cpa_srl.py [--parts training,classification,imbalance,threads,all]
        [--datasets DIR] [--samples 250,500,1000,2000] [--iterations 50]
        [--usvm-max-sample 2000] [--models train.5k.tk,train.20k.tk,train.50k.tk]
        [--test test.tk] [--plain-limit 2000] [-j 2,5] [--threads 2] [--smoke]
        [--results docs/results.md]

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
(about 25 minutes on 2 cores, most of it uSVM with r = 2,000; `--usvm-max-sample 1000` leaves
that run out). --smoke: train.5k.tk, r 100, 3 iterations, test.10k.tk with --plain-limit 200,
in under a minute. Every fit is kept as wall time (with the MVC / Gram / QP split) and as this
process's CPU time; the tables of --results (the run's section of docs/results.md) show CPU
time for one-thread fits.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from machine import Records, publish, timed
from tables import grouped, markdown_table, seconds_text, significant

REPO = Path(__file__).resolve().parents[1]

PARTS = ("training", "classification", "imbalance", "threads", "all")
# SVM-light-TK 1.5 on train.20k.tk with SST alone (datasets/srl_boundary/README.md): F1, P, R.
SVM_LIGHT_TK_20K = {1.0: (74.95, 89.25, 64.60), 5.0: (80.48, 82.46, 78.59)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    ap.add_argument("--results", help="write this benchmark's section of a results page")
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
    if args.results:
        publish(args.results, "cpa_srl", "SRL argument boundaries: cutting-plane SVMs",
                section(parts, args, records))
    return 0


def _read(folder: Path, name: str, like=None):
    from polyparse.features.svmlight_tk import read_svmlight_tk

    if like is None:
        return read_svmlight_tk(folder / name)
    return read_svmlight_tk(folder / name, like.forest.labels, like.forest.productions)


def _labels(data) -> np.ndarray:
    return np.where(data.labels > 0, 1, -1)


def _fit(data, algorithm: str, degree: int | None = None, **options) -> tuple:
    """(the fitted CuttingPlaneSVM, its fit result, the fit's CPU seconds in this process)"""
    from polyparse.classifiers.tree_kernels.cutting_plane.cutting_plane_svm import CuttingPlaneSVM
    from polyparse.classifiers.tree_kernels.tree_model import TreeKernelSpec

    svm = CuttingPlaneSVM(TreeKernelSpec(degree=degree), algorithm, **options)
    result, timing = timed(svm.fit, data.forest, _labels(data),
                           data.vectors if degree else None)
    return svm, result, timing.cpu


def _scores(gold: np.ndarray, values: np.ndarray) -> dict:
    from polyparse.classifiers.binary_scores import positive_class_scores

    scores = positive_class_scores(gold > 0, values > 0)
    return {key: round(scores[key], 2) for key in ("precision", "recall", "F1")}


def run_training(folder: Path, args, records: Records) -> None:
    data = _read(folder, args.train)
    for r in (int(value) for value in args.samples.split(",")):
        fits = {}
        for algorithm in ("usvm", "sdag", "sdag+"):
            if algorithm == "usvm" and r > args.usvm_max_sample:
                continue
            svm, result, cpu = _fit(data, algorithm, sample=r, iterations=args.iterations,
                               epsilon=1e-9, seed=1, threads=1)
            fits[algorithm] = (svm, result, cpu)
            records.emit(f"training seconds, {algorithm}", round(result.seconds, 3), "s",
                         cpu_seconds=round(cpu, 3),
                         file=args.train, kernel="sst", r=r, iterations=result.iterations,
                         mvc=round(result.mvc_seconds, 3), gram=round(result.gram_seconds, 3),
                         qp=round(result.qp_seconds, 3), cut_members=int(sum(
                             m.size for m, _ in svm.cut_members)))
        if "usvm" not in fits:
            continue
        reference_svm, reference, reference_cpu = fits["usvm"]
        scale = float(np.abs(reference_svm.alpha_).max())
        for algorithm in ("sdag", "sdag+"):
            svm, result, cpu = fits[algorithm]
            records.emit(f"training speed-up of {algorithm} over usvm",
                         round(reference.seconds / result.seconds, 2), "x", file=args.train,
                         cpu_speed_up=round(reference_cpu / cpu, 2),
                         r=r, alpha_difference=float(np.abs(svm.alpha_ - reference_svm.alpha_)
                                                     .max() / scale))


def run_classification(folder: Path, args, records: Records) -> None:
    for name in args.models.split(","):
        data = _read(folder, name)
        test = _read(folder, args.test, data)
        svm, result, _ = _fit(data, "sdag+", sample=min(1000, len(data.forest)), iterations=500,
                              epsilon=1e-3, seed=1, threads=1)
        model = svm.model()
        dag, dag_time = timed(model.decision_function, test.forest)
        dag_us = 1e6 * dag_time.cpu / len(test.forest)
        head = np.arange(min(args.plain_limit, len(test.forest)))
        subset = test.forest.select(head)
        plain, plain_time = timed(model.decision_function, subset, method="plain")
        plain_us = 1e6 * plain_time.cpu / head.size
        difference = float(np.max(np.abs(plain - dag[head]) / np.maximum(np.abs(plain), 1e-300)))
        settings = {"model": name, "test": args.test, "iterations": result.iterations,
                    "model_trees": model.n_trees, "dag_nodes": model.n_dag_nodes}
        records.emit("classification, SDAG+ model (DAG)", round(dag_us, 2),
                     "us per tree (CPU time)", **settings, **_scores(test.labels, dag),
                     wall_us=round(1e6 * dag_time.wall / len(test.forest), 2))
        records.emit("classification, uSVM model (plain kernel sum)", round(plain_us, 2),
                     "us per tree (CPU time)", **settings, timed_trees=int(head.size),
                     wall_us=round(1e6 * plain_time.wall / head.size, 2))
        records.emit("classification speed-up of the DAG", round(plain_us / dag_us, 1), "x",
                     **settings, largest_relative_difference=difference)


def run_imbalance(folder: Path, args, records: Records) -> None:
    from polyparse.classifiers.tree_kernels.tree_model import TreeKernelSpec
    from polyparse.classifiers.tree_kernels.tree_svm import TreeSVM

    data = _read(folder, args.imbalance_train)
    test = _read(folder, args.test, data)
    settings = {"file": args.imbalance_train, "test": args.test, "kernel": "sst"}
    r = min(1000, len(data.forest))
    for sampling in ("uniform", "rejection"):
        svm, result, cpu = _fit(data, "sdag+", sample=r, iterations=500, epsilon=1e-3, seed=1,
                           sampling=sampling, threads=1)
        name = "uSVM" if sampling == "uniform" else "uSVM+j"
        records.emit(f"F1, {name} (SDAG+)", **_f1(svm.model().decision_function(test.forest),
                                                    test.labels), **settings,
                     seconds=round(result.seconds, 2), cpu_seconds=round(cpu, 2),
                     iterations=result.iterations, converged=result.converged,
                     j=result.positive_cost)
    for j in (1.0, 5.0):
        smo = TreeSVM(TreeKernelSpec(), j=j)
        _, fit = timed(smo.fit, data.forest, _labels(data))
        quoted = SVM_LIGHT_TK_20K.get(j) if args.imbalance_train == "train.20k.tk" else None
        records.emit(f"F1, SMO C-SVC -j {j:g}", **_f1(smo.decision_function(test.forest),
                                                     test.labels), **settings,
                     seconds=round(fit.wall, 2), cpu_seconds=round(fit.cpu, 2),
                     svm_light_tk_quoted=quoted)


def _f1(values: np.ndarray, gold: np.ndarray) -> dict:
    scores = _scores(gold, values)
    return {"figure": scores["F1"], "unit": "%", "precision": scores["precision"],
            "recall": scores["recall"]}


def run_threads(folder: Path, args, records: Records) -> None:
    data = _read(folder, args.train)
    alphas, seconds = [], []
    for threads in (1, 2):
        svm, result, _ = _fit(data, "sdag+", sample=min(1000, len(data.forest)),
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
        svm, result, cpu = _fit(data, "sdag+", degree=2, sample=1000, iterations=500, epsilon=1e-3,
                           seed=1, sampling="rejection", j=j, threads=args.threads)
        model = svm.model()
        settings = {"file": "train.tk", "kernel": "sst + poly2", "j": result.positive_cost,
                    "seconds": round(result.seconds, 2),
                    "cpu_seconds": round(cpu, 2),
                    "j_asked": j, "threads": args.threads, "iterations": result.iterations,
                    "converged": result.converged, "model_trees": model.n_trees,
                    "dag_nodes": model.n_dag_nodes}
        dev_scores = _scores(dev.labels, model.decision_function(dev.forest, dev.vectors))
        records.emit("F1, SDAG+ with uSVM+j sampling", **_f1(
            model.decision_function(test.forest, test.vectors), test.labels), **settings,
            dev_F1=dev_scores["F1"])


def section(parts: list[str], args: argparse.Namespace, records: Records) -> list[str]:
    lines = [("Severyn & Moschitti (2010), their Table 1 and class-imbalance table on this data: "
             "SST, lambda 0.4, C = 1 by SVM-light's rule (so the 1-slack C' = C n). Fits in "
             "this process; times are CPU seconds (user + system of all threads), wall times "
             "are in the JSON records.")]
    if "training" in parts:
        samples = [int(value) for value in args.samples.split(",")]
        rows, largest = [], 0.0
        for r in samples:
            cpu = {algorithm: records.find(f"training seconds, {algorithm}", r=r)
                   for algorithm in ("usvm", "sdag", "sdag+")}
            speed = {algorithm: records.find(f"training speed-up of {algorithm} over usvm", r=r)
                     for algorithm in ("sdag", "sdag+")}
            largest = max([largest] + [row["alpha_difference"] for row in speed.values() if row])
            rows.append([f"{r:,}"] + [
                "" if cpu[a] is None else seconds_text(cpu[a]["cpu_seconds"])
                for a in ("usvm", "sdag", "sdag+")] + [
                "" if speed[a] is None else f"{significant(speed[a]['cpu_speed_up'])} x"
                for a in ("sdag", "sdag+")])
        lines += ["", (f"**Training** on `{args.train}` for {args.iterations} iterations each "
                  "(epsilon 1e-9, so that none stops early), one thread; the three reach the "
                  f"same alpha (largest difference to uSVM's {largest:.1e} of the largest "
                  "alpha):"), ""]
        lines += markdown_table(["r", "uSVM", "SDAG", "SDAG+", "SDAG speed-up",
                                 "SDAG+ speed-up"], rows)
        left_out = [r for r in samples if r > args.usvm_max_sample]
        if left_out:
            lines += ["", (f"**Left out in this run**: uSVM at r = "
                      f"{', '.join(f'{r:,}' for r in left_out)} (`--usvm-max-sample "
                      f"{args.usvm_max_sample}`: its margins step makes it the slowest run of "
                      "the benchmark), so that row has no uSVM time and no speed-ups.")]
        usvm = records.find("training seconds, usvm", r=max(
            (r for r in samples if r <= args.usvm_max_sample), default=0))
        if usvm is not None:
            lines += ["", (f"The margins step (the most violated constraint) takes "
                      f"{seconds_text(usvm['mvc'])} of uSVM's {seconds_text(usvm['figure'])} "
                      f"(wall) at r = {usvm['r']:,}.")]
    if "classification" in parts:
        rows = []
        for name in args.models.split(","):
            dag = records.find("classification, SDAG+ model (DAG)", model=name)
            plain = records.find("classification, uSVM model (plain kernel sum)", model=name)
            speed = records.find("classification speed-up of the DAG", model=name)
            rows.append([name, dag["iterations"], grouped(dag["model_trees"]),
                         grouped(dag["dag_nodes"]), f"{significant(plain['figure'])} us",
                         f"{significant(dag['figure'])} us", f"{significant(speed['figure'])} x",
                         f"{dag['F1']:.2f}", f"{speed['largest_relative_difference']:.1e}"])
        lines += ["", (f"**Classifying** `{args.test}` with SDAG+ models (r = 1,000, at most 500 "
                  "iterations, epsilon 1e-3): the model's DAG against the plain kernel sum over "
                  f"its trees (the uSVM model; timed on the first {args.plain_limit:,} test "
                  "trees), CPU time per tree:"), ""]
        lines += markdown_table(["training file", "iterations", "model trees", "DAG nodes",
                                 "uSVM model", "SDAG+ model", "speed-up", "F1",
                                 "largest relative difference"], rows)
    if "threads" in parts:
        one = records.find("MVC seconds, SDAG+, 1 thread(s)")
        two = records.find("MVC seconds, SDAG+, 2 thread(s)")
        speed = records.find("MVC speed-up of 2 threads")
        lines += ["", f"**Two threads** make the margins step of SDAG+ (`{args.train}`, r = 1,000, "
                  f"{args.iterations} iterations) {significant(speed['figure'])} x faster "
                  f"({seconds_text(one['figure'])} against {seconds_text(two['figure'])}, wall "
                  "time on this shared machine), "
                  + ("with a bit-identical model." if speed["identical_models"]
                     else "**and the two models differ**.")]
    if "imbalance" in parts:
        rows = []
        for name, what in (("uSVM (SDAG+, uniform sampling)", "F1, uSVM (SDAG+)"),
                           ("uSVM+j (SDAG+, rejection sampling)", "F1, uSVM+j (SDAG+)")):
            row = records.find(what)
            detail = (f"j = {row['j']:.3g}; " if row["j"] else "") + (
                f"{'converged after' if row['converged'] else 'stopped at'} "
                f"{row['iterations']} iterations")
            rows.append([f"{name}; {detail}", (f"{row['figure']:.2f} ({row['precision']:.2f} / "
                         f"{row['recall']:.2f})"), seconds_text(row["cpu_seconds"])])
        smo = [records.find(f"F1, SMO C-SVC -j {j}") for j in ("1", "5")]
        rows.append(["our SMO C-SVC, `-j 1` / `-j 5`",
                     " / ".join(f"{row['figure']:.2f}" for row in smo),
                     " / ".join(seconds_text(row["cpu_seconds"]) for row in smo)])
        if smo[0]["svm_light_tk_quoted"]:
            quoted = [row["svm_light_tk_quoted"][0] for row in smo]
            rows.append([("SVM-light-TK 1.5, `-j 1` / `-j 5`, **quoted from "
                         "`datasets/srl_boundary/README.md`**"),
                         " / ".join(f"{f1:.2f}" for f1 in quoted), "61 s / 73 s (wall)"])
        lines += ["", f"**Class imbalance** on `{args.imbalance_train}` (SST, `{args.test}`):", ""]
        lines += markdown_table(["learner", "F1 (P / R)", "training"], rows)
    if "all" in parts:
        rows = []
        for row in (r for r in records.rows if r["what"] == "F1, SDAG+ with uSVM+j sampling"):
            j = (f"{row['j']:.3g} (n_neg / n_pos, the default)" if row["j_asked"] is None
                 else f"{row['j']:g}")
            rows.append([j, f"{row['figure']:.2f} ({row['precision']:.2f} / {row['recall']:.2f})",
                         f"{row['dev_F1']:.2f}", (f"{seconds_text(row['seconds'])} "
                         f"({seconds_text(row['cpu_seconds'])} CPU)"),
                         grouped(row["model_trees"]), grouped(row["dag_nodes"])])
        lines += ["", (f"**All of `train.tk`** (SST + poly2, SDAG+ with uSVM+j sampling, r = "
                  f"1,000, at most 500 iterations, {args.threads} threads; training: wall "
                  "(CPU)):"), ""]
        lines += markdown_table(["j", "F1 test (P / R)", "F1 dev", "training", "model trees",
                                 "DAG nodes"], rows)
    return lines


if __name__ == "__main__":
    sys.exit(main())
