"""OneVsOneExpansion: a trained one-vs-one polynomial-kernel SVM in libsvm's layout.

For the p-th pair (i, j) of classes, i < j, in the order (0,1), (0,2), ..., (0,k-1), (1,2), ...
(libsvm's), the decision value of a binary row x is

    d_p(x) = sum_{s in SV(i)} dual_coef[j-1, s] K(sv_s, x)
           + sum_{s in SV(j)} dual_coef[i, s] K(sv_s, x) - rho[p],
    K(sv, x) = (gamma |sv & x| + coef0)^degree,

where SV(c) are the n_support[c] consecutive support vectors of class c (classes in the order
of `labels`) and |sv & x| counts the feature ids two rows share. d_p(x) > 0 votes for
labels[i], otherwise for labels[j]; the label with most votes wins (ties: the first label).
This is svm_model's SV / sv_coef / rho / label / nSV, so libsvm model files map onto it
one to one (classifiers/kernel_svm/libsvm_model.py). It is a SupportVectorExpansion
(kernel_expansion.py): its reference decision values are the pair outputs' naive kernel sum.

Real-valued support vectors (kernel-svm trained on real features, a libsvm model of real
values) keep their values in `sv_values` (one per stored id; None: every value 1); their kernel
is (gamma sv . x + coef0)^degree, evaluated by the naive sum only
(classifiers/evaluators/real_kernel_sum.pyx), since PKI, PKE and split-svm expand binary
features.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from polyparse.classifiers.evaluators.kernel_expansion import (
    KernelExpansion,
    SupportVectorExpansion,
)
from polyparse.classifiers.model_file import inconsistent, require_arrays
from polyparse.features.binary_matrix import BinaryMatrix


@dataclass(eq=False)
class OneVsOneExpansion(SupportVectorExpansion):
    """Support vectors, libsvm's sv_coef (n_classes-1, n_SV), rho per pair, kernel, labels."""

    support_vectors: BinaryMatrix
    dual_coef: np.ndarray
    rho: np.ndarray
    gamma: float
    coef0: float
    degree: int
    labels: np.ndarray
    n_support: np.ndarray
    sv_values: np.ndarray | None = None
    # Platt's sigmoid of each pair, P(i | i or j) = 1 / (1 + exp(A d_ij + B)) (libsvm's probA,
    # probB; classifiers/kernel_svm/probability.py), or None.
    prob_a: np.ndarray | None = None
    prob_b: np.ndarray | None = None

    def __post_init__(self) -> None:
        self._check_kernel()
        if self.sv_values is not None:
            sv_values = np.ascontiguousarray(self.sv_values, dtype=np.float64)
            if sv_values.shape != self.support_vectors.indices.shape:
                raise ValueError("sv_values must hold one value per stored feature id")
            if not np.isfinite(sv_values).all():
                raise ValueError("sv_values must be finite")
            self.sv_values = sv_values
        labels = np.asarray(self.labels)
        if labels.ndim != 1 or labels.size < 1:
            raise ValueError("labels must be a non-empty vector")
        if np.unique(labels).size != labels.size:
            raise ValueError("labels must be distinct")
        n_classes = labels.size
        n_support = np.asarray(self.n_support)
        if n_support.shape != (n_classes,) or n_support.dtype.kind not in "iu":
            raise ValueError(f"n_support must hold one count per class ({n_classes})")
        n_support = n_support.astype(np.int32)
        n_sv = len(self.support_vectors)
        if n_support.min() < 0 or int(n_support.sum()) != n_sv:
            raise ValueError(
                f"n_support sums to {int(n_support.sum())}, not to the {n_sv} support vectors"
            )
        dual_coef = np.array(self.dual_coef, dtype=np.float64, order="C", ndmin=2)
        if n_classes == 1 and dual_coef.size == 0:
            dual_coef = dual_coef.reshape(0, n_sv)
        if dual_coef.shape != (n_classes - 1, n_sv):
            raise ValueError(
                f"dual_coef must have shape ({n_classes - 1}, {n_sv}), not {dual_coef.shape}"
            )
        rho = np.array(self.rho, dtype=np.float64, ndmin=1).ravel()
        n_pairs = n_classes * (n_classes - 1) // 2
        if rho.shape != (n_pairs,):
            raise ValueError(f"rho must hold {n_pairs} values (one per pair), not {rho.size}")
        if not (np.isfinite(dual_coef).all() and np.isfinite(rho).all()):
            raise ValueError("dual_coef and rho must be finite")
        self.labels, self.n_support, self.dual_coef, self.rho = labels, n_support, dual_coef, rho
        if (self.prob_a is None) != (self.prob_b is None):
            raise ValueError("prob_a and prob_b come together")
        if self.prob_a is not None:
            self.prob_a = np.array(self.prob_a, dtype=np.float64, ndmin=1).ravel()
            self.prob_b = np.array(self.prob_b, dtype=np.float64, ndmin=1).ravel()
            if self.prob_a.shape != (n_pairs,) or self.prob_b.shape != (n_pairs,):
                raise ValueError(f"prob_a and prob_b must hold {n_pairs} values (one per pair)")
            if not (np.isfinite(self.prob_a).all() and np.isfinite(self.prob_b).all()):
                raise ValueError("prob_a and prob_b must be finite")

    @property
    def n_classes(self) -> int:
        return int(self.labels.size)

    @property
    def n_pairs(self) -> int:
        return self.n_classes * (self.n_classes - 1) // 2

    def class_start(self) -> np.ndarray:
        """First support vector of each class, plus the total: int64 (n_classes + 1,)."""
        start = np.zeros(self.n_classes + 1, dtype=np.int64)
        np.cumsum(self.n_support, out=start[1:])
        return start

    def pairs(self) -> list[tuple[int, int]]:
        """The class pairs (i, j) of the decision values, in libsvm's order."""
        return class_pairs(self.n_classes)

    def pair_terms(self, p: int) -> tuple[np.ndarray, np.ndarray]:
        """(support vector rows, coefficients) of pair p: d_p(x) = sum c K(sv_s, x) - rho[p]."""
        i, j = self.pairs()[p]
        start = self.class_start()
        rows = np.concatenate(
            [np.arange(start[i], start[i + 1]), np.arange(start[j], start[j + 1])]
        )
        coef = np.concatenate(
            [
                self.dual_coef[j - 1, start[i] : start[i + 1]],
                self.dual_coef[i, start[j] : start[j + 1]],
            ]
        )
        return rows.astype(np.int64), coef

    def output_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """Dense per-pair coefficients (n_pairs, n_SV), zero outside the pair's two classes, and
        intercepts -rho (n_pairs,): d_p(x) = coefficients[p] . K(SV, x) + intercepts[p]."""
        coefficients = np.zeros((self.n_pairs, self.n_support_vectors))
        for p in range(self.n_pairs):
            rows, coef = self.pair_terms(p)
            coefficients[p, rows] = coef
        return coefficients, -self.rho

    def vote(self, values: np.ndarray) -> np.ndarray:
        """Labels from decision values (n, n_pairs) by libsvm's one-vs-one voting."""
        return one_vs_one_vote(self.labels, values)

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this expansion."""
        header, arrays = self.kernel_arrays()
        header["classes"] = self.labels.tolist()
        arrays.update(dual_coef=self.dual_coef, rho=self.rho, n_support=self.n_support)
        if self.sv_values is not None:
            arrays["sv_values"] = self.sv_values
        if self.prob_a is not None:
            arrays.update(prob_a=self.prob_a, prob_b=self.prob_b)
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> "OneVsOneExpansion":
        """Rebuild from to_arrays() output; ModelFileError (one line naming source) otherwise."""
        with inconsistent(source):
            labels = np.asarray(header["classes"])
        n_classes = labels.size
        support_vectors, gamma, coef0, degree = cls.read_kernel_arrays(header, arrays, source, {
            "dual_coef": ("float64", (max(n_classes - 1, 0), None)),
            "rho": ("float64", (n_classes * (n_classes - 1) // 2,)),
            "n_support": ("int32", (n_classes,)),
        })
        sv_values = arrays.get("sv_values")
        if sv_values is not None:
            require_arrays(source, arrays, {"sv_values": ("float64", (support_vectors.nnz,))})
        n_pairs = n_classes * (n_classes - 1) // 2
        if "prob_a" in arrays or "prob_b" in arrays:
            require_arrays(source, arrays, {"prob_a": ("float64", (n_pairs,)),
                                            "prob_b": ("float64", (n_pairs,))})
        with inconsistent(source, "model"):
            return cls(support_vectors, arrays["dual_coef"], arrays["rho"], gamma, coef0, degree,
                       labels, arrays["n_support"], sv_values, arrays.get("prob_a"),
                       arrays.get("prob_b"))


def class_pairs(n_classes: int) -> list[tuple[int, int]]:
    """The class pairs (i, j), i < j, of one-vs-one decision values, in libsvm's order."""
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


