# cython: language_level=3
"""C-SVC dual solver for the polynomial kernel on binary features (the engine of `kernel-svm`).

Problem (Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2011,
section 2.1):

    min_a  f(a) = 0.5 a^T Q a - e^T a,   y^T a = 0,   0 <= a_i <= C_i,
    Q_ij = y_i y_j K(x_i, x_j),   K(x, z) = (gamma |x & z| + coef0)^degree,

with |x & z| the number of feature ids two rows share and C_i = Cp (y_i = +1) or Cn (y_i = -1).

Algorithm: SMO (Platt 1998) on the pair (i, j) chosen by the second-order working-set selection
of Fan, Chen & Lin 2005, "Working set selection using second order information for training
SVM", JMLR 6 (their WSS 2):

    i = argmax { -y_t G_t : t in I_up(a) },
    j = argmin { -(b_it)^2 / a_it : t in I_low(a), -y_t G_t < -y_i G_i },
    b_it = -y_i G_i + y_t G_t > 0,  a_it = K_ii + K_tt - 2 K_it (tau = 1e-12 when <= 0),

stopping when m(a) - M(a) < eps; shrinking and gradient reconstruction as in LIBSVM's Solver
(sections 4-5 of the TIST paper), and an LRU cache of kernel columns Q_i[0 .. len) as float.
This module follows libsvm 3.x's Solver step by step (same tie-breaking, shrinking schedule,
cache policy and float rounding of Q), so it reaches libsvm's solution on the same data.

Kernel columns come from a pluggable ColumnSource (smo.pxd): the solver only asks for
Q_i[start .. len) of a row by its original index, so the same solver trains on binary vectors
(below), on trees (classifiers/tree_kernels/tree_columns.pyx) or on any kernel with a source.

Binary polynomial columns: the rows' feature ids are remapped to 0 .. n_features-1, and a column
Q_i[start .. len) needs |x_i & x_t| for every row t, then a table lookup of the kernel by that
count. Two ways, whichever touches fewer ids for this column:
  gather: mark x_i's ids in a byte array, then count the marked ids of each x_t (sum of |x_t|);
  inverted index: count[t] = number of x_i's ids that x_t holds, by walking the posting list of
    each id of x_i; an id held by more than half of the rows keeps the list of rows *without*
    it instead (count starts at 1 for it and those rows lose it), so a column costs l plus
    sum over x_i's ids of min(df, l - df).
"""
from libc.math cimport INFINITY
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc, realloc

import numpy as np

from polyparse.classifiers.evaluators.kernel_sum import kernel_table

from polyparse.classifiers.evaluators.kernel_sum cimport powi

from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts

cdef double TAU = 1e-12

cdef enum:
    LOWER_BOUND = 0
    UPPER_BOUND = 1
    FREE = 2


cdef struct CacheHead:
    # One column of the LRU cache: data[0 .. length) holds Q_i[0 .. length).
    CacheHead* prev
    CacheHead* next
    float* data
    int length


cdef class ColumnSource:
    """Base of the kernel column sources (see smo.pxd); fills nothing by itself."""

    cdef void fill(self, int row, double y_row, const int* rows, const int8_t* y, float* data,
                   int start, int length) noexcept nogil:
        pass


