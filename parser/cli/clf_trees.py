"""`polyparse clf train|predict|info` on SVM-light-TK files: the tree-kernel learners.

A training file whose first example holds `|BT|` is an SVM-light-TK file (one tree per example
and an optional binary vector); `clf train` then trains a perceptron, a voted perceptron, the
tree-kernel SVM or the cutting-plane SVM (cpa: uSVM, SDAG, SDAG+;
classifiers/tree_kernels/tree_learners.py) on K = P_n + T * TK_n
(SVM-light-TK's `-C +`; `--vector none`: TK_n alone) and writes a tree-model file, which
`clf predict` and `clf info` recognise by its format. The kernel and cutting-plane options are
shared with `srl train`.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polyparse.classifiers.tree_kernels.settings import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    DEFAULT_EPOCHS,
    DEFAULT_EPSILON,
    DEFAULT_ITERATIONS,
    DEFAULT_KIND,
    DEFAULT_LAMBDA,
    DEFAULT_MU,
    DEFAULT_SAMPLE,
    DEFAULT_SEED,
    DEFAULT_THREADS,
    DEFAULT_TREE_CONSTANT,
    KINDS,
    LEARNERS,
    MODEL_FORMAT,
    PERCEPTRONS,
    SAMPLINGS,
    TIMINGS,
    VECTORS,
    TreeKernelSpec,
)
from polyparse.features.errors import InputError
from polyparse.features.input_files import SniffedInput, input_name
from polyparse.features.output_files import check_output_path, output_stream
from polyparse.parser.cli.common import progress_bar, warn

if TYPE_CHECKING:
    import numpy as np

    from polyparse.features.svmlight_tk import TreeInstances

# `clf train` options of the svmlight backends that the tree learners do not take.
_VECTOR_ONLY = {"degree": "--degree", "loss": "--loss", "variant": "--variant",
                "n_common": "--n-common", "max_table_mb": "--max-table-mb",
                "average": "--average", "strategy": "--strategy", "iterations": "--iterations"}
# Options only the tree learners take (None / False / 1.0: not given).
_TREE_ONLY = {"kernel": "--kernel", "lam": "--lambda", "mu": "--mu", "vector": "--vector",
              "tree_constant": "--tree-constant", "epochs": "--epochs", "no_dag": "--no-dag",
              "algorithm": "--algorithm", "sample": "--sample", "epsilon": "--epsilon",
              "sampling": "--sampling"}
# What `clf predict` scores on a tree model's labelled examples (None when none has a label).
_SCORE_KEYS = ("accuracy", "precision", "recall", "F1", "tp", "fp", "fn", "correct")
# Options only cpa takes (None: not given); `clf train` shares --iterations, --seed and
# --threads with the svmlight backends.
CUTTING_PLANE_ONLY = {"algorithm": "--algorithm", "sample": "--sample", "epsilon": "--epsilon",
                      "sampling": "--sampling"}


def add_kernel_options(command: argparse.ArgumentParser) -> None:
    """The kernel options of the tree learners (`clf train` on .tk files, `srl train`)."""
    command.add_argument("--kernel", choices=KINDS,
                         help=f"tree kernel: sst, st, pt or et (default {DEFAULT_KIND})")
    command.add_argument("--lambda", dest="lam", type=float, metavar="L",
                         help=f"tree kernel decay lambda in (0, 1] (default {DEFAULT_LAMBDA})")
    command.add_argument("--mu", type=float, metavar="M",
                         help=f"pt: vertical decay mu in (0, 1] (default {DEFAULT_MU})")
    command.add_argument("--vector", choices=VECTORS,
                         help="poly2 (default): add the normalised (x.z + 1)^2 kernel on the "
                         "example's vector, as SVM-light-TK's -C + -d 2; none: the tree alone")
    command.add_argument("--tree-constant", type=float, metavar="T",
                         help="weight T of the tree kernel in P_n + T * TK_n (default "
                              f"{DEFAULT_TREE_CONSTANT:g})")
    command.add_argument("-j", dest="j", type=float, metavar="J",
                         help="weight of errors on positives: svm: C x J for positives "
                         "(SVM-light's -j); perceptrons: an update on a positive adds J y K "
                         "(default 1); cpa: the positive cost of rejection sampling "
                         "(default n_neg / n_pos; -j alone selects --sampling rejection)")


def add_cutting_plane_options(command: argparse.ArgumentParser, shared: bool = False) -> None:
    """cpa's options; with shared, also --iterations, --seed and --threads (which `clf train`
    already has for its svmlight backends)."""
    command.add_argument("--algorithm", choices=ALGORITHMS,
                         help="cpa: usvm (pair kernels), sdag (a DAG per cut) or sdag+ (one DAG "
                         f"of all cuts); all three give the same model (default "
                         f"{DEFAULT_ALGORITHM})")
    command.add_argument("--sample", type=int, metavar="R",
                         help=f"cpa: examples drawn per cut (default min({DEFAULT_SAMPLE}, "
                         "instances))")
    command.add_argument("--epsilon", type=float, metavar="E",
                         help=f"cpa: stop when a cut is violated by at most E more than the "
                         f"slack (default {DEFAULT_EPSILON:g})")
    command.add_argument("--sampling", choices=SAMPLINGS,
                         help="cpa: uniform (uSVM; the default) or rejection (uSVM+j: "
                         "positives drawn J times as often)")
    if shared:
        command.add_argument("--iterations", type=int, metavar="T",
                             help=f"cpa: at most T cuts drawn (default {DEFAULT_ITERATIONS})")
        command.add_argument("--seed", type=int, metavar="S",
                             help=f"cpa: seed of the sampler (default {DEFAULT_SEED})")
        command.add_argument("--threads", type=int, metavar="N",
                             help="cpa: threads of the most-violated-constraint step (the "
                             f"model does not depend on them; default {DEFAULT_THREADS})")


def check_cutting_plane_options(args: argparse.Namespace, command: str,
                                learner: str) -> dict[str, Any]:
    """The cutting-plane keywords of train_tree_model after each option has been checked
    (learner: the name the user gave, for messages); {} for the other learners, which must
    not have been given cpa's options."""
    if learner != "cpa":
        for dest, option in CUTTING_PLANE_ONLY.items():
            if getattr(args, dest) is not None:
                raise InputError(f"{command}: {option} applies to cpa, not {learner}")
        return {}
    iterations = DEFAULT_ITERATIONS if args.iterations is None else args.iterations
    epsilon = DEFAULT_EPSILON if args.epsilon is None else args.epsilon
    threads = DEFAULT_THREADS if args.threads is None else args.threads
    for option, value in (("--sample", args.sample), ("--iterations", iterations),
                          ("--threads", threads)):
        if value is not None and value < 1:
            raise InputError(f"{command}: {option} must be >= 1, not {value}")
    check_positive_option(command, "--epsilon", epsilon)
    if args.j is not None and args.sampling == "uniform":
        raise InputError(f"{command}: -j is the positive cost of --sampling rejection; "
                         "uniform sampling takes none")
    return {"algorithm": args.algorithm or DEFAULT_ALGORITHM, "sample": args.sample,
            "iterations": iterations, "epsilon": epsilon, "sampling": args.sampling,
            "seed": DEFAULT_SEED if args.seed is None else args.seed, "threads": threads}


