"""The contract every binary-feature backend keeps, and the pieces they share.

A backend learns from a BinaryMatrix X and labels y (`fit`), gives decision values of shape
(n_rows, n_outputs) (`decision_function`, through its compiled `scorer`, a BinaryScorer that the
parsers' Cython loops call directly), turns them into labels (`predict_from_decision`), and
round-trips through a polyparse-clf model file (`to_arrays`/`from_arrays`, `save`/`load`).

Labels are kept in order of first appearance (libsvm's and liblinear's convention); the libsvm
backends also swap two classes -1, +1 met in that order, so that +1 is the positive side.
Two classes give one output whose positive sign means classes_[0]; k >= 3 classes give either
k one-vs-rest outputs (argmax wins) or one output per pair (libsvm's vote), as the backend says.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from polyparse.classifiers.model_bytes import Buffer, ModelBytes, decode_model_bytes
from polyparse.classifiers.model_file import (
    CLASSIFIER_FORMAT,
    ModelFileError,
    classifier_file_bytes,
    read_model_file,
    write_classifier_file,
)
from polyparse.classifiers.scorer import BinaryScorer
from polyparse.features.binary_matrix import (
    BinaryMatrix,
    BinaryMatrixLike,
    NotBinaryError,
    as_binary_matrix,
)
from polyparse.features.real_matrix import FeatureMatrix, as_feature_matrix

if TYPE_CHECKING:
    from polyparse.classifiers.evaluators.kernel_expansion import SupportVectorExpansion

Expansion = TypeVar("Expansion", bound="SupportVectorExpansion")

# The backends whose mathematics takes real-valued features (libsvm's, liblinear's and
# LIBLINEAR-POLY2's); the others (split, PKI and PKE evaluators, pa-slicing) take 0/1 only.
REAL_VALUED_BACKENDS = ("kernel-svm", "linear", "poly2-linear")
REAL_VALUED_TEXT = "kernel-svm (naive evaluation), linear and poly2-linear"


def binary_only(who: str) -> str:
    """The end of a refusal of real values: who takes 0/1 only, and which backends take them."""
    return f"{who} takes binary features (0/1) only; real values are taken by {REAL_VALUED_TEXT}"


def binary_input(X: BinaryMatrixLike, who: str) -> BinaryMatrix:
    """as_binary_matrix(X), refusing a real value in one line that names the backends taking
    real values (who: the backend or evaluator that refuses it)."""
    try:
        return as_binary_matrix(X)
    except NotBinaryError as error:
        raise ValueError(f"{error}; {binary_only(who)}") from None


def training_inputs(X: BinaryMatrixLike, y: Any, libsvm_order: bool, backend: str | None = None
                    ) -> tuple[FeatureMatrix, np.ndarray, np.ndarray]:
    """(X as a BinaryMatrix, labels, class index of each row) of fit's inputs, after checking
    them.

    X: a BinaryMatrix, a 2-D NumPy array or a scipy sparse matrix (features.binary_matrix.
    as_binary_matrix), or real-valued (a RealMatrix, features.real_matrix.as_feature_matrix)
    when the backend named is one of REAL_VALUED_BACKENDS; another backend refuses a value other
    than 0 and 1 in one line naming those (binary_input). Labels come in order of first appearance;
    with libsvm_order, two classes
    -1 and +1 met in that order are swapped, so that +1 is the positive side of the binary
    problem (libsvm). TypeError or ValueError (one sentence) when X is none of those, y does not
    give one label per row, there are no rows, or a label is not a class (class_label_problem).
    """
    if backend in REAL_VALUED_BACKENDS:
        X = as_feature_matrix(X)
    elif backend is None:
        X = as_binary_matrix(X)
    else:
        X = binary_input(X, backend)
    y = np.asarray(y)
    if y.shape != (len(X),):
        raise ValueError(f"X has {len(X)} rows but y has shape {y.shape}")
    if len(X) == 0:
        raise ValueError("cannot fit on zero rows")
    problem = class_label_problem(y)
    if problem is not None:
        k, text = problem
        raise ValueError(f"y[{k}]: {text}")
    try:
        unique, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    except TypeError:
        raise ValueError("y mixes labels that do not compare (numbers and strings?); the "
                         "labels of one classifier are of one kind") from None
    by_appearance = np.argsort(first, kind="stable")
    if libsvm_order and unique.size == 2 and y.dtype.kind in "iuf":
        if unique[by_appearance[0]] == -1 and unique[by_appearance[1]] == 1:
            by_appearance = by_appearance[::-1]
    rank = np.empty_like(by_appearance)
    rank[by_appearance] = np.arange(by_appearance.size)
    return X, unique[by_appearance], rank[inverse.ravel()].astype(np.int64)


def class_label_problem(y: np.ndarray) -> tuple[int, str] | None:
    """(position, problem) of the first label of y that is not a class, or None.

    A class is an integer, a string, a boolean, or a real number of integral value. NaN and
    infinite labels are refused (the svmlight reader refuses them too), and so are real numbers
    of fractional value: those are regression targets, what scikit-learn's type_of_target calls
    "continuous" (libsvm and liblinear would cut them to integers, silently); no learner here
    is a regression learner.
    """
    if y.dtype.kind == "f":
        values = y
    elif y.dtype.kind == "O":
        real = [isinstance(v, (float, np.floating)) for v in y.tolist()]
        values = np.array([v if is_real else 0.0 for v, is_real in zip(y.tolist(), real)],
                          dtype=np.float64)
    elif y.dtype.kind == "c":
        return 0, f"label {plain_label(y[0])!r} is a complex number, not a class"
    else:
        return None
    bad = ~np.isfinite(values)
    if bad.any():
        k = int(np.argmax(bad))
        return k, f"label {plain_label(y[k])!r} is not a finite number"
    fractional = values != np.floor(values)
    if fractional.any():
        k = int(np.argmax(fractional))
        count = int(fractional.sum())
        distinct = np.unique(values[fractional]).size
        return k, (f"label {plain_label(y[k])!r} is not a class: {count} of the {y.size} labels "
                   f"are real numbers ({distinct} distinct), regression targets, and these "
                   "classifiers take integer or string classes (none of them does regression)")
    return None


def one_vs_rest_outputs(n_classes: int) -> int:
    """One output for one or two classes, else one per class."""
    return 1 if n_classes <= 2 else n_classes


def plain_label(label: Any) -> Any:
    """A label as a plain Python value (JSON-ready, comparable with dict keys)."""
    return label.item() if isinstance(label, np.generic) else label


class BinaryClassifier(ModelBytes):
    """What every backend shares: fitted checks, decision values, prediction, model files,
    pickling through the model file's bytes.

    A subclass sets `backend` (the name in model headers), keeps `classes_` and its compiled
    `scorer` once fitted, and defines to_arrays/from_arrays; one-vs-rest backends inherit
    predict_from_decision, one-vs-one ones override it with libsvm's vote.
    """

    backend: str = ""
    classes_: np.ndarray | None = None
    # How the outputs stand for the classes: one per class ("one-vs-rest") or one per pair of
    # classes in libsvm's order ("one-vs-one").
    decision: str = "one-vs-rest"

    @property
    def scorer(self) -> BinaryScorer | None:
        """The compiled decision function (None before fit)."""
        return self._scorer

    _scorer: BinaryScorer | None = None

    def _fitted(self) -> BinaryScorer:
        scorer = self.scorer
        if scorer is None or self.classes_ is None:
            raise RuntimeError("the classifier is not fitted")
        return scorer

    @property
    def n_outputs(self) -> int:
        return int(self._fitted().n_outputs)

    def decision_function(self, X: BinaryMatrixLike) -> np.ndarray:
        """Decision values (n_rows, n_outputs) of the rows of X (a BinaryMatrix, a 2-D NumPy
        array of 0/1 or a scipy sparse matrix: features.binary_matrix.as_binary_matrix)."""
        return self._fitted().decision_function(binary_input(X, self.backend))

    def predict(self, X: BinaryMatrixLike) -> np.ndarray:
        """Labels of the rows of X (taken as decision_function takes it)."""
        return self.predict_from_decision(self.decision_function(X))

    def output_names(self) -> list[str]:
        """What each decision value stands for: its class (one-vs-rest, and the first class
        of a single output), or `i:j` for the pair of classes i, j (one-vs-one; positive
        means i)."""
        self._fitted()
        labels = [str(plain_label(label)) for label in self.classes_]
        if self.decision == "one-vs-one" and len(labels) > 1:
            return [f"{labels[i]}:{labels[j]}"
                    for i in range(len(labels)) for j in range(i + 1, len(labels))]
        return labels[: self.n_outputs]

    def _check_decision_values(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values)
        if values.ndim != 2 or values.shape[1] != self.n_outputs:
            raise ValueError(f"expected decision values of shape (n, {self.n_outputs})")
        return values

    def predict_from_decision(self, values: np.ndarray) -> np.ndarray:
        """Labels for decision values (n, n_outputs): the sign for two classes (> 0 means
        classes_[0]), the argmax for more, the only class for one."""
        values = self._check_decision_values(values)
        classes = self.classes_
        assert classes is not None
        if classes.size == 1:
            return np.repeat(classes, values.shape[0])
        if classes.size == 2:
            return np.where(values[:, 0] > 0, classes[0], classes[1])
        return classes[np.argmax(values, axis=1)]

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        raise NotImplementedError

    @classmethod
    def from_arrays(cls, header: dict[str, Any], arrays: dict[str, np.ndarray],
                    source: str = "model") -> BinaryClassifier:
        raise NotImplementedError

    @classmethod
    def check_backend(cls, header: dict[str, Any], source: str,
                      accepted: Sequence[str] | None = None) -> None:
        """ModelFileError unless the header's backend is one this class reads."""
        names = tuple(accepted or (cls.backend,))
        backend = header.get("backend")
        if backend not in names:
            expected = " or ".join(names)
            raise ModelFileError(f"{source}: holds a {backend} classifier, not {expected}")

    def check_output_count(self, source: str, found: int, expected: int) -> None:
        """ModelFileError when a model read from source has `found` outputs (by its header or
        arrays) where its classes_ give `expected`."""
        if found != expected:
            n_classes = 0 if self.classes_ is None else self.classes_.size
            raise ModelFileError(f"{source}: inconsistent model header ({found} outputs for "
                                 f"{n_classes} classes)")

    def save(self, path: str | os.PathLike, metadata: dict[str, Any] | None = None) -> None:
        """Write a polyparse-clf model file atomically (metadata: JSON-ready extras)."""
        write_classifier_file(path, self, metadata)

    @classmethod
    def load(cls, path: str | os.PathLike) -> BinaryClassifier:
        """Read a polyparse-clf model file written by save."""
        header, arrays = read_model_file(path, CLASSIFIER_FORMAT)
        return cls.from_arrays(header, arrays, source=str(path))

    def to_bytes(self, metadata: dict[str, Any] | None = None) -> bytes:
        """The bytes of the model file save() writes."""
        return bytes(classifier_file_bytes(self, metadata))

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> BinaryClassifier:
        """The classifier of a polyparse-clf model file's bytes (as load reads the file)."""
        header, arrays = decode_model_bytes(data, source, CLASSIFIER_FORMAT)
        return cls.from_arrays(header, arrays, source=source)


class ExpansionClassifier(BinaryClassifier, Generic[Expansion]):
    """A backend whose decision function is the kernel expansion `expansion_` (None before
    fit)."""

    expansion_: Expansion | None

    @property
    def n_support_vectors(self) -> int:
        return self._expansion().n_support_vectors

    def _expansion(self) -> Expansion:
        """The fitted expansion; RuntimeError before fit."""
        if self.expansion_ is None:
            raise RuntimeError("the classifier is not fitted")
        return self.expansion_
