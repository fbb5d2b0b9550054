# cython: language_level=3
"""Explicit low-degree polynomial mapping + linear SVM trained by dual coordinate descent.

Chang, Hsieh, Chang, Ringgaard & Lin 2010, "Training and testing low-degree polynomial data
mappings via linear SVM", JMLR 11, section 2, with binary x (x_i^2 = x_i):

    (gamma x.y + coef0)^2 = coef0^2 + (2 gamma coef0 + gamma^2) sum_i x_i y_i
                            + 2 gamma^2 sum_{i<j} x_i x_j y_i y_j
    => phi(x) = [coef0, sqrt(2 gamma coef0 + gamma^2) x_i, sqrt(2) gamma x_i x_j (i < j)]

and for degree 1, (gamma x.y + coef0) => phi(x) = [sqrt(coef0), sqrt(gamma) x_i].

Condensed index (Chang et al. 2010, section 3): only the singles and pairs that occur in training
rows get a weight row, found through a KeyIndex on key (r << 32) | s, r <= s (r == s: single r).

Weights are kept pre-multiplied by the mapping's scale ("effective weights" v_d = s_d w_d), so
w . phi(x) is a plain sum of v over the dimensions present, and a dual step w += delta phi(x_i)
becomes v_d += delta s_d^2.
"""
from libc.math cimport INFINITY, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from classifiers.scorer cimport BinaryScorer, no_scores
from features.key_index cimport KeyIndex

cdef enum:
    STACK_FEATURES = 256

ctypedef fused weight_t:
    float
    double


cdef inline void _add_dense(
    const weight_t* values, int64_t row, int n_outputs, double* out
) noexcept nogil:
    cdef const weight_t* w = values + row * n_outputs
    cdef int k
    for k in range(n_outputs):
        out[k] += w[k]


cdef inline void _add_sparse(
    const weight_t* values, const int64_t* row_ptr, const int32_t* columns, int64_t row, double* out
) noexcept nogil:
    cdef int64_t p
    for p in range(row_ptr[row], row_ptr[row + 1]):
        out[columns[p]] += values[p]


cdef void _score(
    Poly2LinearScorer scorer, const weight_t* values, const weight_t* intercept,
    const int32_t* feats, int n, double* out,
) noexcept nogil:
    cdef int32_t stack_seen[STACK_FEATURES]
    cdef int32_t* seen = stack_seen
    cdef int n_outputs = scorer.n_outputs
    cdef bint sparse = scorer.sparse
    cdef bint pairs = scorer.degree == 2
    cdef const int64_t* row_ptr = scorer.row_ptr
    cdef const int32_t* columns = scorer.columns
    cdef int i, j, k, m = 0
    cdef int32_t r, row
    cdef uint64_t high
    for k in range(n_outputs):
        out[k] = intercept[k]
    if pairs and n > STACK_FEATURES:
        seen = <int32_t*>malloc(n * sizeof(int32_t))
        if seen == NULL:
            no_scores(out, n_outputs)
            return
    for i in range(n):
        r = feats[i]
        row = scorer.index.get(pair_key(r, r))
        if row >= 0:
            if sparse:
                _add_sparse(values, row_ptr, columns, row, out)
            else:
                _add_dense(values, row, n_outputs, out)
            if pairs:
                seen[m] = r
                m += 1
    for i in range(m):
        high = <uint64_t>seen[i] << 32
        for j in range(i + 1, m):
            row = scorer.index.get(high | <uint64_t>(<uint32_t>seen[j]))
            if row >= 0:
                if sparse:
                    _add_sparse(values, row_ptr, columns, row, out)
                else:
                    _add_dense(values, row, n_outputs, out)
    if seen != stack_seen:
        free(seen)


