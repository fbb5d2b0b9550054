"""split-svm: the rare threshold, the split itself, extremes, files and memory report."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from classifiers.evaluators.choices import (
    DEFAULT_RARE_THRESHOLD,
    minimum_common_count,
    parse_rare_threshold,
)
from classifiers.evaluators.split_svm import SplitSVMScorer
from classifiers.model_file import ModelFileError
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
                           "rare_index", "rare_support_vectors", "scratch_per_call"}
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
