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

Storage (as pecco does for frequent features): features are ranked by the number of support
vectors holding them (0 = most), and the conjunctions of the n_dense top ranks sit in a dense
array in combinatorial-number order (n_dense is the largest that fits max_dense_bytes); every
other conjunction of some support vector sits in a hash table over packed rank keys (pke.pxd);
any conjunction found in neither has weight 0. A hashed triple {a < b < c} is looked up only
when its pair {b, c} was found: a conjunction can only occur in a support vector when all its
sub-conjunctions do, so this pruning is exact. With drop_zero_weights, hashed conjunctions whose
weights are exactly 0.0 for every output are removed, except the pairs that such lookups go
through; the values stay exactly the same.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from math import comb, factorial
from typing import Any

import numpy as np

from polyparse.classifiers.model_file import require_arrays
from polyparse.classifiers.evaluators.scorer_arrays import (
    arrays_checked,
    header_values,
    part_bytes,
    read_sparsely,
    stored_sparsely,
)
from polyparse.classifiers.scorer cimport BinaryScorer, no_scores
from polyparse.features.key_index cimport KeyIndex
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps

cdef enum:
    STACK_FEATURES = 256

DEFAULT_MAX_DENSE_BYTES = 1 << 24
_FIELD = np.uint64((1 << KEY_BITS) - 1)
_PAIR_FIELDS = (_FIELD << np.uint64(KEY_BITS)) | _FIELD


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
    """Number of ranks packed in each conjunction key (1, 2 or 3)."""
    keys = np.asarray(keys, dtype=np.uint64)
    bits = np.uint64(KEY_BITS)
    return (1 + (keys >> bits != 0) + (keys >> (bits + bits) != 0)).astype(np.int64)


def key_ranks(keys: np.ndarray) -> np.ndarray:
    """(n_keys, 3) ranks of each key, smallest first, -1 where the key has fewer."""
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


def dense_sizes(int64_t n_dense, int degree) -> list[int]:
    """Numbers of dense singles, pairs and triples (up to degree) of n_dense ranks."""
    return [comb(n_dense, size) for size in range(1, degree + 1)]


def dense_rank_count(int64_t n_ranked, int degree, int n_outputs, int64_t max_dense_bytes) -> int:
    """The largest n_dense <= n_ranked whose dense weights take at most max_dense_bytes."""
    def fits(n: int) -> bool:
        return sum(dense_sizes(n, degree)) * n_outputs * 8 <= max_dense_bytes

    low, high = 0, int(n_ranked)
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def rank_features(support_vectors) -> np.ndarray:
    """Ids of the features of the support vectors, most held first (ties: smaller id)."""
    ids, holders = np.unique(support_vectors.indices, return_counts=True)
    return ids[np.argsort(-holders, kind="stable")].astype(np.int32)


cdef inline void _add_row(const double* w, int64_t row, int n_outputs, double* out) noexcept nogil:
    cdef const double* r = w + row * n_outputs
    cdef int k
    for k in range(n_outputs):
        out[k] += r[k]


cdef inline void _add_coef(
    double* w, int64_t row, const double* coef, int n_outputs
) noexcept nogil:
    cdef double* r = w + row * n_outputs
    cdef int k
    for k in range(n_outputs):
        r[k] += coef[k]


cdef struct Sums:
    # Rows of n_outputs sums, one per key id of a KeyIndex, in a growing buffer.
    double* data
    size_t size
    size_t capacity


cdef int _accumulate(
    KeyIndex index, Sums* sums, uint64_t key, const double* coef, int n_outputs
) except -1 nogil:
    # sums[id(key)] += coef, giving a new key the next id and a zero row first.
    cdef int32_t row = index.get_or_insert(key)
    cdef size_t start = <size_t>row * n_outputs
    cdef size_t capacity
    cdef double* data
    cdef int k
    if start == sums.size:
        if start + n_outputs > sums.capacity:
            capacity = max(2 * sums.capacity, start + n_outputs)
            data = <double*>realloc(sums.data, capacity * sizeof(double))
            if data == NULL:
                with gil:
                    raise MemoryError()
            sums.data, sums.capacity = data, capacity
        for k in range(n_outputs):
            sums.data[start + k] = 0.0
        sums.size = start + n_outputs
    _add_coef(sums.data, row, coef, n_outputs)
    return 0


