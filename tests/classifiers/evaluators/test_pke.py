"""PKE: the c_m coefficients, key packing, exact pruning, storage layouts and files."""
from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.evaluators.pke import (
    PKEScorer,
    conjunction_coefficients,
    dense_rank_count,
    dense_sizes,
    key_ranks,
    key_sizes,
)
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.binary_matrix import BinaryMatrix
from tests.classifiers.evaluators.test_kernel_expansion import (
    assert_close,
    file_round_trip,
    random_expansion,
    zipf_rows,
)


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("gamma,coef0", [(1.0, 1.0), (0.3, 2.5), (2.0, 0.0)])
def test_coefficients_expand_the_kernel_over_conjunctions(
    degree: int, gamma: float, coef0: float
) -> None:
    c = conjunction_coefficients(gamma, coef0, degree)
    for shared in range(12):
        expanded = sum(c[m] * comb(shared, m) for m in range(degree + 1))
        assert expanded == pytest.approx((gamma * shared + coef0) ** degree, rel=1e-12)
    if (gamma, coef0) == (1.0, 1.0) and degree == 3:
        np.testing.assert_allclose(c, [1.0, 7.0, 12.0, 6.0])


def test_keys_pack_sorted_ranks() -> None:
    keys = np.array([1, (3 << 21) | 5, (1 << 42) | (2 << 21) | 9], dtype=np.uint64)
    np.testing.assert_array_equal(key_sizes(keys), [1, 2, 3])
    np.testing.assert_array_equal(key_ranks(keys), [[0, -1, -1], [2, 4, -1], [0, 1, 8]])


def test_dense_rank_count_is_the_largest_that_fits() -> None:
    assert dense_sizes(10, 3) == [10, 45, 120]
    n = dense_rank_count(10_000, 2, 1, 8 * (100 + comb(100, 2)))
    assert n == 100
    assert dense_rank_count(50, 2, 1, 1 << 30) == 50
    assert dense_rank_count(50, 3, 2, 0) == 0


@pytest.mark.parametrize("max_dense_bytes", [0, 1 << 10, 1 << 24])
def test_zero_weights_are_dropped_without_changing_a_value(max_dense_bytes: int) -> None:
    # Support vectors 0 and 1 are equal with opposite coefficients: their conjunctions cancel
    # exactly unless support vector 2 shares them.
    rows = [[1, 4, 7, 9], [1, 4, 7, 9], [4, 7, 20], [2, 3]]
    sv = BinaryMatrix.from_rows(rows, n_features=21)
    expansion = KernelExpansion(sv, [[0.5, -0.5, 1.25, -2.0]], [0.1], 1.0, 1.0, 3)
    X = BinaryMatrix.from_rows([[1, 4, 7, 9], [4, 7, 9, 20], [2, 3, 7], []], n_features=21)
    pruned = PKEScorer(expansion, max_dense_bytes=max_dense_bytes)
    full = PKEScorer(expansion, max_dense_bytes=max_dense_bytes, drop_zero_weights=False)
    reference = expansion.naive_decision_function(X)
    assert_close(pruned.decision_function(X), reference)
    assert_close(full.decision_function(X), reference)
    if max_dense_bytes == 0:
        assert len(pruned.store.index) < len(full.store.index)
        assert np.all(np.any(pruned.store.hashed_weights != 0, axis=1)
                      | (key_sizes(pruned.store.keys()) == 2))


def ordered_dense_sum(scorer: PKEScorer, row: np.ndarray) -> float:
    """A degree-2, one-output, all-dense PKE value added up in ConjunctionStore.add's order:
    the constant plus (for each rank c of the row in feature order: its single, then its pairs
    with the ranks before it)."""
    weights = scorer.store.dense_weights[:, 0]
    n_dense = scorer.store.n_dense
    ranks = [int(rank) for rank in scorer.ranks(row) if rank >= 0]
    total = 0.0
    for c, rc in enumerate(ranks):
        total += float(weights[rc])
        for rb in ranks[:c]:
            lo, hi = min(rb, rc), max(rb, rc)
            total += float(weights[n_dense + hi * (hi - 1) // 2 + lo])
    return float(scorer.arrays["constant"][0]) + total


def test_dense_pairs_of_one_output_add_up_in_order() -> None:
    """Degree 2 with one output and every rank dense takes ConjunctionStore's pair loop with
    its rows worked out once: its values are, to the last bit, the sum in the order of the
    general loop, and the naive kernel sum to rounding; an example of more than 256 ranks
    takes the general loop."""
    expansion, vocabulary = random_expansion(seed=4, n_sv=300, n_outputs=1, degree=2)
    rng = np.random.default_rng(5)
    X = zipf_rows(rng, 400, vocabulary, max_length=60)
    scorer = PKEScorer(expansion)
    assert scorer.store.n_dense == scorer.store.n_ranked
    values = scorer.decision_function(X)[:, 0]
    for t in range(X.n_rows):
        assert values[t] == ordered_dense_sum(scorer, X.row(t))
    assert_close(scorer.decision_function(X), expansion.naive_decision_function(X))
    wide = BinaryMatrix.from_rows([np.sort(vocabulary[:300])], n_features=X.n_features)
    assert_close(scorer.decision_function(wide), expansion.naive_decision_function(wide))


def test_degree_above_three_is_refused() -> None:
    expansion, _ = random_expansion(1, 10, 1, 4)
    with pytest.raises(ValueError, match="degree"):
        PKEScorer(expansion)


def test_feature_ids_beyond_the_key_fields_are_ranked_first() -> None:
    # Keys pack ranks, not ids, so ids above 2**21 are fine.
    sv = BinaryMatrix.from_rows([[5, 3_000_000], [5, 7]], n_features=3_000_001)
    expansion = KernelExpansion(sv, [[1.0, -0.5]], [0.0], 0.5, 1.0, 2)
    X = BinaryMatrix.from_rows([[5, 3_000_000], [7], [6]], n_features=3_000_001)
    for max_dense_bytes in (0, 1 << 20):
        scorer = PKEScorer(expansion, max_dense_bytes=max_dense_bytes)
        assert_close(scorer.decision_function(X), expansion.naive_decision_function(X))
    np.testing.assert_array_equal(scorer.to_arrays()[1]["ranked_ids"], [5, 7, 3_000_000])


def test_pke_files_round_trip_and_are_checked(tmp_path: Path) -> None:
    expansion, vocabulary = random_expansion(2, 120, 3, 3)
    X = zipf_rows(np.random.default_rng(2), 500, vocabulary, 30)
    scorer = PKEScorer(expansion, max_dense_bytes=1 << 16)
    path = tmp_path / "pke.model"
    again, read_header, read_arrays = file_round_trip(scorer, X, path)
    assert again.memory_bytes() == scorer.memory_bytes() > 0
    assert set(scorer.memory_report()) == {
        "dense_conjunctions", "hashed_conjunctions", "feature_ranks", "constant"
    }
    broken = dict(read_arrays, keys=read_arrays["keys"][::-1].copy())
    broken["hashed_weights"] = read_arrays["hashed_weights"][:-1]
    with pytest.raises(ModelFileError, match="pke.model"):
        PKEScorer.from_arrays(read_header, broken, source=str(path))
    with pytest.raises(ModelFileError, match="inconsistent PKE header"):
        PKEScorer.from_arrays({**read_header, "n_dense": None}, read_arrays)
    del read_arrays["constant"]
    with pytest.raises(ModelFileError, match="constant"):
        PKEScorer.from_arrays(read_header, read_arrays)
