# cython: language_level=3
"""The dense QP over the active cuts of the 1-slack cutting-plane SVM.

Problem (Joachims 2006, "Training linear SVMs in linear time", the dual of OP 4; Yu & Joachims
2008, "Training structural SVMs with kernels using sampled cuts"; Severyn & Moschitti 2010,
"Large-scale support vector learning with structural kernels", uSVM): over the cuts j = 1..t,

    max_a  D(a) = b.a - 0.5 a'Ga,   a_j >= 0,   sum_j a_j <= C,

with G the (symmetric positive semi-definite) Gram matrix of the cuts and b their offsets.

Method: a slack variable a_s = C - sum_j a_j >= 0 (a zero cut: zero row and column of G,
b_s = 0) turns the feasible set into the simplex sum a = C, a >= 0 over t + 1 variables.
With the gradient g = b - G a (g_s = 0), a is optimal iff every a_k > 0 has g_k = max g.
SMO on the simplex (Platt 1998), working pair chosen as in Fan, Chen & Lin 2005, "Working set
selection using second order information for training SVM", JMLR 6 (WSS 2):

    i = argmax_k g_k                                           (the variable to increase),
    j = argmax { (g_i - g_k)^2 / c_ik : a_k > 0, g_k < g_i }   (the variable to decrease),
    c_ik = G_ii + G_kk - 2 G_ik (1e-12 when <= 0),
    delta = min(a_j, (g_i - g_j) / c_ij),   a_i += delta,   a_j -= delta,
    g -= delta (G[:, i] - G[:, j])                             (O(t) per step),

ties broken by the smallest index (the slack comes after the cuts), so results are
deterministic. SMO stops when the violation

    max_k g_k - min {g_k : a_k > 0}  <=  tol * max(1, max|b|, max|g|, max|G| * sum_j a_j)

or after max_steps steps. The scale is relative because g = b - G a cannot be computed more
exactly than the size of its terms: max|b|, max|g|, and max|G| * sum_j a_j, which bounds
sum_l |G_kl| a_l (with a large C the terms of G a can be far larger than g itself).

Polish (an active-set step, as in the primal active-set method of Nocedal & Wright, Numerical
Optimization, section 16.5): on the support S = {k : a_k > 0} (with the slack when positive) the
optimum solves the equality-constrained KKT system

    K [a_S; mu] = [b_S; C],   K = [G_SS 1; 1' 0]

(mu = max g, the multiplier of sum a = C), solved by least squares since G_SS may be singular
(duplicate cuts, rank-deficient Gram matrices). A feasible solution is the polished point. An
infeasible one: move from a towards it up to the first bound (D is concave and rises along the
segment), drop the variable that reaches 0 and solve again. An inconsistent system: the
residual r = [r_S; r_mu] of the least-squares solution lies in the null space of K, so
G_SS r_S = -r_mu 1 and 1'r_S = 0, and D rises linearly along r_S (slope |r|^2): move along it up
to the first bound and drop that variable. At most MAX_POLISH_DROPS drops per polish.

SMO runs in chunks (2 (t + 1) steps, doubling up to max(SMO_CHUNK, 20 (t + 1))) with a polish
after each; the polished point replaces SMO's when its violation, from a fresh g = b - G a, is no
larger, or, before the last chunk, when its D is no lower (SMO then goes on from it). The last
polish makes the result exact to rounding once SMO has found the support, and the polish between
chunks rescues the slow linear convergence of SMO on singular G with large C (there SMO alone
used up a million steps on t = 300, rank 40, C = 1e5). `steps` counts SMO steps only.
"""
from dataclasses import dataclass

from libc.math cimport fabs

import numpy as np

cdef double CURVATURE_FLOOR = 1e-12
cdef Py_ssize_t SMO_CHUNK = 10_000
# At most this many ratio-test steps (each drops a variable from the support) per polish.
cdef int MAX_POLISH_DROPS = 10


@dataclass(frozen=True)
class CutQPResult:
    """The solution of one cut QP: alpha (float64, shape (t,)), D(alpha), the final KKT
    violation (max_k g_k - min over the support of g_k, slack included), the number of SMO steps
    and whether the violation met the stopping rule."""

    alpha: np.ndarray
    objective: float
    violation: float
    steps: int
    converged: bool