cdef class Poly2LinearScorer(BinaryScorer):
    def __init__(
        self, KeyIndex index, int degree, intercept,
        weights=None, row_ptr=None, columns=None, values=None,
    ):
        """Dense: weights (len(index), K). Sparse: row_ptr (len(index)+1), columns, values (nnz)."""
        if degree not in (1, 2):
            raise ValueError("degree must be 1 or 2")
        intercept = np.ascontiguousarray(intercept)
        if (intercept.ndim != 1 or intercept.shape[0] < 1
                or intercept.dtype not in (np.float32, np.float64)):
            raise ValueError("intercept must be a float32/float64 vector of length n_outputs")
        n_outputs = intercept.shape[0]
        n_rows = len(index)
        self.index = index
        self.degree = degree
        self.n_outputs = n_outputs
        self.single_precision = intercept.dtype == np.float32
        self.sparse = weights is None
        if self.sparse:
            row_ptr = np.ascontiguousarray(row_ptr, dtype=np.int64)
            columns = np.ascontiguousarray(columns, dtype=np.int32)
            values = np.ascontiguousarray(values)
            if (row_ptr.shape != (n_rows + 1,) or row_ptr[0] != 0
                    or row_ptr[n_rows] != columns.shape[0]):
                raise ValueError("row_ptr must delimit one slice of columns per index row")
            if np.any(np.diff(row_ptr) < 0):
                raise ValueError("row_ptr must be non-decreasing")
            if values.shape != columns.shape or values.dtype != intercept.dtype:
                raise ValueError("values must match columns in length and intercept in dtype")
            if columns.size and (columns.min() < 0 or columns.max() >= n_outputs):
                raise ValueError("columns must lie in 0 .. n_outputs-1")
            self.arrays = {
                "intercept": intercept, "row_ptr": row_ptr, "columns": columns, "values": values
            }
            self.row_ptr = <const int64_t*><size_t>row_ptr.ctypes.data
            self.columns = <const int32_t*><size_t>columns.ctypes.data
        else:
            values = np.ascontiguousarray(weights)
            if values.shape != (n_rows, n_outputs) or values.dtype != intercept.dtype:
                raise ValueError(
                    "weights must be (len(index), n_outputs) with the intercept's dtype"
                )
            self.arrays = {"intercept": intercept, "weights": values}
        self.values = <const void*><size_t>values.ctypes.data
        self.intercept = <const void*><size_t>intercept.ctypes.data

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        if self.single_precision:
            _score(self, <const float*>self.values, <const float*>self.intercept, feats, n, out)
        else:
            _score(self, <const double*>self.values, <const double*>self.intercept, feats, n, out)


