"""split-svm: the rare threshold, the split itself, extremes, files and memory report."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.evaluators.choices import (
    DEFAULT_RARE_THRESHOLD,
    minimum_common_count,
    parse_rare_threshold,
)
from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.evaluators.split_svm import SplitSVMScorer
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.binary_matrix import BinaryMatrix
from tests.classifiers.evaluators.test_kernel_expansion import (
    assert_close,
    file_round_trip,
    random_expansion,
    zipf_rows,
)


def test_rare_threshold_is_a_count_a_fraction_or_auto() -> None:
    assert minimum_common_count(10, 5000) == 10.0
    assert minimum_common_count(0.01, 5000) == 50.0
    assert minimum_common_count(1.0, 300) == 300.0
    assert parse_rare_threshold("10") == 10 and isinstance(parse_rare_threshold("10"), int)
    assert parse_rare_threshold(" 0.005 ") == 0.005
    assert parse_rare_threshold("1e-3") == 0.001
    for bad in ("-1", "1.5", "0.0", "x"):
        with pytest.raises(ValueError):
            parse_rare_threshold(bad)
    for bad_value in (-3, 0.0, 2.0, True):
        with pytest.raises(ValueError):
            minimum_common_count(bad_value, 100)
    assert DEFAULT_RARE_THRESHOLD == parse_rare_threshold("auto") == "auto"
    with pytest.raises(ValueError, match="auto"):
        minimum_common_count("auto", 100)


@pytest.mark.parametrize("threshold", [3, 0.05])
def test_features_held_by_fewer_than_s_support_vectors_are_rare(threshold: int | float) -> None:
    expansion, _ = random_expansion(8, 200, 1, 2)
    holders = np.bincount(expansion.support_vectors.indices)
    s = minimum_common_count(threshold, 200)
    scorer = SplitSVMScorer(expansion, threshold)
    assert scorer.n_common_features == int(np.sum(holders >= s))
    assert scorer.n_rare_features == int(np.sum((holders > 0) & (holders < s)))
    common_ids = scorer.arrays["common_ids"]
    assert np.all(np.diff(holders[common_ids]) <= 0)
    sv = expansion.support_vectors
    holding_rare = sum(bool((holders[sv.row(i)] < s).any()) for i in range(len(sv)))
    assert scorer.n_rare_support_vectors == holding_rare


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_extreme_thresholds_give_pke_and_pki(degree: int) -> None:
    expansion, vocabulary = random_expansion(degree + 20, 150, 2, degree)
    X = zipf_rows(np.random.default_rng(degree), 800, vocabulary, 25)
    reference = expansion.naive_decision_function(X)
    all_common = SplitSVMScorer(expansion, 0)
    assert all_common.n_rare_features == 0 and all_common.n_rare_support_vectors == 0
    all_rare = SplitSVMScorer(expansion, 10**9)
    assert all_rare.n_common_features == 0
    for scorer in (all_common, all_rare):
        assert_close(scorer.decision_function(X), reference)


def test_split_files_round_trip_and_are_checked(tmp_path: Path) -> None:
    expansion, vocabulary = random_expansion(9, 300, 3, 3)
    X = zipf_rows(np.random.default_rng(9), 500, vocabulary, 30)
    scorer = SplitSVMScorer(expansion, 0.02, max_dense_bytes=1 << 14)
    assert 0 < scorer.common.n_dense < scorer.n_common_features
    header, arrays = scorer.to_arrays()
    assert header["rare_threshold"] == 0.02 and header["n_support_vectors"] == 300
    path = tmp_path / "split.model"
    again, read_header, read_arrays = file_round_trip(scorer, X, path)
    report = scorer.memory_report()
    assert set(report) == {"common_dense", "common_hashed", "feature_index", "common_ranks",
                           "rare_index", "rare_support_vectors", "rare_support_vector_low_ranks",
                           "feature_table", "scratch_per_call"}
    assert scorer.memory_bytes() == again.memory_bytes() == sum(report.values())
    assert read_arrays["rare_sv_common"].dtype == np.int16
    assert scorer.arrays["rare_sv_common"].dtype == again.arrays["rare_sv_common"].dtype
    wide = SplitSVMScorer.from_arrays(read_header, dict(
        read_arrays, rare_sv_common=read_arrays["rare_sv_common"].astype(np.int32)))
    assert wide.arrays["rare_sv_common"].dtype == np.int32
    assert wide.decision_function(X).tobytes() == scorer.decision_function(X).tobytes()
    broken = dict(read_arrays,
                  rare_sv_common=read_arrays["rare_sv_common"].astype(np.int32) + 10**6)
    with pytest.raises(ModelFileError, match="split.model: inconsistent split-svm arrays"):
        SplitSVMScorer.from_arrays(read_header, broken, source=str(path))
    with pytest.raises(ModelFileError, match="rare_ptr"):
        SplitSVMScorer.from_arrays(read_header, {k: v for k, v in read_arrays.items()
                                                 if k != "rare_ptr"})
    with pytest.raises(ModelFileError, match="header"):
        SplitSVMScorer.from_arrays({**read_header, "degree": "three"}, read_arrays)


def test_files_of_the_earlier_layout_load_to_the_same_scorer(tmp_path: Path) -> None:
    """Earlier split files held feature_class, one entry per id up to the largest (its common
    rank, -1, or -2 - r for the rare feature r), instead of rare_ids: they load to the same
    scorer, which writes them back as they were, and one that disagrees with common_ids is
    refused in one sentence."""
    expansion, vocabulary = random_expansion(12, 200, 2, 2)
    X = zipf_rows(np.random.default_rng(12), 300, vocabulary, 30)
    scorer = SplitSVMScorer(expansion, 0.02)
    header, arrays = scorer.to_arrays()
    common_ids, rare_ids = arrays.pop("common_ids"), arrays.pop("rare_ids")
    assert common_ids.size and rare_ids.size
    feature_class = np.full(int(expansion.support_vectors.indices.max()) + 1, -1, np.int32)
    feature_class[common_ids] = np.arange(common_ids.size)
    feature_class[rare_ids] = -2 - np.arange(rare_ids.size)
    earlier = {**arrays, "common_ids": common_ids, "feature_class": feature_class}
    again = SplitSVMScorer.from_arrays(header, earlier)
    np.testing.assert_array_equal(again.arrays["rare_ids"], rare_ids)
    assert again.decision_function(X).tobytes() == scorer.decision_function(X).tobytes()
    written_header, written = again.to_arrays()
    assert written_header == header and set(written) == set(earlier)
    for name, array in earlier.items():
        assert written[name].dtype == array.dtype and np.array_equal(written[name], array), name
    swapped = feature_class.copy()
    swapped[common_ids[:2]] = swapped[common_ids[1::-1]]
    with pytest.raises(ModelFileError, match="old.model: inconsistent split-svm arrays"):
        SplitSVMScorer.from_arrays(header, {**earlier, "feature_class": swapped},
                                   source="old.model")


def low_and_rest(scorer: SplitSVMScorer) -> list[list[int]]:
    """Each rare support vector's common ranks as its low-rank bits and rest list hold them."""
    low, rest_ptr, rest = scorer.low_rank_arrays
    words = low.reshape(-1, 2) if scorer.n_rare_support_vectors else low[:0].reshape(0, 2)
    held = []
    for s in range(scorer.n_rare_support_vectors):
        bits = [64 * w + b for w in range(2) for b in range(64) if int(words[s, w]) >> b & 1]
        held.append(sorted(bits + rest[rest_ptr[s]:rest_ptr[s + 1]].tolist()))
    return held