cdef class _BinaryPolynomialColumns(ColumnSource):
    """Columns of (gamma |x & z| + coef0)^degree on binary rows (see the module notes)."""

    cdef const int64_t* row_start
    cdef const int32_t* row_len
    cdef const int32_t* feats
    cdef uint8_t* mark
    cdef double* table
    # Inverted index by original row (see the module notes): postings of feature f are
    # post_rows[post_ptr[f] : post_ptr[f + 1]], complemented when complement[f]; count holds
    # one counter per original row; index_cost[o] is the work of a column of row o that way.
    cdef const int64_t* post_ptr
    cdef const int32_t* post_rows
    cdef const uint8_t* complement
    cdef const int64_t* index_cost
    cdef int32_t* count
    cdef double mean_len
    cdef object arrays

    def __cinit__(self, starts, lengths, feats, int n_features, int degree, double gamma,
                  double coef0):
        cdef int l = <int>lengths.shape[0]
        cdef int max_count = int(lengths.max())
        cdef int t
        post_ptr, post_rows, complement, index_cost = inverted_index(
            starts, lengths, feats, n_features
        )
        table = kernel_table(max_count, degree, gamma, coef0)
        # The arrays stay referenced here for the pointers below.
        self.arrays = (starts, lengths, feats, post_ptr, post_rows, complement, index_cost, table)
        cdef const int64_t[::1] starts_view = starts
        cdef const int32_t[::1] lengths_view = lengths
        cdef const int32_t[::1] feats_view = feats
        cdef const int64_t[::1] post_ptr_view = post_ptr
        cdef const int32_t[::1] post_rows_view = post_rows
        cdef const uint8_t[::1] complement_view = complement
        cdef const int64_t[::1] index_cost_view = index_cost
        self.n_rows = l
        self.row_start = &starts_view[0]
        self.row_len = &lengths_view[0]
        self.feats = &feats_view[0] if feats.shape[0] else NULL
        self.post_ptr = &post_ptr_view[0]
        self.post_rows = &post_rows_view[0] if post_rows.size else NULL
        self.complement = &complement_view[0]
        self.index_cost = &index_cost_view[0]
        self.mean_len = float(lengths.mean())
        self.mark = <uint8_t*>calloc(max(n_features, 1), sizeof(uint8_t))
        self.table = <double*>malloc((max_count + 1) * sizeof(double))
        self.count = <int32_t*>malloc(max(l, 1) * sizeof(int32_t))
        if self.mark == NULL or self.table == NULL or self.count == NULL:
            raise MemoryError()
        for t in range(max_count + 1):
            self.table[t] = table[t]
        self.diagonal = table[lengths]

    def __dealloc__(self):
        free(self.mark)
        free(self.table)
        free(self.count)

    cdef void fill(self, int row, double y_row, const int* rows, const int8_t* y, float* data,
                   int start, int length) noexcept nogil:
        # data[t] = y_i y_t K(x_i, x_t) for t in [start, length), the cheaper way.
        if self.index_cost[row] + (length - start) < self.mean_len * (length - start):
            self.fill_by_index(row, y_row, rows, y, data, start, length)
        else:
            self.fill_by_gather(row, y_row, rows, y, data, start, length)

    cdef void fill_by_index(self, int row, double yi, const int* rows, const int8_t* y,
                            float* data, int start, int length) noexcept nogil:
        cdef const int32_t* own = self.feats + self.row_start[row]
        cdef int n_own = self.row_len[row]
        cdef int32_t* count = self.count
        cdef const int32_t* posting = self.post_rows
        cdef int p, t, f
        cdef int32_t base = 0
        cdef int64_t q, end
        for p in range(n_own):
            base += self.complement[own[p]]
        for t in range(self.n_rows):
            count[t] = base
        for p in range(n_own):
            f = own[p]
            end = self.post_ptr[f + 1]
            if self.complement[f]:
                for q in range(self.post_ptr[f], end):
                    count[posting[q]] -= 1
            else:
                for q in range(self.post_ptr[f], end):
                    count[posting[q]] += 1
        for t in range(start, length):
            data[t] = <float>(yi * y[t] * self.table[count[rows[t]]])

    cdef void fill_by_gather(self, int row, double yi, const int* rows, const int8_t* y,
                             float* data, int start, int length) noexcept nogil:
        cdef const int32_t* feats = self.feats
        cdef uint8_t* mark = self.mark
        cdef const int32_t* other
        cdef const int32_t* own = feats + self.row_start[row]
        cdef int n_own = self.row_len[row]
        cdef int t, p, n, c0, c1, o
        for p in range(n_own):
            mark[own[p]] = 1
        for t in range(start, length):
            o = rows[t]
            other = feats + self.row_start[o]
            n = self.row_len[o]
            c0 = 0
            c1 = 0
            p = 0
            while p + 2 <= n:
                c0 += mark[other[p]]
                c1 += mark[other[p + 1]]
                p += 2
            if p < n:
                c0 += mark[other[p]]
            data[t] = <float>(yi * y[t] * self.table[c0 + c1])
        for p in range(n_own):
            mark[own[p]] = 0