def add_tree_train_options(train: argparse.ArgumentParser) -> None:
    """`clf train`'s tree-learner options beyond the kernel."""
    add_kernel_options(train)
    add_cutting_plane_options(train)
    train.add_argument("--epochs", type=int, metavar="N",
                       help="perceptrons on .tk files: passes over the examples (default "
                            f"{DEFAULT_EPOCHS})")
    train.add_argument("--no-dag", action="store_true",
                       help="perceptrons on .tk files: keep the mistakes as a plain list of "
                       "trees instead of a DAG of their distinct subtrees (same model, slower)")


def check_positive_option(command: str, option: str, value: float | None) -> None:
    """One line unless value (None: not given) is positive and finite."""
    if value is not None and not (value > 0.0 and math.isfinite(value)):
        raise InputError(f"{command}: {option} must be positive and finite, not {value:g}")


def check_kernel_options(args: argparse.Namespace, command: str) -> TreeKernelSpec:
    """The kernel the options give, after each has been checked."""
    lam = DEFAULT_LAMBDA if args.lam is None else args.lam
    mu = DEFAULT_MU if args.mu is None else args.mu
    constant = DEFAULT_TREE_CONSTANT if args.tree_constant is None else args.tree_constant
    for option, value in (("--lambda", lam), ("--mu", mu)):
        if not 0.0 < value <= 1.0:
            raise InputError(f"{command}: {option} must be in (0, 1], not {value:g}")
    check_positive_option(command, "--tree-constant", constant)
    check_positive_option(command, "-j", args.j)
    degree = None if args.vector == "none" else 2
    return TreeKernelSpec(kind=args.kernel or DEFAULT_KIND, lam=lam, mu=mu, degree=degree,
                          tree_constant=constant)