@pytest.mark.parametrize("narrow", [True, False])
def test_low_ranks_bits_and_rest_hold_every_rank(narrow: bool) -> None:
    """The rare support vectors' common ranks below 128 as bit sets, the others (and a rank
    given twice, the second time) in a list: together each vector's ranks, and the scores
    those counts give are the kernel sum's, on a split with ranks on both sides."""
    expansion, vocabulary = random_expansion(31, 400, 2, 2, max_length=60)
    X = zipf_rows(np.random.default_rng(31), 400, vocabulary, 60)
    scorer = SplitSVMScorer(expansion, 3)
    assert scorer.n_common_features > 128
    _, rest_ptr, _ = scorer.low_rank_arrays
    assert scorer.low_rank_arrays[0].any() and rest_ptr[-1] > 0
    assert_close(scorer.decision_function(X), expansion.naive_decision_function(X))
    header, arrays = scorer.to_arrays()
    ranks = arrays["rare_sv_common"].astype(np.int16 if narrow else np.int32)
    ptr = arrays["rare_sv_ptr"]
    # The second rank of two vectors repeated: one below 128 and one above.
    low_twice = next(s for s in range(len(ptr) - 1)
                     if ptr[s + 1] - ptr[s] >= 2 and ranks[ptr[s]] < 128)
    high_twice = next(s for s in range(len(ptr) - 1)
                      if ptr[s + 1] - ptr[s] >= 2 and ranks[ptr[s + 1] - 1] >= 128)
    ranks[ptr[low_twice] + 1] = ranks[ptr[low_twice]]
    ranks[ptr[high_twice + 1] - 2] = ranks[ptr[high_twice + 1] - 1]
    twice = SplitSVMScorer.from_arrays(header, dict(arrays, rare_sv_common=ranks))
    for built in (scorer, twice):
        given = built.arrays["rare_sv_common"]
        assert given.dtype == (np.int32 if built is twice and not narrow else np.int16)
        assert low_and_rest(built) == [sorted(given[ptr[s]:ptr[s + 1]].tolist())
                                       for s in range(len(ptr) - 1)]


