"""scikit-learn estimators of polyparse's classifier backends (`pip install scikit-learn`).

One estimator per backend, with the backend's settings as parameters (get_params/set_params,
clone, pipelines, grid searches, cross_val_score):

    KernelSVMClassifier     kernel-svm: libsvm's C-SVC, polynomial kernel (binary or real X)
    LinearClassifier        linear: liblinear's dual coordinate descent (binary or real X)
    Poly2LinearClassifier   poly2-linear: the explicit degree-2 mapping (binary or real X)
    PASlicingClassifier     pa-slicing: PA-I by kernel slicing (binary X only)

    from sklearn.model_selection import cross_val_score
    from polyparse.sklearn import KernelSVMClassifier
    scores = cross_val_score(KernelSVMClassifier(degree=2, gamma=0.5), X, y, cv=5)

X is a 2-D NumPy array or a scipy sparse matrix (0/1 data takes the binary fast paths), y any
class labels. scikit-learn's conventions hold on this face: `classes_` is sorted, a two-class
decision_function is one value per row, positive meaning classes_[1], and K >= 3 classes give
(n, K) values whose argmax is the prediction (kernel-svm: libsvm's vote turned into K values as
scikit-learn's SVC does, or the K (K - 1) / 2 pair values with decision_function_shape="ovo").
The backends underneath keep libsvm's order (`model_`, a polyparse classifier that saves and
loads as any other). KernelSVMClassifier(probability=True) adds predict_proba by libsvm's -b 1
(Platt's sigmoid on 5-fold cross-validated decision values per pair, pairwise coupling);
eval_mode scores binary rows of kernel models by an exact fast evaluator (split, pki, pke).
What scikit-learn's check_estimator says of each estimator is in docs/python.md.
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

try:
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.metaestimators import available_if
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError:
    raise ImportError("polyparse.sklearn needs scikit-learn: pip install scikit-learn") from None

from polyparse.classifiers.backend_settings import DEFAULTS
from polyparse.classifiers.backends import new_classifier
from polyparse.classifiers.evaluators.modes import build_evaluator
from polyparse.features.real_matrix import RealMatrix, as_feature_matrix

__all__ = ["KernelSVMClassifier", "LinearClassifier", "PASlicingClassifier",
           "Poly2LinearClassifier"]

_SPARSE = ("csr", "csc", "coo")
# Each estimator's defaults are its backend's (classifiers/backend_settings.py).
_KERNEL, _LINEAR = DEFAULTS["kernel-svm"], DEFAULTS["linear"]
_POLY2, _PA = DEFAULTS["poly2-linear"], DEFAULTS["pa-slicing"]


class _BackendClassifier(ClassifierMixin, BaseEstimator):
    """What the four estimators share: fit a polyparse backend on validated input, and turn its
    decision values (libsvm's class order) into scikit-learn's (sorted classes)."""

    _backend: ClassVar[str] = ""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _backend_parameters(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in DEFAULTS[self._backend]}

    def fit(self, X: Any, y: Any) -> _BackendClassifier:
        """Train the backend on X (array or sparse matrix) and labels y."""
        X, y = validate_data(self, X, y, accept_sparse=_SPARSE, dtype=np.float64)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        self.model_ = new_classifier(self._backend, **self._backend_parameters()).fit(
            as_feature_matrix(X), y)
        # The most steps or passes any binary problem took (SMO steps, dual CD or PA passes).
        self.n_iter_ = max([1, *self.model_.stats_.get("iterations", [])])
        # Column of each sorted class among the backend's classes (first appearance).
        internal = {label: k for k, label in enumerate(self.model_.classes_.tolist())}
        self._columns = np.array([internal[label] for label in self.classes_.tolist()])
        self._build_evaluator()
        return self

    def _build_evaluator(self) -> None:
        self.evaluator_ = None

    def _rows(self, X: Any) -> Any:
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse=_SPARSE, dtype=np.float64)
        return as_feature_matrix(X)

    def _backend_values(self, X: Any) -> np.ndarray:
        """The backend's decision values of validated rows (libsvm's order)."""
        if self.evaluator_ is not None and not isinstance(X, RealMatrix):
            return self.evaluator_.decision_function(X)
        return self.model_.decision_function(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """(n,) for two classes (positive: classes_[1]), else (n, n_classes)."""
        values = self._backend_values(self._rows(X))
        if self.classes_.size == 1:
            return np.zeros(values.shape[0])
        if self.classes_.size == 2:
            return self._two_class_values(values)
        return values[:, self._columns]

    def _two_class_values(self, values: np.ndarray) -> np.ndarray:
        """The backend's one value (positive: its first class) as positive for classes_[1]."""
        return values[:, 0] if self._columns[1] == 0 else -values[:, 0]

    def predict(self, X: Any) -> np.ndarray:
        """The backend's labels (sign, argmax, or libsvm's vote for kernel-svm)."""
        rows = self._rows(X)
        return self.model_.predict_from_decision(self._backend_values(rows))


