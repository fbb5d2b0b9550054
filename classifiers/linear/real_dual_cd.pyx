# cython: language_level=3
"""Dual coordinate descent for a linear SVM on real-valued rows (the solver of `linear` and
`poly2-linear` when their features hold real values: phi(x) written out explicitly).

Hsieh, Chang, Lin, Keerthi & Sundararajan 2008, "A dual coordinate descent method for
large-scale linear SVM", ICML, Algorithm 3 with shrinking (liblinear's solve_l2r_l1l2_svc):

    min_a 0.5 a^T (Q + D) a - e^T a,   0 <= a_i <= U,   Q_ij = y_i y_j x_i . x_j,
    L1 loss: D = 0, U = C;   L2 loss: D_ii = 1 / (2C), U = infinity,

one coordinate at a time in a random order: G = y_i w . x_i - 1 + D_ii a_i, projected gradient
PG, a_i <- min(max(a_i - G / (Q_ii + D_ii), 0), U), w += (a_i - a_i^old) y_i x_i; coordinates
at a bound whose gradient points outwards beyond the last pass's extremes are shrunk, and the
pass stops when max PG - min PG <= eps over all coordinates (shrinking undone before the last
check), as liblinear does.
"""
from libc.math cimport INFINITY, fabs
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t

import numpy as np

from polyparse.classifiers.random_order cimport shuffle_from_front
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts


def solve_dual_cd_real(
    const int64_t[::1] indptr,
    const int32_t[::1] indices,
    const double[::1] values,
    const int8_t[::1] y,
    int n_columns,
    double C,
    bint l2_loss,
    double eps,
    int64_t max_iter,
    uint64_t seed,
):
    """Train w on the rows (CSR: row i holds values[k] at column indices[k], k in
    indptr[i]..indptr[i+1]) with labels y[i] in {+1, -1}. Returns (w float64 (n_columns,),
    alpha float64 (rows,), passes, converged, projected-gradient gap of the last pass)."""
    cdef Py_ssize_t l = y.shape[0]
    if indptr.shape[0] != l + 1:
        raise ValueError("indptr must delimit one row per label")
    w_array = np.zeros(max(n_columns, 1), dtype=np.float64)
    alpha_array = np.zeros(l, dtype=np.float64)
    QD_array = np.zeros(l, dtype=np.float64)
    order_array = np.arange(l, dtype=np.int64)
    cdef double[::1] w = w_array
    cdef double[::1] alpha = alpha_array
    cdef double[::1] QD = QD_array
    cdef int64_t[::1] order = order_array
    cdef double diag = 0.5 / C if l2_loss else 0.0
    cdef double upper = INFINITY if l2_loss else C
    cdef double G, PG, old, delta, PGmax_old = INFINITY, PGmin_old = -INFINITY
    cdef double PGmax_new = 0.0, PGmin_new = 0.0
    cdef int64_t passes = 0, active = l, s, i, k, steps_left = CHECK_STEPS
    cdef uint64_t state = seed
    cdef bint converged = False
    cdef int8_t yi
    for i in range(l):
        QD[i] = diag
        for k in range(indptr[i], indptr[i + 1]):
            QD[i] += values[k] * values[k]
    with nogil:
        long_input_starts(l)
        while passes < max_iter:
            PGmax_new = -INFINITY
            PGmin_new = INFINITY
            shuffle_from_front(&order[0], active, &state)
            s = 0
            while s < active:
                count_steps(&steps_left, 1)
                i = order[s]
                yi = y[i]
                G = 0.0
                for k in range(indptr[i], indptr[i + 1]):
                    G += w[indices[k]] * values[k]
                G = G * yi - 1.0 + alpha[i] * diag
                PG = 0.0
                if alpha[i] == 0.0:
                    if G > PGmax_old:
                        active -= 1
                        order[s], order[active] = order[active], order[s]
                        continue
                    elif G < 0.0:
                        PG = G
                elif alpha[i] == upper:
                    if G < PGmin_old:
                        active -= 1
                        order[s], order[active] = order[active], order[s]
                        continue
                    elif G > 0.0:
                        PG = G
                else:
                    PG = G
                PGmax_new = max(PGmax_new, PG)
                PGmin_new = min(PGmin_new, PG)
                if fabs(PG) > 1.0e-12:
                    old = alpha[i]
                    alpha[i] = min(max(alpha[i] - G / QD[i], 0.0), upper)
                    delta = (alpha[i] - old) * yi
                    for k in range(indptr[i], indptr[i + 1]):
                        w[indices[k]] += delta * values[k]
                s += 1
            passes += 1
            if PGmax_new - PGmin_new <= eps:
                if active == l:
                    converged = True
                    break
                active = l
                PGmax_old = INFINITY
                PGmin_old = -INFINITY
                continue
            PGmax_old = PGmax_new if PGmax_new > 0 else INFINITY
            PGmin_old = PGmin_new if PGmin_new < 0 else -INFINITY
        long_input_ends(l)
    return w_array[:n_columns], alpha_array, int(passes), bool(converged), PGmax_new - PGmin_new
