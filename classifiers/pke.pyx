# cython: language_level=3
"""PKE: exact polynomial kernel expansion into weights of feature conjunctions.

Isozaki & Kazawa 2002, "Efficient support vector classifiers for named entity recognition",
section 3 (expansion of the kernel into weights of feature combinations), and Kudo & Matsumoto
2003, "Fast methods for kernel-based text analysis", section 3.2 (PKE, with the c_d(r)
coefficients). For binary vectors the kernel depends on the shared-feature count c = |s & x|
only, and c^k counts the ordered k-tuples of shared features, i.e. c^k = sum_m m! S(k, m)
binom(c, m) with S the Stirling numbers of the second kind. Hence

    (coef0 + gamma c)^d = sum_{m=0..d} c_m binom(c, m),
    c_m = sum_{k=m..d} binom(d, k) coef0^(d-k) gamma^k m! S(k, m)

(d = 2: c_0 = coef0^2, c_1 = gamma^2 + 2 coef0 gamma, c_2 = 2 gamma^2; d = 3: c_1 = gamma^3 +
3 coef0 gamma^2 + 3 coef0^2 gamma, c_2 = 6 gamma^3 + 6 coef0 gamma^2, c_3 = 6 gamma^3), and
binom(c, m) is the number of m-feature conjunctions S with S in s and S in x. Summed over the
support vectors s_i with coefficients a_ki:

    value_k(x) = w0_k + sum_{S in x, 1 <= |S| <= d} w_k(S),
    w0_k = intercept_k + c_0 sum_i a_ki,    w_k(S) = c_|S| sum_{i : S in s_i} a_ki.

Only conjunctions of some support vector get a weight (any other has weight 0). At decision time
the singles of x are looked up first and only the features found take part in pairs, and a
triple {a < b < c} is looked up only when its pair {a, b} was found: a conjunction can only occur
in a support vector when all its sub-conjunctions do, so this pruning is exact. With
drop_zero_weights, conjunctions whose weights are exactly 0.0 for every output are removed, except
where a lookup above needs them as a prefix; the values stay exactly the same.
"""
from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy
from libcpp.vector cimport vector

from math import comb, factorial
from typing import Any

import numpy as np

from classifiers.model_file import ModelFileError, require_arrays
from classifiers.scorer cimport BinaryScorer
from features.key_index cimport KeyIndex

cdef enum:
    STACK_FEATURES = 256

_FIELD = np.uint64((1 << KEY_BITS) - 1)


def conjunction_coefficients(double gamma, double coef0, int degree) -> np.ndarray:
    """c_0 .. c_degree with (coef0 + gamma c)^degree = sum_m c_m binom(c, m) for c = 0, 1, ..."""
    stirling = [[0] * (degree + 1) for _ in range(degree + 1)]
    stirling[0][0] = 1
    for k in range(1, degree + 1):
        for m in range(1, k + 1):
            stirling[k][m] = m * stirling[k - 1][m] + stirling[k - 1][m - 1]
    return np.array([
        sum(
            comb(degree, k) * coef0 ** (degree - k) * gamma ** k * factorial(m) * stirling[k][m]
            for k in range(m, degree + 1)
        )
        for m in range(degree + 1)
    ], dtype=np.float64)


def key_sizes(keys: np.ndarray) -> np.ndarray:
    """Number of feature ids packed in each conjunction key (1, 2 or 3)."""
    keys = np.asarray(keys, dtype=np.uint64)
    bits = np.uint64(KEY_BITS)
    return (1 + (keys >> bits != 0) + (keys >> (bits + bits) != 0)).astype(np.int64)


def key_features(keys: np.ndarray) -> np.ndarray:
    """(n_keys, 3) feature ids of each key, first to last, -1 where the key has fewer."""
    keys = np.asarray(keys, dtype=np.uint64)
    sizes = key_sizes(keys)
    fields = np.stack(
        [(keys >> np.uint64(KEY_BITS * shift)) & _FIELD for shift in (2, 1, 0)], axis=1
    ).astype(np.int64) - 1
    out = np.full((keys.size, 3), -1, dtype=np.int64)
    for size in (1, 2, 3):
        rows = sizes == size
        out[rows, :size] = fields[rows, 3 - size:]
    return out


cdef inline void _add_row(const double* w, int32_t row, int n_outputs, double* out) noexcept nogil:
    cdef const double* r = w + <int64_t>row * n_outputs
    cdef int k
    for k in range(n_outputs):
        out[k] += r[k]


cdef int _accumulate(
    KeyIndex index, vector[double]& sums, uint64_t key, const double* coef, int n_outputs
) except -1 nogil:
    # sums[id(key)] += coef, giving a new key the next id and a zero row first.
    cdef int32_t row = index.get_or_insert(key)
    cdef int k
    cdef size_t start = <size_t>row * n_outputs
    if start == sums.size():
        sums.resize(start + n_outputs, 0.0)
    for k in range(n_outputs):
        sums[start + k] += coef[k]
    return 0


