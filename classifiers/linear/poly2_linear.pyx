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
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

import numpy as np

from polyparse.classifiers.random_order cimport shuffle_from_front
from polyparse.classifiers.scorer cimport BinaryScorer, no_scores
from polyparse.features.key_index cimport KeyIndex
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts

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
    cdef int64_t p, start, i, j, steps_left = CHECK_STEPS
    cdef int32_t r
    cdef uint64_t high
    with nogil:
        for row in range(n_rows):
            # A step per row and per 32 dimensions it inserts.
            count_steps(&steps_left, 1 + ((row_ptr[row + 1] - row_ptr[row]) >> 5))
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


cdef struct DualState:
    # Dual coordinate descent on n_outputs problems at once (solve_dual_cd). The rows: phi(x_i)
    # at dims[row_ptr[i]:row_ptr[i+1]], its n_single[i] singles first, then its pairs.
    const int64_t* row_ptr
    const int32_t* dims
    const int32_t* n_single
    const int32_t* classes
    int64_t n_rows
    int n_outputs
    double constant_sq
    double single_sq
    double pair_sq
    double diag                 # D_ii: 1 / (2C) for the L2 loss, 0 for L1
    double upper                # U: infinity for the L2 loss, C for L1
    double eps
    int max_iter
    # the solution: effective weights W (n_dims, n_outputs), alpha (n_rows, n_outputs), and
    # QD[i] = Q_ii + D_ii
    double* W
    double* alpha
    double* QD
    # shrinking: active[i * n_outputs + k] while row i is in output k's active set; the rows
    # still active in some output are order[0..n_visit)
    uint8_t* active
    int32_t* row_active
    int64_t* active_count
    int64_t* order
    int64_t n_visit
    # per output: projected-gradient bounds of the previous and the current pass, still open,
    # iterations, converged, last gap
    double* PGmax_old
    double* PGmin_old
    double* PGmax_new
    double* PGmin_new
    uint8_t* is_open
    int n_open
    int32_t* iterations
    uint8_t* converged
    double* gap
    # one row's scratch: w_k . phi(x_i), the outputs active on it, those that stepped and by how
    # much
    double* dot
    int32_t* problems
    int32_t* stepped
    double* step
    # steps before the next check for signals (features/signal_checks)
    int64_t steps_left


cdef inline void _set_problem(DualState* s, int k, uint8_t value) noexcept nogil:
    # Mark output k active (value 1) or inactive (0) for every row, keeping the per-row counts.
    cdef int64_t i
    cdef int K = s.n_outputs
    cdef uint8_t* active = s.active
    cdef int32_t* row_active = s.row_active
    for i in range(s.n_rows):
        if active[i * K + k] != value:
            active[i * K + k] = value
            if value:
                row_active[i] += 1
            else:
                row_active[i] -= 1


cdef inline void _set_diagonal(DualState* s) noexcept nogil:
    # QD[i] = Q_ii + D_ii = ||phi(x_i)||^2 + D_ii.
    cdef int64_t i
    cdef const int64_t* row_ptr = s.row_ptr
    cdef const int32_t* n_single = s.n_single
    cdef double* QD = s.QD
    cdef double constant_sq = s.constant_sq, single_sq = s.single_sq, pair_sq = s.pair_sq
    cdef double diag = s.diag
    for i in range(s.n_rows):
        QD[i] = (constant_sq + single_sq * n_single[i]
                 + pair_sq * (row_ptr[i + 1] - row_ptr[i] - n_single[i]) + diag)


cdef inline int _row_margins(DualState* s, int64_t i) noexcept nogil:
    # w_k . phi(x_i) into dot[k] for the outputs still active on row i, listed in problems;
    # their number. The row's weight rows W[d, :] come into cache with the first output and are
    # reused by the others.
    cdef int K = s.n_outputs, k, n_problems = 0
    cdef double* W = s.W
    cdef double* dot = s.dot
    cdef int32_t* problems = s.problems
    cdef const uint8_t* active = s.active + i * K
    cdef const int32_t* dim = s.dims
    cdef int64_t start = s.row_ptr[i], end = s.row_ptr[i + 1]
    for k in range(K):
        if active[k]:
            problems[n_problems] = k
            n_problems += 1
            dot[k] = W[k] + _sum_gather(W + k, dim, start, end, K)
    return n_problems


cdef inline void _shrink(DualState* s, int64_t i, int k) noexcept nogil:
    # Row i leaves output k's active set until the next full check of output k.
    s.active[i * s.n_outputs + k] = 0
    s.row_active[i] -= 1
    s.active_count[k] -= 1


