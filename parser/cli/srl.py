"""`polyparse srl train|predict|evaluate`: argument-boundary detection on gold_conll files.

`train` builds the boundary instances of a file (parser/srl: candidates, PAF trees, Gildea &
Jurafsky features numbered by a vocabulary first-seen on it) and trains a tree-kernel learner
(classifiers/tree_kernels/tree_learners.py); the model file keeps the vocabulary. `predict`
builds the instances of another file with that vocabulary (unseen features dropped), classifies
them and writes the file back with each predicate's argument columns holding the predicted
spans. `evaluate` gives node-level precision, recall and F1 (parser/srl/evaluate.py)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths
from polyparse.features.output_files import check_output_apart, check_output_path
from polyparse.parser.cli.clf_trees import (
    add_cutting_plane_options,
    add_kernel_options,
    check_cutting_plane_options,
    check_kernel_options,
    check_positive_option,
)
from polyparse.parser.cli.common import (
    add_train_command,
    progress_bar,
    read_hashed,
    subcommands,
    warn,
)
from polyparse.parser.cli.scale_out import (
    add_scale_out_options,
    check_scale_out,
    run_in_shards,
    wants_scale_out,
)
from polyparse.parser.formats.gold_conll import LAYOUTS, PROPBANK_RELEASE, read_gold_conll
from polyparse.parser.srl.settings import DEFAULT_EPOCHS, DEFAULT_LEARNER, LEARNERS


def register(srl: argparse.ArgumentParser) -> None:
    """The `srl` group's subcommands, added to its parser."""
    commands, parent = subcommands(srl, ("train", "predict", "evaluate"))

    train = add_train_command(
        commands, parent, "train an argument-boundary classifier",
        "Train a tree-kernel classifier on the argument-boundary instances of a gold_conll "
        "file (every node but TOP and the words, minus the predicate's ancestors; +1 when its "
        "span is an argument of the predicate), each a PAF tree with seven Gildea & Jurafsky "
        "features.",
        train_help="training gold_conll file", dev_help=None)
    train.add_argument("--learner", choices=tuple(LEARNERS), default=DEFAULT_LEARNER,
                       help="voted-perceptron (default: Freund & Schapire's averaged "
                       "prediction), perceptron (the last hypothesis), svm (C-SVC by SMO) or "
                       "cpa (the cutting-plane SVM with sampled cuts: uSVM, SDAG, SDAG+)")
    train.add_argument("--epochs", type=int, metavar="N",
                       help=f"perceptrons: passes over the instances (default {DEFAULT_EPOCHS})")
    train.add_argument("-C", dest="C", type=float,
                       help="svm, cpa: cost C (default SVM-light's 1 / mean K(x, x))")
    add_kernel_options(train)
    add_cutting_plane_options(train, shared=True)
    train.add_argument("--layout", choices=sorted(LAYOUTS), default=PROPBANK_RELEASE.name,
                       help="the fixed columns (default: %(default)s)")
    train.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    train.set_defaults(run=run_train)

    predict = commands.add_parser(
        "predict", parents=[parent], help="predict argument boundaries of a gold_conll file",
        description="Write FILE back with each predicate's argument columns holding the spans "
                    "of the nodes the model calls arguments (label ARG; overlapping spans "
                    "resolved greedily by decision value).")
    predict.add_argument("--model", required=True, metavar="M", help="srl model file")
    predict.add_argument("input", metavar="FILE", nargs="?", default="-",
                         help="gold_conll file (- or none: stdin)")
    predict.add_argument("-o", "--output", metavar="OUT",
                         help="output file (default: stdout)")
    predict.add_argument("--layout", choices=sorted(LAYOUTS), default=PROPBANK_RELEASE.name,
                         help="the fixed columns (default: %(default)s)")
    add_scale_out_options(predict)
    predict.set_defaults(run=run_predict)

    evaluate = commands.add_parser(
        "evaluate", parents=[parent], help="node-level boundary precision, recall and F1",
        description="Argument-boundary precision, recall and F1 over the candidate nodes of "
                    "the gold trees: a node is positive when its span is an argument span of "
                    "its predicate (argument labels are ignored). A system span that is no "
                    "node counts against precision unless it is a gold span; gold spans that "
                    "are no node are not counted (no node classifier can find them). The two "
                    "files must hold the same sentences, words and predicates.")
    evaluate.add_argument("gold", help="gold gold_conll file")
    evaluate.add_argument("system", help="system gold_conll file, or - for stdin")
    evaluate.add_argument("--layout", choices=sorted(LAYOUTS), default=PROPBANK_RELEASE.name,
                          help="the fixed columns (default: %(default)s)")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.set_defaults(run=run_evaluate, uses_numpy=False)


