"""The cutting-plane dual (cut_qp.pyx) against an exhaustive KKT reference on small problems,
and its KKT conditions, warm starts and determinism on larger ones."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from classifiers.tree_kernels.cutting_plane.cut_qp import solve_cut_qp


def _problem(rng: np.random.Generator, t: int, rank: int | None = None):
    a = rng.normal(size=(t, rank or t)) / np.sqrt(t)
    gram = a @ a.T
    if t > 2 and rng.random() < 0.5:
        gram[1, :], gram[:, 1] = gram[0, :], gram[:, 0]
        gram[1, 1] = gram[0, 0]
    return gram, rng.random(t)


def _exhaustive(gram: np.ndarray, losses: np.ndarray, C: float) -> float:
    # The best objective over every support (slack index 0 included) whose equality-constrained
    # optimum is feasible: the exact optimum of the concave problem.
    t = losses.size
    H = np.zeros((t + 1, t + 1))
    H[1:, 1:] = gram
    lin = np.append(0.0, losses)
    best = -np.inf
    for size in range(1, t + 2):
        for support in itertools.combinations(range(t + 1), size):
            s = list(support)
            system = np.zeros((size + 1, size + 1))
            system[:size, :size] = H[np.ix_(s, s)]
            system[:size, size] = system[size, :size] = 1.0
            solution = np.linalg.lstsq(system, np.append(lin[s], C), rcond=None)[0]
            if np.any(solution[:size] < -1e-12):
                continue
            a = np.zeros(t + 1)
            a[s] = np.maximum(solution[:size], 0.0)
            a *= C / a.sum()
            best = max(best, float(lin @ a - 0.5 * a @ H @ a))
    return best


def _kkt(gram: np.ndarray, losses: np.ndarray, C: float, alpha: np.ndarray) -> float:
    grad = np.append(0.0, losses - gram @ alpha)
    a = np.append(C - alpha.sum(), alpha)
    return float(grad.max() - grad[a > 1e-12].min())


@pytest.mark.parametrize("C", (0.01, 1.0, 1e4))
def test_the_optimum_equals_the_exhaustive_search(C: float) -> None:
    rng = np.random.default_rng(int(C * 100))
    for t in range(1, 7):
        for rank in (None, 1, 2):
            gram, losses = _problem(rng, t, rank)
            result = solve_cut_qp(gram, losses, C)
            expected = _exhaustive(gram, losses, C)
            assert result.objective == pytest.approx(expected, rel=1e-10, abs=1e-12)
            assert np.all(result.alpha >= 0) and result.alpha.sum() <= C * (1 + 1e-12)
            assert result.converged


@pytest.mark.parametrize("t", (50, 300))
def test_kkt_conditions_hold_on_larger_problems(t: int) -> None:
    rng = np.random.default_rng(t)
    gram, losses = _problem(rng, t, t // 3)
    result = solve_cut_qp(gram, losses, 1e3)
    assert _kkt(gram, losses, 1e3, result.alpha) <= 1e-9
    assert result.objective == pytest.approx(
        losses @ result.alpha - 0.5 * result.alpha @ gram @ result.alpha, rel=1e-12)


def test_a_warm_start_reaches_the_same_point_in_fewer_steps() -> None:
    rng = np.random.default_rng(8)
    gram, losses = _problem(rng, 80)
    before = solve_cut_qp(gram[:79, :79], losses[:79], 500.0)
    cold = solve_cut_qp(gram, losses, 500.0)
    warm = solve_cut_qp(gram, losses, 500.0, np.append(before.alpha, 0.0))
    assert np.allclose(warm.alpha, cold.alpha, rtol=1e-9, atol=1e-9 * cold.alpha.max())
    assert warm.steps < cold.steps


def test_the_sum_bound_is_active_only_for_small_C() -> None:
    rng = np.random.default_rng(2)
    gram, losses = _problem(rng, 20)
    assert solve_cut_qp(gram, losses, 1e-3).alpha.sum() == pytest.approx(1e-3, rel=1e-12)
    assert solve_cut_qp(gram, losses, 1e6).alpha.sum() < 1e6 * 0.5


def test_the_same_input_gives_the_same_bits() -> None:
    rng = np.random.default_rng(4)
    gram, losses = _problem(rng, 60, 10)
    assert np.array_equal(solve_cut_qp(gram, losses, 50.0).alpha,
                          solve_cut_qp(gram, losses, 50.0).alpha)


@pytest.mark.parametrize("args", [(np.eye(2), np.ones(3), 1.0), (np.eye(2), np.ones(2), 0.0),
                                  (np.eye(2), np.ones(2), 1.0, np.array([-1.0, 0.0])),
                                  (np.eye(2), np.ones(2), 1.0, np.array([1.0, 1.0]))])
def test_bad_problems_are_refused(args) -> None:
    with pytest.raises(ValueError):
        solve_cut_qp(*args)
