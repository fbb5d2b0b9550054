# cython: language_level=3
"""Products with the matrix Phi whose row i is phi(x_i), the explicit degree-1/2 mapping of a
binary row (poly2_linear.pyx), without writing Phi out: row i is the constant (column 0, scale
s_c), its n_single[i] singles (scale s_1) and its pairs (scale s_2), as the condensed column ids
dims[row_ptr[i]:row_ptr[i+1]] (ids >= 1) that expand_rows and the dual solver share. These are
the data passes of the primal trust-region Newton solver (trust_region.py):

    z = Phi w,   g += Phi^T c,   Phi_I^T (Phi_I d)

(I: the rows whose L2 hinge loss is active; Lin, Weng & Keerthi 2008, section 2.1, the
Hessian of the L2-loss SVM is I + 2C Phi_I^T Phi_I). Each runs without the GIL.
"""
from libc.stdint cimport int32_t, int64_t

from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps


cdef inline double _row_dot(
    const double* w, const int32_t* dims, int64_t start, int64_t middle, int64_t end,
    double s_constant, double s_single, double s_pair,
) noexcept nogil:
    # phi(x_i) . w for the row whose singles are dims[start:middle] and pairs dims[middle:end].
    cdef double singles = 0.0, pairs = 0.0
    cdef int64_t p
    for p in range(start, middle):
        singles += w[dims[p]]
    for p in range(middle, end):
        pairs += w[dims[p]]
    return s_constant * w[0] + s_single * singles + s_pair * pairs


cdef inline void _row_add(
    double* out, const int32_t* dims, int64_t start, int64_t middle, int64_t end,
    double s_constant, double s_single, double s_pair, double c,
) noexcept nogil:
    # out += c phi(x_i).
    cdef double single = c * s_single, pair = c * s_pair
    cdef int64_t p
    out[0] += c * s_constant
    for p in range(start, middle):
        out[dims[p]] += single
    for p in range(middle, end):
        out[dims[p]] += pair


def phi_margins(
    const int64_t[::1] row_ptr, const int32_t[::1] dims, const int32_t[::1] n_single,
    double s_constant, double s_single, double s_pair, const double[::1] w, double[::1] z,
) -> None:
    """z[i] = phi(x_i) . w for every row."""
    cdef int64_t n_rows = row_ptr.shape[0] - 1, i, start, steps_left = CHECK_STEPS
    cdef const int32_t* d = &dims[0] if dims.shape[0] else NULL
    with nogil:
        for i in range(n_rows):
            count_steps(&steps_left, 1 + ((row_ptr[i + 1] - row_ptr[i]) >> 10))
            start = row_ptr[i]
            z[i] = _row_dot(&w[0], d, start, start + n_single[i], row_ptr[i + 1],
                            s_constant, s_single, s_pair)


def phi_transpose_add(
    const int64_t[::1] row_ptr, const int32_t[::1] dims, const int32_t[::1] n_single,
    double s_constant, double s_single, double s_pair, const int64_t[::1] rows,
    const double[::1] c, double[::1] out,
) -> None:
    """out += sum over the listed rows of c[r] phi(x_r) (c: one value per listed row)."""
    cdef int64_t n = rows.shape[0], a, i, start, steps_left = CHECK_STEPS
    cdef const int32_t* d = &dims[0] if dims.shape[0] else NULL
    with nogil:
        for a in range(n):
            i = rows[a]
            count_steps(&steps_left, 1 + ((row_ptr[i + 1] - row_ptr[i]) >> 10))
            start = row_ptr[i]
            _row_add(&out[0], d, start, start + n_single[i], row_ptr[i + 1],
                     s_constant, s_single, s_pair, c[a])


def phi_gram_product(
    const int64_t[::1] row_ptr, const int32_t[::1] dims, const int32_t[::1] n_single,
    double s_constant, double s_single, double s_pair, const int64_t[::1] rows,
    const double[::1] v, double[::1] out,
) -> None:
    """out = Phi_I^T (Phi_I v) over the listed rows I, one pass: each row's phi(x_r) . v is
    added back along phi(x_r) while the row is in cache."""
    cdef int64_t n = rows.shape[0], a, i, start, middle, end, k, steps_left = CHECK_STEPS
    cdef const int32_t* d = &dims[0] if dims.shape[0] else NULL
    cdef double t
    with nogil:
        for k in range(out.shape[0]):
            out[k] = 0.0
        for a in range(n):
            i = rows[a]
            count_steps(&steps_left, 1 + ((row_ptr[i + 1] - row_ptr[i]) >> 9))
            start = row_ptr[i]
            middle = start + n_single[i]
            end = row_ptr[i + 1]
            t = _row_dot(&v[0], d, start, middle, end, s_constant, s_single, s_pair)
            _row_add(&out[0], d, start, middle, end, s_constant, s_single, s_pair, t)