def run_evaluate(args: argparse.Namespace) -> int:
    from polyparse.parser.srl.evaluate import file_scores

    check_input_paths([args.gold, args.system])
    scores = file_scores(args.gold, args.system, LAYOUTS[args.layout])
    if args.json:
        print(json.dumps(scores, sort_keys=True))
        return 0
    lines = [f"precision {scores['precision']:.2f}",
             f"recall    {scores['recall']:.2f}",
             f"F1        {scores['F1']:.2f}",
             f"({scores['correct_nodes']:,} correct of {scores['system_nodes']:,} system and "
             f"{scores['gold_nodes']:,} gold positive nodes, {scores['predicates']:,} "
             f"predicates; argument spans on no node: {scores['gold_spans_off_nodes']:,} gold "
             f"(not counted), {scores['system_spans_off_nodes']:,} system)"]
    print("\n".join(lines))
    return 0


def run_train(args: argparse.Namespace) -> int:
    from polyparse.parser.srl.boundary_model import BoundaryModel

    spec = check_kernel_options(args, "srl train")
    learner = LEARNERS[args.learner]
    perceptron = learner not in ("kernel-svm", "cpa")
    if perceptron and args.C is not None:
        raise InputError("srl train: -C applies to --learner svm and cpa")
    if learner != "cpa":
        for option, used in (("--iterations", args.iterations is not None),
                             ("--seed", args.seed is not None),
                             ("--threads", args.threads is not None)):
            if used:
                raise InputError(f"srl train: {option} applies to --learner cpa")
    cutting_plane = check_cutting_plane_options(args, "srl train", args.learner)
    if not perceptron and args.epochs is not None:
        raise InputError("srl train: --epochs applies to the perceptrons")
    if args.epochs is not None and args.epochs < 1:
        raise InputError(f"srl train: --epochs must be >= 1, not {args.epochs}")
    check_positive_option("srl train", "-C", args.C)
    check_output_path(args.model, "model")
    check_input_paths([args.train])
    check_output_apart(args.model, [args.train], "model")
    started = time.perf_counter()
    sentences, train_sha256 = read_hashed(args.train, lambda stream, name: list(
        read_gold_conll(None, layout=LAYOUTS[args.layout], stream=stream, name=name)))
    epochs = DEFAULT_EPOCHS if args.epochs is None else args.epochs
    progress = progress_bar(args, unit=" steps", desc="training")
    try:
        detector = BoundaryModel.train(sentences, learner, spec, epochs, args.C, args.j,
                                       progress=progress, **cutting_plane)
    except ValueError as error:
        raise InputError(f"srl train: {args.train}: {error}") from None
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    training = detector.training
    if training.get("converged") is False:
        warn(f"stopped after --iterations {training['iterations']} before a cut within "
             f"--epsilon {training['epsilon']:g}")
    if training["positives"] in (0, training["instances"]):
        label = "+1" if training["positives"] else "-1"
        warn(f"{args.train}: every instance is {label}; the model gives it to all")
    detector.save(args.model, {"learner": args.learner, "data": Path(args.train).name,
                               "data_sha256": train_sha256})
    model = detector.model
    summary = {**training, **detector.timings, "learner": args.learner, "n_trees": model.n_trees,
               "n_dag_nodes": model.n_dag_nodes, "seconds": round(seconds, 3),
               "model": str(args.model)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"trained {args.learner} on {training['instances']:,} instances of "
              f"{training['predicates']:,} predicates: {model.n_trees:,} trees, "
              f"{model.n_dag_nodes:,} DAG nodes in {seconds:.1f} s -> {args.model}",
              file=sys.stderr)
    return 0


def run_predict(args: argparse.Namespace) -> int:
    from polyparse.parser.srl.boundaries import write_predictions
    from polyparse.parser.srl.boundary_model import BoundaryModel

    check_output_path(args.output, "output")
    check_scale_out(args, "srl predict")
    check_input_paths([args.input, args.model])
    check_output_apart(args.output, [args.input, args.model])
    detector = BoundaryModel.load(args.model)
    if wants_scale_out(args):
        from polyparse.parser.scale_out.shard_tasks import BoundaryShardTask

        run_in_shards(args, "srl predict", BoundaryShardTask(args.layout), detector,
                      args.model, "gold_conll", {"layout": args.layout})
        return 0
    sentences = list(read_gold_conll(args.input, layout=LAYOUTS[args.layout]))
    write_predictions(sentences, detector.decision_values(sentences).tolist(), args.output)
    return 0