cdef Py_ssize_t _smo(const double* G, const double* diag, Py_ssize_t t, double* a, double* g,
                     double C, double tol, double b_scale, double G_scale,
                     Py_ssize_t max_steps) noexcept nogil:
    # SMO on the simplex sum a = C over a[0 .. t] (a[t] the slack); g[0 .. t] the gradient,
    # G row-major t x t. Returns the number of steps taken.
    cdef Py_ssize_t n = t + 1, k, i, j, steps = 0
    cdef double g_i, g_low, g_abs, scale, cut_sum, gap, value, best, curvature, c_ij, delta
    cdef double G_ik, G_jk
    cdef const double* row_i
    cdef const double* row_j
    while True:
        i = 0
        g_i = g[0]
        for k in range(1, n):
            if g[k] > g_i:
                g_i = g[k]
                i = k
        g_low = g_i
        g_abs = 0.0
        cut_sum = 0.0
        for k in range(n):
            if fabs(g[k]) > g_abs:
                g_abs = fabs(g[k])
            if a[k] > 0.0:
                if g[k] < g_low:
                    g_low = g[k]
                if k < t:
                    cut_sum += a[k]
        scale = 1.0
        if b_scale > scale:
            scale = b_scale
        if g_abs > scale:
            scale = g_abs
        if G_scale * cut_sum > scale:
            scale = G_scale * cut_sum
        gap = g_i - g_low
        if gap <= tol * scale or steps >= max_steps:
            return steps
        j = -1
        best = 0.0
        c_ij = CURVATURE_FLOOR
        row_i = G + i * t if i < t else NULL
        for k in range(n):
            if a[k] > 0.0 and g[k] < g_i:
                curvature = diag[i] + diag[k]
                if row_i != NULL and k < t:
                    curvature -= 2.0 * row_i[k]
                if curvature <= 0.0:
                    curvature = CURVATURE_FLOOR
                value = (g_i - g[k]) * (g_i - g[k]) / curvature
                if value > best:
                    best = value
                    j = k
                    c_ij = curvature
        if j < 0:
            return steps
        delta = (g_i - g[j]) / c_ij
        if delta >= a[j]:
            delta = a[j]
            a[i] += delta
            a[j] = 0.0
        else:
            if a[i] + delta == a[i] and a[j] - delta == a[j]:
                return steps
            a[i] += delta
            a[j] -= delta
        row_j = G + j * t if j < t else NULL
        for k in range(t):
            G_ik = row_i[k] if row_i != NULL else 0.0
            G_jk = row_j[k] if row_j != NULL else 0.0
            g[k] -= delta * (G_ik - G_jk)
        steps += 1


def _objective(G: np.ndarray, b: np.ndarray, a: np.ndarray) -> float:
    alpha = a[:len(b)]
    return float(b @ alpha - 0.5 * alpha @ (G @ alpha))


def _polish_on_support(G: np.ndarray, b: np.ndarray, C: float, a: np.ndarray) -> np.ndarray:
    # Active-set steps on the face {sum a = C, a_k = 0 off the support S}, each raising D:
    # - K = [G_SS 1; 1' 0] x = [b_S; C] consistent: its solution p maximises D on the face; if p
    #   is feasible, return it, else move from a towards p up to the first bound (D is concave
    #   and rises along the segment) and drop the variable that reaches 0;
    # - inconsistent (G_SS singular): the least-squares residual r = [r_S; r_mu] lies in the null
    #   space of K, so G_SS r_S = -r_mu 1 and 1'r_S = 0: D is linear along r_S with slope
    #   r'[b_S; C] = |r|^2 > 0; move along r_S up to the first bound and drop that variable.
    t = len(b)
    G_ext = np.zeros((t + 1, t + 1))
    G_ext[:t, :t] = G
    b_ext = np.append(b, 0.0)
    a = a.copy()
    for _ in range(MAX_POLISH_DROPS + 1):
        support = np.flatnonzero(a > 0)
        m = support.size
        if m <= 1:
            return a
        system = np.ones((m + 1, m + 1))
        system[:m, :m] = G_ext[np.ix_(support, support)]
        system[m, m] = 0.0
        rhs = np.append(b_ext[support], C)
        # The size of the terms of a residual at a solution with a_S <= C and |mu| <= max|b| +
        # max|G| C. LU first (several times cheaper than the SVD of lstsq), lstsq when K is
        # singular or the LU solution is no solution.
        size = max(1.0, np.abs(rhs).max(), np.abs(system).max() * C)
        try:
            solution = np.linalg.solve(system, rhs)
            residual = rhs - system @ solution
            solved = np.isfinite(solution).all() and np.abs(residual).max() <= 1e-9 * size
        except np.linalg.LinAlgError:
            solved = False
        if not solved:
            solution = np.linalg.lstsq(system, rhs, rcond=None)[0]
            residual = rhs - system @ solution
        direction = np.zeros(t + 1)
        if np.abs(residual).max() > 1e-9 * size:
            direction[support] = residual[:m]
        else:
            target = np.zeros(t + 1)
            target[support] = solution[:m]
            here = _objective(G, b, a)
            if _objective(G, b, target) < here - 1e-14 * max(1.0, abs(here)):
                return a
            if (target >= 0.0).all():
                return target * (C / target.sum())
            direction = target - a
        rows = support[direction[support] < 0]
        if rows.size == 0:
            return a
        ratios = a[rows] / -direction[rows]
        step = ratios.min()
        if not np.isfinite(step):
            return a
        moved = a + step * direction
        moved[rows[ratios <= step]] = 0.0
        np.maximum(moved, 0.0, out=moved)
        moved *= C / moved.sum()
        if _objective(G, b, moved) < _objective(G, b, a):  # rounding in a near-null direction
            return a
        a = moved
    return a


