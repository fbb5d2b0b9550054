# cython: language_level=3
"""The conjunction-weight table of kernel splitting (Yoshinaga & Kitsuregawa 2010, section 3.1).

W(g) = sum_{s in S contains g} alpha_s for every conjunction g of at most d of the N most frequent
features, keyed by frequency ranks: the ranks below n_dense in dense arrays (singles c, pairs
c(c-1)/2 + b, triples c(c-1)(c-2)/6 + b(b-1)/2 + a for a < b < c), the others hashed in a
KeyIndex and looked up from the rarest feature of a conjunction (a pair absent from the table
rules out its triples, as the paper's weight trie does). With the coefficients c_m of
(c + 1)^d = sum_m c_m binom(c, m) (classifiers/evaluators/pke.pyx), the slice of a common
feature f_j over a prefix x_{j-1} of common features is

    slice_j(x) = sum_{g subset of x_{j-1}, |g| < d} c_{|g|+1} W(g + f_j).

When the table's memory exceeds its cap, N is halved and the conjunctions of the rarer half are
dropped (their features join the inverted index), as section 3.1 suggests.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcpy, memset

import numpy as np

from polyparse.classifiers.evaluators.pke cimport KEY_BITS, conjunction_count, extend_key
from polyparse.classifiers.evaluators.pke import DEFAULT_MAX_DENSE_BYTES, conjunction_coefficients, dense_rank_count

_FIELD = np.uint64((1 << KEY_BITS) - 1)


cdef void* _grow(void* data, int64_t* capacity, int64_t needed, size_t item) noexcept nogil:
    # data realloc'ed to hold at least `needed` items (capacity doubled), new items zeroed;
    # NULL when out of memory (data is then left as it was).
    cdef int64_t old = capacity[0], new = old if old > 0 else 16
    cdef void* grown
    while new < needed:
        new *= 2
    grown = realloc(data, <size_t>new * item)
    if grown == NULL:
        return NULL
    memset(<char*>grown + <size_t>old * item, 0, <size_t>(new - old) * item)
    capacity[0] = new
    return grown


cdef inline double _dense_run(double* w, int64_t base, const int32_t* r, int j, double total,
                             double delta, bint add) noexcept nogil:
    # The dense slots w[base + r[a]], a < j (the conjunctions of each r[a] with the same larger
    # ranks): total plus their weights, in order, or (add) delta added to each.
    cdef int a
    for a in range(j):
        if add:
            w[base + r[a]] += delta
        else:
            total += w[base + r[a]]
    return total


cdef inline double _dense_triples(double* w3, const int32_t* r, int j, int32_t c, double delta,
                                 bint add) noexcept nogil:
    # The dense slots of the triples {r[a], r[b], c}, a < b < j: the sum of their weights, or
    # (add) delta added to each.
    cdef int64_t base3 = <int64_t>c * (c - 1) * (c - 2) // 6
    cdef double total = 0.0
    cdef int b
    cdef int32_t rb
    for b in range(1, j):
        rb = r[b]
        total = _dense_run(w3, base3 + <int64_t>rb * (rb - 1) // 2, r, b, total, delta, add)
    return total


cdef class ConjunctionTable:
    """The table of the conjunctions (size <= degree) of the ranks below n_common, all weights
    0; max_table_bytes (0: no cap) bounds its dense part to half of it."""

    def __dealloc__(self):
        free(self.w1)
        free(self.w2)
        free(self.w3)
        free(self.hashed)

    def __init__(self, int degree, int32_t n_common, int64_t max_table_bytes):
        cdef double[::1] coefficients = conjunction_coefficients(1.0, 1.0, degree)
        cdef int m
        self.degree = degree
        for m in range(4):
            self.coef[m] = coefficients[m] if m <= degree else 0.0
        self.n_common = n_common
        dense_budget = DEFAULT_MAX_DENSE_BYTES
        if max_table_bytes:
            dense_budget = min(dense_budget, max_table_bytes // 2)
        self.n_dense = dense_rank_count(n_common, degree, 1, dense_budget)
        self._allocate_dense(self.n_dense)
        self.index = KeyIndex(16)
        self.hashed_cap = 16
        self.hashed = <double*>calloc(self.hashed_cap, sizeof(double))
        if self.hashed == NULL:
            raise MemoryError()

    cdef int _allocate_dense(self, int32_t n_dense) except -1:
        cdef int64_t n = n_dense
        self.w1 = <double*>calloc(max(n, 1), sizeof(double))
        if self.degree >= 2:
            self.w2 = <double*>calloc(max(n * (n - 1) // 2, 1), sizeof(double))
        if self.degree >= 3:
            self.w3 = <double*>calloc(max(n * (n - 1) * (n - 2) // 6, 1), sizeof(double))
        if (self.w1 == NULL or (self.degree >= 2 and self.w2 == NULL)
                or (self.degree >= 3 and self.w3 == NULL)):
            raise MemoryError()
        return 0

    cdef double slice(self, const int32_t* r, int j) noexcept nogil:
        # slice_j from the table: f_j = r[j] and r[0..j) are all common ranks.
        cdef int32_t c = r[j]
        cdef int a, b
        cdef double s1, s2 = 0.0, s3 = 0.0
        cdef const double* h = self.hashed
        cdef int32_t row
        cdef uint64_t kc, kbc
        if c < self.n_dense:
            s1 = self.w1[c]
            if self.degree >= 2:
                s2 = _dense_run(self.w2, <int64_t>c * (c - 1) // 2, r, j, 0.0, 0.0, False)
            if self.degree >= 3:
                s3 = _dense_triples(self.w3, r, j, c, 0.0, False)
        else:
            kc = extend_key(0, c)
            row = self.index.get(kc)
            if row < 0:
                return 0.0
            s1 = h[row]
            if self.degree >= 2:
                for b in range(j):
                    kbc = extend_key(extend_key(0, r[b]), c)
                    row = self.index.get(kbc)
                    if row < 0:
                        continue
                    s2 += h[row]
                    if self.degree >= 3:
                        for a in range(b):
                            row = self.index.get(
                                (<uint64_t>(r[a] + 1) << (2 * KEY_BITS)) | kbc)
                            if row >= 0:
                                s3 += h[row]
        return self.coef[1] * s1 + self.coef[2] * s2 + self.coef[3] * s3

    cdef int _hashed_add(self, uint64_t key, double delta) except -1 nogil:
        cdef int32_t row = self.index.get_or_insert(key)
        cdef double* grown
        if row >= self.hashed_cap:
            grown = <double*>_grow(self.hashed, &self.hashed_cap, row + 1, sizeof(double))
            if grown == NULL:
                with gil:
                    raise MemoryError()
            self.hashed = grown
        self.hashed[row] += delta
        return 0

    cdef int add(self, const int32_t* r, int nc, double delta) except -1 nogil:
        # Add delta to the weight of every conjunction (size <= degree) of r[0..nc).
        cdef int a, b, j
        cdef int32_t c
        cdef uint64_t kbc
        for j in range(nc):
            c = r[j]
            if c < self.n_dense:
                self.w1[c] += delta
                if self.degree >= 2:
                    _dense_run(self.w2, <int64_t>c * (c - 1) // 2, r, j, 0.0, delta, True)
                if self.degree >= 3:
                    _dense_triples(self.w3, r, j, c, delta, True)
            else:
                self._hashed_add(extend_key(0, c), delta)
                if self.degree >= 2:
                    for b in range(j):
                        kbc = extend_key(extend_key(0, r[b]), c)
                        self._hashed_add(kbc, delta)
                        if self.degree >= 3:
                            for a in range(b):
                                self._hashed_add(
                                    (<uint64_t>(r[a] + 1) << (2 * KEY_BITS)) | kbc, delta)
        return 0

    cdef int64_t size_bytes(self) noexcept nogil:
        return (8 * conjunction_count(self.n_dense, self.degree)
                + 12 * <int64_t>(self.index.mask + 1) + 8 * self.hashed_cap)

    def entries(self) -> int:
        """Conjunctions the table holds (dense slots and hashed keys)."""
        return int(conjunction_count(self.n_dense, self.degree) + self.index.size)

    cdef int halve(self) except -1:
        # N -> N / 2: drop the conjunctions holding a rank >= N / 2.
        cdef int32_t new = self.n_common // 2
        cdef int64_t n
        cdef double* old1 = self.w1
        cdef double* old2 = self.w2
        cdef double* old3 = self.w3
        cdef double* hashed
        if new < self.n_dense:
            n = new
            self.w1 = self.w2 = self.w3 = NULL
            self._allocate_dense(new)
            memcpy(self.w1, old1, n * sizeof(double))
            if self.degree >= 2:
                memcpy(self.w2, old2, (n * (n - 1) // 2) * sizeof(double))
            if self.degree >= 3:
                memcpy(self.w3, old3, (n * (n - 1) * (n - 2) // 6) * sizeof(double))
            free(old1)
            free(old2)
            free(old3)
            self.n_dense = new
        keys = self.index.keys()
        weights = np.array(<double[:max(self.index.size, 1)]>self.hashed)[:keys.size]
        keep = (keys & _FIELD).astype(np.int64) - 1 < new
        kept_weights = np.ascontiguousarray(weights[keep])
        self.index = KeyIndex.from_keys(keys[keep])
        n = max(16, 2 * kept_weights.size)
        hashed = <double*>calloc(n, sizeof(double))
        if hashed == NULL:
            raise MemoryError()
        if kept_weights.size:
            memcpy(hashed, <double*><size_t>kept_weights.ctypes.data,
                   kept_weights.size * sizeof(double))
        free(self.hashed)
        self.hashed = hashed
        self.hashed_cap = n
        self.n_common = new
        return 0