def expand_rows(
    const int64_t[::1] indptr, const int32_t[::1] indices, int degree, int64_t capacity=0
):
    """Condensed expansion of every row of a BinaryMatrix.

    Returns (keys, row_ptr, dims, n_single): keys (uint64, D) of the singles and pairs in order of
    first occurrence; row i's expanded dimensions are dims[row_ptr[i]:row_ptr[i+1]] (ids into
    keys), its n_single[i] singles first, then its pairs (i < j in feature order).
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, row
    cdef int64_t length, total = 0
    row_ptr_array = np.zeros(n_rows + 1, dtype=np.int64)
    n_single_array = np.zeros(n_rows, dtype=np.int32)
    cdef int64_t[::1] row_ptr = row_ptr_array
    cdef int32_t[::1] n_single = n_single_array
    for row in range(n_rows):
        length = indptr[row + 1] - indptr[row]
        n_single[row] = <int32_t>length
        total += length + (length * (length - 1) // 2 if degree == 2 else 0)
        row_ptr[row + 1] = total
    if total >= 2**31 - 1:
        raise ValueError(f"{total} expanded dimensions exceed the int32 range")
    dims_array = np.empty(total, dtype=np.int32)
    cdef int32_t[::1] dims = dims_array
    cdef KeyIndex index = KeyIndex(capacity if capacity > 0 else max(16, total // 8))
    cdef int64_t p, start, i, j
    cdef int32_t r
    cdef uint64_t high
    with nogil:
        for row in range(n_rows):
            p = row_ptr[row]
            start = indptr[row]
            length = indptr[row + 1] - start
            for i in range(length):
                r = indices[start + i]
                dims[p] = index.get_or_insert(pair_key(r, r))
                p += 1
            if degree == 2:
                for i in range(length):
                    high = <uint64_t>indices[start + i] << 32
                    for j in range(i + 1, length):
                        dims[p] = index.get_or_insert(
                            high | <uint64_t>(<uint32_t>indices[start + j])
                        )
                        p += 1
    return index.keys(), row_ptr_array, dims_array, n_single_array


def remap_rows(int64_t[::1] row_ptr, int32_t[::1] dims, const int32_t[::1] new_id) -> int:
    """Replace each dims entry d by new_id[d] in place, dropping entries with new_id < 0.

    row_ptr is updated to the compacted rows; returns the new number of entries.
    """
    cdef Py_ssize_t n_rows = row_ptr.shape[0] - 1, row
    cdef int64_t p, q = 0, begin, end = 0
    cdef int32_t d
    with nogil:
        for row in range(n_rows):
            begin = end
            end = row_ptr[row + 1]
            for p in range(begin, end):
                d = new_id[dims[p]]
                if d >= 0:
                    dims[q] = d
                    q += 1
            row_ptr[row + 1] = q
    return q


cdef inline double _sum_gather(
    const double* w, const int32_t* dim, int64_t start, int64_t end, int64_t stride
) noexcept nogil:
    # sum_p w[dim[p] * stride] with four partial sums held in registers, so that the additions
    # do not wait on each other.
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef int64_t p = start
    while p + 4 <= end:
        s0 += w[dim[p] * stride]
        s1 += w[dim[p + 1] * stride]
        s2 += w[dim[p + 2] * stride]
        s3 += w[dim[p + 3] * stride]
        p += 4
    while p < end:
        s0 += w[dim[p] * stride]
        p += 1
    return (s0 + s1) + (s2 + s3)


cdef inline void _scatter_add(
    double* w, const int32_t* dim, int64_t start, int64_t end, int64_t stride, double value
) noexcept nogil:
    # w[dim[p] * stride] += value for every p in [start, end).
    cdef int64_t p
    for p in range(start, end):
        w[dim[p] * stride] += value


cdef inline uint64_t _next_random(uint64_t* state) noexcept nogil:
    # splitmix64 (Steele, Lea & Flood 2014).
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline int64_t _random_below(uint64_t* state, int64_t n) noexcept nogil:
    # Uniform in [0, n) for n < 2**32 by multiply-shift (Lemire 2019, without rejection).
    return <int64_t>(((_next_random(state) >> 32) * <uint64_t>n) >> 32)


cdef void _set_problem(
    uint8_t* active, int32_t* row_active, int64_t n_rows, int n_outputs, int k, uint8_t value
) noexcept nogil:
    # Mark problem k active (value 1) or inactive (0) for every row, keeping the per-row counts.
    cdef int64_t i
    for i in range(n_rows):
        if active[i * n_outputs + k] != value:
            active[i * n_outputs + k] = value
            if value:
                row_active[i] += 1
            else:
                row_active[i] -= 1


def solve_dual_cd(
    const int64_t[::1] row_ptr,
    const int32_t[::1] dims,
    const int32_t[::1] n_single,
    const int32_t[::1] classes,
    int n_outputs,
    int64_t n_dims,
    double constant_sq,
    double single_sq,
    double pair_sq,
    double C,
    bint l2_loss,
    double eps,
    int max_iter,
    uint64_t seed,
):
    """Dual coordinate descent for n_outputs one-vs-rest L2-regularised L1/L2-loss SVMs.

    Hsieh, Chang, Lin, Keerthi & Sundararajan 2008, "A dual coordinate descent method for
    large-scale linear SVM", Algorithm 1 with the shrinking of section 3 (as liblinear's
    solve_l2r_l1l2_svc): for each output k,

        min_alpha  0.5 alpha^T (Q + D) alpha - e^T alpha,   0 <= alpha_i <= U,
        Q_ij = y_i y_j phi(x_i) . phi(x_j),
        L1 loss: D = 0, U = C;  L2 loss: D_ii = 1 / (2C), U = infinity,

    with y_ik = +1 when classes[i] == k, else -1 (n_outputs == 1: +1 when classes[i] == 0).
    Row i's phi has the constant (dimension 0, squared scale constant_sq), its n_single[i] singles
    (single_sq) and its pairs (pair_sq) at dims[row_ptr[i]:row_ptr[i+1]] (ids 1 .. n_dims-1).

    All outputs share one pass over a row (one read of its weight rows W[d, :]); each output
    keeps its own alphas, shrinking state, stopping test (PGmax - PGmin <= eps) and iteration
    count. The rows are visited in a fresh random order each outer iteration (splitmix64 from
    `seed`). Returns (W (n_dims, n_outputs) float64 effective weights, alpha (n_rows, n_outputs),
    iterations int32 (n_outputs,), converged uint8 (n_outputs,), and the last pass's
    PGmax - PGmin per output (float64)).
    """
    cdef int64_t n_rows = row_ptr.shape[0] - 1
    cdef int K = n_outputs
    weights_array = np.zeros((n_dims, K), dtype=np.float64)
    alpha_array = np.zeros((n_rows, K), dtype=np.float64)
    iterations_array = np.zeros(K, dtype=np.int32)
    converged_array = np.zeros(K, dtype=np.uint8)
    gap_array = np.zeros(K, dtype=np.float64)
    if n_rows == 0:
        return weights_array, alpha_array, iterations_array, np.ones(K, dtype=np.uint8), gap_array
    diag_array = np.empty(n_rows, dtype=np.float64)
    order_array = np.arange(n_rows, dtype=np.int64)
    active_array = np.ones(n_rows * K, dtype=np.uint8)
    row_active_array = np.full(n_rows, K, dtype=np.int32)
    work_array = np.zeros((6, K), dtype=np.float64)
    work_index_array = np.zeros((2, K), dtype=np.int32)
    open_array = np.ones(K, dtype=np.uint8)
    active_count_array = np.full(K, n_rows, dtype=np.int64)

    cdef double[:, ::1] weights_view = weights_array
    cdef double* W = &weights_view[0, 0]
    cdef double[:, ::1] alpha_view = alpha_array
    cdef double* alpha = &alpha_view[0, 0]
    cdef double[::1] diag_view = diag_array
    cdef double* QD = &diag_view[0]
    cdef int64_t[::1] order_view = order_array
    cdef int64_t* order = &order_view[0]
    cdef uint8_t[::1] active_view = active_array
    cdef uint8_t* active = &active_view[0]
    cdef int32_t[::1] row_active_view = row_active_array
    cdef int32_t* row_active = &row_active_view[0]
    cdef double[:, ::1] work = work_array
    cdef double* dot = &work[0, 0]
    cdef double* PGmax_old = &work[1, 0]
    cdef double* PGmin_old = &work[2, 0]
    cdef double* PGmax_new = &work[3, 0]
    cdef double* PGmin_new = &work[4, 0]
    cdef double* step = &work[5, 0]
    cdef int32_t[:, ::1] work_index = work_index_array
    cdef int32_t* problems = &work_index[0, 0]
    cdef int32_t* stepped = &work_index[1, 0]
    cdef uint8_t[::1] open_view = open_array
    cdef uint8_t* is_open = &open_view[0]
    cdef int64_t[::1] active_count_view = active_count_array
    cdef int64_t* active_count = &active_count_view[0]
    cdef int32_t[::1] iterations = iterations_array
    cdef uint8_t[::1] converged = converged_array
    cdef double[::1] gap = gap_array
    cdef const int32_t* dim = &dims[0] if dims.shape[0] else NULL

    cdef double diag = 0.5 / C if l2_loss else 0.0
    cdef double upper = INFINITY if l2_loss else C
    cdef uint64_t rng = seed
    cdef int64_t i, s, t, n_visit, start, middle, end, p
    cdef int k, a, n_problems, n_stepped, n_open = K
    cdef double G, PG, y, old, updated, delta
    cdef bint rebuild

    for k in range(K):
        PGmax_old[k] = INFINITY
        PGmin_old[k] = -INFINITY
    with nogil:
        for i in range(n_rows):
            QD[i] = (constant_sq + single_sq * n_single[i]
                     + pair_sq * (row_ptr[i + 1] - row_ptr[i] - n_single[i]) + diag)
        n_visit = n_rows
        while n_open > 0:
            for s in range(n_visit):
                t = s + _random_below(&rng, n_visit - s)
                order[s], order[t] = order[t], order[s]
            for k in range(K):
                PGmax_new[k] = -INFINITY
                PGmin_new[k] = INFINITY
            s = 0
            while s < n_visit:
                i = order[s]
                start = row_ptr[i]
                middle = start + n_single[i]
                end = row_ptr[i + 1]

                # w_k . phi(x_i) for the outputs still active on row i (the row's weight rows
                # W[d, :] come into cache with the first output and are reused by the others).
                n_problems = 0
                for k in range(K):
                    if active[i * K + k]:
                        problems[n_problems] = k
                        n_problems += 1
                        dot[k] = W[k] + _sum_gather(W + k, dim, start, end, K)

                # One coordinate step per active output, with liblinear's shrinking rule.
                n_stepped = 0
                for a in range(n_problems):
                    k = problems[a]
                    y = 1.0 if classes[i] == k else -1.0
                    old = alpha[i * K + k]
                    G = y * dot[k] - 1.0 + old * diag
                    PG = 0.0
                    if old == 0.0:
                        if G > PGmax_old[k]:
                            active[i * K + k] = 0
                            row_active[i] -= 1
                            active_count[k] -= 1
                            continue
                        elif G < 0.0:
                            PG = G
                    elif old == upper:
                        if G < PGmin_old[k]:
                            active[i * K + k] = 0
                            row_active[i] -= 1
                            active_count[k] -= 1
                            continue
                        elif G > 0.0:
                            PG = G
                    else:
                        PG = G
                    if PG > PGmax_new[k]:
                        PGmax_new[k] = PG
                    if PG < PGmin_new[k]:
                        PGmin_new[k] = PG
                    if fabs(PG) > 1.0e-12:
                        updated = old - G / QD[i]
                        if updated < 0.0:
                            updated = 0.0
                        elif updated > upper:
                            updated = upper
                        alpha[i * K + k] = updated
                        delta = (updated - old) * y
                        if delta != 0.0:
                            stepped[n_stepped] = k
                            step[n_stepped] = delta
                            n_stepped += 1

                # w_k += delta_k phi(x_i), in effective weights: v_d += delta_k s_d^2.
                for a in range(n_stepped):
                    k = stepped[a]
                    delta = step[a]
                    W[k] += delta * constant_sq
                    _scatter_add(W + k, dim, start, middle, K, delta * single_sq)
                    _scatter_add(W + k, dim, middle, end, K, delta * pair_sq)

                if row_active[i] == 0:
                    n_visit -= 1
                    order[s], order[n_visit] = order[n_visit], order[s]
                else:
                    s += 1

            # Stopping test and shrinking bounds of each output (liblinear's outer loop).
            rebuild = False
            for k in range(K):
                if not is_open[k]:
                    continue
                iterations[k] += 1
                gap[k] = PGmax_new[k] - PGmin_new[k]
                if gap[k] <= eps:
                    if active_count[k] == n_rows:
                        is_open[k] = 0
                        converged[k] = 1
                    else:
                        _set_problem(active, row_active, n_rows, K, k, 1)
                        active_count[k] = n_rows
                        PGmax_old[k] = INFINITY
                        PGmin_old[k] = -INFINITY
                        rebuild = True
                else:
                    PGmax_old[k] = PGmax_new[k] if PGmax_new[k] > 0.0 else INFINITY
                    PGmin_old[k] = PGmin_new[k] if PGmin_new[k] < 0.0 else -INFINITY
                if is_open[k] and iterations[k] >= max_iter:
                    is_open[k] = 0
                if not is_open[k]:
                    n_open -= 1
                    _set_problem(active, row_active, n_rows, K, k, 0)
                    active_count[k] = 0
                    rebuild = True
            if rebuild:
                n_visit = 0
                for i in range(n_rows):
                    if row_active[i] > 0:
                        order[n_visit] = i
                        n_visit += 1
    return weights_array, alpha_array, iterations_array, converged_array, gap_array