cdef class _RealPolynomialColumns(ColumnSource):
    """Columns of (gamma x.z + coef0)^degree on real-valued rows (libsvm's polynomial kernel):
    x_i's values are scattered into a dense array, then each x_t's dot product is gathered over
    its ids in ascending order, the order in which libsvm's Kernel::dot adds the products."""

    cdef const int64_t* row_start
    cdef const int32_t* row_len
    cdef const int32_t* feats
    cdef const double* values
    cdef double* dense
    cdef double gamma, coef0
    cdef int degree
    cdef object arrays

    def __cinit__(self, starts, lengths, feats, values, int n_features, int degree, double gamma,
                  double coef0):
        cdef int l = <int>lengths.shape[0]
        self.arrays = (starts, lengths, feats, values)
        cdef const int64_t[::1] starts_view = starts
        cdef const int32_t[::1] lengths_view = lengths
        cdef const int32_t[::1] feats_view = feats
        cdef const double[::1] values_view = values
        self.n_rows = l
        self.row_start = &starts_view[0]
        self.row_len = &lengths_view[0]
        self.feats = &feats_view[0] if feats.shape[0] else NULL
        self.values = &values_view[0] if values.shape[0] else NULL
        self.degree, self.gamma, self.coef0 = degree, gamma, coef0
        self.dense = <double*>calloc(max(n_features, 1), sizeof(double))
        if self.dense == NULL:
            raise MemoryError()
        diagonal = np.empty(l, dtype=np.float64)
        cdef double[::1] diagonal_view = diagonal
        cdef int t, p
        cdef double dot
        cdef const double* own
        for t in range(l):
            own = self.values + self.row_start[t]
            dot = 0.0
            for p in range(self.row_len[t]):
                dot += own[p] * own[p]
            diagonal_view[t] = powi(gamma * dot + coef0, degree)
        self.diagonal = diagonal

    def __dealloc__(self):
        free(self.dense)

    cdef void fill(self, int row, double y_row, const int* rows, const int8_t* y, float* data,
                   int start, int length) noexcept nogil:
        cdef const int32_t* own = self.feats + self.row_start[row]
        cdef const double* own_values = self.values + self.row_start[row]
        cdef const int32_t* other
        cdef const double* other_values
        cdef double* dense = self.dense
        cdef int n_own = self.row_len[row]
        cdef int t, p, n, o
        cdef double dot
        for p in range(n_own):
            dense[own[p]] = own_values[p]
        for t in range(start, length):
            o = rows[t]
            other = self.feats + self.row_start[o]
            other_values = self.values + self.row_start[o]
            n = self.row_len[o]
            dot = 0.0
            for p in range(n):
                dot += dense[other[p]] * other_values[p]
            data[t] = <float>(y_row * y[t] * powi(self.gamma * dot + self.coef0, self.degree))
        for p in range(n_own):
            dense[own[p]] = 0.0


cdef inline void _clip_to_sum(double* alpha, int a, int b, double total, double C_a) noexcept nogil:
    # Equal labels keep alpha_a + alpha_b = total: alpha_a clipped to C_a, or alpha_b to 0, the
    # other taking the rest (libsvm's two sides of the box, one at a time).
    if total > C_a:
        if alpha[a] > C_a:
            alpha[a] = C_a
            alpha[b] = total - C_a
    else:
        if alpha[b] < 0:
            alpha[b] = 0
            alpha[a] = total


