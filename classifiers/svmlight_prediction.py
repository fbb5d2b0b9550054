"""What `clf predict` does with the rows of an svmlight file once a classifier is loaded, the
same in one process (parser/cli/clf_run.py) and in shards (parser/scale_out/shard_tasks.py),
so that both give the same bytes: which decision function takes real-valued rows (or who
refuses them, in one line naming file and line), and the text of the decision values."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from polyparse.classifiers.binary_classifier import binary_only
from polyparse.features.real_matrix import RealMatrix
from polyparse.features.svmlight import example_line


def real_valued_scoring(clf: Any, eval_mode: str | None, mode: str
                        ) -> tuple[Callable[[Any], np.ndarray] | None, str]:
    """The decision function of real-valued rows and the name of its evaluation mode:
    kernel-svm's naive kernel sum (unless eval_mode, the one asked for, names another) or a
    linear backend's weights (mode: the binary rows' mode); (None, who refuses) for the
    others."""
    from polyparse.classifiers.evaluators.evaluator_model import KernelEvaluatorModel
    from polyparse.classifiers.kernel_svm.svc import KernelSVM
    from polyparse.classifiers.linear.poly2_linear_svm import Poly2LinearSVM

    if isinstance(clf, KernelSVM) and eval_mode in (None, "naive"):
        return clf.decision_function, "naive"
    if isinstance(clf, Poly2LinearSVM) and (clf.degree == 1 or clf.square_ is not None):
        return clf.decision_function, mode
    if isinstance(clf, Poly2LinearSVM):
        return None, ("a poly2-linear model trained on binary features (x_i and x_i^2 folded "
                      "together)")
    if isinstance(clf, (KernelSVM, KernelEvaluatorModel)):
        return None, f"the {mode} evaluator"
    return None, clf.backend


def real_value_refusal(X: RealMatrix, data: bytes, name: str, who: str,
                       first_line: int = 1) -> str:
    """One line naming the file, the line (X read from data, whose first line is first_line)
    and the first real value that `who` does not take, and the backends that take them."""
    odd = X.first_non_binary()
    assert odd is not None
    row, column, value = odd
    return (f"{name}:{example_line(data, row, first_line)}: feature {column} has value "
            f"{value:g}; {binary_only(who)}")


def decision_values_header(names: list[str]) -> str:
    """The line that starts a file of several decision values per example, `# label NAME...`,
    naming what each column stands for (output_names: a class, or a pair of classes `i:j`
    whose positive value means i), a comment to readers such as numpy.loadtxt; none for one
    value per example."""
    return " ".join(["# label", *names]) + "\n" if len(names) > 1 else ""


def decision_values_text(predicted: np.ndarray, values: np.ndarray) -> str:
    """`label value...` per example: the predicted label and its decision values (repr)."""
    return "".join(" ".join([str(label)] + [repr(v) for v in row]) + "\n"
                   for label, row in zip(predicted.tolist(), values.tolist()))