cdef extern from *:
    void prefetch "__builtin_prefetch"(const void* address) noexcept nogil


def accumulate_conjunctions(
    const int64_t[::1] indptr,
    const int32_t[::1] indices,
    const int32_t[::1] rank_of,
    const double[:, ::1] coef_by_row,
    int degree,
    int32_t n_dense,
):
    """Every conjunction of 1..degree ranked features of every row, with its summed coefficients.

    rank_of[f] is the rank of the feature numbered f in indices (< 0: not expanded). Returns
    (dense, index, hashed):
    dense (rows of the conjunctions of ranks < n_dense, see pke.pxd; n_outputs columns) and, for
    the other conjunctions, a KeyIndex of packed keys giving each its row of hashed. A row's sums
    are the sum of coef_by_row over the rows holding the conjunction.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, row
    cdef int n_outputs = coef_by_row.shape[1]
    cdef Py_ssize_t n_ids = rank_of.shape[0]
    sizes = dense_sizes(n_dense, degree)
    dense_array = np.zeros((sum(sizes), n_outputs), dtype=np.float64)
    cdef double* dense = <double*><size_t>dense_array.ctypes.data
    cdef int64_t pair_start = n_dense
    cdef int64_t triple_start = n_dense + (sizes[1] if degree >= 2 else 0)
    cdef int64_t p, estimate = 0, length, longest = 0
    for row in range(n_rows):
        length = indptr[row + 1] - indptr[row]
        longest = max(longest, length)
        estimate += conjunction_count(length, degree)
    cdef KeyIndex index = KeyIndex(max(16, estimate // 8))
    cdef Sums sums = Sums(NULL, 0, 0)
    ranks_array = np.empty(max(longest, 1), dtype=np.int32)
    cdef int32_t* ranks = <int32_t*><size_t>ranks_array.ctypes.data
    cdef const double* coef
    cdef int32_t f, ra, rb, rc
    cdef int a, b, c, m
    cdef uint64_t kbc
    cdef int64_t steps_left = CHECK_STEPS
    try:
        with nogil:
            for row in range(n_rows):
                m = 0
                for p in range(indptr[row], indptr[row + 1]):
                    f = indices[p]
                    if f < n_ids and rank_of[f] >= 0:
                        ranks[m] = rank_of[f]
                        m += 1
                # A step per row and per 32 conjunctions it adds (hashing, about 1 us).
                count_steps(&steps_left, 1 + (conjunction_count(m, degree) >> 5))
                sort_ranks(ranks, m)
                coef = &coef_by_row[row, 0]
                for c in range(m):
                    rc = ranks[c]
                    if rc < n_dense:
                        _add_coef(dense, rc, coef, n_outputs)
                    else:
                        _accumulate(index, &sums, extend_key(0, rc), coef, n_outputs)
                    if degree < 2:
                        continue
                    for b in range(c):
                        rb = ranks[b]
                        kbc = extend_key(extend_key(0, rb), rc)
                        if rc < n_dense:
                            _add_coef(dense, pair_start + <int64_t>rc * (rc - 1) // 2 + rb, coef,
                                      n_outputs)
                        else:
                            _accumulate(index, &sums, kbc, coef, n_outputs)
                        if degree < 3:
                            continue
                        for a in range(b):
                            ra = ranks[a]
                            if rc < n_dense:
                                _add_coef(dense, triple_start
                                          + <int64_t>rc * (rc - 1) * (rc - 2) // 6
                                          + <int64_t>rb * (rb - 1) // 2 + ra, coef, n_outputs)
                            else:
                                _accumulate(index, &sums,
                                            (<uint64_t>(ra + 1) << (2 * KEY_BITS)) | kbc,
                                            coef, n_outputs)
        hashed = np.empty((index.size, n_outputs), dtype=np.float64)
        if index.size:
            memcpy(<double*><size_t>hashed.ctypes.data, sums.data, sums.size * sizeof(double))
    finally:
        free(sums.data)
    return dense_array, index, hashed


cdef void _add_dense_pairs(const double* dense, int64_t pair_start, const int32_t* ranks, int m,
                           double* out) noexcept nogil:
    # Degree 2, one output, every rank dense: the sum of the singles and pairs of ranks[0..m)
    # (the pair {a < b} at pair_start + b(b-1)/2 + a, pke.pxd) in the order of the general loop
    # of ConjunctionStore.add, so that it is the same to the last bit. The start of each rank's
    # row is worked out once, not once per pair, and no test is left in the inner loop but the
    # choice of the larger rank's row (a conditional move).
    cdef int64_t rows[STACK_FEATURES]
    cdef int64_t row
    cdef int b, c
    cdef int32_t rb, rc
    cdef double total = 0.0
    for c in range(m):
        rc = ranks[c]
        rows[c] = pair_start + <int64_t>rc * (rc - 1) // 2
    for c in range(m):
        rc = ranks[c]
        row = rows[c]
        total += dense[rc]
        for b in range(c):
            rb = ranks[b]
            total += dense[row + rb if rb < rc else rows[b] + rc]
    out[0] += total


cdef class ConjunctionStore:
    def __init__(
        self, dense_weights, keys, hashed_weights, int degree, int32_t n_ranked,
        int32_t n_dense, KeyIndex index=None,
    ):
        """Dense weights of the top n_dense ranks, hashed keys (uint64) and their weights."""
        dense_weights = np.ascontiguousarray(dense_weights, dtype=np.float64)
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        hashed_weights = np.ascontiguousarray(hashed_weights, dtype=np.float64)
        if degree < 1 or degree > MAX_EXPANDED_DEGREE:
            raise ValueError(f"conjunctions have degree 1..{MAX_EXPANDED_DEGREE}")
        if not 0 <= n_dense <= n_ranked <= MAX_RANK + 1:
            raise ValueError(f"need 0 <= n_dense <= n_ranked <= {MAX_RANK + 1}")
        if dense_weights.ndim != 2 or dense_weights.shape[1] < 1:
            raise ValueError("dense weights need at least one output column")
        n_outputs = dense_weights.shape[1]
        if dense_weights.shape[0] != sum(dense_sizes(n_dense, degree)):
            raise ValueError("dense weights must cover every conjunction of the dense ranks")
        if keys.ndim != 1 or hashed_weights.shape != (keys.shape[0], n_outputs):
            raise ValueError("hashed weights must be one row of n_outputs per key")
        ranks = key_ranks(keys)
        sizes = key_sizes(keys)
        filled = np.arange(3) < sizes[:, None]
        ordered = (ranks[:, 1:] > ranks[:, :-1]) | ~filled[:, 1:]
        largest = ranks.max(axis=1) if keys.size else np.zeros(0, np.int64)
        if keys.size and (sizes.max() > degree or (ranks[filled] < 0).any()
                          or not ordered.all() or largest.min() < n_dense
                          or largest.max() >= n_ranked):
            raise ValueError(
                f"keys must pack 1..{degree} increasing ranks below {n_ranked}, one at least "
                f"{n_dense}"
            )
        if index is None or (index.mask + 1) > 4 * len(index) + 16:
            index = KeyIndex.from_keys(keys)
        elif len(index) != keys.shape[0]:
            raise ValueError("index and keys differ in size")
        self.degree = degree
        self.n_outputs = n_outputs
        self.n_ranked = n_ranked
        self.n_dense = n_dense
        self.index = index
        self.dense_weights = dense_weights
        self.hashed_weights = hashed_weights
        self.dense = <const double*><size_t>dense_weights.ctypes.data
        self.hashed = <const double*><size_t>hashed_weights.ctypes.data
        self.pair_start = n_dense
        self.triple_start = n_dense + (n_dense * (n_dense - 1) // 2 if degree >= 2 else 0)

    def keys(self) -> np.ndarray:
        return self.index.keys()

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The arrays that from_arrays (with the degree, n_ranked and n_dense) turns back into
        this store."""
        return {**stored_sparsely("dense_weights", self.dense_weights), "keys": self.keys(),
                "hashed_weights": self.hashed_weights}

    @staticmethod
    def from_arrays(dict arrays, int degree, int32_t n_ranked, int32_t n_dense, int n_outputs,
                    str source) -> ConjunctionStore:
        """The store of to_arrays() output: ModelFileError naming `source` when an array is
        missing or of another type or shape, ValueError when they do not fit together."""
        arrays = read_sparsely("dense_weights", arrays, source)
        require_arrays(source, arrays, {
            "dense_weights": ("float64", (None, n_outputs)),
            "keys": ("uint64", (None,)),
            "hashed_weights": ("float64", (None, n_outputs)),
        })
        return ConjunctionStore(arrays["dense_weights"], arrays["keys"], arrays["hashed_weights"],
                                degree, n_ranked, n_dense)

    def memory_report(self) -> dict[str, int]:
        """Bytes of the dense weights and of the hashed part (12 per slot plus the weights)."""
        return {
            "dense": int(self.dense_weights.nbytes),
            "hashed": int((self.index.mask + 1) * 12 + self.hashed_weights.nbytes),
        }

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())

    cdef void add(self, int32_t* ranks, int m, double* out) noexcept nogil:
        cdef int degree = self.degree
        cdef int n_outputs = self.n_outputs
        cdef int32_t n_dense = self.n_dense
        cdef const double* dense = self.dense
        cdef const double* hashed = self.hashed
        cdef int64_t pair_start = self.pair_start
        cdef int64_t pairs_of_c, triples_of_bc, position
        cdef int a, b, c
        cdef int32_t rb, rc, lo, hi, row
        cdef uint64_t kbc
        cdef double total = 0.0
        cdef bint scalar = n_outputs == 1
        if degree == 2 and scalar and n_dense == self.n_ranked and m <= STACK_FEATURES:
            _add_dense_pairs(dense, pair_start, ranks, m, out)
            return
        if degree >= 3:
            sort_ranks(ranks, m)
        if degree == 2 and not scalar:
            # Ask for the dense pair rows ahead: they are read at random from a table that
            # other classifiers' tables push out of the cache.
            for c in range(m):
                rc = ranks[c]
                for b in range(c):
                    rb = ranks[b]
                    hi = rc if rb < rc else rb
                    if hi < n_dense:
                        prefetch(dense + (pair_start + <int64_t>hi * (hi - 1) // 2
                                          + (rb if rb < rc else rc)) * n_outputs)
        for c in range(m):
            rc = ranks[c]
            if rc < n_dense:
                if scalar:
                    total += dense[rc]
                else:
                    _add_row(dense, rc, n_outputs, out)
            else:
                row = self.index.get(extend_key(0, rc))
                if row >= 0:
                    _add_row(hashed, row, n_outputs, out)
            if degree == 2:
                for b in range(c):
                    rb = ranks[b]
                    lo = rb if rb < rc else rc
                    hi = rc if rb < rc else rb
                    if hi < n_dense:
                        position = pair_start + <int64_t>hi * (hi - 1) // 2 + lo
                        if scalar:
                            total += dense[position]
                        else:
                            _add_row(dense, position, n_outputs, out)
                    else:
                        row = self.index.get(extend_key(extend_key(0, lo), hi))
                        if row >= 0:
                            _add_row(hashed, row, n_outputs, out)
            elif degree == 3 and rc < n_dense:
                pairs_of_c = pair_start + <int64_t>rc * (rc - 1) // 2
                triples_of_bc = self.triple_start + <int64_t>rc * (rc - 1) * (rc - 2) // 6
                for b in range(c):
                    rb = ranks[b]
                    if scalar:
                        total += dense[pairs_of_c + rb]
                        for a in range(b):
                            total += dense[triples_of_bc + <int64_t>rb * (rb - 1) // 2 + ranks[a]]
                    else:
                        _add_row(dense, pairs_of_c + rb, n_outputs, out)
                        for a in range(b):
                            _add_row(dense, triples_of_bc + <int64_t>rb * (rb - 1) // 2 + ranks[a],
                                     n_outputs, out)
            elif degree == 3:
                for b in range(c):
                    kbc = extend_key(extend_key(0, ranks[b]), rc)
                    row = self.index.get(kbc)
                    if row < 0:
                        continue
                    _add_row(hashed, row, n_outputs, out)
                    for a in range(b):
                        row = self.index.get(
                            (<uint64_t>(ranks[a] + 1) << (2 * KEY_BITS)) | kbc
                        )
                        if row >= 0:
                            _add_row(hashed, row, n_outputs, out)
        if scalar:
            out[0] += total


def build_store(
    expansion, ranked_ids, int64_t max_dense_bytes=DEFAULT_MAX_DENSE_BYTES,
    bint drop_zero_weights=True,
):
    """(ConjunctionStore, constant) of a KernelExpansion over the features ranked_ids.

    ranked_ids[r] is the feature of rank r; features not in it are left out, so
    sum_i a_ki (gamma |s_i & x & ranked| + coef0)^d + intercept_k equals constant[k] plus the
    store's sum over the conjunctions of x's ranks (see the module notes).
    """
    degree = expansion.degree
    if degree > MAX_EXPANDED_DEGREE:
        raise ValueError(f"conjunctions expand degree 1..{MAX_EXPANDED_DEGREE}, not {degree}")
    ranked_ids = np.asarray(ranked_ids, dtype=np.int32)
    n_ranked = ranked_ids.size
    if n_ranked > MAX_RANK + 1:
        raise ValueError(f"at most {MAX_RANK + 1} features can be expanded")
    sv = expansion.support_vectors
    # The support vectors' ids numbered 0..k-1 in ascending order, ranks by those numbers: no
    # table is sized by the largest id.
    ids, numbers = np.unique(sv.indices, return_inverse=True)
    rank_of = np.full(ids.size, -1, dtype=np.int32)
    held = np.minimum(np.searchsorted(ids, ranked_ids), max(ids.size - 1, 0))
    found = ids[held] == ranked_ids if ids.size else np.zeros(n_ranked, dtype=bool)
    rank_of[held[found]] = np.flatnonzero(found).astype(np.int32)
    n_outputs = expansion.n_outputs
    n_dense = dense_rank_count(n_ranked, degree, n_outputs, max_dense_bytes)
    c = conjunction_coefficients(expansion.gamma, expansion.coef0, degree)
    coef_by_sv = np.ascontiguousarray(expansion.coefficients.T)
    dense, index, hashed = accumulate_conjunctions(
        sv.indptr, numbers.astype(np.int32).ravel(), rank_of, coef_by_sv, degree, n_dense
    )
    dense *= np.repeat(c[1:], dense_sizes(n_dense, degree))[:, None]
    keys = index.keys()
    hashed *= c[key_sizes(keys)][:, None]
    constant = expansion.intercepts + c[0] * expansion.coefficients.sum(axis=1)
    if drop_zero_weights:
        keep = np.any(hashed != 0.0, axis=1)
        if not keep.all():
            # The pairs {b, c} of kept triples {a, b, c} stay: the triples' lookups go through.
            kept_keys = keys[keep]
            suffixes = kept_keys[key_sizes(kept_keys) == 3] & _PAIR_FIELDS
            keep |= np.isin(keys, suffixes)
            keys, hashed, index = keys[keep], hashed[keep], None
    store = ConjunctionStore(dense, keys, hashed, degree, n_ranked, n_dense, index)
    return store, constant


cdef class PKEScorer(BinaryScorer):
    def __init__(
        self, expansion, int64_t max_dense_bytes=DEFAULT_MAX_DENSE_BYTES,
        bint drop_zero_weights=True,
    ):
        """Expand a KernelExpansion (degree 1..3) into conjunction weights.

        The conjunctions of the most held features go in a dense array of at most
        max_dense_bytes, the others in a hash table (module notes).
        """
        ranked_ids = rank_features(expansion.support_vectors)
        store, constant = build_store(expansion, ranked_ids, max_dense_bytes, drop_zero_weights)
        self._install(store, {"ranked_ids": ranked_ids, "constant": constant},
                      expansion.gamma, expansion.coef0)

    def _install(self, ConjunctionStore store, dict arrays, double gamma, double coef0) -> None:
        ranked_ids = np.ascontiguousarray(arrays["ranked_ids"], dtype=np.int32)
        constant = np.ascontiguousarray(arrays["constant"], dtype=np.float64)
        if constant.shape != (store.n_outputs,):
            raise ValueError("constant must hold one value per output")
        if ranked_ids.ndim != 1 or ranked_ids.size != store.n_ranked:
            raise ValueError("ranked_ids must name the feature of every rank")
        if ranked_ids.size and (ranked_ids.min() < 0 or np.unique(ranked_ids).size
                                != ranked_ids.size):
            raise ValueError("ranked_ids must be distinct feature ids")
        self.store = store
        self.arrays = {"ranked_ids": ranked_ids, "constant": constant}
        self.rank_index = KeyIndex.from_keys(ranked_ids)
        self.max_id = int(ranked_ids.max()) if ranked_ids.size else -1
        self.n_outputs = store.n_outputs
        self.gamma = gamma
        self.coef0 = coef0
        self.constant = <const double*><size_t>constant.ctypes.data

    @property
    def degree(self) -> int:
        return self.store.degree

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int32_t stack_ranks[STACK_FEATURES]
        cdef int32_t* ranks = stack_ranks
        cdef int i, k, m = 0
        cdef int32_t f, r
        if n > STACK_FEATURES:
            ranks = <int32_t*>malloc(n * sizeof(int32_t))
            if ranks == NULL:
                no_scores(out, self.n_outputs)
                return
        for k in range(self.n_outputs):
            out[k] = self.constant[k]
        for i in range(n):
            f = feats[i]
            if f > self.max_id:
                break
            r = self.rank_index.get(<uint64_t>f)
            if r >= 0:
                ranks[m] = r
                m += 1
        self.store.add(ranks, m, out)
        if ranks != stack_ranks:
            free(ranks)

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: dense and hashed conjunctions, the feature ranks (the ranked ids
        and the hash from id to rank), the constant."""
        report = {
            **{f"{name}_conjunctions": size
               for name, size in self.store.memory_report().items()},
            **part_bytes(self.arrays, {"feature_ranks": ("ranked_ids",),
                                       "constant": ("constant",)}),
        }
        report["feature_ranks"] += self.rank_index.nbytes
        return report

    def ranks(self, ids) -> np.ndarray:
        """The rank of each feature id (-1 for ids the expansion does not hold)."""
        ids = np.asarray(ids, dtype=np.int64)
        if ids.size and ids.min() < 0:
            raise ValueError("feature ids are non-negative")
        return self.rank_index.lookup(ids.astype(np.uint64))

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
            "n_dense": self.store.n_dense,
        }
        arrays = {
            "ranked_ids": self.arrays["ranked_ids"],
            "constant": self.arrays["constant"],
            **self.store.to_arrays(),
        }
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> PKEScorer:
        """Rebuild a scorer from to_arrays() output; ModelFileError names `source`."""
        values = header_values(header, "pke", "PKE", {"n_outputs": int, "degree": int,
                                                      "n_dense": int, "gamma": float,
                                                      "coef0": float}, source)
        require_arrays(source, arrays, {
            "ranked_ids": ("int32", (None,)),
            "constant": ("float64", (values["n_outputs"],)),
        })
        scorer = cls.__new__(cls)
        with arrays_checked(source, "PKE"):
            store = ConjunctionStore.from_arrays(arrays, values["degree"],
                                                 arrays["ranked_ids"].size, values["n_dense"],
                                                 values["n_outputs"], source)
            scorer._install(store, {"ranked_ids": arrays["ranked_ids"],
                                    "constant": arrays["constant"]},
                            values["gamma"], values["coef0"])
        return scorer
