"""`polyparse clf train|predict|convert|info`: any binary-feature backend on svmlight files, and
the tree-kernel learners on SVM-light-TK files. This module holds the arguments; what each
command does is in parser/cli/clf_run.py, imported when it runs."""
from __future__ import annotations

import argparse
from collections.abc import Callable

from classifiers.evaluators.choices import CONVERSIONS, EVAL_MODES, parse_rare_threshold
from parser.cli.clf_trees import add_tree_train_options
from parser.cli.common import subcommands
from parser.cli.scale_out import add_scale_out_options

AVAILABLE = ("linear", "poly2-linear", "kernel-svm", "pa-slicing", "voted-perceptron", "perceptron",
             "cpa")


def register(group: argparse.ArgumentParser) -> None:
    """The `clf` group's subcommands, added to its parser."""
    commands, parent = subcommands(group, ("train", "predict", "convert", "info"))

    train = commands.add_parser(
        "train", parents=[parent],
        help="train a classifier on an svmlight or SVM-light-TK file"
    )
    train.add_argument("train_file", metavar="TRAIN.svm",
                       help="training examples (svmlight; SVM-light-TK for the tree learners)")
    train.add_argument("--model", required=True, metavar="OUT", help="model file to write")
    train.add_argument(
        "--classifier", required=True, choices=AVAILABLE, help="backend to train"
    )
    train.add_argument(
        "--degree", type=int,
        help="polynomial degree (linear: 1, poly2-linear: 2, kernel-svm: 1 or more, pa-slicing: "
        "1-3, default 2)",
    )
    train.add_argument("--gamma", type=float, help="kernel gamma (default 1)")
    train.add_argument("--coef0", type=float, help="kernel coef0 (default 1)")
    train.add_argument("-C", dest="C", type=float,
                       help="SVM cost C (default 1; tree kernel-svm: SVM-light's 1 / mean K(x, x))")
    train.add_argument("--loss", choices=("l1", "l2"), help="hinge loss (default l2)")
    train.add_argument(
        "--eps", type=float,
        help="stopping tolerance (default 0.1; kernel-svm: 1e-3, as libsvm)",
    )
    train.add_argument(
        "--iterations", type=int,
        help="at most this many passes (default 1000; kernel-svm: SMO steps, "
        "default max(10^7, 100 x rows); pa-slicing: exactly this many passes, default 20; cpa: "
        "at most this many cuts drawn, default 500)",
    )
    train.add_argument(
        "--cache-mb", type=float,
        help="kernel-svm: kernel column cache per solver in MB (default 100)",
    )
    train.add_argument(
        "--class-weight", action="append", default=[], metavar="LABEL:WEIGHT",
        help="kernel-svm: multiply C by WEIGHT for class LABEL (repeatable; a class the data "
        "lacks is ignored with a warning, as libsvm does), or `balanced`: n / (k n_c) for each "
        "of the k classes of n_c rows",
    )
    train.add_argument(
        "--no-shrinking", action="store_true", help="kernel-svm: do not shrink the active set"
    )
    train.add_argument(
        "--threads", type=int,
        help="kernel-svm: class pairs solved in parallel; pa-slicing: one-vs-rest classes "
        "trained in parallel; cpa: threads of the most-violated-constraint step (default 1)",
    )
    train.add_argument(
        "--min-pair-count", type=int,
        help="poly2-linear: drop feature pairs seen in fewer training rows (default 1)",
    )
    train.add_argument("--seed", type=int,
                       help="random seed (cpa: of the sampler; default 1)")
    train.add_argument(
        "--dtype", choices=("float32", "float64"),
        help="linear backends: stored weight type (default float32)"
    )
    train.add_argument(
        "--average", action=argparse.BooleanOptionalAction, default=None,
        help="pa-slicing: average the parameters over the steps (Daume III; the default), or "
        "keep the last ones (--no-average)",
    )
    train.add_argument(
        "--strategy", choices=("kernel", "expand", "split", "slice"),
        help="how kernel models are trained (linear backends always expand; pa-slicing: "
        "default slice, every strategy gives the same model)",
    )
    train.add_argument(
        "--variant", choices=("pa1", "pa", "pa2", "perceptron"),
        help="pa-slicing: the online update (default pa1: PA-I)",
    )
    train.add_argument(
        "--n-common", type=int, metavar="N",
        help="pa-slicing split/slice: the N most frequent features whose conjunctions are held "
        "in a table (default: split 1000, slice 4000 at degree 2; 250 at degree 3; all at 1)",
    )
    train.add_argument(
        "--max-table-mb", type=float, metavar="M",
        help="pa-slicing: cap on the conjunction table of each class (N is halved when it "
        "is exceeded)",
    )
    add_tree_train_options(train)
    _add_json(train, "print a JSON summary on stdout")
    train.set_defaults(run=_run("run_train"))

    predict = commands.add_parser(
        "predict", parents=[parent], help="apply a model to an svmlight file"
    )
    predict.add_argument("test_file", metavar="TEST.svm",
                         help="examples to classify (svmlight; SVM-light-TK for tree models)")
    predict.add_argument("--model", required=True, metavar="M", help="model file")
    predict.add_argument(
        "--eval-mode", choices=EVAL_MODES,
        help="exact evaluator of kernel models (default split; pki past degree 3); a converted "
        "model uses its own, linear backends their expanded weights",
    )
    _add_rare_threshold(predict, "split evaluator: features held by fewer than S support "
                        "vectors are rare (a count, a fraction in (0, 1] or auto, the default)")
    predict.add_argument(
        "--decision-values", metavar="FILE",
        help="write each example's predicted label and decision values to FILE",
    )
    _add_json(predict, "print a JSON summary on stdout")
    add_scale_out_options(predict)
    predict.set_defaults(run=_run("run_predict"))

    convert = commands.add_parser(
        "convert", parents=[parent],
        help="store a kernel model (kernel-svm or libsvm) as one of its exact evaluators",
    )
    convert.add_argument("--model", required=True, metavar="M",
                         help="kernel-svm model file or libsvm text model")
    convert.add_argument("--to", required=True, choices=tuple(CONVERSIONS),
                         help="evaluator to store: split (split-svm), pki or pke")
    convert.add_argument("--output", required=True, metavar="OUT", help="model file to write")
    _add_rare_threshold(convert, "--to split: features held by fewer than S support vectors "
                        "are rare (a count, a fraction in (0, 1] or auto, the default)")
    _add_json(convert, "print a JSON summary on stdout")
    convert.set_defaults(run=_run("run_convert"))

    info = commands.add_parser("info", parents=[parent], help="describe a model file")
    info.add_argument("--model", required=True, metavar="M", help="model file")
    _add_rare_threshold(info, "kernel models: describe the split form at this rare threshold "
                        "(default auto)")
    _add_json(info, "print JSON on stdout")
    info.set_defaults(run=_run("run_info"))


def _add_rare_threshold(command: argparse.ArgumentParser, help: str) -> None:
    command.add_argument("--rare-threshold", type=_rare_threshold, metavar="S", help=help)


def _add_json(command: argparse.ArgumentParser, help: str) -> None:
    command.add_argument("--json", action="store_true", help=help)


def _rare_threshold(text: str) -> int | float | str:
    """argparse type of --rare-threshold: 'auto', a count or a fraction in (0, 1]."""
    try:
        return parse_rare_threshold(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not 'auto', a count of support vectors or a fraction in (0, 1]"
        ) from None


def _run(name: str) -> Callable[[argparse.Namespace], int]:
    """The run function `name` of parser/cli/clf_run.py, imported when the command runs."""
    def run(args: argparse.Namespace) -> int:
        from parser.cli import clf_run

        return getattr(clf_run, name)(args)

    return run