cdef class _Solver:
    """State of one binary C-SVC solve (libsvm's Solver + SVC_Q + Cache) on a column source."""

    cdef int l
    cdef int active_size
    cdef bint unshrink
    cdef double Cp, Cn, eps
    cdef int8_t* y
    cdef double* G
    cdef double* G_bar
    cdef double* alpha
    cdef double* QD
    cdef char* alpha_status
    cdef int* active_set
    cdef ColumnSource source
    # LRU cache of columns; cache_size counts the floats still free.
    cdef CacheHead* head
    cdef CacheHead lru_head
    cdef int64_t cache_size
    cdef int64_t columns_computed

    def __cinit__(self, int l):
        self.l = l
        self.y = <int8_t*>malloc(max(l, 1) * sizeof(int8_t))
        self.G = <double*>malloc(max(l, 1) * sizeof(double))
        self.G_bar = <double*>malloc(max(l, 1) * sizeof(double))
        self.alpha = <double*>malloc(max(l, 1) * sizeof(double))
        self.QD = <double*>malloc(max(l, 1) * sizeof(double))
        self.alpha_status = <char*>malloc(max(l, 1) * sizeof(char))
        self.active_set = <int*>malloc(max(l, 1) * sizeof(int))
        self.head = <CacheHead*>calloc(max(l, 1), sizeof(CacheHead))
        self.lru_head.next = &self.lru_head
        self.lru_head.prev = &self.lru_head
        if (self.y == NULL or self.G == NULL or self.G_bar == NULL or self.alpha == NULL
                or self.QD == NULL or self.alpha_status == NULL or self.active_set == NULL
                or self.head == NULL):
            raise MemoryError()

    def __dealloc__(self):
        cdef CacheHead* h
        if self.head != NULL:
            h = self.lru_head.next
            while h != &self.lru_head:
                free(h.data)
                h = h.next
        free(self.head)
        free(self.y)
        free(self.G)
        free(self.G_bar)
        free(self.alpha)
        free(self.QD)
        free(self.alpha_status)
        free(self.active_set)

    # LRU cache (libsvm's Cache) ------------------------------------------------------------

    cdef inline void lru_delete(self, CacheHead* h) noexcept nogil:
        h.prev.next = h.next
        h.next.prev = h.prev

    cdef inline void lru_insert(self, CacheHead* h) noexcept nogil:
        h.next = &self.lru_head
        h.prev = self.lru_head.prev
        h.prev.next = h
        h.next.prev = h

    cdef int cache_get(self, int index, float** data, int length) noexcept nogil:
        # Point data at column index's storage for [0, length); return the first position
        # that still has to be computed (>= length when the column is complete). NULL data
        # means out of memory.
        cdef CacheHead* h = &self.head[index]
        cdef CacheHead* old
        cdef int more, had
        cdef float* grown
        if h.length:
            self.lru_delete(h)
        more = length - h.length
        had = h.length
        if more > 0:
            while self.cache_size < more:
                old = self.lru_head.next
                self.lru_delete(old)
                free(old.data)
                self.cache_size += old.length
                old.data = NULL
                old.length = 0
            grown = <float*>realloc(h.data, sizeof(float) * length)
            if grown == NULL:
                data[0] = NULL
                return 0
            h.data = grown
            self.cache_size -= more
            h.length = length
        else:
            had = length
        self.lru_insert(h)
        data[0] = h.data
        return had

    cdef void cache_swap(self, int i, int j) noexcept nogil:
        cdef CacheHead* h
        cdef CacheHead* following
        cdef float* data
        cdef int length
        cdef float value
        if i == j:
            return
        if self.head[i].length:
            self.lru_delete(&self.head[i])
        if self.head[j].length:
            self.lru_delete(&self.head[j])
        data = self.head[i].data
        self.head[i].data = self.head[j].data
        self.head[j].data = data
        length = self.head[i].length
        self.head[i].length = self.head[j].length
        self.head[j].length = length
        if self.head[i].length:
            self.lru_insert(&self.head[i])
        if self.head[j].length:
            self.lru_insert(&self.head[j])
        if i > j:
            i, j = j, i
        h = self.lru_head.next
        while h != &self.lru_head:
            following = h.next
            if h.length > i:
                if h.length > j:
                    value = h.data[i]
                    h.data[i] = h.data[j]
                    h.data[j] = value
                else:
                    self.lru_delete(h)
                    free(h.data)
                    self.cache_size += h.length
                    h.data = NULL
                    h.length = 0
            h = following

    # Kernel columns (libsvm's SVC_Q::get_Q) ----------------------------------------------------

    cdef void fill_column(self, int i, float* data, int start, int length) noexcept nogil:
        # data[t] = y_i y_t K(x_i, x_t) for t in [start, length).
        self.source.fill(self.active_set[i], self.y[i], self.active_set, self.y, data, start,
                         length)
        self.columns_computed += 1

    cdef float* get_Q(self, int i, int length) noexcept nogil:
        cdef float* data
        cdef int start = self.cache_get(i, &data, length)
        if data != NULL and start < length:
            self.fill_column(i, data, start, length)
        return data

    cdef void swap_index(self, int i, int j) noexcept nogil:
        cdef int8_t yy
        cdef double d
        cdef char c
        cdef int a
        self.cache_swap(i, j)
        yy = self.y[i]; self.y[i] = self.y[j]; self.y[j] = yy
        d = self.QD[i]; self.QD[i] = self.QD[j]; self.QD[j] = d
        d = self.G[i]; self.G[i] = self.G[j]; self.G[j] = d
        c = self.alpha_status[i]; self.alpha_status[i] = self.alpha_status[j]
        self.alpha_status[j] = c
        d = self.alpha[i]; self.alpha[i] = self.alpha[j]; self.alpha[j] = d
        a = self.active_set[i]; self.active_set[i] = self.active_set[j]; self.active_set[j] = a
        d = self.G_bar[i]; self.G_bar[i] = self.G_bar[j]; self.G_bar[j] = d

    # Solver -------------------------------------------------------------------------------

    cdef inline double get_C(self, int i) noexcept nogil:
        return self.Cp if self.y[i] > 0 else self.Cn

    cdef inline void update_alpha_status(self, int i) noexcept nogil:
        if self.alpha[i] >= self.get_C(i):
            self.alpha_status[i] = UPPER_BOUND
        elif self.alpha[i] <= 0:
            self.alpha_status[i] = LOWER_BOUND
        else:
            self.alpha_status[i] = FREE

    cdef int reconstruct_gradient(self) noexcept nogil:
        # Inactive G from G_bar and the free variables; returns -1 when out of memory.
        cdef int i, j, nr_free = 0
        cdef int l = self.l, active = self.active_size
        cdef const float* Q_i
        cdef double alpha_i
        if active == l:
            return 0
        for j in range(active, l):
            self.G[j] = self.G_bar[j] - 1.0
        for j in range(active):
            if self.alpha_status[j] == FREE:
                nr_free += 1
        if <int64_t>nr_free * l > 2 * <int64_t>active * (l - active):
            for i in range(active, l):
                Q_i = self.get_Q(i, active)
                if Q_i == NULL:
                    return -1
                for j in range(active):
                    if self.alpha_status[j] == FREE:
                        self.G[i] += self.alpha[j] * Q_i[j]
        else:
            for i in range(active):
                if self.alpha_status[i] == FREE:
                    Q_i = self.get_Q(i, l)
                    if Q_i == NULL:
                        return -1
                    alpha_i = self.alpha[i]
                    for j in range(active, l):
                        self.G[j] += alpha_i * Q_i[j]
        return 0

    cdef int select_working_set(self, int* out_i, int* out_j) noexcept nogil:
        # WSS 2 of Fan, Chen & Lin 2005. Returns 1 when optimal, -1 when out of memory.
        cdef double Gmax = -INFINITY, Gmax2 = -INFINITY, obj_diff_min = INFINITY
        cdef double grad_diff, quad_coef, obj_diff, yG, QD_i = 0, y_i = 0
        cdef int Gmax_idx = -1, Gmin_idx = -1, t, j, active = self.active_size
        cdef const float* Q_i = NULL
        cdef const double* G = self.G
        cdef const double* QD = self.QD
        cdef const int8_t* y = self.y
        cdef const char* status = self.alpha_status
        for t in range(active):
            if y[t] == 1:
                if status[t] != UPPER_BOUND and -G[t] >= Gmax:
                    Gmax = -G[t]
                    Gmax_idx = t
            else:
                if status[t] != LOWER_BOUND and G[t] >= Gmax:
                    Gmax = G[t]
                    Gmax_idx = t
        if Gmax_idx != -1:
            Q_i = self.get_Q(Gmax_idx, active)
            if Q_i == NULL:
                return -1
            QD_i = QD[Gmax_idx]
            y_i = y[Gmax_idx]
        for j in range(active):
            # y_j G_j, exactly G_j or -G_j: libsvm's two label cases in one.
            if status[j] == (LOWER_BOUND if y[j] == 1 else UPPER_BOUND):
                continue
            yG = y[j] * G[j]
            grad_diff = Gmax + yG
            if yG >= Gmax2:
                Gmax2 = yG
            if grad_diff > 0:
                quad_coef = QD_i + QD[j] - y[j] * (2.0 * y_i * Q_i[j])
                if quad_coef > 0:
                    obj_diff = -(grad_diff * grad_diff) / quad_coef
                else:
                    obj_diff = -(grad_diff * grad_diff) / TAU
                if obj_diff <= obj_diff_min:
                    Gmin_idx = j
                    obj_diff_min = obj_diff
        if Gmax + Gmax2 < self.eps or Gmin_idx == -1:
            return 1
        out_i[0] = Gmax_idx
        out_j[0] = Gmin_idx
        return 0

    cdef inline bint be_shrunk(self, int i, double Gmax1, double Gmax2) noexcept nogil:
        if self.alpha_status[i] == UPPER_BOUND:
            if self.y[i] == 1:
                return -self.G[i] > Gmax1
            return -self.G[i] > Gmax2
        if self.alpha_status[i] == LOWER_BOUND:
            if self.y[i] == 1:
                return self.G[i] > Gmax2
            return self.G[i] > Gmax1
        return False

    cdef int do_shrinking(self) noexcept nogil:
        cdef double Gmax1 = -INFINITY, Gmax2 = -INFINITY
        cdef int i
        for i in range(self.active_size):
            if self.y[i] == 1:
                if self.alpha_status[i] != UPPER_BOUND and -self.G[i] >= Gmax1:
                    Gmax1 = -self.G[i]
                if self.alpha_status[i] != LOWER_BOUND and self.G[i] >= Gmax2:
                    Gmax2 = self.G[i]
            else:
                if self.alpha_status[i] != UPPER_BOUND and -self.G[i] >= Gmax2:
                    Gmax2 = -self.G[i]
                if self.alpha_status[i] != LOWER_BOUND and self.G[i] >= Gmax1:
                    Gmax1 = self.G[i]
        if not self.unshrink and Gmax1 + Gmax2 <= self.eps * 10:
            self.unshrink = True
            if self.reconstruct_gradient() != 0:
                return -1
            self.active_size = self.l
        i = 0
        while i < self.active_size:
            if self.be_shrunk(i, Gmax1, Gmax2):
                self.active_size -= 1
                while self.active_size > i:
                    if not self.be_shrunk(self.active_size, Gmax1, Gmax2):
                        self.swap_index(i, self.active_size)
                        break
                    self.active_size -= 1
            i += 1
        return 0

    cdef double calculate_rho(self) noexcept nogil:
        cdef int i, nr_free = 0
        cdef double ub = INFINITY, lb = -INFINITY, sum_free = 0, yG
        for i in range(self.active_size):
            yG = self.y[i] * self.G[i]
            if self.alpha_status[i] == UPPER_BOUND:
                if self.y[i] == -1:
                    ub = min(ub, yG)
                else:
                    lb = max(lb, yG)
            elif self.alpha_status[i] == LOWER_BOUND:
                if self.y[i] == 1:
                    ub = min(ub, yG)
                else:
                    lb = max(lb, yG)
            else:
                nr_free += 1
                sum_free += yG
        if nr_free > 0:
            return sum_free / nr_free
        return (ub + lb) / 2

    cdef void update_pair(self, int i, int j, const float* Q_i, const float* Q_j) noexcept nogil:
        # The two-variable subproblem of SMO, solved and clipped to the box as libsvm does.
        cdef double C_i = self.get_C(i), C_j = self.get_C(j)
        cdef double* alpha = self.alpha
        cdef double quad_coef, delta, diff, total
        if self.y[i] != self.y[j]:
            quad_coef = self.QD[i] + self.QD[j] + 2 * Q_i[j]
            if quad_coef <= 0:
                quad_coef = TAU
            delta = (-self.G[i] - self.G[j]) / quad_coef
            diff = alpha[i] - alpha[j]
            alpha[i] += delta
            alpha[j] += delta
            if diff > 0:
                if alpha[j] < 0:
                    alpha[j] = 0
                    alpha[i] = diff
            else:
                if alpha[i] < 0:
                    alpha[i] = 0
                    alpha[j] = -diff
            if diff > C_i - C_j:
                if alpha[i] > C_i:
                    alpha[i] = C_i
                    alpha[j] = C_i - diff
            else:
                if alpha[j] > C_j:
                    alpha[j] = C_j
                    alpha[i] = C_j + diff
        else:
            quad_coef = self.QD[i] + self.QD[j] - 2 * Q_i[j]
            if quad_coef <= 0:
                quad_coef = TAU
            delta = (self.G[i] - self.G[j]) / quad_coef
            total = alpha[i] + alpha[j]
            alpha[i] -= delta
            alpha[j] += delta
            _clip_to_sum(alpha, i, j, total, C_i)
            _clip_to_sum(alpha, j, i, total, C_j)

    cdef int update_G_bar(self, int i, bint was_upper) noexcept nogil:
        # G_bar += / -= C_i Q_i when variable i enters / leaves its upper bound.
        cdef bint is_upper = self.alpha_status[i] == UPPER_BOUND
        cdef const float* Q_i
        cdef double C_i = self.get_C(i)
        cdef int k
        if was_upper == is_upper:
            return 0
        Q_i = self.get_Q(i, self.l)
        if Q_i == NULL:
            return -1
        if was_upper:
            for k in range(self.l):
                self.G_bar[k] -= C_i * Q_i[k]
        else:
            for k in range(self.l):
                self.G_bar[k] += C_i * Q_i[k]
        return 0

    cdef int solve(self, bint shrinking, int64_t max_iter, int64_t* iterations) except -2 nogil:
        # libsvm's Solver::Solve from a = 0 (G = -e, G_bar = 0). Returns 1 when the stopping
        # test was met, 0 when max_iter steps ran out first, -1 when out of memory, -2 with the
        # exception of a signal's handler (checked every CHECK_STEPS steps, a step being an
        # iteration and 64 active rows, about a microsecond); iterations[0] receives the number
        # of SMO steps.
        cdef int l = self.l, i = 0, j = 0, k, found
        cdef int64_t it = 0, steps_left = CHECK_STEPS
        cdef int counter = min(l, 1000) + 1
        cdef const float* Q_i
        cdef const float* Q_j
        cdef double old_alpha_i, old_alpha_j, delta_alpha_i, delta_alpha_j
        cdef bint ui, uj
        for k in range(l):
            self.alpha[k] = 0
            self.alpha_status[k] = LOWER_BOUND
            self.active_set[k] = k
            self.G[k] = -1.0
            self.G_bar[k] = 0
        self.active_size = l
        self.unshrink = False
        while it < max_iter:
            count_steps(&steps_left, 1 + (self.active_size >> 6))
            counter -= 1
            if counter == 0:
                counter = min(l, 1000)
                if shrinking and self.do_shrinking() != 0:
                    return -1
            found = self.select_working_set(&i, &j)
            if found < 0:
                return -1
            if found != 0:
                if self.reconstruct_gradient() != 0:
                    return -1
                self.active_size = l
                found = self.select_working_set(&i, &j)
                if found < 0:
                    return -1
                if found != 0:
                    iterations[0] = it
                    return 1
                counter = 1
            it += 1
            Q_i = self.get_Q(i, self.active_size)
            Q_j = self.get_Q(j, self.active_size)
            if Q_i == NULL or Q_j == NULL:
                return -1
            old_alpha_i = self.alpha[i]
            old_alpha_j = self.alpha[j]
            self.update_pair(i, j, Q_i, Q_j)
            delta_alpha_i = self.alpha[i] - old_alpha_i
            delta_alpha_j = self.alpha[j] - old_alpha_j
            for k in range(self.active_size):
                self.G[k] += Q_i[k] * delta_alpha_i + Q_j[k] * delta_alpha_j
            ui = self.alpha_status[i] == UPPER_BOUND
            uj = self.alpha_status[j] == UPPER_BOUND
            self.update_alpha_status(i)
            self.update_alpha_status(j)
            if self.update_G_bar(i, ui) != 0 or self.update_G_bar(j, uj) != 0:
                return -1
        if self.reconstruct_gradient() != 0:
            return -1
        self.active_size = l
        iterations[0] = it
        return 0