def is_example_line(line: bytes) -> bool:
    """Whether a line of an svmlight or SVM-light-TK file holds an example (not blank, not a
    comment)."""
    text = line.strip()
    return bool(text) and not text.startswith(b"#")


def holds_trees(data: SniffedInput) -> bool:
    """Whether the first example line of an input sniffed up to it (is_example_line) is an
    SVM-light-TK line (holds |BT|)."""
    from polyparse.features.svmlight_tk import BEGIN_TREE

    return BEGIN_TREE.encode() in data.first_line(lambda line: not is_example_line(line))


def is_tree_model(data: Any) -> bool:
    """Whether a model file's bytes (model_file_data) are a tree-kernel model."""
    from polyparse.classifiers.model_file import model_format_of_bytes

    return model_format_of_bytes(data) == MODEL_FORMAT


def reject_tree_options(args: argparse.Namespace) -> None:
    """One line for a tree-learner option or classifier given with an svmlight file."""
    if args.classifier in (*PERCEPTRONS, "cpa"):
        raise InputError(f"clf train: {args.classifier} learns from SVM-light-TK files "
                         f"(`label |BT| tree |ET| features`); {args.train_file} is not one")
    for dest, option in _TREE_ONLY.items():
        if getattr(args, dest) not in (None, False):
            raise InputError(f"clf train: {option} applies to SVM-light-TK files; "
                             f"{args.train_file} is an svmlight file")
    if args.j not in (None, 1.0):
        raise InputError("clf train: -j applies to SVM-light-TK files (svmlight files: "
                         "--class-weight LABEL:WEIGHT)")


def check_tree_train_options(args: argparse.Namespace) -> tuple[TreeKernelSpec, dict[str, Any]]:
    """The kernel of a tree-learner run and cpa's keywords of train_tree_model (empty for
    the other learners), after every option has been checked."""
    if args.classifier not in LEARNERS:
        raise InputError(f"clf train: {args.train_file} is an SVM-light-TK file; the tree "
                         f"learners are {', '.join(LEARNERS)}, not {args.classifier}")
    for dest, option in _VECTOR_ONLY.items():
        if dest == "iterations" and args.iterations is not None:
            if args.classifier == "cpa":
                continue
            raise InputError(f"clf train: --iterations applies to cpa, not {args.classifier}")
        if getattr(args, dest) is not None:
            raise InputError(f"clf train: {option} does not apply to the tree learners "
                             "(SVM-light-TK files); the vector part is --vector poly2|none")
    if args.class_weight:
        raise InputError("clf train: --class-weight: the tree learners take -j J (the weight "
                         "of errors on positives)")
    for option, used in (("--gamma", args.gamma is not None), ("--coef0", args.coef0 is not None),
                         ("--eps", args.eps is not None),
                         ("--no-shrinking", args.shrinking is not None),
                         ("--min-pair-count", args.min_pair_count is not None),
                         ("--cache-mb", args.cache_mb is not None),
                         ("--dtype", args.dtype is not None)):
        if used:
            hint = "; cpa's tolerance is --epsilon" if option == "--eps" else ""
            raise InputError(f"clf train: {option} does not apply to the tree learners "
                             f"(SVM-light-TK files){hint}")
    spec = check_kernel_options(args, "clf train")
    if args.threads is not None and args.threads < 1:
        raise InputError(f"clf train: --threads must be >= 1, not {args.threads}")
    cutting_plane = check_cutting_plane_options(args, "clf train", args.classifier)
    if args.classifier in PERCEPTRONS:
        if args.C is not None:
            raise InputError(f"clf train: -C applies to kernel-svm, not {args.classifier}")
        if args.epochs is not None and args.epochs < 1:
            raise InputError(f"clf train: --epochs must be >= 1, not {args.epochs}")
    else:
        for option, used in (("--epochs", args.epochs is not None), ("--no-dag", args.no_dag)):
            if used:
                raise InputError(f"clf train: {option} applies to the perceptrons, not "
                                 f"{args.classifier}")
        check_positive_option("clf train", "-C", args.C)
    if spec.degree is not None and spec.degree > 2 and args.classifier == "cpa":
        raise InputError(f"clf train: cpa takes --vector poly2 or none, not degree "
                         f"{spec.degree}")
    return spec, cutting_plane