def test_feature_table_of_dense_ids_only() -> None:
    """Feature ids ranked by frequency (dense) are read from a table, which holds each id's
    common rank, n_common + its rare number, or -1; ids spread up to 470,000 over 3,000
    features (hashed, sparse) stay with the hash. Both give the kernel sum."""
    expansion, vocabulary = random_expansion(12, 300, 1, 2)
    X = zipf_rows(np.random.default_rng(12), 300, vocabulary, 24)
    sparse = SplitSVMScorer(expansion, 3)
    assert sparse.direct_ids is None and sparse.memory_report()["feature_table"] == 0
    ranks = np.full(int(vocabulary.max()) + 1, -1, dtype=np.int64)
    ranks[vocabulary] = np.arange(vocabulary.size)
    sv = expansion.support_vectors
    dense_sv = BinaryMatrix.from_rows([np.sort(ranks[sv.row(i)]) for i in range(len(sv))],
                                      n_features=vocabulary.size)
    dense = KernelExpansion(dense_sv, expansion.coefficients, expansion.intercepts,
                            gamma=expansion.gamma, coef0=expansion.coef0, degree=2)
    dense_X = BinaryMatrix.from_rows([np.sort(ranks[X.row(i)]) for i in range(X.n_rows)],
                                     n_features=vocabulary.size)
    scorer = SplitSVMScorer(dense, 3)
    table = scorer.direct_ids
    assert table is not None and table.size == int(dense_sv.indices.max()) + 1
    common, rare = scorer.arrays["common_ids"], scorer.arrays["rare_ids"]
    assert table[common].tolist() == list(range(common.size))
    assert table[rare].tolist() == list(range(common.size, common.size + rare.size))
    held = np.zeros(table.size, dtype=bool)
    held[common], held[rare] = True, True
    assert (table[~held] == -1).all()
    assert_close(scorer.decision_function(dense_X), dense.naive_decision_function(dense_X))
    assert_close(sparse.decision_function(X), expansion.naive_decision_function(X))
