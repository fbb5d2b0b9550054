"""BinaryMatrix: construction, validation, slicing."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from features.binary_matrix import BinaryMatrix

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