def _out_of_memory(command: str, path: str, instances: TreeInstances) -> InputError:
    """The one line for a tree kernel that ran out of memory, naming the line of the largest
    tree of the file, since a pair of trees takes memory for the product of their node counts
    (Collins & Duffy's dynamic programme over node pairs)."""
    import numpy as np

    sizes = np.diff(instances.forest.tree_ptr)
    largest = int(np.argmax(sizes))
    example = int(np.searchsorted(instances.instance_ptr, largest, side="right")) - 1
    return InputError(f"{command}: {instances.where(path, example)}: out of memory in the tree "
                      f"kernel; this line's tree is the file's largest, {int(sizes[largest]):,} "
                      "nodes, and a pair of trees needs memory for the product of their node "
                      "counts")


def _one_tree_each(instances: TreeInstances, path: str) -> None:
    import numpy as np

    counts = np.diff(instances.instance_ptr)
    wrong = np.flatnonzero(counts != 1)
    if wrong.size:
        k = int(wrong[0])
        raise InputError(f"{instances.where(path, k)}: the example holds {int(counts[k])} "
                         "trees; the tree learners take exactly one tree per example")


def _binary_labels(instances: TreeInstances, path: str, unlabelled: bool = False) -> np.ndarray:
    """The labels as +1.0 / -1.0 (and 0.0, unlabelled, when `unlabelled`: svm_classify's
    examples to predict without a label); one line naming file:line for any other."""
    import numpy as np

    labels = np.asarray(instances.labels, dtype=np.float64)
    allowed = (np.abs(labels) == 1.0) | (unlabelled & (labels == 0.0))
    odd = np.flatnonzero(~allowed)
    if odd.size:
        k = int(odd[0])
        if labels[k] == 0.0:
            raise InputError(f"{instances.where(path, k)}: label 0 (unlabelled) is for "
                             "prediction; the tree learners train on +1 / -1")
        takes = "+1 / -1, or 0 (unlabelled) to predict" if unlabelled else "+1 / -1"
        raise InputError(f"{instances.where(path, k)}: label {instances.labels[k]}; the tree "
                         f"learners take {takes}")
    return labels