class KernelSVMClassifier(_BackendClassifier):
    """kernel-svm: libsvm's C-SVC with the kernel (gamma x.z + coef0)^degree, one-vs-one."""

    _backend = "kernel-svm"

    def __init__(self, degree: int = _KERNEL["degree"], gamma: float = _KERNEL["gamma"],
                 coef0: float = _KERNEL["coef0"], C: float = _KERNEL["C"],
                 eps: float = _KERNEL["eps"], cache_mb: float = _KERNEL["cache_mb"],
                 shrinking: bool = _KERNEL["shrinking"],
                 class_weight: Any = _KERNEL["class_weight"],
                 max_iter: int | None = _KERNEL["max_iter"], threads: int = _KERNEL["threads"],
                 probability: bool = _KERNEL["probability"],
                 probability_seed: int = _KERNEL["probability_seed"],
                 decision_function_shape: str = "ovr", eval_mode: str = "naive") -> None:
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.C = C
        self.eps = eps
        self.cache_mb = cache_mb
        self.shrinking = shrinking
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.threads = threads
        self.probability = probability
        self.probability_seed = probability_seed
        self.decision_function_shape = decision_function_shape
        self.eval_mode = eval_mode

    def _build_evaluator(self) -> None:
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError("decision_function_shape must be 'ovr' or 'ovo', not "
                             f"{self.decision_function_shape!r}")
        expansion = self.model_.expansion_
        binary = expansion.sv_values is None and expansion.n_classes > 1
        self.evaluator_ = (build_evaluator(expansion, self.eval_mode)
                           if self.eval_mode != "naive" and binary else None)

    def decision_function(self, X: Any) -> np.ndarray:
        """Two classes: (n,), positive meaning classes_[1]. More: the pair values of the
        sorted classes (i, j), positive meaning i ("ovo"), or votes plus bounded confidences
        (n, n_classes) as scikit-learn's SVC gives them ("ovr")."""
        values = self._backend_values(self._rows(X))
        k = self.classes_.size
        if k <= 2:
            return self._two_class_values(values) if k == 2 else np.zeros(values.shape[0])
        pairs = self._sorted_pair_values(values)
        return pairs if self.decision_function_shape == "ovo" else ovr_values(pairs, k)

    def _sorted_pair_values(self, values: np.ndarray) -> np.ndarray:
        """The backend's pair values (libsvm's order over its classes) over the sorted
        classes' pairs (i, j), i < j, positive meaning i."""
        k = self.classes_.size
        index = {(a, b): p for p, (a, b) in enumerate(
            (a, b) for a in range(k) for b in range(a + 1, k))}
        out = np.empty_like(values)
        q = 0
        for i in range(k):
            for j in range(i + 1, k):
                a, b = self._columns[i], self._columns[j]
                out[:, q] = values[:, index[(a, b)]] if a < b else -values[:, index[(b, a)]]
                q += 1
        return out

    def _has_probability(self) -> bool:
        return bool(self.probability) or getattr(
            getattr(getattr(self, "model_", None), "expansion_", None), "prob_a", None
        ) is not None

    @available_if(_has_probability)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (n, n_classes), columns in the order of classes_ (libsvm's -b 1:
        polyparse.classifiers.kernel_svm.probability)."""
        return self.model_.predict_proba(self._rows(X))[:, self._columns]

    @available_if(_has_probability)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """The logarithms of predict_proba."""
        return np.log(self.predict_proba(X))


def ovr_values(pairs: np.ndarray, n_classes: int) -> np.ndarray:
    """One-vs-one pair values (positive: the pair's first class) as (n, n_classes): each
    class's votes plus its summed confidences squashed into (-1/3, 1/3), so that the argmax is
    the vote's winner (scikit-learn's _ovr_decision_function)."""
    votes = np.zeros((pairs.shape[0], n_classes))
    confidences = np.zeros_like(votes)
    p = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            confidences[:, i] += pairs[:, p]
            confidences[:, j] -= pairs[:, p]
            votes[:, i] += pairs[:, p] > 0
            votes[:, j] += pairs[:, p] <= 0
            p += 1
    return votes + confidences / (3 * (np.abs(confidences) + 1))


class LinearClassifier(_BackendClassifier):
    """linear: a linear SVM (liblinear's dual coordinate descent, or with solver="primal" its
    trust-region Newton method; phi(x) = [sqrt(coef0), sqrt(gamma) x], liblinear's -B 1 at the
    defaults), one-vs-rest."""

    _backend = "linear"

    def __init__(self, gamma: float = _LINEAR["gamma"], coef0: float = _LINEAR["coef0"],
                 C: float = _LINEAR["C"], loss: str = _LINEAR["loss"],
                 eps: float = _LINEAR["eps"], max_iter: int = _LINEAR["max_iter"],
                 seed: int = _LINEAR["seed"], dtype: str = _LINEAR["dtype"],
                 solver: str = _LINEAR["solver"]) -> None:
        self.gamma = gamma
        self.coef0 = coef0
        self.C = C
        self.loss = loss
        self.eps = eps
        self.max_iter = max_iter
        self.seed = seed
        self.dtype = dtype
        self.solver = solver


class Poly2LinearClassifier(_BackendClassifier):
    """poly2-linear: a linear SVM on the explicit degree-2 mapping of (gamma x.z + coef0)^2
    (Chang et al. 2010), one-vs-rest."""

    _backend = "poly2-linear"

    def __init__(self, degree: int = _POLY2["degree"], gamma: float = _POLY2["gamma"],
                 coef0: float = _POLY2["coef0"], C: float = _POLY2["C"],
                 loss: str = _POLY2["loss"], eps: float = _POLY2["eps"],
                 max_iter: int = _POLY2["max_iter"],
                 min_pair_count: int = _POLY2["min_pair_count"], seed: int = _POLY2["seed"],
                 dtype: str = _POLY2["dtype"], solver: str = _POLY2["solver"]) -> None:
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.C = C
        self.loss = loss
        self.eps = eps
        self.max_iter = max_iter
        self.min_pair_count = min_pair_count
        self.seed = seed
        self.dtype = dtype
        self.solver = solver


class PASlicingClassifier(_BackendClassifier):
    """pa-slicing: online PA-I with the polynomial kernel by kernel slicing, one-vs-rest;
    binary features only."""

    _backend = "pa-slicing"

    def __init__(self, degree: int = _PA["degree"], C: float = _PA["C"],
                 variant: str = _PA["variant"], iterations: int = _PA["iterations"],
                 average: bool = _PA["average"], strategy: str = _PA["strategy"],
                 n_common: int | None = _PA["n_common"],
                 max_table_mb: float | None = _PA["max_table_mb"], seed: int = _PA["seed"],
                 threads: int = _PA["threads"],
                 early_termination: bool = _PA["early_termination"],
                 eval_mode: str = "naive") -> None:
        self.degree = degree
        self.C = C
        self.variant = variant
        self.iterations = iterations
        self.average = average
        self.strategy = strategy
        self.n_common = n_common
        self.max_table_mb = max_table_mb
        self.seed = seed
        self.threads = threads
        self.early_termination = early_termination
        self.eval_mode = eval_mode

    def _build_evaluator(self) -> None:
        expansion = self.model_.expansion_
        self.evaluator_ = (build_evaluator(expansion, self.eval_mode)
                           if self.eval_mode != "naive" and self.classes_.size > 1 else None)
