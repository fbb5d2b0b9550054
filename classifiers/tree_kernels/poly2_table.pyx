# cython: language_level=3
"""A weighted sum of normalised polynomial kernels on binary vectors as an explicit weight table.

SVM-light-TK's vector part of `-C +` (combination.polynomial_gram): P(x, z) = (s x.z + r)^d,
P_n(x, z) = P(x, z) / sqrt(P(x, x) P(z, z)), a zero P(x, x) replaced by 1. For binary x, z
(x_f^2 = x_f) and d = 2, the explicit degree-2 mapping of Chang et al. (2010, "Training and
testing low-degree polynomial data mappings via linear SVM", section 3) reads
    (s x.z + r)^2 = r^2 + (2 r s + s^2) sum_f x_f z_f + 2 s^2 sum_{f<g} x_f x_g z_f z_g,
and d = 1: r + s sum_f x_f z_f. So a model sum_m a_m P_n(v_m, x) is
    ( b + sum_{f in x} w_f + sum_{f<g in x} w_fg ) / sqrt(P(x, x)),
    a_m' = a_m / sqrt(P(v_m, v_m)),  b = r^d sum_m a_m',
    w_f = c1 sum_{m: f in v_m} a_m',  w_fg = 2 s^2 sum_{m: f, g in v_m} a_m',
with c1 = 2 r s + s^2 (d = 2) or s (d = 1): each model vector's normalisation is folded into its
weight, and scoring x costs |x| + |x|(|x| - 1)/2 look-ups, however many vectors were added.
Single weights are keyed by the id f, pair weights by f << 32 | g (f < g), both in hash maps:
the ids are those of the vectors as stored, and the table grows with the distinct features and
pairs, not with the largest id (feature hashing writes ids up to 2**31 - 1).
"""
from cython.operator cimport dereference as deref
from cython.operator cimport preincrement as inc
from libc.math cimport pow, sqrt
from libc.stdint cimport int32_t, int64_t
from libcpp.utility cimport pair as cpp_pair

import numpy as np

from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps


