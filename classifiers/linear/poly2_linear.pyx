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

Equal rows in the dual solver. The primal C sum_i loss(y_i w . phi(x_i)) adds up the losses of
equal rows, so the p rows of one label of a vector x are one row of cost p C (liblinear's
per-row C_i in its dual: D = D_ii / p, U = p U; at the optimum their alphas are equal, a / p
each). Rows of both labels of x, a (label +1, p rows) and b (label -1, q rows), move w by
(a - b) phi(x) only: along a + b the dual's curvature is D_a + D_b (0 for the L1 loss) against
Q_xx + D on each coordinate, so Hsieh et al.'s one coordinate at a time gains a factor of
about 1 - D / Q_xx per pass there (the degree-2 mapping of a kwdlc_dep row: Q_xx ~ 1,000, and
1,000 passes leave the pair's gradient at 0.9). The solver minimizes over both at once, a block
coordinate step (Tseng 2001, "Convergence of a block coordinate descent method for
nondifferentiable minimization", JOTA 109), exactly: with m = w . phi(x) - Q_xx (a - b) the
margin of the other rows,

    min  0.5 Q_xx (a - b)^2 + m (a - b) + 0.5 (D_a a^2 + D_b b^2) - a - b
    over 0 <= a <= U_a, 0 <= b <= U_b,

at the stationary point (Q_xx + D_a, -Q_xx; -Q_xx, Q_xx + D_b) (a, b) = (1 - m, 1 + m) when it
lies in the box, else at the best of the minima along the box's sides. Without equal rows the
solver is Hsieh et al.'s, step for step.
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


cdef extern from *:
    """
    #include <algorithm>
    #include <cstdint>
    // -1, 0 or 1 as row a's dimension sequence comes before, equals or follows row b's.
    static int polyparse_compare_rows(const int64_t* row_ptr, const int32_t* dims, int64_t a,
                                      int64_t b) {
        const int32_t* x = dims + row_ptr[a];
        const int32_t* x_end = dims + row_ptr[a + 1];
        const int32_t* y = dims + row_ptr[b];
        const int32_t* y_end = dims + row_ptr[b + 1];
        for (; x != x_end && y != y_end; ++x, ++y) {
            if (*x != *y) return *x < *y ? -1 : 1;
        }
        if (x == x_end) return y == y_end ? 0 : -1;
        return 1;
    }
    // The rows in lexicographic order of their dimension sequences, equal ones by row number.
    static void polyparse_sort_phi_rows(int64_t* order, int64_t n, const int64_t* row_ptr,
                                        const int32_t* dims) {
        std::sort(order, order + n, [=](int64_t a, int64_t b) {
            int c = polyparse_compare_rows(row_ptr, dims, a, b);
            return c < 0 || (c == 0 && a < b);
        });
    }
    """
    int compare_rows "polyparse_compare_rows"(const int64_t* row_ptr, const int32_t* dims,
                                              int64_t a, int64_t b) noexcept nogil
    void sort_phi_rows "polyparse_sort_phi_rows"(int64_t* order, int64_t n,
                                                 const int64_t* row_ptr,
                                                 const int32_t* dims) noexcept nogil


def identical_rows(const int64_t[::1] row_ptr, const int32_t[::1] dims):
    """The distinct rows ("vectors") of an expansion, numbered in order of first appearance:
    (row_vector int64 (n_rows,), the vector of each row; vector_row int64 (n_vectors,), the
    first row of each vector). Rows with the same dimension sequence are one vector."""
    cdef int64_t n_rows = row_ptr.shape[0] - 1, i, row, n_vectors = 0
    order_array = np.arange(n_rows, dtype=np.int64)
    group_array = np.empty(n_rows, dtype=np.int64)
    first_array = np.empty(n_rows, dtype=np.int64)
    cdef int64_t[::1] order = order_array
    cdef int64_t[::1] group = group_array
    cdef int64_t[::1] first = first_array
    cdef const int32_t* dim = &dims[0] if dims.shape[0] else NULL
    with nogil:
        if n_rows:
            sort_phi_rows(&order[0], n_rows, &row_ptr[0], dim)
        # Equal rows are runs of the sorted order, the smallest row first.
        for i in range(n_rows):
            row = order[i]
            if i == 0 or compare_rows(&row_ptr[0], dim, order[i - 1], row) != 0:
                first[n_vectors] = row
                n_vectors += 1
            group[row] = n_vectors - 1
    if n_vectors == n_rows:
        return np.arange(n_rows, dtype=np.int64), np.arange(n_rows, dtype=np.int64)
    by_appearance = np.argsort(first_array[:n_vectors], kind="stable")
    number = np.empty(n_vectors, dtype=np.int64)
    number[by_appearance] = np.arange(n_vectors, dtype=np.int64)
    return number[group_array], first_array[:n_vectors][by_appearance]


cdef struct Vector:
    # A distinct row of the expansion (32 bytes, read together on each visit): phi(x) at
    # dims[start:start + length], its n_single singles first, then its pairs; its rows, their
    # class (-1: none of the outputs'; -2 - m: they differ, mixed vector m) and ||phi(x)||^2.
    int64_t start
    int32_t length
    int32_t n_single
    int32_t size
    int32_t label
    double sq_norm


cdef struct DualState:
    # Dual coordinate descent on n_outputs problems at once (solve_dual_cd), over the distinct
    # rows (vectors).
    const int32_t* dims
    Vector* vectors
    int64_t n_vectors
    int n_outputs
    double constant_sq
    double single_sq
    double pair_sq
    double diag                 # D_ii: 1 / (2C) for the L2 loss, 0 for L1
    double upper                # U: infinity for the L2 loss, C for L1
    double eps
    int max_iter
    # mixed_positives[m, k]: the rows of class k of mixed vector m
    int32_t* mixed_positives
    int64_t n_mixed
    # the solution: effective weights W (n_dims, n_outputs); alpha (n_vectors + n_mixed,
    # n_outputs): alpha[g, k] is the sum of the alphas of vector g's rows of output k's
    # positive class, or of all its rows when they are of one side, alpha[n_vectors + m, k]
    # that of the others of mixed vector m
    double* W
    double* alpha
    # shrinking: active[g * n_outputs + k] while vector g is in output k's active set; the
    # vectors still active in some output are order[0..n_visit)
    uint8_t* active
    int32_t* vector_active
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
    # one vector's scratch: w_k . phi(x_g), the outputs active on it, those that stepped and by
    # how much
    double* dot
    int32_t* problems
    int32_t* stepped
    double* step
    # steps before the next check for signals (features/signal_checks)
    int64_t steps_left


cdef inline void _set_problem(DualState* s, int k, uint8_t value) noexcept nogil:
    # Mark output k active (value 1) or inactive (0) for every vector, keeping the counts.
    cdef int64_t g
    cdef int K = s.n_outputs
    cdef uint8_t* active = s.active
    cdef int32_t* vector_active = s.vector_active
    for g in range(s.n_vectors):
        if active[g * K + k] != value:
            active[g * K + k] = value
            if value:
                vector_active[g] += 1
            else:
                vector_active[g] -= 1


cdef inline int32_t _positives(const DualState* s, int64_t g, int k) noexcept nogil:
    # The rows of vector g of output k's class.
    cdef int32_t label = s.vectors[g].label
    if label >= -1:
        return s.vectors[g].size if label == k else 0
    return s.mixed_positives[(-2 - label) * s.n_outputs + k]


cdef inline int _vector_margins(DualState* s, int64_t g) noexcept nogil:
    # w_k . phi(x_g) into dot[k] for the outputs still active on vector g, listed in problems;
    # their number. The vector's weight rows W[d, :] come into cache with the first output and
    # are reused by the others.
    cdef int K = s.n_outputs, k, n_problems = 0
    cdef double* W = s.W
    cdef double* dot = s.dot
    cdef int32_t* problems = s.problems
    cdef const uint8_t* active = s.active + g * K
    cdef const int32_t* dim = s.dims
    cdef int64_t start = s.vectors[g].start, end = start + s.vectors[g].length
    for k in range(K):
        if active[k]:
            problems[n_problems] = k
            n_problems += 1
            dot[k] = W[k] + _sum_gather(W + k, dim, start, end, K)
    return n_problems


cdef inline void _shrink(DualState* s, int64_t g, int k) noexcept nogil:
    # Vector g leaves output k's active set until the next full check of output k.
    s.active[g * s.n_outputs + k] = 0
    s.vector_active[g] -= 1
    s.active_count[k] -= 1


cdef inline double _projected_gradient(
    const DualState* s, int k, double G, double old, double upper, bint* shrinkable
) noexcept nogil:
    # liblinear's projected gradient PG of a variable at old in [0, upper] with gradient G, and
    # whether its shrinking rule takes it out of output k's active set: at a bound, with G
    # pointing out beyond the previous pass's extremes.
    shrinkable[0] = False
    if old == 0.0:
        if G > s.PGmax_old[k]:
            shrinkable[0] = True
            return 0.0
        return G if G < 0.0 else 0.0
    if old == upper:
        if G < s.PGmin_old[k]:
            shrinkable[0] = True
            return 0.0
        return G if G > 0.0 else 0.0
    return G


cdef inline void _widen_bounds(DualState* s, int k, double PG) noexcept nogil:
    if PG > s.PGmax_new[k]:
        s.PGmax_new[k] = PG
    if PG < s.PGmin_new[k]:
        s.PGmin_new[k] = PG


cdef inline double _coordinate_step(
    DualState* s, int64_t g, int k, double y, int32_t copies
) noexcept nogil:
    # One coordinate step (Algorithm 1 of Hsieh et al. 2008, liblinear's shrinking) on the
    # rows of vector g, all of label y on output k, as one row of cost copies * C:
    # D = D_ii / copies, U = U * copies, G = y w_k . phi(x_g) - 1 + D a, PG widens output k's
    # bounds, a <- min(max(a - G / (Q_gg + D), 0), U). Returns the change of y a (0: none, or the
    # vector left output k's active set).
    cdef double* alpha = s.alpha + g * s.n_outputs + k
    cdef double diag = s.diag, upper = s.upper
    if copies > 1:
        diag = diag / copies
        upper = upper * copies
    cdef double old = alpha[0]
    cdef double G = y * s.dot[k] - 1.0 + old * diag
    cdef double updated
    cdef bint shrinkable
    cdef double PG = _projected_gradient(s, k, G, old, upper, &shrinkable)
    if shrinkable:
        _shrink(s, g, k)
        return 0.0
    _widen_bounds(s, k, PG)
    if fabs(PG) > 1.0e-12:
        updated = old - G / (s.vectors[g].sq_norm + diag)
        if updated < 0.0:
            updated = 0.0
        elif updated > upper:
            updated = upper
        alpha[0] = updated
        return (updated - old) * y
    return 0.0


cdef inline double _pair_value(
    double Q, double margin, double Da, double Db, double a, double b
) noexcept nogil:
    # The dual objective's part that depends on the pair (a, b) (module notes).
    cdef double beta = a - b
    return 0.5 * Q * beta * beta + margin * beta + 0.5 * (Da * a * a + Db * b * b) - a - b


cdef inline double _clip(double value, double upper) noexcept nogil:
    if value < 0.0:
        return 0.0
    return upper if value > upper else value


cdef inline void _pair_minimum(
    double Q, double margin, double Da, double Db, double Ua, double Ub, double* a, double* b
) noexcept nogil:
    # The minimum of _pair_value over 0 <= a <= Ua, 0 <= b <= Ub, into a and b: the stationary
    # point when it lies in the box (Q + Da, -Q; -Q, Q + Db) (a, b) = (1 - margin, 1 + margin),
    # else the best of the minima along the box's sides.
    cdef double det = Q * (Da + Db) + Da * Db
    cdef double x, z, value, best = INFINITY
    cdef double sides[2]
    cdef int side
    if det > 0.0:
        x = (2.0 * Q + Db * (1.0 - margin)) / det
        z = (2.0 * Q + Da * (1.0 + margin)) / det
        if x >= 0.0 and x <= Ua and z >= 0.0 and z <= Ub:
            a[0] = x
            b[0] = z
            return
    sides[0] = 0.0
    sides[1] = Ua
    for side in range(2 if Ua < INFINITY else 1):
        x = sides[side]
        z = _clip((Q * x + margin + 1.0) / (Q + Db), Ub)
        value = _pair_value(Q, margin, Da, Db, x, z)
        if value < best:
            best = value
            a[0] = x
            b[0] = z
    sides[1] = Ub
    for side in range(2 if Ub < INFINITY else 1):
        z = sides[side]
        x = _clip((Q * z - margin + 1.0) / (Q + Da), Ua)
        value = _pair_value(Q, margin, Da, Db, x, z)
        if value < best:
            best = value
            a[0] = x
            b[0] = z


cdef inline double _pair_step(
    DualState* s, int64_t g, int k, int32_t positives, int32_t negatives
) noexcept nogil:
    # A step on mixed vector g's two variables of output k, a (its `positives` rows of label
    # +1) and b (the others, label -1), minimizing the dual over both exactly (module notes);
    # each variable's PG widens output k's bounds, and the vector leaves the active set when
    # both variables would by liblinear's rule. Returns the change of a - b.
    cdef int K = s.n_outputs
    cdef double* plus = s.alpha + g * K + k
    cdef double* minus = s.alpha + (s.n_vectors - 2 - s.vectors[g].label) * K + k
    cdef double Da = s.diag / positives, Db = s.diag / negatives
    cdef double Ua = s.upper * positives, Ub = s.upper * negatives
    cdef double a = plus[0], b = minus[0], Q = s.vectors[g].sq_norm, dot = s.dot[k]
    cdef bint shrink_a, shrink_b
    cdef double PGa = _projected_gradient(s, k, dot - 1.0 + a * Da, a, Ua, &shrink_a)
    cdef double PGb = _projected_gradient(s, k, -dot - 1.0 + b * Db, b, Ub, &shrink_b)
    if shrink_a and shrink_b:
        _shrink(s, g, k)
        return 0.0
    if not shrink_a:
        _widen_bounds(s, k, PGa)
    if not shrink_b:
        _widen_bounds(s, k, PGb)
    if fabs(PGa) <= 1.0e-12 and fabs(PGb) <= 1.0e-12:
        return 0.0
    _pair_minimum(Q, dot - Q * (a - b), Da, Db, Ua, Ub, plus, minus)
    return (plus[0] - a) - (minus[0] - b)


cdef inline double _vector_step(DualState* s, int64_t g, int k) noexcept nogil:
    # The step of vector g on output k: a coordinate step when its rows are of one label, a
    # pair step when they are of both. Returns the change of sum_i y_ik alpha_ik over its rows.
    cdef int32_t size = s.vectors[g].size, positives = _positives(s, g, k)
    if positives == 0 or positives == size:
        return _coordinate_step(s, g, k, 1.0 if positives else -1.0, size)
    return _pair_step(s, g, k, positives, size - positives)


cdef inline void _add_steps(DualState* s, int64_t g, int n_stepped) noexcept nogil:
    # w_k += delta_k phi(x_g) for the outputs that stepped, in effective weights:
    # v_d += delta_k s_d^2.
    cdef int K = s.n_outputs, a, k
    cdef double* W = s.W
    cdef const int32_t* dim = s.dims
    cdef const int32_t* stepped = s.stepped
    cdef const double* step = s.step
    cdef const Vector* v = s.vectors + g
    cdef int64_t start = v.start, middle = start + v.n_single, end = start + v.length
    cdef double constant_sq = s.constant_sq, single_sq = s.single_sq, pair_sq = s.pair_sq
    cdef double delta
    for a in range(n_stepped):
        k = stepped[a]
        delta = step[a]
        W[k] += delta * constant_sq
        _scatter_add(W + k, dim, start, middle, K, delta * single_sq)
        _scatter_add(W + k, dim, middle, end, K, delta * pair_sq)


cdef inline void _visit_vector(DualState* s, int64_t g) noexcept nogil:
    # All outputs share one visit of vector g: margins, one step per active output, then the
    # weight updates.
    cdef int n_problems = _vector_margins(s, g), n_stepped = 0, a, k
    cdef double delta
    for a in range(n_problems):
        k = s.problems[a]
        delta = _vector_step(s, g, k)
        if delta != 0.0:
            s.stepped[n_stepped] = k
            s.step[n_stepped] = delta
            n_stepped += 1
    _add_steps(s, g, n_stepped)


cdef inline int _pass(DualState* s, uint64_t* rng) except -1 nogil:
    # One outer iteration: the vectors still active, in a fresh random order; a vector that has
    # left every output's active set moves behind order[n_visit]. A vector is a step of the
    # signal checks, and a step more per thousand weights it reads.
    cdef int k
    cdef int64_t position = 0, g
    shuffle_from_front(s.order, s.n_visit, rng)
    for k in range(s.n_outputs):
        s.PGmax_new[k] = -INFINITY
        s.PGmin_new[k] = INFINITY
    while position < s.n_visit:
        g = s.order[position]
        count_steps(&s.steps_left, 1 + (<int64_t>s.vectors[g].length * s.n_outputs >> 10))
        _visit_vector(s, g)
        if s.vector_active[g] == 0:
            s.n_visit -= 1
            s.order[position], s.order[s.n_visit] = s.order[s.n_visit], s.order[position]
        else:
            position += 1
    return 0


cdef inline bint _end_pass(DualState* s) noexcept nogil:
    # liblinear's stopping test and shrinking bounds of each open output after a pass: it
    # converges when PGmax - PGmin <= eps over all its variables (else every vector comes back
    # and the test is made again), and stops at max_iter. True when some output's active set
    # changed.
    cdef int k
    cdef bint rebuild = False
    for k in range(s.n_outputs):
        if not s.is_open[k]:
            continue
        s.iterations[k] += 1
        s.gap[k] = s.PGmax_new[k] - s.PGmin_new[k]
        if s.gap[k] <= s.eps:
            if s.active_count[k] == s.n_vectors:
                s.is_open[k] = 0
                s.converged[k] = 1
            else:
                _set_problem(s, k, 1)
                s.active_count[k] = s.n_vectors
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


cdef inline void _gather_active_vectors(DualState* s) noexcept nogil:
    # order[0..n_visit) = the vectors still active in some output, ascending.
    cdef int64_t g
    s.n_visit = 0
    for g in range(s.n_vectors):
        if s.vector_active[g] > 0:
            s.order[s.n_visit] = g
            s.n_visit += 1


cdef void _describe_vectors(
    DualState* s, const int64_t* row_ptr, const int32_t* n_single, const int64_t* vector_row
) noexcept nogil:
    # Each vector's dimensions (at its first row) and Q_gg = ||phi(x_g)||^2.
    cdef int64_t g, i
    cdef Vector* v
    for g in range(s.n_vectors):
        v = s.vectors + g
        i = vector_row[g]
        v.start = row_ptr[i]
        v.length = <int32_t>(row_ptr[i + 1] - row_ptr[i])
        v.n_single = n_single[i]
        v.sq_norm = (s.constant_sq + s.single_sq * n_single[i]
                     + s.pair_sq * (row_ptr[i + 1] - row_ptr[i] - n_single[i]))


cdef int _count_classes(
    DualState* s, const int32_t[::1] classes, const int64_t[::1] row_vector
) except -1:
    # Each vector's size and label, and mixed_positives, from the rows' classes (a class
    # outside 0 .. n_outputs-1 is on every output's negative side).
    cdef int64_t n_rows = classes.shape[0], i, g
    cdef int K = s.n_outputs
    cdef int32_t c
    cdef Vector* v
    for i in range(n_rows):
        v = s.vectors + row_vector[i]
        c = classes[i] if 0 <= classes[i] < K else -1
        if v.size == 0:
            v.label = c
        elif v.label != c:
            v.label = -2
        v.size += 1
    for g in range(s.n_vectors):
        if s.vectors[g].label == -2:
            s.vectors[g].label = <int32_t>(-2 - s.n_mixed)
            s.n_mixed += 1
    s.mixed_positives = <int32_t*>calloc(max(s.n_mixed * K, 1), sizeof(int32_t))
    if s.mixed_positives == NULL:
        raise MemoryError()
    for i in range(n_rows):
        v = s.vectors + row_vector[i]
        if v.label < -1 and 0 <= classes[i] < K:
            s.mixed_positives[(-2 - v.label) * K + classes[i]] += 1
    return 0


cdef int _allocate_work(
    DualState* s, const int64_t[::1] row_ptr, const int32_t[::1] n_single,
    const int32_t[::1] classes, const int64_t[::1] row_vector, const int64_t[::1] vector_row,
) except -1:
    # The solver's own arrays, in their starting state: alpha = 0, every vector active in
    # every output, in the order 0, 1, ...; every output open with unbounded shrinking bounds.
    cdef int64_t n_vectors = s.n_vectors, g
    cdef int K = s.n_outputs, k
    s.vectors = <Vector*>calloc(n_vectors, sizeof(Vector))
    if s.vectors == NULL:
        raise MemoryError()
    _describe_vectors(s, &row_ptr[0], &n_single[0], &vector_row[0])
    _count_classes(s, classes, row_vector)
    s.alpha = <double*>calloc((n_vectors + s.n_mixed) * K, sizeof(double))
    s.order = <int64_t*>malloc(n_vectors * sizeof(int64_t))
    s.active = <uint8_t*>malloc(n_vectors * K * sizeof(uint8_t))
    s.vector_active = <int32_t*>malloc(n_vectors * sizeof(int32_t))
    s.active_count = <int64_t*>malloc(K * sizeof(int64_t))
    s.is_open = <uint8_t*>malloc(K * sizeof(uint8_t))
    # six rows of K doubles (dot, the four bounds, step) and two of K ints (problems, stepped)
    s.dot = <double*>calloc(6 * K, sizeof(double))
    s.problems = <int32_t*>calloc(2 * K, sizeof(int32_t))
    if (s.alpha == NULL or s.order == NULL or s.active == NULL
            or s.vector_active == NULL or s.active_count == NULL or s.is_open == NULL
            or s.dot == NULL or s.problems == NULL):
        raise MemoryError()
    s.PGmax_old = s.dot + K
    s.PGmin_old = s.PGmax_old + K
    s.PGmax_new = s.PGmin_old + K
    s.PGmin_new = s.PGmax_new + K
    s.step = s.PGmin_new + K
    s.stepped = s.problems + K
    memset(s.active, 1, n_vectors * K)
    for g in range(n_vectors):
        s.order[g] = g
        s.vector_active[g] = K
    for k in range(K):
        s.active_count[k] = n_vectors
        s.is_open[k] = 1
        s.PGmax_old[k] = INFINITY
        s.PGmin_old[k] = -INFINITY
    s.n_visit = n_vectors
    s.n_open = K
    return 0


cdef void _free_work(DualState* s) noexcept:
    free(s.vectors)
    free(s.mixed_positives)
    free(s.alpha)
    free(s.order)
    free(s.active)
    free(s.vector_active)
    free(s.active_count)
    free(s.is_open)
    free(s.dot)
    free(s.problems)


cdef void _add_dual_terms(
    const DualState* s, int k, double alpha, int32_t copies, double* terms, int64_t* n_support
) noexcept nogil:
    # The dual terms sum_i alpha_i (0.5 D_ii alpha_i - 1) of `copies` rows sharing alpha, each
    # alpha / copies; they are support vectors when alpha > 0.
    if alpha > 0.0:
        n_support[k] += copies
    terms[k] += alpha * (0.5 * (s.diag / copies) * alpha - 1.0)


cdef void _dual_terms(const DualState* s, double* terms, int64_t* n_support) noexcept nogil:
    # Per output: sum_i alpha_i (0.5 D_ii alpha_i - 1) over the rows, the alphas of a vector's
    # rows of one label being equal; and the rows with alpha_i > 0.
    cdef int64_t g
    cdef int K = s.n_outputs, k
    cdef int32_t positives, size
    for g in range(s.n_vectors):
        size = s.vectors[g].size
        for k in range(K):
            positives = _positives(s, g, k)
            if positives == 0 or positives == size:
                _add_dual_terms(s, k, s.alpha[g * K + k], size, terms, n_support)
            else:
                _add_dual_terms(s, k, s.alpha[g * K + k], positives, terms, n_support)
                _add_dual_terms(s, k, s.alpha[(s.n_vectors - 2 - s.vectors[g].label) * K + k],
                                size - positives, terms, n_support)


def solve_dual_cd(
    const int64_t[::1] row_ptr,
    const int32_t[::1] dims,
    const int32_t[::1] n_single,
    const int32_t[::1] classes,
    const int64_t[::1] row_vector,
    const int64_t[::1] vector_row,
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

    Equal rows are one vector (row_vector, vector_row: identical_rows); its p rows of one label
    are one variable of cost p C, and on an output where it has rows of both labels its two
    variables take one exact step together (module notes). All outputs share one pass over a
    vector (one read of its weight rows W[d, :]); each output keeps its own alphas, shrinking
    state, stopping test (PGmax - PGmin <= eps) and iteration count. The vectors are visited in
    a fresh random order each outer iteration (splitmix64 from `seed`). Returns (W (n_dims,
    n_outputs) float64 effective weights, iterations int32 (n_outputs,), converged uint8
    (n_outputs,), the last pass's PGmax - PGmin per output (float64), sum_i alpha_i (0.5 D_ii
    alpha_i - 1) per output (float64) and the rows with alpha_i > 0 per output (int64)).
    """
    cdef int64_t n_rows = row_ptr.shape[0] - 1
    cdef int K = n_outputs
    if row_vector.shape[0] != n_rows or classes.shape[0] != n_rows:
        raise ValueError("classes and row_vector must have one entry per row")
    weights_array = np.zeros((n_dims, K), dtype=np.float64)
    iterations_array = np.zeros(K, dtype=np.int32)
    converged_array = np.zeros(K, dtype=np.uint8)
    gap_array = np.zeros(K, dtype=np.float64)
    terms_array = np.zeros(K, dtype=np.float64)
    support_array = np.zeros(K, dtype=np.int64)
    if n_rows == 0:
        return (weights_array, iterations_array, np.ones(K, dtype=np.uint8), gap_array,
                terms_array, support_array)
    if (np.min(row_vector) < 0 or np.max(row_vector) >= vector_row.shape[0]
            or np.min(vector_row) < 0 or np.max(vector_row) >= n_rows):
        raise ValueError("row_vector must number vectors 0 .. len(vector_row)-1 and vector_row "
                         "must hold rows")
    cdef double[:, ::1] weights_view = weights_array
    cdef int32_t[::1] iterations = iterations_array
    cdef uint8_t[::1] converged = converged_array
    cdef double[::1] gap = gap_array
    cdef double[::1] terms = terms_array
    cdef int64_t[::1] n_support = support_array
    cdef DualState s
    cdef uint64_t rng = seed
    memset(&s, 0, sizeof(DualState))
    s.dims = &dims[0] if dims.shape[0] else NULL
    s.n_vectors = vector_row.shape[0]
    s.n_outputs = K
    s.constant_sq = constant_sq
    s.single_sq = single_sq
    s.pair_sq = pair_sq
    s.diag = 0.5 / C if l2_loss else 0.0
    s.upper = INFINITY if l2_loss else C
    s.eps = eps
    s.max_iter = max_iter
    s.W = &weights_view[0, 0]
    s.iterations = &iterations[0]
    s.converged = &converged[0]
    s.gap = &gap[0]
    s.steps_left = CHECK_STEPS
    try:
        _allocate_work(&s, row_ptr, n_single, classes, row_vector, vector_row)
        with nogil:
            long_input_starts(n_rows)
            while s.n_open > 0:
                _pass(&s, &rng)
                if _end_pass(&s):
                    _gather_active_vectors(&s)
            long_input_ends(n_rows)
            _dual_terms(&s, &terms[0], &n_support[0])
    finally:
        _free_work(&s)
    return (weights_array, iterations_array, converged_array, gap_array, terms_array,
            support_array)
