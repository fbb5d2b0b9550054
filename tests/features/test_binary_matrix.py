"""BinaryMatrix: construction, validation, slicing."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.features.binary_matrix import BinaryMatrix, as_binary_matrix, optional_binary_matrix

rows_strategy = st.lists(st.sets(st.integers(0, 60), max_size=12).map(sorted), max_size=20)


def test_from_rows_and_accessors() -> None:
    X = BinaryMatrix.from_rows([[0, 3], [], [2, 5, 9]])
    assert len(X) == 3
    assert X.nnz == 5
    assert X.n_features == 10
    assert X.shape == (3, 10)
    assert X.indptr.dtype == np.int64 and X.indices.dtype == np.int32
    assert X.row(2).tolist() == [2, 5, 9]
    assert X.row(1).tolist() == []
    assert X.row_lengths().tolist() == [2, 0, 3]


def test_explicit_n_features() -> None:
    assert BinaryMatrix.from_rows([[1]], n_features=100).n_features == 100
    with pytest.raises(ValueError, match="n_features"):
        BinaryMatrix.from_rows([[5]], n_features=3)


def test_empty_matrix() -> None:
    X = BinaryMatrix.from_rows([])
    assert len(X) == 0 and X.nnz == 0 and X.n_features == 0


@pytest.mark.parametrize(
    "indptr, indices",
    [
        ([0, 2], [3, 3]),
        ([0, 2], [4, 1]),
        ([0, 1, 3], [0, 5, 2]),
        ([0, 3], [1, 2]),
        ([1, 2], [1, 2]),
        ([0, 2, 1], [1, 2]),
    ],
)
def test_validation_rejects(indptr: list[int], indices: list[int]) -> None:
    with pytest.raises(ValueError):
        BinaryMatrix(np.array(indptr), np.array(indices), n_features=10)


def test_validation_names_the_row() -> None:
    with pytest.raises(ValueError, match="row 2"):
        BinaryMatrix.from_rows([[1, 2], [0], [4, 4]])


def test_rows_may_restart_low() -> None:
    X = BinaryMatrix.from_rows([[5, 6], [1, 2], [], [0]])
    assert X.row(3).tolist() == [0]


@given(rows_strategy, st.data())
def test_take_matches_python(rows: list[list[int]], data: st.DataObject) -> None:
    X = BinaryMatrix.from_rows(rows, n_features=61)
    picks = data.draw(st.lists(st.integers(0, max(0, len(rows) - 1)), max_size=30)) if rows else []
    Y = X.take(np.array(picks, dtype=np.int64))
    assert len(Y) == len(picks)
    assert Y.n_features == 61
    for k, i in enumerate(picks):
        assert Y.row(k).tolist() == rows[i]
    Y.validate()


def test_take_negative_and_out_of_range() -> None:
    X = BinaryMatrix.from_rows([[1], [2, 3]])
    assert X.take([-1]).row(0).tolist() == [2, 3]
    with pytest.raises(IndexError):
        X.take([2])


def test_to_dense_and_equality() -> None:
    X = BinaryMatrix.from_rows([[0, 2], [1]])
    assert X.to_dense().tolist() == [[1, 0, 1], [0, 1, 0]]
    assert X == BinaryMatrix.from_rows([[0, 2], [1]])
    assert X != BinaryMatrix.from_rows([[0, 2], [2]])


# as_binary_matrix: NumPy arrays and scipy sparse matrices, one rule for their values.

SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr")


def _sparse(dense: np.ndarray, form: str, array: bool = False):
    import scipy.sparse as sp

    kind = sp.csr_array if array else sp.csr_matrix
    return kind(dense).asformat(form)


def _reference(dense: np.ndarray) -> BinaryMatrix:
    """The plain Python reading: row i holds the columns j with dense[i, j] == 1."""
    rows = [[j for j, value in enumerate(row) if value == 1] for row in dense.tolist()]
    return BinaryMatrix.from_rows(rows, n_features=dense.shape[1])


dense_strategy = st.tuples(st.integers(0, 7), st.integers(0, 9)).flatmap(
    lambda shape: st.lists(st.lists(st.booleans(), min_size=shape[1], max_size=shape[1]),
                           min_size=shape[0], max_size=shape[0]).map(
        lambda cells: np.array(cells, dtype=bool).reshape(shape)))


@settings(deadline=None)
@given(dense_strategy)
def test_numpy_arrays_as_the_reference_reads_them(cells: np.ndarray) -> None:
    reference = _reference(cells.astype(np.int64))
    for dtype in (bool, np.int8, np.int64, np.uint16, np.float32, np.float64):
        X = as_binary_matrix(cells.astype(dtype))
        assert X == reference
        X.validate()
        assert np.array_equal(X.to_dense(bool), cells)


@settings(deadline=None, max_examples=40)
@given(dense_strategy)
def test_every_sparse_format_as_the_reference_reads_it(cells: np.ndarray) -> None:
    reference = _reference(cells.astype(np.int64))
    for form in SPARSE_FORMATS:
        for array in (False, True):
            X = as_binary_matrix(_sparse(cells.astype(np.float64), form, array))
            assert X == reference, (form, array)
            X.validate()


def test_a_binary_matrix_is_taken_as_it_is() -> None:
    X = BinaryMatrix.from_rows([[1, 4]])
    assert as_binary_matrix(X) is X


def test_explicit_zeros_are_dropped_and_unsorted_rows_sorted() -> None:
    import scipy.sparse as sp

    # Row 0 stores 3:1, 0:0 (an explicit zero), 1:1 in that order; row 1 stores 2:0 only.
    X = sp.csr_matrix((np.array([1.0, 0.0, 1.0, 0.0]), np.array([3, 0, 1, 2]),
                       np.array([0, 3, 4])), shape=(2, 5))
    assert X.nnz == 4
    matrix = as_binary_matrix(X)
    assert matrix == BinaryMatrix.from_rows([[1, 3], []], n_features=5)


@pytest.mark.parametrize("value", [-7.5, 2, 0.5, np.nan, np.inf, -1])
@pytest.mark.parametrize("form", ["dense", *SPARSE_FORMATS])
def test_any_other_value_is_refused_naming_row_column_and_value(value: float, form: str) -> None:
    cells = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, value]])
    given = cells if form == "dense" else _sparse(cells, form)
    with pytest.raises(ValueError, match=rf"^X: row 1, column 2 holds {float(value)!r}; a binary "
                                         r"feature is 1 \(present\) or 0 \(absent\)$"):
        as_binary_matrix(given)


def test_the_first_odd_value_in_reading_order_is_named() -> None:
    cells = np.array([[1, 0, 3], [5, 1, 0]])
    import scipy.sparse as sp

    for matrix in (cells, sp.csc_matrix(cells), sp.coo_matrix(cells)):
        with pytest.raises(ValueError, match="row 0, column 2 holds 3"):
            as_binary_matrix(matrix, "X")


@pytest.mark.parametrize("build", ["csr", "coo"])
def test_a_cell_stored_twice_is_refused(build: str) -> None:
    import scipy.sparse as sp

    data, rows, columns = np.ones(3), np.array([0, 1, 1]), np.array([2, 4, 4])
    if build == "csr":
        X = sp.csr_matrix((data, columns, np.array([0, 1, 3])), shape=(2, 6))
    else:
        X = sp.coo_matrix((data, (rows, columns)), shape=(2, 6))
    with pytest.raises(ValueError, match=r"^vectors: row 1, column 4 is stored twice \(scipy "
                                         r"would add the values up\)"):
        as_binary_matrix(X, "vectors")


@pytest.mark.parametrize("value, kind, problem", [
    (np.ones(3), ValueError, r"X must be 2-D \(rows, features\), not of shape \(3,\)"),
    (np.ones((2, 2, 2)), ValueError, r"not of shape \(2, 2, 2\)"),
    (np.array([["1", "0"]]), ValueError, r"X holds <U1 values"),
    (np.array([[1 + 0j]]), ValueError, r"X holds complex128 values"),
    (np.array([[1, None]], dtype=object), ValueError, r"X holds object values"),
    ([[0, 1], [1]], TypeError, r"X must be a BinaryMatrix, a 2-D NumPy array of 0/1 or a scipy "
                               r"sparse matrix, not list \(BinaryMatrix.from_rows"),
    (None, TypeError, r"not NoneType"),
])
def test_what_is_not_a_matrix_is_named(value: object, kind: type, problem: str) -> None:
    with pytest.raises(kind, match=problem):
        as_binary_matrix(value)


def test_nothing_is_changed_in_place() -> None:
    import scipy.sparse as sp

    X = sp.csr_matrix((np.array([1.0, 0.0]), np.array([2, 0]), np.array([0, 2])), shape=(1, 3))
    as_binary_matrix(X)
    assert X.indices.tolist() == [2, 0] and X.data.tolist() == [1.0, 0.0]


def test_optional_matrix() -> None:
    assert optional_binary_matrix(None) is None
    assert optional_binary_matrix(np.eye(2)) == BinaryMatrix.from_rows([[0], [1]])
