"""DAG-compacted tree-kernel perceptrons on srl_boundary (the mapping-kernels paper's Fig. 3-5).

    python benchmarks/srl_boundary.py [--datasets DIR] [--sizes 5k,20k,50k,all]
                                      [--plain-sizes 5k,20k,50k] [--kernels sst,poly2,sst+poly2]
                                      [--epochs E] [--lam L] [--tree-constant T]
                                      [--positive-weight C] [--voted-sizes 5k]
                                      [--speed-size 50k] [--plain-test-rows N] [--markdown FILE]

Da San Martino, Sperduti, Aiolli & Moschitti (AAAI 2019, "Efficient online learning for mapping
kernels on linguistic structures"), Fig. 3-5 on our data: for each training file (train.5k,
20k, 50k and all of train.tk) and kernel (SST; poly2 = the degree-2 polynomial on the vector
alone, i.e. the `-C +` sum with T = 0; SST + poly2 = P_n + T * SST_n), the perceptron is trained
with the plain store (a list of mistake trees, every score a kernel sum; --plain-sizes) and the
DAG store (TreeDag + explicit poly2 table; --sizes). Printed, one JSON object per measurement
(what, data, figure, unit, machine, settings): reading seconds, training seconds (one fit, in
this process), model size in stored tree nodes (plain: the nodes of every mistake tree; DAG: its
distinct-subtree nodes; a tree that is a mistake in several epochs counts once in both), updates,
and P/R/F1 of the positive class of the averaged perceptron on
dev.tk and test.tk (DAG store: it makes the plain store's mistakes, tested). With --voted-sizes,
also the exact voted perceptron's F1 on test.tk (per-mistake kernels, slow). For the model of
--speed-size (SST + poly2), microseconds per test tree for the DAG decision function (all of
test.tk) and for the plain kernel sum over the same model (the first --plain-test-rows trees).
The headline row (`all`) is the wall time of reading train.tk plus training, as a user sees it.
A smoke run: --sizes 5k --plain-sizes 5k --kernels sst+poly2 --plain-test-rows 500
--voted-sizes "" --speed-size 5k.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from machine import Records

from classifiers.tree_kernels.tree_perceptron import TreePerceptron
from features.binary_matrix import BinaryMatrix
from features.svmlight_tk import TreeInstances, read_svmlight_tk

REPO = Path(__file__).resolve().parents[1]

DATA = "srl_boundary"
FILES = {"5k": "train.5k.tk", "20k": "train.20k.tk", "50k": "train.50k.tk", "all": "train.tk"}
KERNELS = ("sst", "poly2", "sst+poly2")


def scores(gold: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    """Precision, recall and F1 (percent) of the positive class."""
    true_positive = int(np.count_nonzero((predicted == 1) & (gold == 1)))
    precision = true_positive / max(1, int(np.count_nonzero(predicted == 1)))
    recall = true_positive / max(1, int(np.count_nonzero(gold == 1)))
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"P": round(100 * precision, 2), "R": round(100 * recall, 2), "F1": round(100 * f1, 2)}


def first_rows(data: TreeInstances, n: int) -> tuple:
    n = min(n, len(data))
    vectors = BinaryMatrix(data.vectors.indptr[: n + 1], data.vectors.indices,
                           data.vectors.n_features, validate=False)
    return data.forest.select(np.arange(n)), vectors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding srl_boundary/")
    ap.add_argument("--sizes", default="5k,20k,50k,all", help="DAG store runs, from 5k,20k,50k,all")
    ap.add_argument("--plain-sizes", default="5k,20k,50k", help="plain store runs")
    ap.add_argument("--kernels", default=",".join(KERNELS), help=f"from {KERNELS}")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lam", type=float, default=0.4)
    ap.add_argument("--tree-constant", type=float, default=1.0)
    ap.add_argument("--positive-weight", type=float, default=1.0)
    ap.add_argument("--voted-sizes", default="5k", help="sizes with the exact voted F1")
    ap.add_argument("--speed-size", default="50k", help="model for the classification speed")
    ap.add_argument("--plain-test-rows", type=int, default=5000)
    ap.add_argument("--markdown", help="also write a markdown table to this file")
    args = ap.parse_args()
    folder = Path(args.datasets) / DATA
    if not (folder / "train.5k.tk").is_file():
        print(f"srl_boundary: {folder} has no train.5k.tk", file=sys.stderr)
        return 2
    records = Records(DATA)
    emit = records.emit

    def split(text: str) -> list[str]:
        return [item for item in text.split(",") if item]

    dag_sizes, plain_sizes = split(args.sizes), split(args.plain_sizes)
    voted_sizes, kernels = split(args.voted_sizes), split(args.kernels)
    for name in dag_sizes + plain_sizes + voted_sizes + [args.speed_size]:
        if name not in FILES:
            ap.error(f"unknown size {name!r} (expected one of {', '.join(FILES)})")
    for kernel in kernels:
        if kernel not in KERNELS:
            ap.error(f"unknown kernel {kernel!r} (expected one of {', '.join(KERNELS)})")
    for size in FILES:
        stores = [s for s, sizes in (("plain", plain_sizes), ("dag", dag_sizes)) if size in sizes]
        if not stores:
            continue
        started = time.perf_counter()
        train = read_svmlight_tk(folder / FILES[size])
        read_seconds = time.perf_counter() - started
        emit("reading time (fast reader)", round(read_seconds, 2), "s", train=FILES[size])
        held_out = {name: read_svmlight_tk(folder / f"{name}.tk", train.forest.labels,
                                           train.forest.productions) for name in ("dev", "test")}
        for kernel in kernels:
            options = {"kind": "sst", "lam": args.lam, "epochs": args.epochs,
                       "positive_weight": args.positive_weight}
            if kernel != "sst":
                options.update(degree=2, tree_constant=0.0 if kernel == "poly2"
                               else args.tree_constant)
            settings = {"train": FILES[size], "kernel": kernel, **options}
            for store in stores:
                perceptron = TreePerceptron(store=store, **options)
                started = time.perf_counter()
                perceptron.fit(train.forest, train.labels, train.vectors)
                fit_seconds = time.perf_counter() - started
                emit("perceptron training time (fit)", round(fit_seconds, 3), "s",
                     store=store, **settings)
                if size == "all":
                    emit("wall time, reading train.tk + training", round(
                        read_seconds + fit_seconds, 2), "s", store=store, **settings)
                emit("updates (mistakes)", perceptron.n_mistakes, "", store=store, **settings)
                model = perceptron.model()
                nodes = model.n_dag_nodes if store == "dag" else model.n_tree_nodes
                emit("model size (stored tree nodes)", nodes, "nodes", store=store, **settings)
                if store == "dag":
                    emit("plain model size of the same model trees (tree nodes)",
                         model.n_tree_nodes, "nodes", store=store, **settings)
                    emit("compression (plain / DAG nodes)",
                         round(model.n_tree_nodes / max(1, model.n_dag_nodes), 2), "x",
                         store=store, **settings)
                    for name, data in held_out.items():
                        predicted = perceptron.predict(data.forest, data.vectors)
                        for key, value in scores(data.labels, predicted).items():
                            emit(f"{key}, averaged perceptron, {name}.tk", value, "%",
                                 store=store, **settings)
                    if size in voted_sizes:
                        test = held_out["test"]
                        predicted = perceptron.predict_voted(test.forest, test.vectors)
                        emit("F1, voted perceptron (exact), test.tk",
                             scores(test.labels, predicted)["F1"], "%", **settings)
                if size == args.speed_size and kernel == "sst+poly2" and store == "dag":
                    measure_speed(perceptron, held_out["test"], args.plain_test_rows, emit,
                                  settings)
    if args.markdown:
        Path(args.markdown).write_text("\n".join(records.markdown_table()) + "\n",
                                       encoding="utf-8")
    return 0


def measure_speed(perceptron: TreePerceptron, test: TreeInstances, plain_rows: int, emit,
                  settings: dict) -> None:
    """Microseconds per test tree: the DAG decision function and the plain kernel sum."""
    model = perceptron.model()
    started = time.perf_counter()
    dag = model.decision_function(test.forest, test.vectors, "dag")
    dag_us = 1e6 * (time.perf_counter() - started) / len(test)
    forest, vectors = first_rows(test, plain_rows)
    started = time.perf_counter()
    plain = model.decision_function(forest, vectors, "plain")
    plain_us = 1e6 * (time.perf_counter() - started) / len(forest)
    same = {"model_trees": model.n_trees, "model_tree_nodes": model.n_tree_nodes,
            "model_dag_nodes": model.n_dag_nodes, **settings}
    emit("classification time per tree, DAG model (all of test.tk)", round(dag_us, 2), "us",
         **same)
    emit(f"classification time per tree, plain kernel sum (first {len(forest)} trees)",
         round(plain_us, 2), "us", **same)
    emit("speed-up of the DAG model over the plain kernel sum", round(plain_us / dag_us, 1), "x",
         **same)
    difference = np.abs(dag[: len(forest)] - plain).max() / max(1.0, np.abs(plain).max())
    emit("largest difference DAG - plain, relative", float(difference), "", **same)


if __name__ == "__main__":
    sys.exit(main())