def solve_c_svc(
    const int64_t[::1] row_start,
    const int32_t[::1] row_len,
    const int32_t[::1] feats,
    int n_features,
    const int8_t[::1] y,
    double Cp,
    double Cn,
    int degree,
    double gamma,
    double coef0,
    double eps,
    double cache_mb,
    bint shrinking,
    int64_t max_iter,
):
    """Train one binary C-SVC (libsvm's solve_c_svc) on rows given by position.

    Row t of the problem holds the feature ids feats[row_start[t] : row_start[t] + row_len[t]]
    (remapped to 0 .. n_features-1, any order) and the label y[t] in {+1, -1}. Returns
    (coef, rho, objective, iterations, columns_computed): coef[t] = y_t a_t (libsvm's sv_coef
    of the row; nonzero marks a support vector), rho the offset of the decision function
    sum_t coef[t] K(x_t, x) - rho, objective f(a) at the solution, the number of SMO steps,
    whether the stopping test was met (False: max_iter steps ran out first; max_iter <= 0 means
    libsvm's max(10^7, 100 l)) and the number of kernel columns computed.
    """
    cdef int l = <int>y.shape[0]
    if row_start.shape[0] != l or row_len.shape[0] != l:
        raise ValueError("row_start, row_len and y must have one entry per row")
    if l == 0:
        raise ValueError("cannot solve a problem with no rows")
    lengths = np.asarray(row_len)
    starts = np.asarray(row_start)
    if lengths.min() < 0 or starts.min() < 0 or (starts + lengths).max() > feats.shape[0]:
        raise ValueError("rows must lie inside feats")
    if feats.shape[0] and (np.asarray(feats).min() < 0 or np.asarray(feats).max() >= n_features):
        raise ValueError("feature ids must lie in 0 .. n_features-1")
    source = _BinaryPolynomialColumns(
        starts, lengths, np.asarray(feats), n_features, degree, gamma, coef0
    )
    return solve_c_svc_columns(source, y, Cp, Cn, eps, cache_mb, shrinking, max_iter)