cdef inline double _coordinate_step(DualState* s, int64_t i, int k) noexcept nogil:
    # One coordinate step on alpha_ik (Algorithm 1 of Hsieh et al. 2008) with liblinear's
    # shrinking rule: G = y_ik w_k . phi(x_i) - 1 + D_ii alpha_ik, the projected gradient PG
    # widens output k's bounds, alpha_ik <- min(max(alpha_ik - G / QD_i, 0), U). Returns the
    # change of y_ik alpha_ik (0: none, or the row left output k's active set).
    cdef int K = s.n_outputs
    cdef double y = 1.0 if s.classes[i] == k else -1.0
    cdef double old = s.alpha[i * K + k], upper = s.upper
    cdef double G = y * s.dot[k] - 1.0 + old * s.diag
    cdef double PG = 0.0, updated
    if old == 0.0:
        if G > s.PGmax_old[k]:
            _shrink(s, i, k)
            return 0.0
        elif G < 0.0:
            PG = G
    elif old == upper:
        if G < s.PGmin_old[k]:
            _shrink(s, i, k)
            return 0.0
        elif G > 0.0:
            PG = G
    else:
        PG = G
    if PG > s.PGmax_new[k]:
        s.PGmax_new[k] = PG
    if PG < s.PGmin_new[k]:
        s.PGmin_new[k] = PG
    if fabs(PG) > 1.0e-12:
        updated = old - G / s.QD[i]
        if updated < 0.0:
            updated = 0.0
        elif updated > upper:
            updated = upper
        s.alpha[i * K + k] = updated
        return (updated - old) * y
    return 0.0


cdef inline void _add_steps(DualState* s, int64_t i, int n_stepped) noexcept nogil:
    # w_k += delta_k phi(x_i) for the outputs that stepped, in effective weights:
    # v_d += delta_k s_d^2.
    cdef int K = s.n_outputs, a, k
    cdef double* W = s.W
    cdef const int32_t* dim = s.dims
    cdef const int32_t* stepped = s.stepped
    cdef const double* step = s.step
    cdef int64_t start = s.row_ptr[i], middle = start + s.n_single[i], end = s.row_ptr[i + 1]
    cdef double constant_sq = s.constant_sq, single_sq = s.single_sq, pair_sq = s.pair_sq
    cdef double delta
    for a in range(n_stepped):
        k = stepped[a]
        delta = step[a]
        W[k] += delta * constant_sq
        _scatter_add(W + k, dim, start, middle, K, delta * single_sq)
        _scatter_add(W + k, dim, middle, end, K, delta * pair_sq)


cdef inline void _visit_row(DualState* s, int64_t i) noexcept nogil:
    # All outputs share one visit of row i: margins, one coordinate step per active output,
    # then the weight updates.
    cdef int n_problems = _row_margins(s, i), n_stepped = 0, a, k
    cdef double delta
    for a in range(n_problems):
        k = s.problems[a]
        delta = _coordinate_step(s, i, k)
        if delta != 0.0:
            s.stepped[n_stepped] = k
            s.step[n_stepped] = delta
            n_stepped += 1
    _add_steps(s, i, n_stepped)


cdef inline int _pass(DualState* s, uint64_t* rng) except -1 nogil:
    # One outer iteration: the rows still active, in a fresh random order; a row that has left
    # every output's active set moves behind order[n_visit]. A row is a step of the signal
    # checks, and a step more per thousand weights it reads.
    cdef int k
    cdef int64_t position = 0, i
    shuffle_from_front(s.order, s.n_visit, rng)
    for k in range(s.n_outputs):
        s.PGmax_new[k] = -INFINITY
        s.PGmin_new[k] = INFINITY
    while position < s.n_visit:
        i = s.order[position]
        count_steps(&s.steps_left, 1 + ((s.row_ptr[i + 1] - s.row_ptr[i]) * s.n_outputs >> 10))
        _visit_row(s, i)
        if s.row_active[i] == 0:
            s.n_visit -= 1
            s.order[position], s.order[s.n_visit] = s.order[s.n_visit], s.order[position]
        else:
            position += 1
    return 0


cdef inline bint _end_pass(DualState* s) noexcept nogil:
    # liblinear's stopping test and shrinking bounds of each open output after a pass: it
    # converges when PGmax - PGmin <= eps over all its rows (else every row comes back and the
    # test is made again), and stops at max_iter. True when some output's active set changed.
    cdef int k
    cdef bint rebuild = False
    for k in range(s.n_outputs):
        if not s.is_open[k]:
            continue
        s.iterations[k] += 1
        s.gap[k] = s.PGmax_new[k] - s.PGmin_new[k]
        if s.gap[k] <= s.eps:
            if s.active_count[k] == s.n_rows:
                s.is_open[k] = 0
                s.converged[k] = 1
            else:
                _set_problem(s, k, 1)
                s.active_count[k] = s.n_rows
                s.PGmax_old[k] = INFINITY
                s.PGmin_old[k] = -INFINITY
                rebuild = True
        else:
            s.PGmax_old[k] = s.PGmax_new[k] if s.PGmax_new[k] > 0.0 else INFINITY
            s.PGmin_old[k] = s.PGmin_new[k] if s.PGmin_new[k] < 0.0 else -INFINITY
        if s.is_open[k] and s.iterations[k] >= s.max_iter:
            s.is_open[k] = 0
        if not s.is_open[k]:
            s.n_open -= 1
            _set_problem(s, k, 0)
            s.active_count[k] = 0
            rebuild = True
    return rebuild