def run_tree_train(args: argparse.Namespace, checked: tuple[TreeKernelSpec, dict[str, Any]],
                   source: SniffedInput) -> int:
    import numpy as np

    from polyparse.classifiers.tree_kernels.tree_learners import train_tree_model, training_steps
    from polyparse.features.svmlight_tk import parse_svmlight_tk_bytes

    spec, cutting_plane = checked
    check_output_path(args.model, "model")
    started = time.perf_counter()
    data_bytes = source.stream.read()
    data = parse_svmlight_tk_bytes(data_bytes, source.name)
    read_seconds = time.perf_counter() - started
    if not len(data):
        raise InputError(f"clf train: {args.train_file} holds no examples")
    _one_tree_each(data, args.train_file)
    y = _binary_labels(data, args.train_file)
    if np.unique(y).size == 1:
        if args.classifier == "cpa":
            raise InputError(f"clf train: {args.train_file} holds one class "
                             f"({int(y[0]):+d}); cpa needs +1 and -1 examples")
        warn(f"{args.train_file} holds one class ({int(y[0]):+d}): the model gives it to every "
             "example")
    sample = cutting_plane.get("sample")
    if sample is not None and sample > len(data):
        raise InputError(f"clf train: --sample {sample} is larger than the {len(data)} "
                         f"instances of {args.train_file}")
    epochs = DEFAULT_EPOCHS if args.epochs is None else args.epochs
    threads = DEFAULT_THREADS if args.threads is None else args.threads
    started = time.perf_counter()
    total = training_steps(args.classifier, len(data), epochs,
                           cutting_plane.get("iterations", DEFAULT_ITERATIONS))
    progress = progress_bar(args, total=total, unit=" steps", desc="training")
    try:
        model, stats = train_tree_model(args.classifier, spec, data.forest, y, data.vectors,
                                        epochs=epochs, store="plain" if args.no_dag else "dag",
                                        C=args.C, j=args.j, progress=progress.update,
                                        **{"threads": threads, **cutting_plane})
    except ValueError as error:
        raise InputError(f"clf train: {args.train_file}: {error}") from None
    except MemoryError:
        raise _out_of_memory("clf train", args.train_file, data) from None
    finally:
        progress.close()
    fit_seconds = time.perf_counter() - started
    if args.classifier in ("kernel-svm", "cpa") and args.C is None:
        print(f"polyparse: C = {stats['C']:.6g} (SVM-light's 1 / mean K(x, x))",
              file=sys.stderr)
    if args.classifier == "cpa" and not stats["converged"]:
        warn(f"stopped after --iterations {stats['iterations']} before a cut within "
             f"--epsilon {stats['epsilon']:g}")
    kept = {key: value for key, value in stats.items() if key not in TIMINGS}
    training = {"command": _command(args, spec, stats), "classifier": args.classifier,
                "data": Path(args.train_file).name,
                "data_sha256": hashlib.sha256(data_bytes).hexdigest(), "rows": len(data),
                **kept}
    model.save(args.model, {"training": training})
    summary = {"backend": args.classifier, "rows": len(data), **stats,
               "n_trees": model.n_trees, "n_tree_nodes": model.n_tree_nodes,
               "n_dag_nodes": model.n_dag_nodes, "read_seconds": round(read_seconds, 3),
               "seconds": round(fit_seconds, 3), "model": str(args.model)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"trained {args.classifier} ({spec.kind}{' + poly2' if spec.degree else ''}) "
              f"on {len(data)} examples: {model.n_trees} trees, {model.n_dag_nodes} DAG nodes "
              f"in {fit_seconds:.2f} s -> {args.model}", file=sys.stderr)
    return 0


def _command(args: argparse.Namespace, spec: TreeKernelSpec, stats: dict[str, Any]) -> str:
    """The training command rebuilt from the settings (no paths, so equal runs match)."""
    parts = ["polyparse clf train", Path(args.train_file).name,
             f"--classifier {args.classifier}", f"--kernel {spec.kind}",
             f"--lambda {spec.lam!r}", f"--mu {spec.mu!r}",
             f"--vector {'poly2' if spec.degree else 'none'}",
             f"--tree-constant {spec.tree_constant!r}"]
    if args.classifier == "cpa":
        parts += [f"--algorithm {stats['algorithm']}", f"--sample {stats['sample']}",
                  f"--iterations {args.iterations or DEFAULT_ITERATIONS}",
                  f"--epsilon {stats['epsilon']!r}", f"-C {stats['C']!r}",
                  f"--sampling {stats['sampling']}", f"--seed {stats['seed']}"]
        if stats["positive_cost"] is not None:
            parts.append(f"-j {stats['positive_cost']!r}")
        return " ".join(parts)
    parts.append(f"-j {1.0 if args.j is None else args.j!r}")
    if args.classifier == "kernel-svm":
        parts.append(f"-C {stats['C']!r}")
    else:
        parts.append(f"--epochs {stats['epochs']}")
        if args.no_dag:
            parts.append("--no-dag")
    return " ".join(parts)