def accumulate_conjunctions(
    const int64_t[::1] indptr,
    const int32_t[::1] indices,
    const double[:, ::1] coef_by_row,
    int degree,
    const uint8_t[::1] kept,
):
    """Every conjunction of 1..degree kept features of every row, with its summed coefficients.

    Returns (index, sums): index (a KeyIndex) gives each conjunction key its row of sums
    (n_keys, n_outputs), the sum of coef_by_row over the rows holding the conjunction. A feature f
    is kept when kept is empty or kept[f] is nonzero.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, row
    cdef int n_outputs = coef_by_row.shape[1]
    cdef Py_ssize_t n_kept = kept.shape[0]
    cdef int64_t p, estimate = 0, length
    for row in range(n_rows):
        length = indptr[row + 1] - indptr[row]
        estimate += length + (length * (length - 1) // 2 if degree >= 2 else 0)
        if degree >= 3:
            estimate += length * (length - 1) * (length - 2) // 6
    cdef KeyIndex index = KeyIndex(max(16, estimate // 4))
    cdef vector[double] sums
    cdef vector[int32_t] feats
    cdef const double* coef
    cdef int32_t f
    cdef int a, b, c, m
    cdef uint64_t ka, kb
    with nogil:
        for row in range(n_rows):
            feats.clear()
            for p in range(indptr[row], indptr[row + 1]):
                f = indices[p]
                if n_kept == 0 or (f < n_kept and kept[f]):
                    feats.push_back(f)
            m = <int>feats.size()
            coef = &coef_by_row[row, 0]
            for a in range(m):
                ka = extend_key(0, feats[a])
                _accumulate(index, sums, ka, coef, n_outputs)
                if degree < 2:
                    continue
                for b in range(a + 1, m):
                    kb = extend_key(ka, feats[b])
                    _accumulate(index, sums, kb, coef, n_outputs)
                    if degree < 3:
                        continue
                    for c in range(b + 1, m):
                        _accumulate(index, sums, extend_key(kb, feats[c]), coef, n_outputs)
    out = np.empty((index.size, n_outputs), dtype=np.float64)
    cdef double[:, ::1] view = out
    if index.size:
        memcpy(&view[0, 0], sums.data(), sums.size() * sizeof(double))
    return index, out


cdef class ConjunctionTable:
    def __init__(self, keys, weights, int degree, KeyIndex index=None):
        """Table of conjunction keys (uint64, see pke.pxd) and their weights (n_keys, K)."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if degree < 1 or degree > MAX_EXPANDED_DEGREE:
            raise ValueError(f"PKE tables hold conjunctions of degree 1..{MAX_EXPANDED_DEGREE}")
        if keys.ndim != 1 or weights.ndim != 2 or weights.shape[0] != keys.shape[0]:
            raise ValueError("weights must have one row per key")
        if weights.shape[1] < 1:
            raise ValueError("weights need at least one output column")
        features = key_features(keys)
        sizes = key_sizes(keys)
        filled = np.arange(3) < sizes[:, None]
        ordered = (features[:, 1:] > features[:, :-1]) | ~filled[:, 1:]
        if keys.size and (sizes.max() > degree or (features[filled] < 0).any()
                          or not ordered.all()):
            raise ValueError(f"keys must pack 1..{degree} increasing feature ids")
        if index is None:
            index = KeyIndex.from_keys(keys)
        elif len(index) != keys.shape[0]:
            raise ValueError("index and keys differ in size")
        self.index = index
        self.degree = degree
        self.n_outputs = weights.shape[1]
        self.max_feature = int(features.max()) if keys.size else -1
        self.weights = weights
        self.w = <const double*><size_t>weights.ctypes.data if keys.size else NULL

    def keys(self) -> np.ndarray:
        return self.index.keys()

    def memory_bytes(self) -> int:
        """Bytes of the hash table (12 per slot) and of the weights."""
        return int((self.index.mask + 1) * 12 + self.weights.nbytes)

    cdef void add(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int32_t stack_present[STACK_FEATURES]
        cdef int32_t* present = stack_present
        cdef const double* w = self.w
        cdef int n_outputs = self.n_outputs
        cdef int degree = self.degree
        cdef int i, j, l, k, m = 0
        cdef int32_t f, row
        cdef uint64_t ki, kj
        if n > STACK_FEATURES:
            present = <int32_t*>malloc(n * sizeof(int32_t))
            if present == NULL:
                for k in range(n_outputs):
                    out[k] = NAN
                return
        for i in range(n):
            f = feats[i]
            if f > self.max_feature:
                break
            row = self.index.get(extend_key(0, f))
            if row >= 0:
                _add_row(w, row, n_outputs, out)
                present[m] = f
                m += 1
        if degree >= 2:
            for i in range(m):
                ki = extend_key(0, present[i])
                for j in range(i + 1, m):
                    kj = extend_key(ki, present[j])
                    row = self.index.get(kj)
                    if row < 0:
                        continue
                    _add_row(w, row, n_outputs, out)
                    if degree >= 3:
                        for l in range(j + 1, m):
                            row = self.index.get(extend_key(kj, present[l]))
                            if row >= 0:
                                _add_row(w, row, n_outputs, out)
        if present != stack_present:
            free(present)


def expand(expansion, kept_features=None, bint drop_zero_weights=True):
    """(ConjunctionTable, constant) of a KernelExpansion restricted to kept features.

    sum_i a_ki (gamma |s_i & x & kept| + coef0)^d + intercept_k equals constant[k] plus the
    table's sum over the conjunctions of x (see the module notes); kept_features is a boolean
    mask over feature ids, None for all.
    """
    degree = expansion.degree
    if degree > MAX_EXPANDED_DEGREE:
        raise ValueError(f"conjunction tables expand degree 1..{MAX_EXPANDED_DEGREE}, not {degree}")
    sv = expansion.support_vectors
    if sv.nnz and int(sv.indices.max()) > MAX_FEATURE_ID:
        raise ValueError(f"feature ids above {MAX_FEATURE_ID} do not fit in conjunction keys")
    kept = np.zeros(0, dtype=np.uint8)
    if kept_features is not None:
        kept = np.ascontiguousarray(kept_features, dtype=np.uint8)
    coefficient_of_size = conjunction_coefficients(expansion.gamma, expansion.coef0, degree)
    coef_by_sv = np.ascontiguousarray(expansion.coefficients.T)
    index, sums = accumulate_conjunctions(sv.indptr, sv.indices, coef_by_sv, degree, kept)
    keys = index.keys()
    weights = sums * coefficient_of_size[key_sizes(keys)][:, None]
    constant = expansion.intercepts + coefficient_of_size[0] * expansion.coefficients.sum(axis=1)
    if drop_zero_weights:
        keep = np.any(weights != 0.0, axis=1)
        if not keep.all():
            # Singles of every kept conjunction and pair prefixes of kept triples stay: the
            # lookups of ConjunctionTable.add go through them.
            kept_keys = keys[keep]
            sizes = key_sizes(kept_keys)
            parts = [kept_keys[sizes == 3] >> np.uint64(KEY_BITS)]
            for shift in (0, 1, 2):
                field = (kept_keys >> np.uint64(KEY_BITS * shift)) & _FIELD
                parts.append(field[field != 0])
            keep |= np.isin(keys, np.concatenate(parts))
            keys, weights, index = keys[keep], weights[keep], None
    return ConjunctionTable(keys, weights, degree, index), constant


cdef class PKEScorer(BinaryScorer):
    def __init__(self, expansion, bint drop_zero_weights=True):
        """Expand a KernelExpansion (degree 1..3, feature ids <= 2**21 - 2) into conjunctions."""
        table, constant = expand(expansion, None, drop_zero_weights)
        self._install(table, constant, expansion.gamma, expansion.coef0)

    def _install(self, ConjunctionTable table, constant, double gamma, double coef0) -> None:
        constant = np.ascontiguousarray(constant, dtype=np.float64)
        if constant.shape != (table.n_outputs,):
            raise ValueError("constant must hold one value per output")
        self.table = table
        self.constant = constant
        self.n_outputs = table.n_outputs
        self.gamma = gamma
        self.coef0 = coef0
        self.w0 = <const double*><size_t>constant.ctypes.data

    @property
    def degree(self) -> int:
        return self.table.degree

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int k
        for k in range(self.n_outputs):
            out[k] = self.w0[k]
        self.table.add(feats, n, out)

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: the conjunction table and the constant."""
        return {"conjunctions": self.table.memory_bytes(), "constant": self.constant.nbytes}

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this scorer."""
        header = {
            "evaluator": "pke",
            "degree": self.degree,
            "gamma": self.gamma,
            "coef0": self.coef0,
            "n_outputs": self.n_outputs,
        }
        arrays = {"keys": self.table.keys(), "weights": self.table.weights,
                  "constant": self.constant}
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> PKEScorer:
        """Rebuild a scorer from to_arrays() output; ModelFileError names `source`."""
        try:
            if header["evaluator"] != "pke":
                raise ValueError(f"evaluator {header['evaluator']!r} is not pke")
            n_outputs, degree = int(header["n_outputs"]), int(header["degree"])
            gamma, coef0 = float(header["gamma"]), float(header["coef0"])
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{source}: inconsistent PKE header ({error})") from None
        require_arrays(source, arrays, {
            "keys": ("uint64", (None,)),
            "weights": ("float64", (None, n_outputs)),
            "constant": ("float64", (n_outputs,)),
        })
        scorer = cls.__new__(cls)
        try:
            table = ConjunctionTable(arrays["keys"], arrays["weights"], degree)
            scorer._install(table, arrays["constant"], gamma, coef0)
        except ValueError as error:
            raise ModelFileError(f"{source}: inconsistent PKE arrays ({error})") from None
        return scorer
