"""TreeSVM (libsvm's SMO on tree-kernel columns) on the SRL boundary files, train -> test.

    python benchmarks/tree_svm_srl.py [--datasets DIR] [--train train.5k.tk,train.20k.tk]
                                      [--test test.tk] [--kernel sst] [--lambda 0.4]
                                      [--vector poly2,none] [-j 1,5] [-C C] [--cache-mb MB]
                                      [--threads N] [--with-all] [--all-cache-mb 3000]
                                      [--smoke] [--markdown FILE] [--results docs/results.md]

For each training file, vector part (poly2: SST + poly2; none: the tree kernel alone) and cost
factor j, in this process: read the training file and the test
file (sharing the interners), train classifiers.tree_kernels.tree_svm.TreeSVM (SST with lambda
0.4, plus the normalised degree-2 polynomial on the vector as SVM-light-TK's `-C + -S 1 -d 2`,
C by SVM-light's rule unless -C is given, eps 1e-3, a --cache-mb kernel cache (libsvm's 100 MB by
default), shrinking, --threads threads per kernel column, default 1), then classify the test file.
Printed, one JSON object per measurement (what, data, figure, unit, machine, settings): training
wall seconds (the fit call: kernel index, self kernels, SMO), the C used, support vectors, SMO
steps and kernel columns, libsvm's objective, the dual and primal objectives recomputed in double
precision with the duality gap, classification seconds, and precision, recall and F1 of the
positive class on the test file, next to SVM-light-TK 1.5's
figures from the dataset README where it has them. Training and classification are kept as wall
and CPU time; the process's peak RSS after each run is recorded too. --with-all adds, last, the
run on all of train.tk (SST + poly2, -j 1, a --all-cache-mb kernel cache; about 7 minutes and
6 GB). --smoke trains on train.5k.tk and tests on test.10k.tk (well under a minute). With
--results, the run's section of docs/results.md is written.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
from pathlib import Path

import numpy as np
from machine import publish, record, timed
from tables import grouped, markdown_table, seconds_text, significant

REPO = Path(__file__).resolve().parents[1]

# SVM-light-TK 1.5 on these files (datasets/srl_boundary/README.md): F1 on test.tk, training
# seconds, support vectors, by (training file, vector part, j).
SVM_LIGHT_TK = {
    ("train.5k.tk", False, 1.0): (50.46, 2.7, 965),
    ("train.20k.tk", False, 1.0): (74.95, 61.0, 2736),
    ("train.50k.tk", False, 1.0): (82.43, 365.0, 5377),
    ("train.5k.tk", True, 1.0): (58.54, 4.3, 1018),
    ("train.20k.tk", True, 1.0): (83.62, 72.0, 2789),
    ("train.50k.tk", True, 1.0): (87.66, 533.0, 5533),
    ("train.5k.tk", False, 5.0): (64.32, None, None),
    ("train.20k.tk", False, 5.0): (80.48, 73.0, 2932),
    ("train.5k.tk", True, 5.0): (72.93, None, None),
    ("train.20k.tk", True, 5.0): (86.13, 84.0, 3023),
    ("train.50k.tk", True, 5.0): (87.99, 559.0, 5945),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding srl_boundary/")
    ap.add_argument("--train", default="train.5k.tk,train.20k.tk",
                    help="comma-separated training files")
    ap.add_argument("--test", default="test.tk")
    ap.add_argument("--kernel", default="sst", choices=("sst", "st", "pt", "et"))
    ap.add_argument("--lambda", dest="lam", type=float, default=0.4)
    ap.add_argument("--mu", type=float, default=0.4)
    ap.add_argument("--vector", default="poly2",
                    help="comma-separated vector parts, from poly2 (SST + poly2) and none")
    ap.add_argument("-j", default="1", help="comma-separated cost factors of positives")
    ap.add_argument("-C", dest="C", type=float, default=None, help="default: SVM-light's rule")
    ap.add_argument("--cache-mb", type=float, default=100.0, help="kernel column cache")
    ap.add_argument("--threads", type=int, default=1, help="threads per kernel column")
    ap.add_argument("--with-all", action="store_true",
                    help="also all of train.tk (SST + poly2, -j 1), last")
    ap.add_argument("--all-cache-mb", type=float, default=3000.0,
                    help="kernel column cache of the --with-all run")
    ap.add_argument("--smoke", action="store_true", help="train.5k.tk -> test.10k.tk only")
    ap.add_argument("--markdown", help="also write a markdown table to this file")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    folder = Path(args.datasets) / "srl_boundary"
    if args.smoke:
        args.train, args.test, args.with_all = "train.5k.tk", "test.10k.tk", False
    vectors = args.vector.split(",")
    if any(vector not in ("poly2", "none") for vector in vectors):
        ap.error(f"--vector takes poly2 and none, not {args.vector!r}")
    files = ([folder / name for name in args.train.split(",")] + [folder / args.test]
             + ([folder / "train.tk"] if args.with_all else []))
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        print(f"tree_svm_srl: missing {', '.join(missing)}", file=sys.stderr)
        return 2
    rows = []
    for vector in vectors:
        for name in args.train.split(","):
            for j in (float(value) for value in args.j.split(",")):
                rows.append(run(folder / name, folder / args.test, j, vector, args.cache_mb,
                                args))
    if args.with_all:
        rows.append(run(folder / "train.tk", folder / args.test, 1.0, "poly2", args.all_cache_mb,
                        args))
    if args.markdown:
        write_markdown(args.markdown, rows)
    if args.results:
        publish(args.results, "tree_svm_srl", "SRL argument boundaries: SMO on tree kernels "
                "against SVM-light-TK", section(args, rows))
    return 0


def section(args: argparse.Namespace, rows: list[dict]) -> list[str]:
    lines = [(f"Our SMO (`TreeSVM`: libsvm's SMO on tree-kernel columns) against SVM-light-TK 1.5 "
             f"on the same files, tested on `{args.test}`: {args.kernel.upper()}, lambda "
             f"{args.lam:g}, with the normalised (x.z + 1)^2 on the vector as SVM-light-TK's "
             "`-C + -S 1 -d 2` (SST + poly2) or without it (the tree kernel alone), C by "
             "SVM-light's rule, eps 1e-3, one thread; fit in this process, wall (CPU) time. "
             "SVM-light-TK's figures are **quoted from `datasets/srl_boundary/README.md`** "
             "(wall time of single runs on a busy 2-core machine of this kind).")]
    small = [row for row in rows if row["train"] != "train.tk"]
    for vector, title in (("poly2", "SST + poly2"), ("none", ("the tree kernel alone "
                                                              "(`--vector none`)"))):
        chosen = [row for row in small if row["vector"] == vector]
        if not chosen:
            continue
        lines += ["", f"**{title}**", ""]
        lines += markdown_table(
            ["training file", "`-j`", "polyparse F1", "training", "SV", "SVM-light-TK F1",
             "training", "SV"],
            ([row["train"].removesuffix(".tk"), f"{row['j']:g}", f"{row['f1']:.2f}",
              f"{seconds_text(row['seconds'])} ({seconds_text(row['cpu_seconds'])} CPU)",
              grouped(row["sv"]), *quoted(row)] for row in chosen))
    first = next((row for row in small if row["vector"] == "poly2"), None)
    if first is not None:
        lines += ["", (f"Both objectives on `{first['train']}` (`-j {first['j']:g}`, C = "
                  f"{first['C']:.6g}): libsvm's 0.5 a'Qa - e'a = {first['libsvm_objective']:.6f}, "
                  f"the dual e'a - 0.5 |w|^2 = {first['objective']:.6f} and the primal 0.5 |w|^2 "
                  f"+ C sum xi = {first['primal']:.6f} (gap {first['relative_gap']:.1e} "
                  "relative, SMO stopping at eps 1e-3 as libsvm and SVM-light do).")]
    everything = next((row for row in rows if row["train"] == "train.tk"), None)
    if everything is not None:
        lines += ["", (f"**All of `train.tk`** (413,485 instances; SST + poly2, `-j 1`, "
                  f"`--cache-mb {args.all_cache_mb:g}`): F1 {everything['f1']:.2f} "
                  f"({everything['precision']:.2f} / {everything['recall']:.2f}), fit "
                  f"{seconds_text(everything['seconds'])} "
                  f"({seconds_text(everything['cpu_seconds'])} CPU), "
                  f"{grouped(everything['sv'])} support vectors, the process's peak RSS "
                  f"{significant(everything['peak_rss_mib'] / 1024)} GiB; classifying "
                  f"`{args.test}` took {significant(everything['us_per_tree'])} us per tree.")]
    return lines


def quoted(row: dict) -> list[str]:
    """SVM-light-TK's F1, training time and SV for this run's settings, when quoted."""
    reference = row["svm_light_tk"]
    if reference is None:
        return ["", "", ""]
    f1, seconds, sv = reference
    return [f"{f1:.2f}", "" if seconds is None else seconds_text(seconds),
            "" if sv is None else f"{sv:,}"]


def run(train: Path, test: Path, j: float, vector_part: str, cache_mb: float, args) -> dict:
    from polyparse.classifiers.tree_kernels.tree_model import TreeKernelSpec
    from polyparse.classifiers.tree_kernels.tree_svm import TreeSVM
    from polyparse.features.svmlight_tk import read_svmlight_tk

    vector = vector_part == "poly2"
    spec = TreeKernelSpec(kind=args.kernel, lam=args.lam, mu=args.mu, degree=2 if vector else None)
    settings = {"kernel": args.kernel, "lambda": args.lam, "vector": vector_part, "j": j,
                "eps": 1e-3, "cache_mb": cache_mb, "threads": args.threads}
    data = f"srl_boundary {train.name} -> {test.name}"

    def emit(what: str, figure: float, unit: str, **extra: object) -> None:
        print(json.dumps(record(what, data, figure, unit, **settings, **extra)), flush=True)

    def read() -> tuple:
        training = read_svmlight_tk(train)
        return training, read_svmlight_tk(test, training.forest.labels,
                                          training.forest.productions)

    (training, testing), reading = timed(read)
    emit("reading seconds (training and test files)", round(reading.wall, 3), "s")
    svm = TreeSVM(spec, C=args.C, j=j, cache_mb=cache_mb, threads=args.threads)
    trees = training.instance_ptr[:-1]
    result, fit = timed(svm.fit, training.forest, training.labels,
                        training.vectors if vector else None, trees)
    seconds = fit.wall
    reference = SVM_LIGHT_TK.get((train.name, vector, j)) if args.kernel == "sst" else None
    emit("training seconds, TreeSVM fit", round(seconds, 3), "s", cpu_seconds=round(fit.cpu, 3),
         svm_light_tk=None if reference is None else reference[1])
    emit("C used", result.C, "", rule=result.C_rule)
    emit("support vectors", result.n_support_vectors, "count", bounded=result.n_bounded,
         svm_light_tk=None if reference is None else reference[2])
    emit("SMO steps", result.iterations, "count", kernel_columns=result.kernel_columns,
         converged=result.converged)
    objectives = svm.objectives()
    emit("libsvm objective 0.5 a'Qa - e'a", objectives["libsvm_objective"], "")
    emit("dual objective e'a - 0.5 |w|^2", objectives["dual"], "")
    emit("primal objective 0.5 |w|^2 + sum C_i xi_i", objectives["primal"], "",
         gap=objectives["gap"], relative_gap=objectives["relative_gap"])
    values, classifying = timed(svm.decision_function, testing.forest,
                                testing.vectors if vector else None, testing.instance_ptr[:-1])
    classify = classifying.wall
    emit("classification seconds (whole test file)", round(classify, 3), "s",
         per_tree_us=round(1e6 * classify / len(testing), 2),
         cpu_seconds=round(classifying.cpu, 3))
    predicted, gold = values > 0, testing.labels > 0
    hits = int(np.count_nonzero(predicted & gold))
    precision = 100.0 * hits / max(int(predicted.sum()), 1)
    recall = 100.0 * hits / max(int(gold.sum()), 1)
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    theirs = reference[0] if reference is not None and test.name == "test.tk" else None
    emit("F1 of the positive class", round(f1, 2), "%", precision=round(precision, 2),
         recall=round(recall, 2), svm_light_tk=theirs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    emit("benchmark process peak RSS after this run", round(peak), "MiB")
    return {"train": train.name, "test": test.name, "j": j, "vector": vector_part,
            "seconds": seconds, "cpu_seconds": fit.cpu, "C": result.C,
            "sv": result.n_support_vectors, "libsvm_objective": objectives["libsvm_objective"],
            "objective": objectives["dual"], "primal": objectives["primal"],
            "relative_gap": objectives["relative_gap"], "f1": f1, "precision": precision,
            "recall": recall, "us_per_tree": 1e6 * classify / len(testing), "peak_rss_mib": peak,
            "svm_light_tk": reference if test.name == "test.tk" else None}


def write_markdown(path: str, rows: list[dict]) -> None:
    lines = [("| training file | vector | j | C | SV | dual | primal | F1 | seconds | "
             "SVM-light-TK F1 / s / SV |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        reference = row["svm_light_tk"]
        theirs = "" if reference is None else " / ".join(
            "-" if value is None else str(value) for value in reference)
        lines.append(f"| {row['train']} | {row['vector']} | {row['j']:g} | {row['C']:.4g} | "
                     f"{row['sv']} | {row['objective']:.4f} | {row['primal']:.4f} | "
                     f"{row['f1']:.2f} | {row['seconds']:.2f} | {theirs} |")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