def run_tree_predict(args: argparse.Namespace, model_data: Any, source: SniffedInput) -> int:
    """`clf predict` of a tree-kernel model (its file's bytes: model_file_data) on the
    examples of source."""
    import numpy as np

    from polyparse.classifiers.binary_scores import positive_class_scores
    from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel
    from polyparse.features.svmlight_tk import parse_svmlight_tk_bytes

    for option, value in (("--eval-mode", args.eval_mode),
                          ("--rare-threshold", args.rare_threshold)):
        if value is not None:
            raise InputError(f"clf predict: {option} applies to kernel models of svmlight "
                             f"files; {args.model} is a tree-kernel model")
    check_output_path(args.decision_values, "decision values")
    started = time.perf_counter()
    model, metadata, _ = TreeKernelModel.load_data_with_extras(model_data, input_name(args.model))
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    data = parse_svmlight_tk_bytes(source.stream.read(), source.name, model.labels,
                                   model.productions)
    read_seconds = time.perf_counter() - started
    _one_tree_each(data, args.test_file)
    y = _binary_labels(data, args.test_file, unlabelled=True)
    vectors = data.vectors if model.spec.degree is not None else None
    started = time.perf_counter()
    try:
        values = model.decision_function(data.forest, vectors)
    except MemoryError:
        raise _out_of_memory("clf predict", args.test_file, data) from None
    seconds = time.perf_counter() - started
    predicted = np.where(values > 0.0, 1, -1)
    labelled = y != 0.0
    n_labelled = int(np.count_nonzero(labelled))
    # Examples of label 0 are predicted and not scored (svm_classify's unlabelled examples).
    scores: dict[str, Any] = (positive_class_scores(y[labelled] > 0, predicted[labelled] > 0)
                              if n_labelled else dict.fromkeys(_SCORE_KEYS))
    if args.decision_values:
        with output_stream(args.decision_values, newline="\n") as out:
            out.write("".join(f"{label:+d} {value!r}\n"
                              for label, value in zip(predicted.tolist(), values.tolist())))
    result = {**scores, "n": len(data), "n_labelled": n_labelled, "seconds": seconds,
              "microseconds_per_example": 1e6 * seconds / len(data),
              "load_seconds": load_seconds, "read_seconds": read_seconds,
              "backend": (metadata.get("training") or {}).get("classifier", "tree-kernel"),
              "n_trees": model.n_trees, "n_dag_nodes": model.n_dag_nodes}
    if args.json:
        print(json.dumps(result))
    else:
        speed = f"{result['microseconds_per_example']:.1f} us per example"
        unscored = len(data) - n_labelled
        if not n_labelled:
            print(f"{len(data)} examples predicted, all unlabelled (label 0): nothing to score "
                  f"({speed})")
            return 0
        counted = (f"{n_labelled} labelled examples, {unscored} unlabelled (label 0) not scored"
                   if unscored else f"{len(data)} examples")
        print(f"accuracy {scores['accuracy']:.2f}%, precision {scores['precision']:.2f}, "
              f"recall {scores['recall']:.2f}, F1 {scores['F1']:.2f} ({counted}, {speed})")
    return 0


def tree_model_info(args: argparse.Namespace, model_data: Any) -> dict[str, Any]:
    """What `clf info` shows of a tree-kernel model file (its bytes: model_file_data)."""
    from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel

    if args.rare_threshold is not None:
        raise InputError(f"clf info: --rare-threshold applies to kernel models of svmlight "
                         f"files; {args.model} is a tree-kernel model")
    model, metadata, _ = TreeKernelModel.load_data_with_extras(model_data, input_name(args.model))
    training = metadata.get("training") or metadata.get("srl") or {}
    spec = model.spec
    return {
        "backend": training.get("classifier") or training.get("learner") or "tree-kernel",
        "format": MODEL_FORMAT,
        "kernel": spec.kind, "lambda": spec.lam, "mu": spec.mu,
        "vector": "none" if spec.degree is None else f"poly{spec.degree}",
        "tree_constant": spec.tree_constant,
        "n_trees": model.n_trees,
        "n_tree_nodes": model.n_tree_nodes,
        "n_dag_nodes": model.n_dag_nodes,
        "bias": model.bias,
        "objective": training.get("objective"),
        "training": training,
    }
