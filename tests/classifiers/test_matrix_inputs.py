"""Every binary-feature backend takes NumPy arrays and scipy sparse matrices wherever it takes a
BinaryMatrix (fit, decision_function, predict, the compiled scorer, the converted evaluators),
by one rule (features.binary_matrix.as_binary_matrix): 1 is a feature, an explicit zero is
dropped, a cell stored twice and any other value are refused in one line naming row, column
and value. A model fitted on a matrix equals the one fitted on the same rows as a
BinaryMatrix; explicit zeros change nothing; -7.5 is never read as 1."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from polyparse.classifiers.backends import BACKENDS, convert_classifier, new_classifier
from polyparse.classifiers.binary_classifier import REAL_VALUED_BACKENDS
from polyparse.classifiers.evaluators.choices import CONVERSIONS
from polyparse.features.binary_matrix import BinaryMatrix

N_FEATURES = 12


def problem(seed: int = 5, n_rows: int = 60) -> tuple[BinaryMatrix, np.ndarray, BinaryMatrix]:
    """Training rows, three labels from a rule with a conjunction, and test rows."""
    rng = np.random.default_rng(seed)
    dense = rng.random((n_rows + 20, N_FEATURES)) < 0.3
    cells = dense.astype(np.int64)
    score = cells[:, 0] + cells[:, 1] * cells[:, 2] - cells[:, 3]
    labels = np.where(score > 0, 1, np.where(dense[:, 4], 2, 3))
    X = BinaryMatrix.from_rows([np.flatnonzero(row) for row in dense], N_FEATURES)
    return X.take(np.arange(n_rows)), labels[:n_rows], X.take(np.arange(n_rows, n_rows + 20))


def with_explicit_zeros(X: BinaryMatrix) -> sp.csr_matrix:
    """X as a CSR matrix whose rows also store explicit zeros, in reverse column order."""
    indptr, columns, values = [0], [], []
    for i in range(len(X)):
        present = set(X.row(i).tolist())
        for j in reversed(range(N_FEATURES)):
            if j in present or (i + j) % 3 == 0:
                columns.append(j)
                values.append(1.0 if j in present else 0.0)
        indptr.append(len(columns))
    matrix = sp.csr_matrix((values, columns, indptr), shape=X.shape)
    assert not matrix.has_sorted_indices and np.count_nonzero(matrix.data == 0) > len(X)
    return matrix


def forms(X: BinaryMatrix) -> dict[str, object]:
    """The same rows as every kind of matrix the backends take."""
    dense = X.to_dense()
    return {"dense int": dense.astype(np.int64), "dense bool": dense.astype(bool),
            "dense float": dense.astype(np.float64), "csr": sp.csr_matrix(dense),
            "csr with explicit zeros": with_explicit_zeros(X), "csc": sp.csc_array(dense),
            "coo": sp.coo_matrix(dense), "lil": sp.lil_matrix(dense)}


SETTINGS = {"poly2-linear": {}, "linear": {}, "kernel-svm": {"degree": 2, "gamma": 0.5},
            "pa-slicing": {"degree": 2, "iterations": 5}}


@pytest.fixture(scope="module")
def data() -> tuple[BinaryMatrix, np.ndarray, BinaryMatrix]:
    return problem()


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_fit_and_predict_take_every_form(backend: str, data) -> None:
    X, y, T = data
    reference = new_classifier(backend, **SETTINGS[backend]).fit(X, y)
    expected = reference.decision_function(T)
    for name, matrix in forms(X).items():
        clf = new_classifier(backend, **SETTINGS[backend]).fit(matrix, y)
        assert np.array_equal(clf.decision_function(T), expected), name
    for name, matrix in forms(T).items():
        assert np.array_equal(reference.decision_function(matrix), expected), name
        assert np.array_equal(reference.predict(matrix), reference.predict(T)), name
        assert np.array_equal(reference.scorer.decision_function(matrix), expected), name


@pytest.mark.parametrize("evaluator", list(CONVERSIONS))
def test_converted_evaluators_take_every_form(evaluator: str, data) -> None:
    X, y, T = data
    model = convert_classifier(new_classifier("kernel-svm").fit(X, y), evaluator)
    expected = model.decision_function(T)
    for name, matrix in forms(T).items():
        assert np.array_equal(model.decision_function(matrix), expected), name
        assert np.array_equal(model.predict(matrix), model.predict(T)), name


def odd_matrices() -> list[tuple[str, object, str]]:
    """(name, matrix, the message's start) of a value other than 0 and 1 at row 1, column 1,
    and of a cell stored twice."""
    dense = np.zeros((3, N_FEATURES))
    dense[0, 0] = dense[2, 5] = 1.0
    dense[1, 1] = -7.5
    twice = sp.csr_matrix((np.ones(3), np.array([0, 1, 1]), np.array([0, 1, 3, 3])),
                          shape=(3, N_FEATURES))
    return [
        ("dense -7.5", dense, "X: row 1, column 1 holds -7.5"),
        ("csr -7.5", sp.csr_matrix(dense), "X: row 1, column 1 holds -7.5"),
        ("coo 2", sp.coo_matrix(np.where(dense < 0, 2, dense)), "X: row 1, column 1 holds 2.0"),
        ("dense nan", np.where(dense < 0, np.nan, dense), "X: row 1, column 1 holds nan"),
        ("csr stored twice", twice, "X: row 1, column 1 is stored twice"),
    ]


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("name, matrix, message", odd_matrices())
def test_other_values_are_refused_by_fit_and_predict(backend: str, name: str, matrix: object,
                                                     message: str, data) -> None:
    X, y, _ = data
    clf = new_classifier(backend, **SETTINGS[backend]).fit(X, y)
    real = "holds" in message and "nan" not in message
    if real and backend in REAL_VALUED_BACKENDS:
        # A real value is a feature value to these backends (their compiled BinaryScorer, the
        # parsers' contract, still takes 0/1 only).
        real_clf = new_classifier(backend, **SETTINGS[backend]).fit(matrix, [1, 2, 1])
        assert real_clf.decision_function(matrix).shape == (3, real_clf.n_outputs)
        if backend == "poly2-linear":
            # Trained on binary rows, its single weights fold x_i and x_i^2 together.
            with pytest.raises(ValueError, match="^a poly2-linear model trained on binary "):
                clf.decision_function(matrix)
        else:
            assert clf.decision_function(matrix).shape == (3, clf.n_outputs)
        with pytest.raises(ValueError, match=f"^{message}"):
            clf.scorer.decision_function(matrix)
        return
    end = (f"{backend} takes binary features \\(0/1\\) only; real values are taken by "
           "kernel-svm \\(naive evaluation\\), linear and poly2-linear$" if real else "")
    for call in (clf.decision_function, clf.predict):
        with pytest.raises(ValueError, match=f"^{message}.*{end}"):
            call(matrix)
    with pytest.raises(ValueError, match=f"^{message}"):
        clf.scorer.decision_function(matrix)
    with pytest.raises(ValueError, match=f"^{message}.*{end}"):
        new_classifier(backend, **SETTINGS[backend]).fit(matrix, [1, 2, 1])


def test_a_converted_evaluator_refuses_them_too(data) -> None:
    X, y, _ = data
    model = convert_classifier(new_classifier("kernel-svm").fit(X, y), "pki")
    for _, matrix, message in odd_matrices():
        with pytest.raises(ValueError, match=f"^{message}"):
            model.predict(matrix)


def test_lists_are_not_guessed_at(data) -> None:
    X, y, _ = data
    clf = new_classifier("linear").fit(X, y)
    with pytest.raises(TypeError, match="BinaryMatrix.from_rows builds one"):
        clf.predict([[0, 1], [2]])
    with pytest.raises(TypeError, match="not list"):
        new_classifier("linear").fit([[0, 1], [2]], [1, 2])


def test_the_references_and_the_writer_take_them_too(data, tmp_path) -> None:
    from polyparse.classifiers.tree_kernels.combination import polynomial_gram
    from polyparse.features.svmlight import read_svmlight, write_svmlight

    X, y, T = data
    expansion = new_classifier("kernel-svm").fit(X, y).expansion_
    expected = expansion.naive_decision_function(T)
    for name, matrix in forms(T).items():
        assert np.array_equal(expansion.naive_decision_function(matrix), expected), name
        assert np.array_equal(polynomial_gram(matrix, X), polynomial_gram(T, X)), name
        write_svmlight(tmp_path / "t.svm", matrix, np.ones(len(T), dtype=np.int64))
        assert read_svmlight(tmp_path / "t.svm", n_features=N_FEATURES)[0] == T, name
    odd = T.to_dense().astype(float)
    odd[2, 5] = 0.5
    with pytest.raises(ValueError, match="^X: row 2, column 5 holds 0.5"):
        write_svmlight(tmp_path / "odd.svm", odd, np.ones(len(T)))
    assert not (tmp_path / "odd.svm").exists()
