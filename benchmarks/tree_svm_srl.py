"""TreeSVM (libsvm's SMO on tree-kernel columns) on the SRL boundary files, train -> test.

    python benchmarks/tree_svm_srl.py [--datasets DIR] [--train train.5k.tk,train.20k.tk]
                                      [--test test.tk] [--kernel sst] [--lambda 0.4]
                                      [--vector poly2|none] [-j 1,5] [-C C] [--cache-mb MB]
                                      [--threads N] [--smoke] [--markdown FILE]

For each training file and cost factor j, in this process: read the training file and the test
file (sharing the interners), train classifiers.tree_kernels.tree_svm.TreeSVM (SST with lambda
0.4, plus the normalised degree-2 polynomial on the vector as SVM-light-TK's `-C + -S 1 -d 2`,
C by SVM-light's rule unless -C is given, eps 1e-3, a --cache-mb kernel cache (libsvm's 100 MB by
default), shrinking, --threads threads per kernel column, default 1), then classify the test file. Printed, one JSON object per measurement (what, data, figure, unit, machine,
settings): training wall seconds (the fit call: kernel index, self kernels, SMO), the C used,
support vectors, SMO steps and kernel columns, libsvm's objective, the dual and primal
objectives recomputed in double precision with the duality gap, classification seconds, and
precision, recall and F1 of the positive class on the test file, next to SVM-light-TK 1.5's
figures from the dataset README where it has them. --smoke trains on train.5k.tk and tests on
test.10k.tk (well under a minute).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from machine import record

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
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding srl_boundary/")
    ap.add_argument("--train", default="train.5k.tk,train.20k.tk",
                    help="comma-separated training files")
    ap.add_argument("--test", default="test.tk")
    ap.add_argument("--kernel", default="sst", choices=("sst", "st", "pt", "et"))
    ap.add_argument("--lambda", dest="lam", type=float, default=0.4)
    ap.add_argument("--mu", type=float, default=0.4)
    ap.add_argument("--vector", default="poly2", choices=("poly2", "none"))
    ap.add_argument("-j", default="1", help="comma-separated cost factors of positives")
    ap.add_argument("-C", dest="C", type=float, default=None, help="default: SVM-light's rule")
    ap.add_argument("--cache-mb", type=float, default=100.0, help="kernel column cache")
    ap.add_argument("--threads", type=int, default=1, help="threads per kernel column")
    ap.add_argument("--smoke", action="store_true", help="train.5k.tk -> test.10k.tk only")
    ap.add_argument("--markdown", help="also write a markdown table to this file")
    args = ap.parse_args()
    folder = Path(args.datasets) / "srl_boundary"
    if args.smoke:
        args.train, args.test = "train.5k.tk", "test.10k.tk"
    files = [folder / name for name in args.train.split(",")] + [folder / args.test]
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        print(f"tree_svm_srl: missing {', '.join(missing)}", file=sys.stderr)
        return 2
    rows = []
    for name in args.train.split(","):
        for j in (float(value) for value in args.j.split(",")):
            rows.append(run(folder / name, folder / args.test, j, args))
    if args.markdown:
        write_markdown(args.markdown, rows)
    return 0


def run(train: Path, test: Path, j: float, args) -> dict:
    from classifiers.tree_kernels.tree_model import TreeKernelSpec
    from classifiers.tree_kernels.tree_svm import TreeSVM
    from features.svmlight_tk import read_svmlight_tk

    vector = args.vector == "poly2"
    spec = TreeKernelSpec(kind=args.kernel, lam=args.lam, mu=args.mu, degree=2 if vector else None)
    settings = {"kernel": args.kernel, "lambda": args.lam, "vector": args.vector, "j": j,
                "eps": 1e-3, "cache_mb": args.cache_mb, "threads": args.threads}
    data = f"srl_boundary {train.name} -> {test.name}"

    def emit(what: str, figure: float, unit: str, **extra: object) -> None:
        print(json.dumps(record(what, data, figure, unit, **settings, **extra)), flush=True)

    started = time.perf_counter()
    training = read_svmlight_tk(train)
    testing = read_svmlight_tk(test, training.forest.labels, training.forest.productions)
    emit("reading seconds (training and test files)", round(time.perf_counter() - started, 3),
         "s")
    svm = TreeSVM(spec, C=args.C, j=j, cache_mb=args.cache_mb, threads=args.threads)
    trees = training.instance_ptr[:-1]
    started = time.perf_counter()
    result = svm.fit(training.forest, training.labels, training.vectors if vector else None,
                     trees)
    seconds = time.perf_counter() - started
    reference = SVM_LIGHT_TK.get((train.name, vector, j)) if args.kernel == "sst" else None
    emit("training seconds, TreeSVM fit", round(seconds, 3), "s",
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
    started = time.perf_counter()
    values = svm.decision_function(testing.forest, testing.vectors if vector else None,
                                   testing.instance_ptr[:-1])
    classify = time.perf_counter() - started
    emit("classification seconds (whole test file)", round(classify, 3), "s",
         per_tree_us=round(1e6 * classify / len(testing), 2))
    predicted, gold = values > 0, testing.labels > 0
    hits = int(np.count_nonzero(predicted & gold))
    precision = 100.0 * hits / max(int(predicted.sum()), 1)
    recall = 100.0 * hits / max(int(gold.sum()), 1)
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    theirs = reference[0] if reference is not None and test.name == "test.tk" else None
    emit("F1 of the positive class", round(f1, 2), "%", precision=round(precision, 2),
         recall=round(recall, 2), svm_light_tk=theirs)
    return {"train": train.name, "test": test.name, "j": j, "vector": args.vector,
            "seconds": seconds, "C": result.C, "sv": result.n_support_vectors,
            "objective": objectives["dual"], "primal": objectives["primal"], "f1": f1,
            "svm_light_tk": reference if test.name == "test.tk" else None}


def write_markdown(path: str, rows: list[dict]) -> None:
    lines = ["| training file | vector | j | C | SV | dual | primal | F1 | seconds | "
             "SVM-light-TK F1 / s / SV |", "|---|---|---|---|---|---|---|---|---|---|"]
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
