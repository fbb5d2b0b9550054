"""The model-file forms of scorer arrays: mostly-zero float arrays stored as their nonzero
entries, small ranks as int16; both read back to the very arrays written."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.evaluators.scorer_arrays import (
    narrow_ranks,
    read_sparsely,
    stored_sparsely,
)
from polyparse.classifiers.model_file import ModelFileError


@pytest.mark.parametrize("shape", [(0, 1), (1000, 1), (400, 3)])
@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 0.9])
def test_sparse_form_reads_back_the_same_array(shape: tuple[int, int], density: float) -> None:
    rng = np.random.default_rng(int(density * 100) + shape[0])
    array = rng.normal(size=shape) * (rng.random(shape) < density)
    stored = stored_sparsely("w", array)
    dense = "w" in stored
    assert dense == (array.size > 0 and np.count_nonzero(array) >= 0.6 * array.size)
    back = read_sparsely("w", {"other": np.arange(3), **stored}, "m")
    assert set(back) == {"w", "other"}
    assert back["w"].shape == array.shape
    assert np.array_equal(back["w"], array)


def test_sparse_form_that_does_not_fit_is_a_model_file_error() -> None:
    stored = stored_sparsely("w", np.eye(10)[:, :1].copy())
    broken = dict(stored, w_nonzero=stored["w_nonzero"] + 50)
    with pytest.raises(ModelFileError, match="m: inconsistent model file"):
        read_sparsely("w", broken, "m")
    with pytest.raises(ModelFileError, match="m: inconsistent model file"):
        read_sparsely("w", {k: v for k, v in stored.items() if k != "w_values"}, "m")


def test_ranks_narrow_only_when_they_fit() -> None:
    small = np.array([0, 5, 32767], dtype=np.int32)
    large = np.array([0, 32768], dtype=np.int32)
    assert narrow_ranks(small).dtype == np.int16
    assert narrow_ranks(large).dtype == np.int32
