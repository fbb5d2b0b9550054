"""The primal solver of `linear` and `poly2-linear` (solver="primal"): a trust-region Newton
method on the L2-regularised L2-loss SVM over the explicit mapping phi (liblinear's `-s 2`).

Lin, Weng & Keerthi 2008, "Trust region Newton method for large-scale logistic regression",
JMLR 9, Algorithm 1 (trust region update, eta_0 = 1e-4, eta_1 = 0.25, eta_2 = 0.75,
sigma_1 = 0.25, sigma_2 = 0.5, sigma_3 = 4) and Algorithm 2 (conjugate gradient inside the
region, stopped at ||r|| <= 0.1 ||g||), section 5 for the L2-loss SVM:

    f(w) = 0.5 w.w + C sum_i max(0, 1 - y_i w.phi(x_i))^2
    g(w) = w + 2C Phi_I^T (Phi_I w - y_I),   H s = s + 2C Phi_I^T (Phi_I s),
    I = {i : y_i w.phi(x_i) < 1},

stopped as liblinear stops it: ||g(w)|| <= eps max(min(#pos, #neg), 1) / l ||g(0)||. (Tried
on kwdlc_dep train.20k and left out: the diagonal preconditioner of liblinear 2.20-2.30, Hsia,
Chiang & Lin 2018, shrank the region for good after one overshooting step, P(w) 12.33 after
60 steps; liblinear >= 2.40's line search instead of the region, Galli & Lin 2021, P(w) 10.57
after 100 steps, against 10.30 for this method.)

Phi is never written out: the data passes are products with Phi (PhiRows: phi_products.pyx
over the condensed ids of binary rows, or a scipy CSR matrix of real-valued rows).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from polyparse.classifiers.linear.phi_products import (
    phi_gram_product,
    phi_margins,
    phi_transpose_add,
)

ETA = (1e-4, 0.25, 0.75)
SIGMA = (0.25, 0.5, 4.0)
CG_TOLERANCE = 0.1


class CondensedPhi:
    """Phi of binary rows as the dual solver holds them: row i's condensed column ids
    dims[row_ptr[i]:row_ptr[i+1]], its n_single[i] singles first, then its pairs; the constant
    is column 0; each kind of column has its scale (the square roots of squared_scales)."""

    def __init__(self, row_ptr: np.ndarray, dims: np.ndarray, n_single: np.ndarray,
                 n_columns: int, squared_scales: tuple[float, float, float]) -> None:
        self.row_ptr, self.dims, self.n_single = row_ptr, dims, n_single
        self.shape = (row_ptr.size - 1, n_columns)
        self.squared_scales = squared_scales
        self.scales = tuple(float(np.sqrt(s)) for s in squared_scales)

    def margins(self, w: np.ndarray) -> np.ndarray:
        z = np.empty(self.shape[0])
        phi_margins(self.row_ptr, self.dims, self.n_single, *self.scales, w, z)
        return z

    def transpose_add(self, rows: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
        phi_transpose_add(self.row_ptr, self.dims, self.n_single, *self.scales, rows, c, out)

    def gram_product(self, rows: np.ndarray, v: np.ndarray) -> np.ndarray:
        out = np.empty(self.shape[1])
        phi_gram_product(self.row_ptr, self.dims, self.n_single, *self.scales, rows, v, out)
        return out


class ExplicitPhi:
    """Phi written out as a scipy CSR matrix (real-valued rows: real_mapping's columns)."""

    def __init__(self, matrix: Any) -> None:
        self.matrix = matrix.tocsr()
        self.shape = self.matrix.shape

    def margins(self, w: np.ndarray) -> np.ndarray:
        return np.asarray(self.matrix @ w, dtype=np.float64)

    def transpose_add(self, rows: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
        out += self.matrix[rows].T @ c

    def gram_product(self, rows: np.ndarray, v: np.ndarray) -> np.ndarray:
        part = self.matrix[rows]
        return np.asarray(part.T @ (part @ v), dtype=np.float64)


PhiRows = CondensedPhi | ExplicitPhi


class L2LossObjective:
    """f, g and H s of the L2-regularised L2-loss SVM (module notes) for labels y in {+1, -1};
    the gradient and the Hessian products use the active rows I of the last evaluated w."""

    def __init__(self, phi: PhiRows, y: np.ndarray, C: float) -> None:
        self.phi, self.y, self.C = phi, y.astype(np.float64), C
        self.z = np.zeros(phi.shape[0])
        self.active = np.arange(phi.shape[0], dtype=np.int64)

    def value(self, w: np.ndarray) -> float:
        """f(w); remembers Phi w for gradient()."""
        self.z = self.phi.margins(w)
        loss = np.maximum(0.0, 1.0 - self.y * self.z)
        return float(0.5 * w @ w + self.C * (loss @ loss))

    def gradient(self, w: np.ndarray) -> np.ndarray:
        """g(w) at the w of the last value(); fixes I for hessian_product()."""
        self.active = np.flatnonzero(self.y * self.z < 1.0).astype(np.int64)
        g = w.copy()
        residual = 2.0 * self.C * (self.z[self.active] - self.y[self.active])
        self.phi.transpose_add(self.active, residual, g)
        return g

    def hessian_product(self, s: np.ndarray) -> np.ndarray:
        return s + 2.0 * self.C * self.phi.gram_product(self.active, s)


@dataclass
class PrimalResult:
    """What the trust-region Newton method ends with."""

    w: np.ndarray
    objective: float
    newton_iterations: int
    cg_iterations: int
    converged: bool
    # ||g(w)|| / ||g(0)||, and the bound the stopping rule puts on it
    gradient_ratio: float
    tolerance: float


def _conjugate_gradient(objective: L2LossObjective, g: np.ndarray,
                        delta: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Algorithm 2: s approximately minimising g.s + 0.5 s.Hs inside ||s|| <= delta; (s, the
    residual r = -g - Hs, its iterations)."""
    s = np.zeros_like(g)
    r = -g
    d = r.copy()
    rr = float(r @ r)
    tolerance = CG_TOLERANCE * np.sqrt(float(g @ g))
    iterations = 0
    while np.sqrt(rr) > tolerance:
        iterations += 1
        Hd = objective.hessian_product(d)
        alpha = rr / float(d @ Hd)
        s += alpha * d
        if np.sqrt(float(s @ s)) > delta:
            s -= alpha * d
            tau = _boundary_step(s, d, delta)
            s += tau * d
            r -= tau * Hd
            break
        r -= alpha * Hd
        rr_new = float(r @ r)
        d = r + (rr_new / rr) * d
        rr = rr_new
    return s, r, iterations


def _boundary_step(s: np.ndarray, d: np.ndarray, delta: float) -> float:
    """tau >= 0 with ||s + tau d|| = delta (the positive root, computed stably)."""
    sd, dd, ss = float(s @ d), float(d @ d), float(s @ s)
    radius = np.sqrt(max(sd * sd + dd * (delta * delta - ss), 0.0))
    if sd >= 0:
        return (delta * delta - ss) / (sd + radius)
    return (radius - sd) / dd


def _next_radius(delta: float, snorm: float, actual: float, predicted: float,
                 alpha: float) -> float:
    """Algorithm 1's update of the trust region from the actual and predicted reductions
    (alpha: the minimiser of the quadratic interpolating f along s)."""
    if actual < ETA[0] * predicted:
        return min(max(alpha, SIGMA[0]) * snorm, SIGMA[1] * delta)
    if actual < ETA[1] * predicted:
        return max(SIGMA[0] * delta, min(alpha * snorm, SIGMA[1] * delta))
    if actual < ETA[2] * predicted:
        return max(SIGMA[0] * delta, min(alpha * snorm, SIGMA[2] * delta))
    return max(delta, min(alpha * snorm, SIGMA[2] * delta))


def solve_primal_newton(phi: PhiRows, y: np.ndarray, C: float, eps: float,
                        max_iter: int) -> PrimalResult:
    """min_w f(w) from w = 0 by Algorithm 1 (module notes), at most max_iter Newton steps;
    y holds +1 and -1."""
    objective = L2LossObjective(phi, y, C)
    positives = int(np.count_nonzero(y > 0))
    tolerance = eps * max(min(positives, y.size - positives), 1) / max(y.size, 1)
    w = np.zeros(phi.shape[1])
    f = objective.value(w)
    g = objective.gradient(w)
    g0 = float(np.linalg.norm(g))
    delta = g0
    newton = cg_total = 0
    converged = g0 == 0.0
    while not converged and newton < max_iter:
        s, r, cg = _conjugate_gradient(objective, g, delta)
        cg_total += cg
        w_new = w + s
        gs = float(g @ s)
        predicted = -0.5 * (gs - float(s @ r))
        f_new = objective.value(w_new)
        actual = f - f_new
        snorm = float(np.linalg.norm(s))
        if newton == 0:
            delta = min(delta, snorm)
        curvature = f_new - f - gs
        alpha = SIGMA[2] if curvature <= 0 else max(SIGMA[0], -0.5 * gs / curvature)
        delta = _next_radius(delta, snorm, actual, predicted, alpha)
        if actual > ETA[0] * predicted:
            newton += 1
            w, f = w_new, f_new
            g = objective.gradient(w)
            converged = float(np.linalg.norm(g)) <= tolerance * g0
        if not converged and _stalled(f, actual, predicted):
            break
    ratio = float(np.linalg.norm(g)) / g0 if g0 else 0.0
    return PrimalResult(w, f, newton, cg_total, converged, ratio, tolerance)


def _stalled(f: float, actual: float, predicted: float) -> bool:
    """No progress left to make in floating point (as liblinear's tron stops)."""
    if actual <= 0 and predicted <= 0:
        return True
    return abs(actual) <= 1e-12 * abs(f) and abs(predicted) <= 1e-12 * abs(f)