cdef class Poly2Table:
    """sum_m a_m P_n(v_m, .) for binary vectors v_m (see the module notes), degree 1 or 2."""

    def __cinit__(self, int degree=2, double s=1.0, double r=1.0):
        if degree not in (1, 2):
            raise ValueError(f"the explicit polynomial table holds degree 1 or 2, not {degree}")
        self.degree = degree
        self.s = s
        self.r = r
        self.bias = 0.0
        self.n_vectors = 0
        self.max_id = -1

    cdef double norm(self, int64_t n_ones) noexcept nogil:
        cdef double value = pow(self.s * n_ones + self.r, self.degree)
        return 1.0 if value == 0.0 else value

    cdef int add_ids(self, const int32_t* ids, int64_t n, double weight) except -1:
        cdef double a = weight / sqrt(self.norm(n))
        cdef double single = a * (self.s if self.degree == 1 else 2 * self.r * self.s
                                  + self.s * self.s)
        cdef double pair = a * 2 * self.s * self.s
        cdef int64_t i, j
        cdef int32_t f
        self.bias += a * pow(self.r, self.degree)
        self.n_vectors += 1
        for i in range(n):
            f = ids[i]
            if f > self.max_id:
                self.max_id = f
            _add(&self._single, f, single)
            if self.degree == 2:
                for j in range(i + 1, n):
                    _add(&self._pairs, _pair_key(f, ids[j]), pair)
        return 0

    cdef double score_ids(self, const int32_t* ids, int64_t n) noexcept nogil:
        # ids sorted ascending and unique (a BinaryMatrix row).
        cdef double total = self.bias
        cdef int64_t i, j
        cdef int32_t f
        cdef unordered_map[int64_t, double].iterator found
        cdef bint pairs = self.degree == 2 and self._pairs.size() > 0
        for i in range(n):
            f = ids[i]
            if f > self.max_id:
                break
            found = self._single.find(f)
            if found != self._single.end():
                total += deref(found).second
            if pairs:
                for j in range(i + 1, n):
                    if ids[j] > self.max_id:
                        break
                    found = self._pairs.find(_pair_key(f, ids[j]))
                    if found != self._pairs.end():
                        total += deref(found).second
        return total / sqrt(self.norm(n))

    def add(self, ids, double weight) -> None:
        """Add weight * P_n(v, .) for the binary vector v with the sorted unique ids."""
        cdef const int32_t[::1] v = np.ascontiguousarray(ids, dtype=np.int32)
        self.add_ids(&v[0] if v.shape[0] else NULL, v.shape[0], weight)

    def score(self, ids) -> float:
        """sum_m a_m P_n(v_m, x) for the binary vector x with the sorted unique ids."""
        cdef const int32_t[::1] v = np.ascontiguousarray(ids, dtype=np.int32)
        return self.score_ids(&v[0] if v.shape[0] else NULL, v.shape[0])

    def scores(self, vectors) -> np.ndarray:
        """The score of every row of a features.binary_matrix.BinaryMatrix."""
        cdef const int64_t[::1] indptr = vectors.indptr
        cdef const int32_t[::1] indices = vectors.indices
        out = np.empty(indptr.shape[0] - 1, dtype=np.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t k
        cdef const int32_t* base = &indices[0] if indices.shape[0] else NULL
        cdef int64_t steps_left = CHECK_STEPS
        with nogil:
            for k in range(o.shape[0]):
                count_steps(&steps_left, 1)
                o[k] = self.score_ids(base + indptr[k] if base != NULL else NULL,
                                      indptr[k + 1] - indptr[k])
        return out

    @property
    def n_pairs(self) -> int:
        return self._pairs.size()

    def to_arrays(self) -> dict[str, np.ndarray]:
        """bias (shape (1,)), the ids with a single weight (ascending) and their weights, pair
        keys (ascending) and their weights."""
        single_ids, single = _sorted_items(&self._single)
        pair_keys, pair_weights = _sorted_items(&self._pairs)
        return {
            "bias": np.array([self.bias], dtype=np.float64),
            "single_ids": single_ids.astype(np.int32),
            "single": single,
            "pair_keys": pair_keys,
            "pair_weights": pair_weights,
        }

    @classmethod
    def from_arrays(cls, int degree, double s, double r, int64_t n_vectors, bias, single_ids,
                    single, pair_keys, pair_weights) -> Poly2Table:
        """The table whose to_arrays() gave these arrays."""
        cdef Poly2Table table = cls(degree, s, r)
        cdef const int32_t[::1] ids = np.ascontiguousarray(single_ids, dtype=np.int32)
        cdef const double[::1] w1 = np.ascontiguousarray(single, dtype=np.float64)
        cdef const int64_t[::1] keys = np.ascontiguousarray(pair_keys, dtype=np.int64)
        cdef const double[::1] w2 = np.ascontiguousarray(pair_weights, dtype=np.float64)
        cdef Py_ssize_t i
        if ids.shape[0] != w1.shape[0]:
            raise ValueError(f"{ids.shape[0]} single ids for {w1.shape[0]} single weights")
        if keys.shape[0] != w2.shape[0]:
            raise ValueError(f"{keys.shape[0]} pair keys for {w2.shape[0]} pair weights")
        table.bias = float(np.asarray(bias, dtype=np.float64).reshape(-1)[0])
        table.n_vectors = n_vectors
        table._single.reserve(ids.shape[0])
        for i in range(ids.shape[0]):
            _add(&table._single, ids[i], w1[i])
            table.max_id = max(table.max_id, ids[i])
        table._pairs.reserve(keys.shape[0])
        for i in range(keys.shape[0]):
            _add(&table._pairs, keys[i], w2[i])
        return table


cdef inline int64_t _pair_key(int32_t f, int32_t g) noexcept nogil:
    return ((<int64_t>f) << 32) | <int64_t>g


cdef int _add(unordered_map[int64_t, double]* weights, int64_t key, double value) except -1:
    # weights[key] += value (a new key starts at 0); MemoryError when the map cannot grow.
    cdef cpp_pair[unordered_map[int64_t, double].iterator, bint] slot = weights.insert(
        cpp_pair[int64_t, double](key, 0.0))
    cdef double* weight = &deref(slot.first).second
    weight[0] += value
    return 0


cdef tuple _sorted_items(unordered_map[int64_t, double]* weights):
    # (keys ascending, their weights) of a map.
    keys = np.empty(weights.size(), dtype=np.int64)
    values = np.empty(weights.size(), dtype=np.float64)
    cdef int64_t[::1] k = keys
    cdef double[::1] v = values
    cdef Py_ssize_t i = 0
    cdef unordered_map[int64_t, double].iterator it = weights.begin()
    while it != weights.end():
        k[i] = deref(it).first
        v[i] = deref(it).second
        i += 1
        inc(it)
    order = np.argsort(keys, kind="stable")
    return keys[order], values[order]
