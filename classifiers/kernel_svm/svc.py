"""`kernel-svm` backend: libsvm's C-SVC with the polynomial kernel on binary features.

KernelSVM trains one binary C-SVC per pair of classes (one-vs-one) with the SMO solver of
classifiers/kernel_svm/smo.pyx (libsvm's Solver: second-order working-set selection, shrinking,
LRU kernel cache), on K(x, z) = (gamma |x & z| + coef0)^degree of any degree d >= 1 (libsvm's
-d; the evaluators PKE and split-svm expand d <= 3, naive and PKI evaluate any). Everything that
decides libsvm's result is reproduced: labels in order of first appearance (two classes -1/+1
with -1 first are swapped so that +1 comes first), each pair's rows grouped by class in input
order, C_i = C * class_weight[label] (a label absent from the data is ignored with a warning, as
libsvm's "class label ... specified in weight is not found"; "balanced" gives n / (k n_c), k
classes and n_c rows of class c, scikit-learn's formula), the stopping tolerance eps (default
1e-3) and the max(10^7, 100 l) step limit. The result is a OneVsOneExpansion (`expansion_`,
libsvm's SV / sv_coef / rho / label / nSV), the input of the exact fast evaluators; `support_`
holds the training row of each support vector (libsvm's sv_indices minus one).

Real-valued rows (a RealMatrix, real arrays) train on K(x, z) = (gamma x.z + coef0)^degree of
their dot products (smo.pyx's real column source, libsvm's Kernel::dot order), and their
support vectors keep their values (`expansion_.sv_values`): such a model is scored by the naive
kernel sum only (classifiers/evaluators/real_kernel_sum.pyx), which also scores real rows for a
model of binary support vectors.

Decision values: one per pair of classes in libsvm's order (`n_outputs` = k (k-1) / 2, one for
two classes), positive meaning the pair's first label; `predict` takes libsvm's vote. A single

class gives a constant model (one output, +1). `clf.scorer` is the naive compiled scorer
(classifiers.evaluators.one_vs_one_sum.OneVsOneSumScorer, a BinaryScorer).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from polyparse.classifiers.backend_settings import BALANCED, DEFAULTS
from polyparse.classifiers.binary_classifier import (
    ExpansionClassifier,
    plain_label,
    training_inputs,
)
from polyparse.classifiers.evaluators.modes import build_evaluator, real_evaluator
from polyparse.classifiers.evaluators.one_vs_one_expansion import OneVsOneExpansion
from polyparse.classifiers.evaluators.real_kernel_sum import RealOneVsOneSumScorer
from polyparse.classifiers.kernel_svm.libsvm_model import read_libsvm_model, write_libsvm_model
from polyparse.classifiers.kernel_svm.probability import (
    cross_validated_values,
    pair_probabilities,
    sigmoid_train,
)
from polyparse.classifiers.kernel_svm.smo import solve_c_svc, solve_c_svc_real
from polyparse.classifiers.model_file import ModelFileError, inconsistent
from polyparse.classifiers.settings import (
    check_finite,
    check_integer,
    check_positive,
    check_seed,
)
from polyparse.features.binary_matrix import BinaryMatrixLike
from polyparse.features.errors import InputWarning
from polyparse.features.real_matrix import RealMatrix, as_feature_matrix
from polyparse.features.worker_threads import interruptible_pool

BACKEND = "kernel-svm"
_STATS = (
    "objective",
    "iterations",
    "converged",
    "n_bounded",
    "kernel_columns",
    "n_training_rows",
)


_DEFAULTS = DEFAULTS["kernel-svm"]


class KernelSVM(ExpansionClassifier[OneVsOneExpansion]):
    """One-vs-one C-SVC with kernel (gamma x.z + coef0)^degree, trained by libsvm's SMO."""

    backend = BACKEND
    decision = "one-vs-one"

    def __init__(
        self,
        degree: int = _DEFAULTS["degree"],
        gamma: float = _DEFAULTS["gamma"],
        coef0: float = _DEFAULTS["coef0"],
        C: float = _DEFAULTS["C"],
        eps: float = _DEFAULTS["eps"],
        cache_mb: float = _DEFAULTS["cache_mb"],
        shrinking: bool = _DEFAULTS["shrinking"],
        class_weight: Mapping[Any, float] | str | None = _DEFAULTS["class_weight"],
        max_iter: int | None = _DEFAULTS["max_iter"],
        threads: int = _DEFAULTS["threads"],
        probability: bool = _DEFAULTS["probability"],
        probability_seed: int = _DEFAULTS["probability_seed"],
    ) -> None:
        """degree, gamma, coef0: the kernel; C: the box bound; eps: stopping tolerance on
        the maximal violation m(a) - M(a); cache_mb: kernel column cache per binary problem;
        shrinking: libsvm's shrinking heuristic; class_weight: label -> factor of C (labels not
        in the training data are ignored with an InputWarning, as libsvm warns and ignores
        them), or "balanced" (n / (k n_c) for the k classes, n_c rows of class c); max_iter:
        SMO steps per binary problem (None: libsvm's max(10^7, 100 l)); threads: binary
        problems solved at once (the models do not depend on it); probability: also fit each
        pair's Platt sigmoid on 5-fold cross-validated decision values (libsvm's -b 1, the
        folds drawn from probability_seed), for predict_proba."""
        self.degree = degree
        self.gamma = float(gamma)
        self.coef0 = float(coef0)
        self.C = float(C)
        self.eps = float(eps)
        self.cache_mb = float(cache_mb)
        self.shrinking = bool(shrinking)
        self.class_weight = class_weight
        self.max_iter = None if max_iter is None else int(max_iter)
        self.threads = int(threads)
        self.probability = bool(probability)
        self.probability_seed = probability_seed
        self._check_parameters()
        self.classes_: np.ndarray | None = None
        self.expansion_: OneVsOneExpansion | None = None
        self.support_: np.ndarray | None = None
        self.stats_: dict[str, Any] = {}

    def _check_parameters(self) -> None:
        self.degree = check_integer("degree", self.degree, 1)
        self.gamma = check_positive("gamma", self.gamma)
        self.coef0 = check_finite("coef0", self.coef0)
        self.C = check_positive("C", self.C)
        self.eps = check_positive("eps", self.eps)
        self.cache_mb = check_positive("cache_mb", self.cache_mb)
        if self.max_iter is not None:
            self.max_iter = check_integer("max_iter", self.max_iter, 1)
        self.threads = check_integer("threads", self.threads, 1)
        self.probability_seed = check_seed(self.probability_seed)
        self.class_weight = checked_class_weight(self.class_weight)

    @property
    def objective_(self) -> list[float]:
        """libsvm's obj, 0.5 a^T Q a - e^T a at the solution, per pair of classes."""
        return list(self.stats_.get("objective", []))

    def fit(self, X: BinaryMatrixLike, y: np.ndarray) -> "KernelSVM":
        """Train on the rows of X (a BinaryMatrix, a 2-D 0/1 NumPy array or a scipy sparse matrix)
        with labels y (numbers or strings)."""
        self._check_parameters()
        X, labels, class_index = training_inputs(X, y, libsvm_order=True, backend=BACKEND)
        values = X.values if isinstance(X, RealMatrix) else None
        n_classes = labels.size
        count = np.bincount(class_index, minlength=n_classes)
        start = np.zeros(n_classes + 1, dtype=np.int64)
        np.cumsum(count, out=start[1:])
        # libsvm's svm_group_classes: rows grouped by class, input order within a class.
        perm = np.argsort(class_index, kind="stable")
        used, compact = np.unique(X.indices, return_inverse=True)
        compact = compact.astype(np.int32).ravel()
        row_start = X.indptr[:-1]
        row_len = np.diff(X.indptr).astype(np.int32)
        weighted_C = [self.C * weight for weight in self._class_factors(labels, count)]
        if values is None:
            _check_kernel_range(self.degree, self.gamma, self.coef0, 0.0, float(row_len.max()))
        else:
            # |x . z| <= the largest squared norm of a row (Cauchy-Schwarz).
            largest = float(np.bincount(np.repeat(np.arange(len(X)), row_len),
                                        weights=values * values, minlength=len(X)).max())
            _check_kernel_range(self.degree, self.gamma, self.coef0, -largest, largest)
        pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
        max_iter = 0 if self.max_iter is None else self.max_iter

        def solve(pair: tuple[int, int]) -> tuple[np.ndarray, float, float, int, bool, int]:
            i, j = pair
            rows = np.concatenate([perm[start[i] : start[i + 1]], perm[start[j] : start[j + 1]]])
            signs = np.concatenate(
                [np.ones(count[i], dtype=np.int8), -np.ones(count[j], dtype=np.int8)]
            )
            if values is not None:
                return solve_c_svc_real(
                    row_start[rows], row_len[rows], compact, values, max(1, used.size), signs,
                    weighted_C[i], weighted_C[j], self.degree, self.gamma, self.coef0, self.eps,
                    self.cache_mb, self.shrinking, max_iter,
                )
            return solve_c_svc(
                row_start[rows], row_len[rows], compact, max(1, used.size), signs,
                weighted_C[i], weighted_C[j], self.degree, self.gamma, self.coef0, self.eps,
                self.cache_mb, self.shrinking, max_iter,
            )

        if self.threads > 1 and len(pairs) > 1:
            with interruptible_pool(self.threads) as pool:
                results = list(pool.map(solve, pairs))
        else:
            results = [solve(pair) for pair in pairs]

        nonzero = np.zeros(len(X), dtype=bool)  # by position in perm
        for (i, j), (coef, *_) in zip(pairs, results):
            nonzero[start[i] : start[i + 1]] |= coef[: count[i]] != 0
            nonzero[start[j] : start[j + 1]] |= coef[count[i] :] != 0
        n_support = np.array(
            [np.count_nonzero(nonzero[start[c] : start[c + 1]]) for c in range(n_classes)],
            dtype=np.int32,
        )
        sv_positions = np.flatnonzero(nonzero)
        # Position (in perm order) -> column of sv_coef.
        column = np.cumsum(nonzero) - 1
        dual_coef = np.zeros((n_classes - 1, sv_positions.size))
        for (i, j), (coef, *_) in zip(pairs, results):
            keep_i = nonzero[start[i] : start[i + 1]]
            keep_j = nonzero[start[j] : start[j + 1]]
            dual_coef[j - 1, column[start[i] : start[i + 1]][keep_i]] = coef[: count[i]][keep_i]
            dual_coef[i, column[start[j] : start[j + 1]][keep_j]] = coef[count[i] :][keep_j]
        support_vectors = X.take(perm[sv_positions])
        sv_values = None
        if isinstance(support_vectors, RealMatrix):
            support_vectors, sv_values = support_vectors.pattern, support_vectors.values
        sigmoids = (None, None)
        if self.probability and n_classes > 1:
            sigmoids = self._pair_sigmoids(X, [np.concatenate([perm[start[i] : start[i + 1]],
                                                               perm[start[j] : start[j + 1]]])
                                               for i, j in pairs],
                                           [(count[i], count[j]) for i, j in pairs],
                                           [(weighted_C[i], weighted_C[j]) for i, j in pairs])
        expansion = OneVsOneExpansion(
            support_vectors, dual_coef, [r[1] for r in results], self.gamma, self.coef0,
            self.degree, labels, n_support, sv_values, *sigmoids,
        )
        bounded = []
        for (i, j), (coef, *_) in zip(pairs, results):
            upper = np.repeat([weighted_C[i], weighted_C[j]], [count[i], count[j]])
            bounded.append(int(np.count_nonzero(np.abs(coef) >= upper)))
        self.stats_ = {
            "objective": [float(r[2]) for r in results],
            "iterations": [int(r[3]) for r in results],
            "converged": [bool(r[4]) for r in results],
            "n_bounded": bounded,
            "kernel_columns": [int(r[5]) for r in results],
            "n_training_rows": len(X),
        }
        self._set_expansion(expansion)
        self.support_ = perm[sv_positions].astype(np.int64)
        return self

    def _pair_sigmoids(self, X: Any, rows: list[np.ndarray], counts: list[tuple[int, int]],
                       costs: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
        """(A, B) of each pair's Platt sigmoid on its 5-fold cross-validated decision values
        (classifiers/kernel_svm/probability.py; libsvm's svm_binary_svc_probability)."""
        prob_a, prob_b = [], []
        for pair_rows, (n_i, n_j), (C_i, C_j) in zip(rows, counts, costs):
            positive = np.repeat([True, False], [n_i, n_j])
            values = self._fold_values(X, pair_rows, positive, C_i, C_j)
            A, B = sigmoid_train(values, positive)
            prob_a.append(A)
            prob_b.append(B)
        return np.array(prob_a), np.array(prob_b)

    def _fold_values(self, X: Any, rows: np.ndarray, positive: np.ndarray, C_i: float,
                     C_j: float) -> np.ndarray:
        """The 5-fold cross-validated decision values of one pair's rows (positive: class i),
        each fold scored by an SVM of the same kernel trained on the others with costs C_i,
        C_j (libsvm's C 1 and weights Cp, Cn)."""
        signs = np.where(positive, 1, -1)
        sub = KernelSVM(self.degree, self.gamma, self.coef0, 1.0, self.eps, self.cache_mb,
                        self.shrinking, {1: C_i, -1: C_j}, self.max_iter)

        def fit_predict(train: np.ndarray, held: np.ndarray) -> np.ndarray:
            sub.fit(X.take(rows[train]), signs[train])
            return sub.decision_function(X.take(rows[held]))[:, 0]

        return cross_validated_values(rows.size, positive, self.probability_seed, fit_predict)

    def predict_proba(self, X: BinaryMatrixLike) -> np.ndarray:
        """Class probabilities (n_rows, n_classes), columns in the order of classes_, as
        libsvm's -b 1 gives them (the pairs' sigmoids coupled: probability.py); ValueError for
        a model without sigmoids (train with probability=True, or a libsvm model of -b 1)."""
        expansion = self._expansion()
        if expansion.n_classes == 1:
            return np.ones((len(as_feature_matrix(X)), 1))
        if expansion.prob_a is None or expansion.prob_b is None:
            raise ValueError("the model has no probability sigmoids: train it with "
                             "probability=True (libsvm's -b 1)")
        return pair_probabilities(self.decision_function(X), expansion.prob_a,
                                  expansion.prob_b, expansion.n_classes)

    def _class_factors(self, labels: np.ndarray, count: np.ndarray) -> list[float]:
        """The factor of C of each class (in the order of labels, count rows each); one
        InputWarning per weighted label the data does not hold."""
        if self.class_weight == BALANCED:
            return [float(count.sum()) / (labels.size * int(n)) for n in count]
        weights = self.class_weight
        present = {plain_label(label) for label in labels}
        for label in weights:
            if plain_label(label) not in present:
                warnings.warn(f"class label {plain_label(label)!r} specified in the class weights "
                              "is not found in the training labels; its weight is ignored, as "
                              "libsvm ignores it", InputWarning, stacklevel=3)
        return [float(weights.get(plain_label(label), 1.0)) for label in labels]

    def _set_expansion(self, expansion: OneVsOneExpansion) -> None:
        self.expansion_ = expansion
        self.classes_ = expansion.labels
        self._scorer = build_evaluator(expansion, "naive")
        self._real_scorer: RealOneVsOneSumScorer | None = None

    def decision_function(self, X: BinaryMatrixLike) -> np.ndarray:
        """Decision values (n_rows, n_outputs) of the rows of X: binary (a BinaryMatrix, 0/1
        arrays) by the naive compiled scorer, real-valued (a RealMatrix, real arrays) by
        libsvm's kernel sum of dot products."""
        scorer = self._fitted()
        X = as_feature_matrix(X)
        if isinstance(X, RealMatrix) and not isinstance(scorer, RealOneVsOneSumScorer):
            if self._real_scorer is None:
                self._real_scorer = real_evaluator(self._expansion())
            scorer = self._real_scorer
        return scorer.decision_function(X)

    @classmethod
    def from_expansion(cls, expansion: OneVsOneExpansion, **params: Any) -> "KernelSVM":
        """A fitted classifier whose decision function is the given expansion."""
        clf = cls(degree=expansion.degree, gamma=expansion.gamma, coef0=expansion.coef0, **params)
        clf._set_expansion(expansion)
        return clf

    def predict_from_decision(self, values: np.ndarray) -> np.ndarray:
        """Labels for decision values (n, n_outputs), one per pair of classes in libsvm's
        order, by libsvm's vote."""
        return self._expansion().vote(self._check_decision_values(values))

    def parameters(self) -> dict[str, Any]:
        """The constructor's settings, JSON-ready (class weights as [label, weight] pairs)."""
        return {
            "degree": self.degree,
            "gamma": self.gamma,
            "coef0": self.coef0,
            "C": self.C,
            "eps": self.eps,
            "cache_mb": self.cache_mb,
            "shrinking": self.shrinking,
            "class_weight": (BALANCED if self.class_weight == BALANCED else
                             [[plain_label(k), float(v)] for k, v in self.class_weight.items()]),
            "max_iter": self.max_iter,
            "threads": self.threads,
            "probability": self.probability,
            "probability_seed": self.probability_seed,
        }

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this classifier."""
        scorer = self._fitted()
        header, arrays = self._expansion().to_arrays()
        header.update(self.parameters())
        header.update(backend=BACKEND, n_outputs=scorer.n_outputs, **self.stats_)
        if self.support_ is not None:
            arrays["support"] = self.support_
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> "KernelSVM":
        """Rebuild a classifier from to_arrays() output; ModelFileError names `source`."""
        cls.check_backend(header, source)
        with inconsistent(source):
            params = {key: header[key]
                      for key in ("C", "eps", "cache_mb", "shrinking", "max_iter", "threads")}
            params.update({key: header[key] for key in ("probability", "probability_seed")
                           if key in header})
            weights = header["class_weight"]
            params["class_weight"] = (BALANCED if weights == BALANCED else
                                      {plain_label(k): v for k, v in weights})
            n_outputs = int(header["n_outputs"])
        expansion = OneVsOneExpansion.from_arrays(header, arrays, source)
        with inconsistent(source):
            clf = cls.from_expansion(expansion, **params)
        clf.check_output_count(source, n_outputs, clf.n_outputs)
        clf.stats_ = {key: header[key] for key in _STATS if key in header}
        support = arrays.get("support")
        if support is not None:
            if support.dtype != np.int64 or support.shape != (expansion.n_support_vectors,):
                raise ModelFileError(f"{source}: inconsistent model (array 'support')")
            clf.support_ = support
        return clf

    @classmethod
    def load(cls, path: str | os.PathLike) -> "KernelSVM":
        """Read a polyparse-clf kernel-svm model or a libsvm text model file."""
        with open(path, "rb") as stream:
            start = stream.read(8)
        if start == b"svm_type":
            return cls.load_libsvm(path)
        return super().load(path)

    @classmethod
    def load_libsvm(cls, path: str | os.PathLike) -> "KernelSVM":
        """A classifier from a libsvm text model file (svm-train / svm_save_model)."""
        return cls.from_expansion(read_libsvm_model(path).expansion)

    def save_libsvm(self, path: str | os.PathLike) -> None:
        """Write a libsvm text model file that svm-predict / svm_load_model read."""
        write_libsvm_model(path, self._expansion())

    def memory_bytes(self) -> dict[str, int]:
        """Bytes held by each array of the naive scorer."""
        return {name: int(array.nbytes) for name, array in self._fitted().arrays.items()}


def checked_class_weight(class_weight: Any) -> dict[Any, float] | str:
    """class_weight as KernelSVM keeps it: {} for None, "balanced", or a dict label -> positive
    finite factor; ValueError naming what it takes otherwise."""
    if class_weight is None:
        return {}
    if isinstance(class_weight, str):
        if class_weight != BALANCED:
            raise ValueError(f"class_weight takes a dict label -> weight or {BALANCED!r}, not "
                             f"{class_weight!r}")
        return class_weight
    if not isinstance(class_weight, Mapping):
        raise ValueError(f"class_weight takes a dict label -> weight or {BALANCED!r}, not "
                         f"{type(class_weight).__name__}")
    return {plain_label(label): check_positive(f"the weight of class {label!r}", weight)
            for label, weight in class_weight.items()}


def _check_kernel_range(degree: int, gamma: float, coef0: float, low: float,
                        high: float) -> None:
    """ValueError when (gamma c + coef0)^degree overflows the float of the kernel cache (libsvm's
    Qfloat) for some dot product c in low..high (the shared-feature counts 0..max of binary
    rows; its magnitude is largest at one of the two ends)."""
    with np.errstate(over="ignore"):
        ends = (gamma * np.array([low, high]) + coef0) ** degree
    if not (np.abs(ends) <= np.finfo(np.float32).max).all():
        rows = (f"rows of {int(high)} features" if low == 0 else
                f"real-valued rows of squared norm up to {high:g}")
        raise ValueError(f"the kernel (gamma c + coef0)^{degree} overflows for {rows} (gamma "
                         f"{gamma:g}, coef0 {coef0:g}); take a lower degree or gamma")
