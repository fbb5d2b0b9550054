"""The cut QP solver against a brute-force enumeration of supports and the KKT conditions."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.cutting_plane.cut_qp import CutQPResult, solve_cut_qp


def brute_force(G: np.ndarray, b: np.ndarray, C: float) -> tuple[np.ndarray, float]:
    """max b.a - 0.5 a'Ga, a >= 0, sum a <= C by trying every support S of the cuts plus the
    slack (index t): solve [G_SS 1; 1' 0] [a_S; mu] = [b_S; C] and keep the best feasible a
    whose gradient g = b - G a is <= mu everywhere (the slack's gradient is 0)."""
    t = len(b)
    G_ext = np.zeros((t + 1, t + 1))
    G_ext[:t, :t] = G
    b_ext = np.append(b, 0.0)
    best_alpha, best_objective = None, -np.inf
    for size in range(1, t + 2):
        for support in itertools.combinations(range(t + 1), size):
            S = list(support)
            system = np.ones((size + 1, size + 1))
            system[:size, :size] = G_ext[np.ix_(S, S)]
            system[size, size] = 0.0
            rhs = np.append(b_ext[S], C)
            solution = np.linalg.lstsq(system, rhs, rcond=None)[0]
            if np.abs(system @ solution - rhs).max() > 1e-9 * max(1.0, C):
                continue
            a = np.zeros(t + 1)
            a[S] = solution[:size]
            mu = solution[size]
            if (a < -1e-12 * max(1.0, C)).any():
                continue
            gradient = b_ext - G_ext @ a
            if (gradient > mu + 1e-9).any():
                continue
            alpha = np.maximum(a[:t], 0.0)
            objective = b @ alpha - 0.5 * alpha @ G @ alpha
            if objective > best_objective:
                best_alpha, best_objective = alpha, objective
    assert best_alpha is not None
    return best_alpha, best_objective


def random_problem(rng: np.random.Generator, t: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "full":
        A = rng.normal(size=(t, t + 2))
    elif kind == "rank_deficient":
        A = rng.normal(size=(t, max(1, t // 2)))
    else:  # duplicate cuts: some rows of A repeated
        A = rng.normal(size=(t, t + 2))
        for row in range(1, t):
            if rng.random() < 0.4:
                A[row] = A[rng.integers(0, row)]
    return A @ A.T, rng.random(t)


def kkt_violation(G: np.ndarray, b: np.ndarray, C: float, alpha: np.ndarray) -> float:
    """max g - min g over the support, the slack in the support when C - sum alpha is more than
    rounding."""
    slack = C - alpha.sum()
    a = np.append(alpha, slack if slack > 1e-12 * C else 0.0)
    g = np.append(b - G @ alpha, 0.0)
    return float(g.max() - g[a > 0].min())


@pytest.mark.parametrize("kind", ["full", "rank_deficient", "duplicates"])
@pytest.mark.parametrize("C", [0.01, 1.0, 1e4])
def test_matches_brute_force(kind: str, C: float) -> None:
    rng = np.random.default_rng(17)
    for trial in range(12):
        t = 1 + trial % 6
        G, b = random_problem(rng, t, kind)
        result = solve_cut_qp(G, b, C)
        alpha, objective = brute_force(G, b, C)
        assert isinstance(result, CutQPResult)
        assert result.converged
        assert result.alpha.dtype == np.float64 and result.alpha.shape == (t,)
        assert (result.alpha >= 0).all() and result.alpha.sum() <= C * (1 + 1e-12)
        assert result.objective == pytest.approx(objective, rel=1e-10, abs=1e-12)
        scale = max(1.0, alpha.sum())
        if kind == "full":  # strictly concave: the maximiser is unique
            np.testing.assert_allclose(result.alpha, alpha, rtol=0, atol=1e-9 * scale)
        else:  # many maximisers, all with the same G a and the same b.a
            np.testing.assert_allclose(G @ result.alpha, G @ alpha, rtol=0,
                                       atol=1e-9 * scale * np.abs(G).max())
            assert b @ result.alpha == pytest.approx(b @ alpha, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("t", "rank"), [(50, 20), (300, 400)])
@pytest.mark.parametrize("C", [0.1, 10.0, 1e5])
def test_kkt_on_larger_problems(t: int, rank: int, C: float) -> None:
    # rank < t: G is singular and, with a large C, sum alpha = C with alpha far from unique.
    rng = np.random.default_rng(t)
    A = rng.normal(size=(t, rank)) / 10
    G, b = A @ A.T, rng.random(t)
    result = solve_cut_qp(G, b, C)
    assert result.converged
    assert (result.alpha >= 0).all() and result.alpha.sum() <= C * (1 + 1e-12)
    violation = kkt_violation(G, b, C, result.alpha)
    scale = max(1.0, np.abs(G).max() * result.alpha.sum())
    assert violation <= 1e-10 * scale
    assert result.violation == pytest.approx(violation, abs=1e-12 * scale)
    alpha = result.alpha
    assert result.objective == pytest.approx(b @ alpha - 0.5 * alpha @ G @ alpha)


def test_warm_start_matches_cold_start_in_fewer_steps() -> None:
    rng = np.random.default_rng(5)
    A = rng.normal(size=(40, 30)) / 5
    G_all, b_all = A @ A.T, rng.random(40)
    C = 10.0
    previous = solve_cut_qp(G_all[:1, :1], b_all[:1], C)
    warm_steps = cold_steps = 0
    for t in range(2, 41):
        G, b = G_all[:t, :t], b_all[:t]
        warm = solve_cut_qp(G, b, C, alpha0=np.append(previous.alpha, 0.0))
        cold = solve_cut_qp(G, b, C)
        np.testing.assert_allclose(warm.alpha, cold.alpha, rtol=0, atol=1e-9)
        assert warm.objective == pytest.approx(cold.objective, rel=1e-12)
        warm_steps += warm.steps
        cold_steps += cold.steps
        previous = warm
    assert warm_steps < cold_steps


def test_sum_constraint_active_for_small_C_inactive_for_large_C() -> None:
    rng = np.random.default_rng(3)
    A = rng.normal(size=(8, 12))
    G, b = A @ A.T, rng.random(8)
    small = solve_cut_qp(G, b, 1e-3)
    assert small.alpha.sum() == pytest.approx(1e-3, rel=1e-12)
    large = solve_cut_qp(G, b, 1e5)
    assert large.alpha.sum() < 1e5 * 0.5
    # Inactive: the unconstrained-sum problem's solution (nonnegativity only) is the same.
    larger = solve_cut_qp(G, b, 1e7)
    np.testing.assert_allclose(large.alpha, larger.alpha, rtol=0, atol=1e-9)


def test_bad_inputs_raise() -> None:
    G, b = np.eye(3), np.full(3, 0.5)
    with pytest.raises(ValueError):
        solve_cut_qp(np.ones((3, 2)), b, 1.0)
    with pytest.raises(ValueError):
        solve_cut_qp(G, np.ones(4), 1.0)
    with pytest.raises(ValueError):
        solve_cut_qp(G, b, 0.0)
    with pytest.raises(ValueError):
        solve_cut_qp(G, b, -1.0)
    with pytest.raises(ValueError):
        solve_cut_qp(G, b, 1.0, alpha0=np.array([0.5, -0.1, 0.0]))
    with pytest.raises(ValueError):
        solve_cut_qp(G, b, 1.0, alpha0=np.array([0.5, 0.6, 0.0]))
    with pytest.raises(ValueError):
        solve_cut_qp(G, b, 1.0, alpha0=np.zeros(2))
    with pytest.raises(ValueError):
        solve_cut_qp(np.full((3, 3), np.nan), b, 1.0)


def test_deterministic() -> None:
    rng = np.random.default_rng(11)
    A = rng.normal(size=(200, 30))
    G, b = A @ A.T, rng.random(200)
    first = solve_cut_qp(G, b, 100.0)
    second = solve_cut_qp(G.copy(), b.copy(), 100.0)
    assert first.alpha.tobytes() == second.alpha.tobytes()
    assert first.steps == second.steps