def solve_c_svc_real(
    const int64_t[::1] row_start,
    const int32_t[::1] row_len,
    const int32_t[::1] feats,
    const double[::1] values,
    int n_features,
    const int8_t[::1] y,
    double Cp,
    double Cn,
    int degree,
    double gamma,
    double coef0,
    double eps,
    double cache_mb,
    bint shrinking,
    int64_t max_iter,
):
    """solve_c_svc on real-valued rows: row t holds values[row_start[t] + k] at the ids
    feats[row_start[t] + k] (ascending within a row, remapped to 0 .. n_features-1), and the
    kernel is (gamma x.z + coef0)^degree of their dot products; returns what solve_c_svc does."""
    cdef int l = <int>y.shape[0]
    if row_start.shape[0] != l or row_len.shape[0] != l:
        raise ValueError("row_start, row_len and y must have one entry per row")
    if l == 0:
        raise ValueError("cannot solve a problem with no rows")
    if values.shape[0] != feats.shape[0]:
        raise ValueError("values must hold one number per entry of feats")
    lengths = np.asarray(row_len)
    starts = np.asarray(row_start)
    if lengths.min() < 0 or starts.min() < 0 or (starts + lengths).max() > feats.shape[0]:
        raise ValueError("rows must lie inside feats")
    if feats.shape[0] and (np.asarray(feats).min() < 0 or np.asarray(feats).max() >= n_features):
        raise ValueError("feature ids must lie in 0 .. n_features-1")
    source = _RealPolynomialColumns(
        starts, lengths, np.asarray(feats), np.asarray(values), n_features, degree, gamma, coef0
    )
    return solve_c_svc_columns(source, y, Cp, Cn, eps, cache_mb, shrinking, max_iter)