def _violation(g: np.ndarray, a: np.ndarray) -> float:
    return float(g.max() - g[a > 0].min())


def _scale(G: np.ndarray, b: np.ndarray, g: np.ndarray, a: np.ndarray, t: int) -> float:
    G_scale = float(np.abs(G).max()) if t else 0.0
    b_scale = float(np.abs(b).max()) if t else 0.0
    return max(1.0, b_scale, float(np.abs(g).max()), G_scale * float(a[:t].sum()))


def solve_cut_qp(G: np.ndarray, b: np.ndarray, C: float, alpha0: np.ndarray | None = None,
                 tol: float = 1e-12, max_steps: int = 1_000_000) -> CutQPResult:
    """Maximise b.a - 0.5 a'Ga subject to a >= 0, sum a <= C (the module docstring gives the
    method). G: symmetric PSD (t, t) float64 Gram matrix of the cuts, b: (t,) offsets, alpha0:
    a feasible warm start (None: zeros), e.g. the previous solution with a 0 appended."""
    G = np.ascontiguousarray(G, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square matrix, got shape {G.shape}")
    if b.shape != (G.shape[0],):
        raise ValueError(f"b must have shape ({G.shape[0]},) to match G, got {b.shape}")
    if not (np.isfinite(G).all() and np.isfinite(b).all()):
        raise ValueError("G and b must be finite")
    C = float(C)
    if not (C > 0.0 and np.isfinite(C)):
        raise ValueError(f"C must be positive and finite, got {C}")
    if not tol >= 0.0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    cdef Py_ssize_t t = G.shape[0]
    a = np.zeros(t + 1, dtype=np.float64)
    if alpha0 is None:
        a[t] = C
    else:
        alpha0 = np.asarray(alpha0, dtype=np.float64)
        if alpha0.shape != (t,):
            raise ValueError(f"alpha0 must have shape ({t},), got {alpha0.shape}")
        if not (np.isfinite(alpha0).all() and (alpha0 >= 0.0).all()):
            raise ValueError("alpha0 must be finite and >= 0")
        total = float(alpha0.sum())
        if total > C * (1.0 + 1e-12):
            raise ValueError(f"alpha0 must satisfy sum <= C, got sum {total} > C = {C}")
        a[:t] = alpha0 * (C / total) if total > C else alpha0
        a[t] = max(C - float(a[:t].sum()), 0.0)

    g = np.zeros(t + 1, dtype=np.float64)
    g[:t] = b - G @ a[:t]
    diag = np.zeros(t + 1, dtype=np.float64)
    diag[:t] = np.diagonal(G)
    cdef double b_scale = float(np.abs(b).max()) if t else 0.0
    cdef double G_scale = float(np.abs(G).max()) if t else 0.0
    cdef double[:, ::1] G_view = G if t else np.zeros((1, 1))
    cdef double[::1] diag_view = diag
    cdef double[::1] a_view = a
    cdef double[::1] g_view = g
    cdef double c_tol = tol
    cdef Py_ssize_t chunk, taken, steps = 0
    cdef Py_ssize_t longest = max(SMO_CHUNK, 20 * (t + 1)), chunk_size = 2 * (t + 1)
    cdef bint final = False
    while not final:
        chunk = min(max_steps - steps, chunk_size)
        chunk_size = min(2 * chunk_size, longest)
        with nogil:
            taken = _smo(&G_view[0, 0], &diag_view[0], t, &a_view[0], &g_view[0], C, c_tol,
                         b_scale, G_scale, chunk)
        steps += taken
        # SMO stopped by itself (converged or no representable step) or used up max_steps.
        final = taken < chunk or steps >= max_steps
        g[:t] = b - G @ a[:t]
        violation = _violation(g, a)
        polished = _polish_on_support(G, b, C, a)
        polished_g = np.zeros(t + 1)
        polished_g[:t] = b - G @ polished[:t]
        polished_violation = _violation(polished_g, polished)
        if polished_violation <= violation or (
            not final and _objective(G, b, polished) >= _objective(G, b, a)
        ):
            a[:] = polished
            g[:] = polished_g
            violation = polished_violation
        if violation <= tol * _scale(G, b, g, a, t):
            final = True

    alpha = a[:t].copy()
    objective = float(b @ alpha - 0.5 * alpha @ (G @ alpha))
    converged = violation <= tol * _scale(G, b, g, a, t)
    return CutQPResult(alpha, objective, violation, int(steps), bool(converged))
