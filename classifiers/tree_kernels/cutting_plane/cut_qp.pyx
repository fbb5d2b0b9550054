# cython: language_level=3
"""The dual of the 1-slack cutting-plane SVM over its active cuts (Joachims 2006, SVM-perf;
Severyn & Moschitti 2010, Algorithm 2), solved to rounding:

    max_a  D(a) = l.a - 0.5 a'Ga,   a_j >= 0,   sum_j a_j <= C,

G (t x t) the Gram matrix of the cuts (symmetric positive semi-definite), l their losses.
A slack a_0 = C - sum_j a_j >= 0 with a zero cut (G row and column 0, l_0 = 0) turns the
feasible set into the simplex sum_{j=0..t} a_j = C, a >= 0, whose KKT conditions read: with
the gradient g = l - Ga, every a_j > 0 has g_j = max_k g_k. SMO on the simplex (Platt 1998;
second-order pair selection of Fan, Chen & Lin 2005): i = argmax g gains, j among a_j > 0
maximising (g_i - g_j)^2 / (G_ii + G_jj - 2 G_ij) loses
    delta = min(a_j, (g_i - g_j) / (G_ii + G_jj - 2 G_ij)),
g updated with columns i and j, until max g - min_{a_j > 0} g_j <= tol * max(1, max |l|,
max |g|). A final Newton step on the support S solves the KKT system (by LU)
    [G_SS 1; 1' 0] [a_S; -mu] = [l_S; C]
and is kept when it stays feasible and lowers the violation, so the answer is exact to
rounding. Ties go to the smallest index: the same input gives the same a.
"""
from dataclasses import dataclass

import numpy as np

from libc.math cimport fabs


@dataclass(frozen=True)
class CutQPResult:
    """The solution a, D(a), the final KKT violation, SMO steps and whether tol was met."""

    alpha: np.ndarray
    objective: float
    violation: float
    steps: int
    converged: bool


def solve_cut_qp(G, b, double C, alpha0=None, double tol=1e-12,
                 long max_steps=1_000_000) -> CutQPResult:
    """max l.a - 0.5 a'Ga over a >= 0, sum a <= C (see the module notes); alpha0: a feasible
    start (None: zeros), e.g. the previous iteration's solution with a 0 appended."""
    gram = np.ascontiguousarray(G, dtype=np.float64)
    losses = np.ascontiguousarray(b, dtype=np.float64).reshape(-1)
    t = losses.size
    if gram.shape != (t, t):
        raise ValueError(f"the Gram matrix is {gram.shape}, not ({t}, {t})")
    if not C > 0:
        raise ValueError(f"C must be positive, not {C}")
    start = np.zeros(t) if alpha0 is None else np.asarray(alpha0, dtype=np.float64).reshape(-1)
    if start.size != t or np.any(start < 0) or start.sum() > C * (1 + 1e-12):
        raise ValueError("the starting point must have t entries, >= 0, summing to at most C")
    H = np.zeros((t + 1, t + 1))
    H[1:, 1:] = gram
    lin = np.zeros(t + 1)
    lin[1:] = losses
    a = np.zeros(t + 1)
    a[1:] = start
    a[0] = max(0.0, C - start.sum())
    grad = lin - H @ a
    scale = max(1.0, float(np.abs(losses).max()) if t else 1.0)
    cdef long steps = _smo(H, a, grad, tol, scale, max_steps)
    violation = _violation(a, grad)
    polished = _polish(H, lin, a, C)
    if polished is not None:
        polished_grad = lin - H @ polished
        polished_violation = _violation(polished, polished_grad)
        if polished_violation <= violation:
            a, grad, violation = polished, polished_grad, polished_violation
    alpha = a[1:].copy()
    objective = float(losses @ alpha - 0.5 * alpha @ gram @ alpha)
    bound = tol * max(scale, float(np.abs(grad).max()))
    return CutQPResult(alpha, objective, float(violation), int(steps), bool(violation <= bound))


cdef long _smo(double[:, ::1] H, double[::1] a, double[::1] g, double tol, double scale,
               long max_steps) noexcept:
    cdef Py_ssize_t n = a.shape[0], k, i, j
    cdef long steps = 0
    cdef double top, low, gain, best, curvature, delta, largest
    with nogil:
        while steps < max_steps:
            i = 0
            largest = fabs(g[0])
            for k in range(1, n):
                if g[k] > g[i]:
                    i = k
                if fabs(g[k]) > largest:
                    largest = fabs(g[k])
            top = g[i]
            j = -1
            low = top
            best = -1.0
            for k in range(n):
                if a[k] <= 0.0 or k == i:
                    continue
                if g[k] < low:
                    low = g[k]
                if g[k] < top:
                    curvature = H[i, i] + H[k, k] - 2.0 * H[i, k]
                    if curvature <= 1e-12:
                        curvature = 1e-12
                    gain = (top - g[k]) * (top - g[k]) / curvature
                    if gain > best:
                        best = gain
                        j = k
            if j < 0 or top - low <= tol * (scale if scale > largest else largest):
                break
            curvature = H[i, i] + H[j, j] - 2.0 * H[i, j]
            if curvature <= 1e-12:
                curvature = 1e-12
            delta = (top - g[j]) / curvature
            if delta > a[j]:
                delta = a[j]
            a[i] += delta
            a[j] -= delta
            if a[j] < 0.0:
                a[j] = 0.0
            for k in range(n):
                g[k] -= delta * (H[k, i] - H[k, j])
            steps += 1
    return steps


def _violation(a: np.ndarray, grad: np.ndarray) -> float:
    support = a > 0.0
    if not support.any():
        return 0.0
    return float(grad.max() - grad[support].min())


def _polish(H: np.ndarray, lin: np.ndarray, a: np.ndarray, C: float) -> np.ndarray | None:
    # The Newton step on the support (module notes); None when it leaves the simplex.
    support = np.flatnonzero(a > 0.0)
    s = support.size
    system = np.zeros((s + 1, s + 1))
    system[:s, :s] = H[np.ix_(support, support)]
    system[:s, s] = 1.0
    system[s, :s] = 1.0
    rhs = np.append(lin[support], C)
    try:
        solution = np.linalg.solve(system, rhs)
    except np.linalg.LinAlgError:
        return None
    if (not np.all(np.isfinite(solution)) or np.any(solution[:s] < 0.0)
            or np.abs(system @ solution - rhs).max() > 1e-9 * max(1.0, np.abs(rhs).max())):
        return None
    polished = np.zeros_like(a)
    polished[support] = solution[:s]
    return polished
