"""The tree-kernel learners behind one call: train on a forest (+ vectors) and get a
TreeKernelModel, whatever the learner.

- `perceptron`: the kernel perceptron's last hypothesis sum_m y_m K(x_m, .);
- `voted-perceptron`: Freund & Schapire's (1999) voted perceptron predicting with its "average"
  rule sign(sum_k c_k v_k . x), one kernel expansion with weights y_m (T - t_m)
  (tree_perceptron.py; the exact sign-vote is TreePerceptron.voted_decision_function);
- `kernel-svm`: the C-SVC of tree_svm.py (libsvm's SMO on the tree kernel columns), C by
  SVM-light's rule unless given, j the cost factor of positives (SVM-light's -j);
- `cpa`: the 1-slack cutting-plane SVM with sampled cuts (cutting_plane/cutting_plane_svm.py:
  uSVM, SDAG or SDAG+), C as for kernel-svm, j the positive cost of rejection sampling (uSVM+j;
  n_neg / n_pos unless given; giving j without a sampling selects rejection sampling).
The perceptrons keep their model as a DAG while training (store "dag") or as a plain list of
trees (store "plain"); both make the same mistakes.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from polyparse.classifiers.tree_kernels.cutting_plane.cutting_plane_svm import CuttingPlaneSVM
from polyparse.classifiers.tree_kernels.settings import (
    DEFAULT_ALGORITHM,
    DEFAULT_EPOCHS,
    DEFAULT_EPSILON,
    DEFAULT_ITERATIONS,
    DEFAULT_SAMPLE,
    DEFAULT_SEED,
    DEFAULT_THREADS,
    LEARNERS,
    PERCEPTRONS,
    TreeKernelSpec,
)
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel
from polyparse.classifiers.tree_kernels.tree_perceptron import TreePerceptron
from polyparse.classifiers.tree_kernels.tree_svm import TreeSVM
from polyparse.features.binary_matrix import BinaryMatrix, BinaryMatrixLike, optional_binary_matrix
from polyparse.features.trees import TreeForest


def training_steps(learner: str, n_instances: int, epochs: int = DEFAULT_EPOCHS,
                   iterations: int = DEFAULT_ITERATIONS) -> int | None:
    """The total that train_tree_model's progress reaches (at most, for cpa, which may stop
    early); None for kernel-svm, which does not report."""
    if learner in PERCEPTRONS:
        return n_instances * epochs
    return iterations if learner == "cpa" else None


def train_tree_model(learner: str, spec: TreeKernelSpec, forest: TreeForest, y: np.ndarray,
                     vectors: BinaryMatrixLike | None = None, epochs: int = DEFAULT_EPOCHS,
                     store: str = "dag", C: float | None = None, j: float | None = None,
                     threads: int = DEFAULT_THREADS, algorithm: str = DEFAULT_ALGORITHM,
                     sample: int | None = None, iterations: int = DEFAULT_ITERATIONS,
                     epsilon: float = DEFAULT_EPSILON, sampling: str | None = None,
                     seed: int = DEFAULT_SEED, progress: Callable[[int], object] | None = None
                     ) -> tuple[TreeKernelModel, dict[str, Any]]:
    """The trained model and what training reports (mistakes; C, objective, support vectors
    and SMO steps; or the cutting-plane report); labels y are +1 / -1, one tree (and vector
    row) each. j: the perceptrons' and kernel-svm's weight of positives (default 1), cpa's
    positive cost of rejection sampling. cpa only: algorithm (usvm, sdag, sdag+), sample
    (r, default min(1000, instances)), iterations, epsilon, sampling (uniform, or rejection;
    default rejection when j is given, else uniform), seed; threads: kernel-svm and cpa.
    progress(n) is told of the work done: instances seen by the perceptrons (training_steps
    gives their total), cuts drawn by cpa; kernel-svm tells nothing."""
    if learner not in LEARNERS:
        raise ValueError(f"unknown tree learner {learner!r} (expected one of "
                         f"{', '.join(LEARNERS)})")
    vectors = None if spec.degree is None else optional_binary_matrix(vectors)
    if learner == "cpa":
        return _train_cutting_plane(spec, forest, y, vectors, C, j, threads, algorithm, sample,
                                    iterations, epsilon, sampling, seed, progress)
    j = 1.0 if j is None else j
    if learner in PERCEPTRONS:
        perceptron = TreePerceptron(
            kind=spec.kind, lam=spec.lam, mu=spec.mu, epochs=epochs, store=store,
            average=learner == "voted-perceptron", degree=spec.degree, s=spec.s, r=spec.r,
            tree_constant=spec.tree_constant, positive_weight=j,
        )
        perceptron.fit(forest, y, vectors, progress)
        return perceptron.model(), {"epochs": epochs, "mistakes": perceptron.n_mistakes}
    svm = TreeSVM(spec, C=C, j=j, threads=threads)
    result = svm.fit(forest, y, vectors)
    model = TreeKernelModel.from_weighted_trees(*svm.model_arguments())
    return model, {"C": result.C, "C_rule": result.C_rule, "objective": result.objective,
                   "n_support_vectors": result.n_support_vectors,
                   "iterations": result.iterations, "converged": result.converged}


def _train_cutting_plane(spec: TreeKernelSpec, forest: TreeForest, y: np.ndarray,
                         vectors: BinaryMatrix | None, C: float | None, j: float | None,
                         threads: int, algorithm: str, sample: int | None, iterations: int,
                         epsilon: float, sampling: str | None, seed: int,
                         progress: Callable[[int], object] | None
                         ) -> tuple[TreeKernelModel, dict[str, Any]]:
    if spec.degree is not None and spec.degree > 2:
        raise ValueError(f"cpa takes a vector part of degree 1 or 2 (poly2) or none, not "
                         f"degree {spec.degree}")
    n = len(forest)
    if sample is None:
        sample = min(DEFAULT_SAMPLE, n)
    elif sample > n:
        raise ValueError(f"the sample size {sample} is larger than the {n} instances")
    if sampling is None:
        sampling = "uniform" if j is None else "rejection"
    svm = CuttingPlaneSVM(spec, algorithm=algorithm, sample=sample, iterations=iterations,
                          epsilon=epsilon, C=C, sampling=sampling, j=j, seed=seed,
                          threads=threads)
    result = svm.fit(forest, y, vectors, progress)
    report = {"algorithm": result.algorithm, "sampling": result.sampling, "sample": sample,
              "epsilon": epsilon, "seed": seed, "iterations": result.iterations,
              "converged": result.converged, "n_cuts": result.n_cuts, "C": result.C,
              "C_rule": "svm-light" if C is None else "given", "C_slack": result.C_slack,
              "positive_cost": result.positive_cost, "objective": result.objective,
              "slack": result.slack, "mvc_seconds": result.mvc_seconds,
              "gram_seconds": result.gram_seconds, "qp_seconds": result.qp_seconds,
              "seconds": result.seconds}
    return svm.model(), report