cdef inline void _gather_active_rows(DualState* s) noexcept nogil:
    # order[0..n_visit) = the rows still active in some output, ascending.
    cdef int64_t i
    s.n_visit = 0
    for i in range(s.n_rows):
        if s.row_active[i] > 0:
            s.order[s.n_visit] = i
            s.n_visit += 1


cdef int _allocate_work(DualState* s) except -1:
    # The solver's own arrays, in their starting state: every row active in every output, in
    # the order 0, 1, ...; every output open with unbounded shrinking bounds.
    cdef int64_t n_rows = s.n_rows, i
    cdef int K = s.n_outputs, k
    s.QD = <double*>malloc(n_rows * sizeof(double))
    s.order = <int64_t*>malloc(n_rows * sizeof(int64_t))
    s.active = <uint8_t*>malloc(n_rows * K * sizeof(uint8_t))
    s.row_active = <int32_t*>malloc(n_rows * sizeof(int32_t))
    s.active_count = <int64_t*>malloc(K * sizeof(int64_t))
    s.is_open = <uint8_t*>malloc(K * sizeof(uint8_t))
    # six rows of K doubles (dot, the four bounds, step) and two of K ints (problems, stepped)
    s.dot = <double*>calloc(6 * K, sizeof(double))
    s.problems = <int32_t*>calloc(2 * K, sizeof(int32_t))
    if (s.QD == NULL or s.order == NULL or s.active == NULL or s.row_active == NULL
            or s.active_count == NULL or s.is_open == NULL or s.dot == NULL
            or s.problems == NULL):
        raise MemoryError()
    s.PGmax_old = s.dot + K
    s.PGmin_old = s.PGmax_old + K
    s.PGmax_new = s.PGmin_old + K
    s.PGmin_new = s.PGmax_new + K
    s.step = s.PGmin_new + K
    s.stepped = s.problems + K
    memset(s.active, 1, n_rows * K)
    for i in range(n_rows):
        s.order[i] = i
        s.row_active[i] = K
    for k in range(K):
        s.active_count[k] = n_rows
        s.is_open[k] = 1
        s.PGmax_old[k] = INFINITY
        s.PGmin_old[k] = -INFINITY
    s.n_visit = n_rows
    s.n_open = K
    return 0


cdef void _free_work(DualState* s) noexcept:
    free(s.QD)
    free(s.order)
    free(s.active)
    free(s.row_active)
    free(s.active_count)
    free(s.is_open)
    free(s.dot)
    free(s.problems)


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
    cdef double[:, ::1] weights_view = weights_array
    cdef double[:, ::1] alpha_view = alpha_array
    cdef int32_t[::1] iterations = iterations_array
    cdef uint8_t[::1] converged = converged_array
    cdef double[::1] gap = gap_array
    cdef DualState s
    cdef uint64_t rng = seed
    memset(&s, 0, sizeof(DualState))
    s.row_ptr = &row_ptr[0]
    s.dims = &dims[0] if dims.shape[0] else NULL
    s.n_single = &n_single[0]
    s.classes = &classes[0]
    s.n_rows = n_rows
    s.n_outputs = K
    s.constant_sq = constant_sq
    s.single_sq = single_sq
    s.pair_sq = pair_sq
    s.diag = 0.5 / C if l2_loss else 0.0
    s.upper = INFINITY if l2_loss else C
    s.eps = eps
    s.max_iter = max_iter
    s.W = &weights_view[0, 0]
    s.alpha = &alpha_view[0, 0]
    s.iterations = &iterations[0]
    s.converged = &converged[0]
    s.gap = &gap[0]
    s.steps_left = CHECK_STEPS
    try:
        _allocate_work(&s)
        with nogil:
            _set_diagonal(&s)
            long_input_starts(n_rows)
            while s.n_open > 0:
                _pass(&s, &rng)
                if _end_pass(&s):
                    _gather_active_rows(&s)
            long_input_ends(n_rows)
    finally:
        _free_work(&s)
    return weights_array, alpha_array, iterations_array, converged_array, gap_array
