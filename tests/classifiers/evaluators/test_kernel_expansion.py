"""KernelExpansion and its NumPy reference; helpers shared by the evaluator tests."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.model_file import ModelFileError, read_model_file, write_model_file
from polyparse.features.binary_matrix import BinaryMatrix

RELATIVE = 1e-9


def assert_close(values: np.ndarray, reference: np.ndarray) -> None:
    """values equal reference to a relative 1e-9, with an absolute floor of 1e-9 near 0."""
    assert values.shape == reference.shape
    tolerance = RELATIVE * np.maximum(np.abs(reference), 1.0)
    worst = np.argmax(np.abs(values - reference) - tolerance)
    where = np.unravel_index(worst, values.shape)
    assert np.all(np.abs(values - reference) <= tolerance), (
        f"{values.flat[worst]!r} != {reference.flat[worst]!r} at {where}"
    )


def zipf_rows(
    rng: np.random.Generator, n: int, vocabulary: np.ndarray, max_length: int
) -> BinaryMatrix:
    """n rows of 0..max_length distinct ids drawn from vocabulary with Zipfian frequencies."""
    p = 1.0 / np.arange(1, vocabulary.size + 1)
    p /= p.sum()
    rows = []
    for length in rng.integers(0, max_length + 1, size=n):
        picked = rng.choice(vocabulary.size, size=min(length, vocabulary.size), replace=False, p=p)
        rows.append(np.sort(vocabulary[picked]))
    return BinaryMatrix.from_rows(rows, n_features=int(vocabulary.max()) + 1)


def random_expansion(
    seed: int, n_sv: int, n_outputs: int, degree: int, max_length: int = 24,
    vocabulary_size: int = 3000, max_id: int = 470_000,
) -> tuple[KernelExpansion, np.ndarray]:
    """A random expansion over a Zipfian vocabulary of large ids, and that vocabulary."""
    rng = np.random.default_rng(seed)
    vocabulary = np.sort(rng.choice(max_id, size=vocabulary_size, replace=False))
    rng.shuffle(vocabulary)
    support_vectors = zipf_rows(rng, n_sv, vocabulary, max_length)
    coefficients = rng.normal(size=(n_outputs, n_sv)) * (rng.random((n_outputs, n_sv)) < 0.8)
    expansion = KernelExpansion(
        support_vectors, coefficients, rng.normal(size=n_outputs),
        gamma=float(rng.uniform(0.2, 1.5)), coef0=float(rng.uniform(0.0, 2.0)), degree=degree,
    )
    return expansion, vocabulary


def file_round_trip(scorer: Any, X: BinaryMatrix, path: Path
                    ) -> tuple[Any, dict[str, Any], dict[str, np.ndarray]]:
    """Write a scorer's arrays to a model file and read them back with its class's from_arrays:
    (the scorer read back, the header and arrays read); the two score X identically."""
    header, arrays = scorer.to_arrays()
    write_model_file(path, {"format": "polyparse-test", **header}, arrays)
    read_header, read_arrays = read_model_file(path)
    again = type(scorer).from_arrays(read_header, read_arrays, source=str(path))
    np.testing.assert_array_equal(again.decision_function(X), scorer.decision_function(X))
    return again, read_header, read_arrays


def dense_reference(expansion: KernelExpansion, X: BinaryMatrix) -> np.ndarray:
    """The kernel sum written out with dense 0/1 matrices."""
    width = max(X.n_features, expansion.support_vectors.n_features)
    dense_x = np.zeros((len(X), width))
    dense_x[:, : X.n_features] = X.to_dense(np.float64)
    dense_sv = np.zeros((expansion.n_support_vectors, width))
    dense_sv[:, : expansion.support_vectors.n_features] = expansion.support_vectors.to_dense(
        np.float64
    )
    kernel = (expansion.gamma * dense_x @ dense_sv.T + expansion.coef0) ** expansion.degree
    return kernel @ expansion.coefficients.T + expansion.intercepts


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_naive_decision_function_equals_dense_products(degree: int) -> None:
    expansion, vocabulary = random_expansion(degree, 120, 3, degree, vocabulary_size=500,
                                             max_id=900)
    rng = np.random.default_rng(7)
    X = zipf_rows(rng, 300, np.concatenate([vocabulary, [950, 999]]), 30)
    reference = dense_reference(expansion, X)
    np.testing.assert_allclose(expansion.naive_decision_function(X), reference, rtol=1e-12,
                               atol=1e-9)
    counts = expansion.shared_counts(X)
    assert counts.dtype == np.int32 and counts.shape == (300, 120)
    dense = X.to_dense(np.int64)[:, :900] @ expansion.support_vectors.to_dense(np.int64)[:, :900].T
    np.testing.assert_array_equal(counts, dense)


def test_naive_decision_function_of_edge_cases() -> None:
    empty_sv = BinaryMatrix.from_rows([[], []], n_features=5)
    expansion = KernelExpansion(empty_sv, [[1.0, 2.0]], [0.5], 1.0, 2.0, 2)
    X = BinaryMatrix.from_rows([[], [1, 4]], n_features=5)
    np.testing.assert_allclose(expansion.naive_decision_function(X), [[12.5], [12.5]])
    assert expansion.naive_decision_function(X.take([])).shape == (0, 1)


def test_kernel_expansion_validates_its_fields() -> None:
    sv = BinaryMatrix.from_rows([[0, 2], [1]], n_features=3)
    with pytest.raises(ValueError, match="coefficients"):
        KernelExpansion(sv, np.zeros((1, 3)), [0.0], 1.0, 1.0, 2)
    with pytest.raises(ValueError, match="intercepts"):
        KernelExpansion(sv, np.zeros((2, 2)), [0.0], 1.0, 1.0, 2)
    with pytest.raises(ValueError, match="degree"):
        KernelExpansion(sv, np.zeros((1, 2)), [0.0], 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="finite"):
        KernelExpansion(sv, [[np.nan, 1.0]], [0.0], 1.0, 1.0, 2)
    with pytest.raises(TypeError):
        KernelExpansion([[0, 2], [1]], np.zeros((1, 2)), [0.0], 1.0, 1.0, 2)
    expansion = KernelExpansion(sv, [1.0, -1.0], 0.25, 1, 0, 2)
    assert expansion.coefficients.shape == (1, 2) and expansion.intercepts.shape == (1,)
    assert (expansion.n_outputs, expansion.n_support_vectors) == (1, 2)


def test_kernel_expansion_arrays_round_trip() -> None:
    expansion, _ = random_expansion(3, 40, 2, 3)
    header, arrays = expansion.to_arrays()
    again = KernelExpansion.from_arrays(header, arrays)
    assert again.support_vectors == expansion.support_vectors
    np.testing.assert_array_equal(again.coefficients, expansion.coefficients)
    assert (again.gamma, again.coef0, again.degree) == (
        expansion.gamma, expansion.coef0, expansion.degree
    )
    del arrays["intercepts"]
    with pytest.raises(ModelFileError, match="intercepts"):
        KernelExpansion.from_arrays(header, arrays, source="m.model")
    with pytest.raises(ModelFileError, match="m.model"):
        KernelExpansion.from_arrays({}, arrays, source="m.model")