def solve_c_svc_columns(
    ColumnSource source,
    const int8_t[::1] y,
    double Cp,
    double Cn,
    double eps,
    double cache_mb,
    bint shrinking,
    int64_t max_iter,
):
    """Train one binary C-SVC (libsvm's solve_c_svc) on the kernel of a column source.

    Row t has the label y[t] in {+1, -1} and the kernel source.fill / source.diagonal. Returns
    (coef, rho, objective, iterations, converged, columns_computed) as solve_c_svc does.
    """
    cdef int l = <int>y.shape[0]
    if source.n_rows != l:
        raise ValueError(f"the column source has {source.n_rows} rows, y has {l}")
    if l == 0:
        raise ValueError("cannot solve a problem with no rows")
    if not (Cp > 0 and Cn > 0):
        raise ValueError("the box bounds Cp and Cn must be positive")
    if not eps > 0:
        raise ValueError("eps must be positive")
    labels = np.asarray(y)
    if not np.all((labels == 1) | (labels == -1)):
        raise ValueError("labels must be +1 or -1")
    diagonal = np.ascontiguousarray(source.diagonal, dtype=np.float64)
    if diagonal.shape != (l,):
        raise ValueError("the column source's diagonal must have one entry per row")
    cdef const double[::1] diagonal_view = diagonal
    cdef _Solver solver = _Solver(l)
    cdef int t
    for t in range(l):
        solver.y[t] = y[t]
        solver.QD[t] = diagonal_view[t]
    solver.source = source
    solver.Cp = Cp
    solver.Cn = Cn
    solver.eps = eps
    # libsvm: cache_size MB of floats minus the column heads, at least two columns.
    solver.cache_size = <int64_t>(cache_mb * (1 << 20)) // sizeof(float)
    solver.cache_size -= l * sizeof(CacheHead) // sizeof(float)
    solver.cache_size = max(solver.cache_size, 2 * <int64_t>l)
    if max_iter <= 0:
        max_iter = max(10000000, 100 * <int64_t>l)
    cdef int64_t iterations = 0
    cdef int status
    with nogil:
        long_input_starts(l)
        status = solver.solve(shrinking, max_iter, &iterations)
        long_input_ends(l)
    if status < 0:
        raise MemoryError("out of memory for the kernel cache")
    coef = np.empty(l, dtype=np.float64)
    cdef double[::1] coef_view = coef
    cdef double v = 0
    for t in range(l):
        v += solver.alpha[t] * (solver.G[t] - 1.0)
        coef_view[solver.active_set[t]] = solver.alpha[t] * solver.y[t]
    rho = solver.calculate_rho()
    return coef, rho, v / 2, int(iterations), status == 1, int(solver.columns_computed)


