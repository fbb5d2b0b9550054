"""The tree-kernel learners as a user sets them up: the kernel (TreeKernelSpec), the names of
the kernels, learners, cutting-plane algorithms and samplings, and their defaults.

Plain Python, so that the command line and the Python API know the choices and their defaults
(each defined here once) without importing the compiled kernels.
"""
from __future__ import annotations

from dataclasses import dataclass

# Collins & Duffy's subset trees, Vishwanathan & Smola's subtrees, Moschitti's partial trees
# and the elastic tree kernel (classifiers/tree_kernels/kernels.pyx, in its order).
KINDS = ("sst", "st", "pt", "et")
LEARNERS = ("voted-perceptron", "perceptron", "kernel-svm", "cpa")
PERCEPTRONS = ("voted-perceptron", "perceptron")
# The cutting-plane algorithms (all give the same model) and samplers.
ALGORITHMS = ("usvm", "sdag", "sdag+")
SAMPLINGS = ("uniform", "rejection")
# The optional vector part of the kernel: poly2 (the normalised (x.z + 1)^2) or none.
VECTORS = ("poly2", "none")
# The model file format of a tree-kernel model.
MODEL_FORMAT = "polyparse-tree-kernel"
# The report keys that are timings (left out of model headers, which a seed fixes byte for byte).
TIMINGS = ("mvc_seconds", "gram_seconds", "qp_seconds", "seconds")

DEFAULT_KIND = "sst"
DEFAULT_LAMBDA = 0.4
DEFAULT_MU = 0.4
DEFAULT_TREE_CONSTANT = 1.0
DEFAULT_EPOCHS = 1
# cpa's defaults: the sample size r (capped at the number of instances when not given), the
# most cuts drawn, the stopping tolerance, the algorithm, the sampler's seed and the threads of
# the most-violated-constraint step.
DEFAULT_SAMPLE = 1000
DEFAULT_ITERATIONS = 500
DEFAULT_EPSILON = 1e-3
DEFAULT_ALGORITHM = "sdag+"
DEFAULT_SEED = 1
DEFAULT_THREADS = 1


@dataclass(frozen=True)
class TreeKernelSpec:
    """The kernel: tree kernel kind with lam (and mu for PT), plus, with degree, the normalised
    polynomial (s x.z + r)^degree on the vectors and tree_constant T times the tree part."""

    kind: str = DEFAULT_KIND
    lam: float = DEFAULT_LAMBDA
    mu: float = DEFAULT_MU
    degree: int | None = None
    s: float = 1.0
    r: float = 1.0
    tree_constant: float = DEFAULT_TREE_CONSTANT

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown tree kernel {self.kind!r} "
                             f"(expected one of {', '.join(KINDS)})")
        if not self.lam > 0 or not self.mu > 0:
            raise ValueError("lambda and mu must be positive")
        if self.degree is not None and self.degree < 1:
            raise ValueError(f"the polynomial degree must be >= 1, not {self.degree}")

    @property
    def tree_weight(self) -> float:
        """The factor of the tree part: T with a vector part, else 1."""
        return 1.0 if self.degree is None else self.tree_constant
