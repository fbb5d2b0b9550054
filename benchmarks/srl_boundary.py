"""DAG-compacted tree-kernel perceptrons on srl_boundary (the mapping-kernels paper's Fig. 3-5).

    python benchmarks/srl_boundary.py [--datasets DIR] [--sizes 5k,20k,50k,all]
                                      [--plain-sizes 5k,20k,50k] [--kernels sst,poly2,sst+poly2]
                                      [--epochs E] [--lam L] [--tree-constant T]
                                      [--positive-weight C] [--voted-sizes 5k]
                                      [--speed-size 50k] [--plain-test-rows N] [--markdown FILE]
                                      [--no-headline] [--headline-epochs 3]
                                      [--results docs/results.md]

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
Training and classification times are kept as wall and CPU time (the tables show CPU time).

The headline (unless --no-headline): the voted perceptron (DAG, SST + poly2, average rule) by
the command line on all of train.tk, `polyparse clf train train.tk --classifier
voted-perceptron --epochs 3 --json` and `clf predict` on dev.tk and test.tk, each a child
process (wall and CPU time, peak RSS); then the same settings trained here to give the exact
voted perceptron's F1 on test.tk (sign vote, the DAG of the mistakes).

A smoke run: --sizes 5k --plain-sizes 5k --kernels sst+poly2 --plain-test-rows 500
--voted-sizes "" --speed-size 5k --no-headline. With --results, the run's section of
docs/results.md is written.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from child_process import measured_run, polyparse_command
from machine import Records, publish, timed
from tables import grouped, markdown_table, seconds_text, significant

from polyparse.classifiers.tree_kernels.tree_perceptron import TreePerceptron
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight_tk import TreeInstances, read_svmlight_tk

REPO = Path(__file__).resolve().parents[1]

DATA = "srl_boundary"
FILES = {"5k": "train.5k.tk", "20k": "train.20k.tk", "50k": "train.50k.tk", "all": "train.tk"}
KERNELS = ("sst", "poly2", "sst+poly2")
# SVM-light-TK 1.5, SST + poly2, -j 5, trained on train.50k.tk: quoted from
# datasets/srl_boundary/README.md (F1, P / R, training, support vectors, classification).
SVM_LIGHT_TK_QUOTED = (("SVM-light-TK 1.5, SST + poly2, `-j 5`, **quoted from "
                       "`datasets/srl_boundary/README.md`**"), "`train.50k.tk`",
                       "87.99 (87.71 / 88.28)", "", "559 s", "5,945 SV; about 5.7 ms per tree")


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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    ap.add_argument("--no-headline", dest="headline", action="store_false",
                    help="leave out the command-line run on all of train.tk")
    ap.add_argument("--headline-epochs", type=int, default=3)
    ap.add_argument("--results", help="write this benchmark's section of a results page")
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
    if args.headline:
        # First, while this process is small: a child's peak RSS also counts the pages of the
        # process it was forked from.
        headline(folder, args, records)
    for size in FILES:
        stores = [s for s, sizes in (("plain", plain_sizes), ("dag", dag_sizes)) if size in sizes]
        if not stores:
            continue
        train, reading = timed(read_svmlight_tk, folder / FILES[size])
        read_seconds = reading.wall
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
                _, fit = timed(perceptron.fit, train.forest, train.labels, train.vectors)
                fit_seconds = fit.wall
                emit("perceptron training time (fit)", round(fit_seconds, 3), "s",
                     store=store, cpu_seconds=round(fit.cpu, 3), **settings)
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
    if args.results:
        publish(args.results, "srl_boundary", "SRL argument boundaries: perceptrons on DAGs",
                section(args, records))
    return 0


def headline(folder: Path, args: argparse.Namespace, records: Records) -> None:
    """The voted perceptron on all of train.tk by the command line, and its exact sign vote."""
    settings = {"train": "train.tk", "kernel": "sst+poly2", "epochs": args.headline_epochs}
    with tempfile.TemporaryDirectory(prefix="polyparse-srl-") as scratch:
        model = Path(scratch) / "all.model"
        run = measured_run(polyparse_command() + [
            "clf", "train", str(folder / "train.tk"), "--model", str(model), "--classifier",
            "voted-perceptron", "--epochs", str(args.headline_epochs), "--json", "--quiet"])
        summary = json.loads(run.stdout.strip().splitlines()[-1])
        records.emit("headline: clf train, whole process", round(run.wall_seconds, 1), "s",
                     cpu_seconds=round(run.cpu_seconds, 1),
                     peak_rss_mib=round(run.peak_rss_mib), fit_seconds=summary["seconds"],
                     read_seconds=summary["read_seconds"], n_trees=summary["n_trees"],
                     n_dag_nodes=summary["n_dag_nodes"], **settings)
        for name in ("dev", "test"):
            run = measured_run(polyparse_command() + ["clf", "predict", "--model", str(model),
                                                      str(folder / f"{name}.tk"), "--json"])
            result = json.loads(run.stdout.strip().splitlines()[-1])
            records.emit(f"headline: F1 by clf predict, {name}.tk", round(result["F1"], 2), "%",
                         precision=round(result["precision"], 2),
                         recall=round(result["recall"], 2),
                         us_per_tree=round(result["microseconds_per_example"], 1),
                         wall_seconds=round(run.wall_seconds, 2), **settings)
    train = read_svmlight_tk(folder / "train.tk")
    test = read_svmlight_tk(folder / "test.tk", train.forest.labels, train.forest.productions)
    perceptron = TreePerceptron(store="dag", kind="sst", lam=args.lam, degree=2,
                                tree_constant=args.tree_constant, epochs=args.headline_epochs,
                                positive_weight=args.positive_weight)
    perceptron.fit(train.forest, train.labels, train.vectors)
    for rule, predicted in (("average", perceptron.predict(test.forest, test.vectors)),
                            ("exact sign vote",
                             perceptron.predict_voted(test.forest, test.vectors))):
        found = scores(test.labels, predicted)
        records.emit(f"headline: F1 in this process, {rule} rule, test.tk", found["F1"], "%",
                     precision=found["P"], recall=found["R"], **settings)


def section(args: argparse.Namespace, records: Records) -> list[str]:
    lines = []
    cli = records.find("headline: clf train, whole process")
    if cli is not None:
        test = records.find("headline: F1 by clf predict, test.tk")
        dev = records.figure("headline: F1 by clf predict, dev.tk")
        voted = records.find("headline: F1 in this process, exact sign vote rule, test.tk")
        average = records.figure("headline: F1 in this process, average rule, test.tk")
        lines += [(f"**The headline**: `polyparse clf train train.tk --model all.model "
                  f"--classifier voted-perceptron --epochs {cli['epochs']} --json`, then `clf "
                  "predict` on `dev.tk` and `test.tk` (34,350 instances); whole processes, "
                  "reading the files included."), ""]
        lines += markdown_table(
            ["system", "trained on", "F1 test (P / R)", "F1 dev", ("training: wall (CPU), "
             "peak RSS"), "model"],
            [[(f"polyparse voted perceptron (average rule), DAG, SST + poly2, {cli['epochs']} "
              "epochs"), "all of `train.tk` (413,485)",
              f"**{test['figure']:.2f}** ({test['precision']:.2f} / {test['recall']:.2f})",
              f"{dev:.2f}", (f"{seconds_text(cli['figure'])} ({seconds_text(cli['cpu_seconds'])}"
              f" CPU), {grouped(cli['peak_rss_mib'])} MiB"),
              (f"{cli['n_trees']:,} trees, {cli['n_dag_nodes']:,} DAG nodes; "
              f"{significant(test['us_per_tree'])} us per tree")],
             ["the same settings in this process, exact sign vote", "all of `train.tk`",
              f"{voted['figure']:.2f} ({voted['precision']:.2f} / {voted['recall']:.2f})", "",
              "", f"average rule here: {average:.2f}"],
             SVM_LIGHT_TK_QUOTED])
        lines.append("")
    kernels = [k for k in args.kernels.split(",") if k]
    sizes = [size for size in FILES if any(
        records.find("perceptron training time (fit)", train=FILES[size], kernel=kernel)
        for kernel in kernels)]
    rows = []
    for size in sizes:
        for kernel in (k for k in kernels if k != "poly2"):
            where = {"train": FILES[size], "kernel": kernel}
            plain = records.find("perceptron training time (fit)", store="plain", **where)
            dag = records.find("perceptron training time (fit)", store="dag", **where)
            if dag is None and plain is None:
                continue
            some = dag or plain
            updates = records.figure("updates (mistakes)", store=some["store"], **where)
            plain_nodes = records.figure("plain model size of the same model trees (tree nodes)",
                                         **where)
            if plain_nodes is None:
                plain_nodes = records.figure("model size (stored tree nodes)", store="plain",
                                             **where)
            dag_nodes = records.figure("model size (stored tree nodes)", store="dag", **where)
            f1 = records.figure("F1, averaged perceptron, test.tk", store="dag", **where)
            rows.append([FILES[size], "SST" if kernel == "sst" else "SST + poly2",
                         grouped(updates),
                         "" if plain is None else seconds_text(plain["cpu_seconds"]),
                         "" if dag is None else seconds_text(dag["cpu_seconds"]),
                         grouped(plain_nodes), grouped(dag_nodes),
                         "" if dag is None else
                         f"{records.figure('compression (plain / DAG nodes)', **where)} x",
                         "" if f1 is None else f"{f1:.2f}"])
    if rows:
        lines += [(f"**Fig. 3-5 of the mapping-kernels paper** (Da San Martino et al. 2019) on "
                  f"this data: averaged perceptron, {args.epochs} epoch(s), lambda {args.lam:g}; "
                  "fit in this process (CPU time); the plain store is the list of mistake trees "
                  "scored by kernel sums, the DAG store keeps every distinct subtree once; F1 of "
                  "the positive class on `test.tk`."), ""]
        lines += markdown_table(["training file", "kernel", "updates", "fit, plain",
                                 "fit, DAG", "tree nodes, plain", "DAG nodes", "compression",
                                 "F1 test"], rows)
    poly2 = [(size, records.figure("F1, averaged perceptron, test.tk", store="dag",
                                   train=FILES[size], kernel="poly2")) for size in sizes]
    poly2 = [(size, f1) for size, f1 in poly2 if f1 is not None]
    if poly2:
        lines += ["", f"poly2 alone ({args.epochs} epoch(s)): F1 "
                  + " / ".join(f"{f1:.2f}" for _, f1 in poly2) + " on "
                  + " / ".join(size for size, _ in poly2) + "."]
    voted = [row for row in records.rows if row["what"] == "F1, voted perceptron (exact), test.tk"]
    if voted:
        lines += ["", "The exact voted perceptron (sign vote) on `test.tk`: "
                  + "; ".join(f"{row['train']}, {row['kernel']}: {row['figure']:.2f}"
                              for row in voted) + "."]
    speed = records.find("speed-up of the DAG model over the plain kernel sum")
    if speed is not None:
        dag_us = records.find("classification time per tree, DAG model (all of test.tk)")
        plain_us = next(row for row in records.rows
                        if row["what"].startswith("classification time per tree, plain"))
        difference = records.figure("largest difference DAG - plain, relative")
        lines += ["", (f"Classifying `test.tk` with the {speed['train']} {speed['kernel']} model "
                  f"({speed['model_trees']:,} trees): {significant(dag_us['figure'])} us per "
                  f"tree by the DAG, {significant(plain_us['figure'])} us by the plain kernel "
                  f"sum ({plain_us['what'].split('(')[1].rstrip(')')}); "
                  f"{significant(speed['figure'])} x, largest relative difference "
                  f"{difference:.1e}.")]
    return lines


def measure_speed(perceptron: TreePerceptron, test: TreeInstances, plain_rows: int, emit,
                  settings: dict) -> None:
    """Microseconds per test tree: the DAG decision function and the plain kernel sum."""
    model = perceptron.model()
    dag, dag_time = timed(model.decision_function, test.forest, test.vectors, "dag")
    dag_us = 1e6 * dag_time.cpu / len(test)
    forest, vectors = first_rows(test, plain_rows)
    plain, plain_time = timed(model.decision_function, forest, vectors, "plain")
    plain_us = 1e6 * plain_time.cpu / len(forest)
    same = {"model_trees": model.n_trees, "model_tree_nodes": model.n_tree_nodes,
            "model_dag_nodes": model.n_dag_nodes, **settings}
    emit("classification time per tree, DAG model (all of test.tk)", round(dag_us, 2),
         "us (CPU time)", wall_us=round(1e6 * dag_time.wall / len(test), 2), **same)
    emit(f"classification time per tree, plain kernel sum (first {len(forest)} trees)",
         round(plain_us, 2), "us (CPU time)",
         wall_us=round(1e6 * plain_time.wall / len(forest), 2), **same)
    emit("speed-up of the DAG model over the plain kernel sum", round(plain_us / dag_us, 1), "x",
         **same)
    difference = np.abs(dag[: len(forest)] - plain).max() / max(1.0, np.abs(plain).max())
    emit("largest difference DAG - plain, relative", float(difference), "", **same)


if __name__ == "__main__":
    sys.exit(main())