def inverted_index(starts, lengths, feats, int n_features):
    """Posting lists of the problem's rows by feature (see the module notes).

    Returns (post_ptr int64 (n_features + 1,), post_rows int32, complement uint8 (n_features,),
    index_cost int64 (l,)): the rows holding feature f, or those not holding it when
    complement[f], are post_rows[post_ptr[f] : post_ptr[f + 1]] in ascending order.
    """
    l = lengths.size
    total = int(lengths.sum())
    row_of = np.repeat(np.arange(l, dtype=np.int32), lengths)
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    ids = feats[np.repeat(starts, lengths) + offsets]
    order = np.argsort(ids, kind="stable")
    sorted_ids, sorted_rows = ids[order], row_of[order]
    df = np.bincount(ids, minlength=n_features)
    held_ptr = np.zeros(n_features + 1, dtype=np.int64)
    np.cumsum(df, out=held_ptr[1:])
    complement = (2 * df > l).astype(np.uint8)
    sizes = np.where(complement == 1, l - df, df)
    post_ptr = np.zeros(n_features + 1, dtype=np.int64)
    np.cumsum(sizes, out=post_ptr[1:])
    post_rows = np.empty(int(post_ptr[n_features]), dtype=np.int32)
    plain = complement[sorted_ids] == 0
    rank = np.arange(total, dtype=np.int64) - held_ptr[sorted_ids]
    post_rows[post_ptr[sorted_ids[plain]] + rank[plain]] = sorted_rows[plain]
    everyone = np.arange(l, dtype=np.int32)
    for f in np.flatnonzero(complement):
        post_rows[post_ptr[f] : post_ptr[f + 1]] = np.setdiff1d(
            everyone, sorted_rows[held_ptr[f] : held_ptr[f + 1]], assume_unique=True
        )
    index_cost = np.bincount(row_of, weights=sizes[ids], minlength=l).astype(np.int64) + l
    return post_ptr, post_rows, complement, index_cost
