"""`polyparse clf train|predict|convert|info`: any binary-feature backend on svmlight files, and
the tree-kernel learners on SVM-light-TK files. This module holds the arguments; what each
command does is in parser/cli/clf_run.py, imported when it runs."""
from __future__ import annotations

import argparse
from collections.abc import Callable

from polyparse.classifiers.backend_settings import DEFAULTS
from polyparse.classifiers.evaluators.choices import CONVERSIONS, EVAL_MODES, parse_rare_threshold
from polyparse.parser.cli.clf_trees import add_tree_train_options
from polyparse.parser.cli.common import add_backend_settings, subcommands
from polyparse.parser.cli.scale_out import add_scale_out_options

# The vector backends (classifiers/backend_settings.py) and the tree learners.
AVAILABLE = (*DEFAULTS, "voted-perceptron", "perceptron", "cpa")


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
    add_backend_settings(train, DEFAULTS)
    add_tree_train_options(train)
    _add_json(train, "print a JSON summary on stdout")
    train.set_defaults(run=_run("run_train"), options=train)

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
        from polyparse.parser.cli import clf_run

        return getattr(clf_run, name)(args)

    return run
