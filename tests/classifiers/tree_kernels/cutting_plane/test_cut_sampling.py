"""Uniform and rejection sampling of the cuts: seeded, in range, at the stated rates."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.cutting_plane.cut_sampling import CutSampler


def _labels() -> np.ndarray:
    y = -np.ones(2000, dtype=np.int64)
    y[::20] = 1
    return y


def test_the_same_seed_gives_the_same_samples() -> None:
    for cost in (None, 4.0):
        a, b = CutSampler(_labels(), 300, 5, cost), CutSampler(_labels(), 300, 5, cost)
        assert all(np.array_equal(a.sample(), b.sample()) for _ in range(3))
        assert not np.array_equal(CutSampler(_labels(), 300, 6, cost).sample(),
                                  CutSampler(_labels(), 300, 5, cost).sample())


def test_uniform_samples_follow_the_data() -> None:
    sampler = CutSampler(_labels(), 1000, 1)
    rows = np.concatenate([sampler.sample() for _ in range(40)])
    assert rows.min() >= 0 and rows.max() < 2000 and rows.size == 40000
    assert abs(np.mean(_labels()[rows] == 1) - 0.05) < 0.01
    assert sampler.total_cost() == 2000


def test_rejection_samples_weight_the_positives_by_j() -> None:
    y = _labels()
    n_pos, n_neg = 100, 1900
    for j in (1.0, 5.0, n_neg / n_pos):
        sampler = CutSampler(y, 1000, 2, j)
        rows = np.concatenate([sampler.sample() for _ in range(40)])
        expected = j * n_pos / (j * n_pos + n_neg)
        assert abs(np.mean(y[rows] == 1) - expected) < 0.02
        assert sampler.total_cost() == pytest.approx(j * n_pos + n_neg)


@pytest.mark.parametrize("r,cost", [(0, None), (2001, None), (10, 0.0), (10, -1.0)])
def test_bad_settings_are_refused(r: int, cost: float | None) -> None:
    with pytest.raises(ValueError):
        CutSampler(_labels(), r, 1, cost)
