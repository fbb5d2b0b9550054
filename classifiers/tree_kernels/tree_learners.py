"""The tree-kernel learners behind one call: train on a forest (+ vectors) and get a
TreeKernelModel, whatever the learner.

- `perceptron`: the kernel perceptron's last hypothesis sum_m y_m K(x_m, .);
- `voted-perceptron`: Freund & Schapire's (1999) voted perceptron predicting with its "average"
  rule sign(sum_k c_k v_k . x), one kernel expansion with weights y_m (T - t_m)
  (tree_perceptron.py; the exact sign-vote is TreePerceptron.voted_decision_function);
- `kernel-svm`: the C-SVC of tree_svm.py (libsvm's SMO on the tree kernel columns), C by
  SVM-light's rule unless given, j the cost factor of positives (SVM-light's -j).
The perceptrons keep their model as a DAG while training (store "dag") or as a plain list of
trees (store "plain"); both make the same mistakes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from classifiers.tree_kernels.tree_model import TreeKernelModel, TreeKernelSpec
from classifiers.tree_kernels.tree_perceptron import TreePerceptron
from classifiers.tree_kernels.tree_svm import TreeSVM
from features.binary_matrix import BinaryMatrix
from features.trees import TreeForest

LEARNERS = ("voted-perceptron", "perceptron", "kernel-svm")
PERCEPTRONS = ("voted-perceptron", "perceptron")


def train_tree_model(learner: str, spec: TreeKernelSpec, forest: TreeForest, y: np.ndarray,
                     vectors: BinaryMatrix | None = None, epochs: int = 1, store: str = "dag",
                     C: float | None = None, j: float = 1.0,
                     threads: int = 1) -> tuple[TreeKernelModel, dict[str, Any]]:
    """The trained model and what training reports (mistakes, or C, objective, support
    vectors and SMO steps); labels y are +1 / -1, one tree (and vector row) each."""
    if learner not in LEARNERS:
        raise ValueError(f"unknown tree learner {learner!r} (expected one of "
                         f"{', '.join(LEARNERS)})")
    if spec.degree is None:
        vectors = None
    if learner in PERCEPTRONS:
        perceptron = TreePerceptron(
            kind=spec.kind, lam=spec.lam, mu=spec.mu, epochs=epochs, store=store,
            average=learner == "voted-perceptron", degree=spec.degree, s=spec.s, r=spec.r,
            tree_constant=spec.tree_constant, positive_weight=j,
        )
        perceptron.fit(forest, y, vectors)
        return perceptron.model(), {"epochs": epochs, "mistakes": perceptron.n_mistakes}
    svm = TreeSVM(spec, C=C, j=j, threads=threads)
    result = svm.fit(forest, y, vectors)
    model = TreeKernelModel.from_weighted_trees(*svm.model_arguments())
    return model, {"C": result.C, "C_rule": result.C_rule, "objective": result.objective,
                   "n_support_vectors": result.n_support_vectors,
                   "iterations": result.iterations, "converged": result.converged}