def one_vs_one_vote(labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Labels from one-vs-one decision values (n, n_pairs) by libsvm's vote (svm_predict_values):
    d_p > 0 votes for the pair's first class, otherwise for its second; most votes win, ties go
    to the first label. One class: every row gets it."""
    values = np.asarray(values)
    n_classes = labels.size
    n = values.shape[0]
    if n_classes == 1:
        return np.repeat(labels, n)
    n_pairs = n_classes * (n_classes - 1) // 2
    if values.ndim != 2 or values.shape[1] != n_pairs:
        raise ValueError(f"expected decision values of shape (n, {n_pairs})")
    votes = np.zeros((n, n_classes), dtype=np.int64)
    rows = np.arange(n)
    for p, (i, j) in enumerate(class_pairs(n_classes)):
        winner = np.where(values[:, p] > 0, i, j)
        np.add.at(votes, (rows, winner), 1)
    return labels[np.argmax(votes, axis=1)]


def class_expansion(model: OneVsOneExpansion, c: int) -> KernelExpansion:
    """Class c's halves of the pair values: its support vectors with their k-1 coefficients
    (libsvm's sv_coef columns), no intercept (OneVsOneScorer subtracts rho)."""
    model.check_binary()
    start = model.class_start()
    rows = np.arange(start[c], start[c + 1])
    return KernelExpansion(model.support_vectors.take(rows), model.dual_coef[:, rows],
                           np.zeros(model.n_classes - 1), model.gamma, model.coef0, model.degree)
