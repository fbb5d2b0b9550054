# cython: language_level=3
"""Online training of polynomial-kernel machines on binary features by kernel slicing.

Yoshinaga & Kitsuregawa 2010, "Kernel Slicing: Scalable Online Training with Conjunctive
Features" (COLING 2010). The learner is the kernelised passive-aggressive family of Crammer et
al. 2006, "Online Passive-Aggressive Algorithms" (JMLR 7), Algorithm 1 of the paper: for each
example x with label y in {-1, +1} and the kernel K(s, x) = (|s & x| + 1)^d,

    m(x) = sum_{s in S} alpha_s K(s, x),         l = max(0, 1 - y m(x)),
    tau  = l / K(x, x)                   (PA),
           min(C, l / K(x, x))           (PA-I),
           l / (K(x, x) + 1 / (2 C))     (PA-II),
           1 when y m(x) <= 0            (perceptron),
    alpha_x <- alpha_x + y tau           (x joins the support set S when tau > 0),

with K(x, x) = (|x| + 1)^d. Identical feature vectors share one support vector. Averaged
parameters follow Daume III 2006 (thesis, section 2.5): beta_s accumulates (t - 1) times every
change of alpha_s made at step t, so after T steps alpha_s - beta_s / T is the average of alpha_s
over the T steps.

Features are ranked by frequency in the training data (0 = most frequent) and every vector is
kept sorted by rank, so x_j, the first j features of x, is a frequency-ordered prefix. With
K(c) = (c + 1)^d of the shared count c,

    m(x) = K(0) sum_s alpha_s + sum_j slice_j(x),
    slice_j(x) = m(x_j) - m(x_{j-1}) = sum_{s holding f_j} alpha_s [K(|s & x_{j-1}| + 1)
                                                                    - K(|s & x_{j-1}|)]    (*)

since |s & x_j| grows by one exactly when s holds f_j. The margin strategies compute the same
m(x) in different ways:

- `kernel`: PKI (Kudo & Matsumoto 2003): an inverted index from every feature to the support
  vectors holding it gives the counts c_s, and m(x) = K(0) sum alpha + sum_touched alpha_s
  (K(c_s) - K(0)).
- `expand`: the full expansion, section 3.1 with N = |F|: the weights
  W(g) = sum_{s contains g} alpha_s of every conjunction g of at most d features of the support
  vectors are held explicitly, and slice_j(x) = sum_{g subset of x_{j-1}, |g| < d}
  c_{|g|+1} W(g + f_j) with the coefficients c_m of (c + 1)^d = sum_m c_m binom(c, m)
  (classifiers/evaluators/pke.pyx).
- `split`: kernel splitting (section 3.1): the conjunctions of the N most frequent features F_C
  are held in that table, keyed by frequency ranks and looked up from the rarest feature of a
  conjunction (a pair absent from the table rules out its triples, as the paper's weight trie
  does); the rest of the margin, sum_{s sharing a rare feature with x} alpha_s k'_d(s, x) with
  k'_d(s, x) = K(|s_C & x_C| + |s_R & x_R|) - K(|s_C & x_C|), comes from an inverted index over
  the rare features, |s_C & x_C| by popcounts of bitsets of the common ranks when N <= 256, by
  a scan of s's ranks otherwise.
- `slice`: kernel slicing (section 3.2, Algorithm 2): each slice (*) is cached per prefix x_j
  (a static prefix tree of the training vectors numbers them) with the time stamp t'_f, the
  number of updates touching f = f_j so far. When x_j comes again at time t_f, its slice is
  reused as it is when t_f = t'_f, or brought up to date by Eq. 6,

      slice_t(x_j) = slice_t'(x_j) + sum_{updates (s, delta) touching f after t'}
                                     delta [K(|s & x_{j-1}| + 1) - K(|s & x_{j-1}|)],

  when Eq. 7 holds, i.e. when applying those updates (a scan of s each) is cheaper than
  recomputing: for a common feature at position j at most floor(sum_{m<d} binom(j, m) / (j+1))
  updates (the table lookups of the slice over the length of a scan), for a rare feature at
  most the number of support vectors holding it. Otherwise the slice is recomputed, from the
  table for a common feature, from the inverted index for a rare one. Before each slice, the
  margin computation ends early (Eqs. 8-9) when the hinge loss is already certain to be zero:
  with P_f and N_f the sums of the positive and negative updates of the support vectors holding
  f and c_j <= min(j, longest support vector - 1),

      N_f dK(c_j) + P_f dK(0) <= slice_j <= P_f dK(c_j) + N_f dK(0),   dK(c) = K(c+1) - K(c),

  and the margin lies in [m(x_{j-1}) + sum_{k >= j} lower_k, m(x_{j-1}) + sum_{k >= j} upper_k];
  the example is passed over when the lower end of y m(x) exceeds the update threshold (1 for
  PA, 0 for the perceptron) by more than a relative 1e-9, so rounding never changes a decision.

All strategies take the same steps in the same order and so train the same model; only the
rounding of the margins differs. The table's memory can be capped: when it exceeds the cap, N
is halved and the conjunctions of the rarer half are dropped (their features join the inverted
index), as section 3.1 suggests.
"""
from libc.math cimport NAN, fabs
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from math import comb

import numpy as np

from classifiers.evaluators.pke cimport KEY_BITS, MAX_RANK, extend_key, sort_ranks
from classifiers.evaluators.pke import DEFAULT_MAX_DENSE_BYTES, conjunction_coefficients, dense_rank_count
from features.key_index cimport KeyIndex, mix64

cdef extern from *:
    """
    static inline void polyparse_prefetch(const void* address) {
        __builtin_prefetch(address, 0, 1);
    }
    """
    void prefetch "polyparse_prefetch"(const void* address) noexcept nogil

cdef extern from *:
    """
    static inline int polyparse_popcount(unsigned long long word) {
        return __builtin_popcountll(word);
    }
    """
    int popcount "polyparse_popcount"(uint64_t word) noexcept nogil

cdef enum:
    KERNEL = 0
    EXPAND = 1
    SPLIT = 2
    SLICE = 3

cdef enum:
    PERCEPTRON = 0
    PA = 1
    PA1 = 2
    PA2 = 3

STRATEGIES = ("kernel", "expand", "split", "slice")
VARIANTS = ("perceptron", "pa", "pa1", "pa2")
MAX_DEGREE = 3
# Split's rare part counts |s_C & x_C| on bitsets of the common ranks when N is at most
# 64 x this many words, by a scan of s's ranks otherwise.
cdef enum:
    MAX_COMMON_BIT_WORDS = 4
# Early termination keeps this relative distance from the update threshold.
TERMINATION_TOLERANCE = 1e-9
cdef double TOLERANCE = TERMINATION_TOLERANCE
_FIELD = np.uint64((1 << KEY_BITS) - 1)


cdef inline uint64_t _random(uint64_t* state) noexcept nogil:
    # splitmix64 (Steele, Lea & Flood 2014).
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    return mix64(state[0])


cdef void _shuffle(int32_t* order, int64_t n, uint64_t* state) noexcept nogil:
    # Fisher-Yates shuffle of order[0..n) in place.
    cdef int64_t i, j
    cdef int32_t value
    i = n - 1
    while i > 0:
        j = <int64_t>(_random(state) % <uint64_t>(i + 1))
        value = order[i]
        order[i] = order[j]
        order[j] = value
        i -= 1


def permutations(uint64_t seed, int64_t n_rows, int iterations) -> np.ndarray:
    """(iterations, n_rows) int32: the example order of each iteration for this seed (the order
    of the previous iteration, shuffled again; the first starts from 0, 1, ...)."""
    out = np.empty((iterations, n_rows), dtype=np.int32)
    order = np.arange(n_rows, dtype=np.int32)
    cdef int32_t[::1] o = order
    cdef uint64_t state = seed
    cdef int it
    for it in range(iterations):
        if n_rows:
            _shuffle(&o[0], n_rows, &state)
        out[it] = order
    return out


cdef extern from *:
    """
    #include <algorithm>
    #include <cstdint>
    static void polyparse_sort_rows(int64_t* order, int64_t n, const int64_t* indptr,
                                    const int32_t* ranks) {
        std::sort(order, order + n, [=](int64_t a, int64_t b) {
            return std::lexicographical_compare(ranks + indptr[a], ranks + indptr[a + 1],
                                                ranks + indptr[b], ranks + indptr[b + 1]);
        });
    }
    """
    void sort_rows "polyparse_sort_rows"(int64_t* order, int64_t n, const int64_t* indptr,
                                         const int32_t* ranks) noexcept nogil


cdef bint _same_row(const int64_t* indptr, const int32_t* ranks, int64_t a, int64_t b) noexcept nogil:
    cdef int64_t n = indptr[a + 1] - indptr[a], i
    if indptr[b + 1] - indptr[b] != n:
        return False
    for i in range(n):
        if ranks[indptr[a] + i] != ranks[indptr[b] + i]:
            return False
    return True


def rank_rows(const int64_t[::1] indptr, const int32_t[::1] indices, const int32_t[::1] rank_of):
    """(ranks, row_vector, vector_rows, sorted_vectors): the rank of every entry, ascending
    within each row; the vector of each row (identical rows share one, numbered in order of
    first appearance); the first row of each vector; the vectors in lexicographic order of
    their rank sequences (a prefix tree's order)."""
    cdef int64_t n_rows = indptr.shape[0] - 1, i, p, row, n_vectors = 0, group_first
    ranks_array = np.empty(indices.shape[0], dtype=np.int32)
    cdef int32_t[::1] ranks = ranks_array
    order_array = np.arange(n_rows, dtype=np.int64)
    cdef int64_t[::1] order = order_array
    first_array = np.empty(n_rows, dtype=np.int64)
    cdef int64_t[::1] first = first_array
    group_array = np.empty(n_rows, dtype=np.int64)
    cdef int64_t[::1] group = group_array
    cdef const int64_t* ptr = &indptr[0]
    cdef int32_t* rk = &ranks[0] if indices.shape[0] else NULL
    with nogil:
        for p in range(indices.shape[0]):
            ranks[p] = rank_of[indices[p]]
        for row in range(n_rows):
            sort_ranks(rk + ptr[row], ptr[row + 1] - ptr[row])
        if n_rows:
            sort_rows(&order[0], n_rows, ptr, rk)
        # Groups of identical rows are runs of the sorted order; first[g] = their first row.
        for i in range(n_rows):
            row = order[i]
            if i == 0 or not _same_row(ptr, rk, order[i - 1], row):
                first[n_vectors] = row
                n_vectors += 1
            elif row < first[n_vectors - 1]:
                first[n_vectors - 1] = row
            group[row] = n_vectors - 1
    # Vectors numbered by first appearance.
    by_appearance = np.argsort(first_array[:n_vectors], kind="stable")
    number = np.empty(n_vectors, dtype=np.int64)
    number[by_appearance] = np.arange(n_vectors, dtype=np.int64)
    row_vector = number[group_array].astype(np.int32)
    # Groups are numbered in lexicographic order, so `number` lists the vectors in that order.
    return ranks_array, row_vector, first_array[by_appearance], number


def gather_rows(const int64_t[::1] indptr, const int32_t[::1] values, const int64_t[::1] rows,
                const int32_t[::1] mapping=None):
    """(out_indptr, out_values) of the chosen rows in order; values are mapped through
    `mapping` (when given) and then sorted within each row."""
    cdef int64_t n = rows.shape[0], i, p, q = 0, total = 0
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] optr = out_ptr
    for i in range(n):
        total += indptr[rows[i] + 1] - indptr[rows[i]]
        optr[i + 1] = total
    out_array = np.empty(total, dtype=np.int32)
    cdef int32_t[::1] out = out_array
    cdef bint mapped = mapping is not None
    with nogil:
        for i in range(n):
            for p in range(indptr[rows[i]], indptr[rows[i] + 1]):
                out[q] = mapping[values[p]] if mapped else values[p]
                q += 1
            if mapped:
                sort_ranks(&out[0] + optr[i], optr[i + 1] - optr[i])
    return out_ptr, out_array


def prefix_nodes(const int64_t[::1] indptr, const int32_t[::1] ranks, const int64_t[::1] sorted_vectors):
    """(node_of, n_nodes): a number for every distinct prefix (f_0 .. f_j) of the vectors, the
    nodes of a prefix tree. sorted_vectors lists the vectors in lexicographic order of their
    rank sequences, so vectors sharing a prefix are adjacent; node_of[indptr[v] + j] is the
    node of the first j + 1 ranks of vector v."""
    cdef Py_ssize_t n_vectors = indptr.shape[0] - 1, p, j, common
    node_array = np.empty(ranks.shape[0], dtype=np.int32)
    cdef int32_t[::1] node_of = node_array
    cdef int64_t n_nodes = 0, v, u = -1, a, b, length
    with nogil:
        for p in range(sorted_vectors.shape[0]):
            v = sorted_vectors[p]
            a = indptr[v]
            length = indptr[v + 1] - a
            common = 0
            if u >= 0:
                b = indptr[u]
                while (common < length and common < indptr[u + 1] - b
                       and ranks[a + common] == ranks[b + common]):
                    node_of[a + common] = node_of[b + common]
                    common += 1
            for j in range(common, length):
                node_of[a + j] = <int32_t>n_nodes
                n_nodes += 1
            u = v
    return node_array, n_nodes


cdef class SlicingData:
    """Training vectors in frequency-rank form, shared (read only) by the binary learners.

    rank_ids[r] is the feature id of rank r (0 = most frequent in the training rows, ties:
    smaller id); the distinct vectors (identical rows merged, in order of first appearance)
    hold their ranks ascending in vector_ranks[vector_indptr[v]:vector_indptr[v + 1]];
    row_vector[i] is the vector of training row i; document_frequency[r] counts the vectors
    holding rank r; node_of (built on demand) numbers the prefixes."""
    cdef readonly object rank_ids
    cdef readonly object vector_indptr
    cdef readonly object vector_ranks
    cdef readonly object row_vector
    cdef readonly object document_frequency
    cdef readonly object node_of
    cdef readonly object sorted_vectors
    cdef readonly int64_t n_rows
    cdef readonly int64_t n_vectors
    cdef readonly int64_t n_nodes
    cdef readonly int32_t n_ranked
    cdef readonly int32_t max_length
    cdef const int64_t* vptr
    cdef const int32_t* vranks
    cdef const int32_t* rows
    cdef const int32_t* df
    cdef const int32_t* nodes

    def __init__(self, X):
        """Rank the features of a BinaryMatrix and merge its identical rows."""
        indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(X.indices, dtype=np.int32)
        n_rows = indptr.size - 1
        counts = np.bincount(indices, minlength=1)
        present = np.flatnonzero(counts)
        rank_ids = present[np.lexsort((present, -counts[present]))].astype(np.int32)
        if rank_ids.size > MAX_RANK + 1:
            raise ValueError(f"at most {MAX_RANK + 1} distinct features can be ranked")
        rank_of = np.full(counts.size, -1, dtype=np.int32)
        rank_of[rank_ids] = np.arange(rank_ids.size, dtype=np.int32)
        del counts, present
        ranks, row_vector, vector_rows, sorted_vectors = rank_rows(indptr, indices, rank_of)
        del rank_of
        if vector_rows.size > np.iinfo(np.int32).max // 2:
            raise ValueError("too many distinct training vectors")
        vector_indptr, vector_ranks = gather_rows(indptr, ranks, vector_rows)
        del ranks
        lengths = np.diff(vector_indptr)
        self.rank_ids = rank_ids
        self.vector_indptr = vector_indptr
        self.vector_ranks = vector_ranks
        self.row_vector = row_vector
        self.sorted_vectors = sorted_vectors
        self.document_frequency = np.bincount(vector_ranks, minlength=rank_ids.size).astype(
            np.int32)
        self.node_of = None
        self.n_rows = n_rows
        self.n_vectors = vector_rows.size
        self.n_nodes = 0
        self.n_ranked = rank_ids.size
        self.max_length = int(lengths.max()) if lengths.size else 0
        self.vptr = <const int64_t*><size_t>vector_indptr.ctypes.data
        self.vranks = <const int32_t*><size_t>vector_ranks.ctypes.data if vector_ranks.size else NULL
        self.rows = <const int32_t*><size_t>row_vector.ctypes.data if n_rows else NULL
        self.df = (<const int32_t*><size_t>self.document_frequency.ctypes.data
                   if rank_ids.size else NULL)
        self.nodes = NULL

    def build_prefix_nodes(self) -> None:
        """Number the prefixes of the vectors (the partial-margin table's keys), once."""
        if self.node_of is not None:
            return
        node_of, n_nodes = prefix_nodes(self.vector_indptr, self.vector_ranks,
                                        self.sorted_vectors)
        if n_nodes > np.iinfo(np.int32).max:
            raise ValueError("too many distinct prefixes")
        self.node_of = node_of
        self.n_nodes = n_nodes
        self.nodes = <const int32_t*><size_t>node_of.ctypes.data if node_of.size else NULL

    def vector_ids(self, int64_t v) -> np.ndarray:
        """Feature ids (ascending) of vector v."""
        ranks = self.vector_ranks[self.vector_indptr[v]:self.vector_indptr[v + 1]]
        return np.sort(self.rank_ids[ranks])

    def vectors(self, chosen) -> tuple[np.ndarray, np.ndarray]:
        """(indptr, indices) of the vectors `chosen` as feature ids, ascending per row."""
        return gather_rows(self.vector_indptr, self.vector_ranks,
                           np.ascontiguousarray(chosen, dtype=np.int64), self.rank_ids)


cdef struct RankState:
    # Kernel slicing's state of one rank f.
    double pos              # sum of the positive updates of support vectors holding f
    double neg              # sum of the negative ones (Eqs. 8-9)
    int64_t ring_start      # its ring of latest updates: ring[ring_start .. + ring_cap)
    int32_t ring_cap
    int32_t ring_pos        # where the next update goes
    int32_t ring_count      # updates held (<= ring_cap)
    int32_t t               # updates touching f so far (the time stamp of its slices)


cdef struct RingEntry:
    # An update: the ranks of the updated vector start at vranks[start]; alpha += delta.
    int64_t start
    double delta


cdef struct PrefixNode:
    # The partial-margin table's entry of a prefix x_j: its slice and time stamp.
    double slice
    int32_t t


cdef int _no_memory() except -1 nogil:
    with gil:
        raise MemoryError()


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


cdef class BinaryLearner:
    """One binary PA learner over SlicingData: train() once, then coefficients() and stats()."""
    cdef SlicingData data
    cdef object signs_array
    cdef const int8_t* signs
    cdef int degree
    cdef int variant
    cdef int strategy
    cdef int iterations
    cdef bint average
    cdef bint early_termination
    cdef bint record
    cdef bint trained
    cdef double C
    cdef double theta
    cdef uint64_t seed
    cdef int64_t max_table_bytes
    cdef double coef[4]
    cdef double* K
    cdef double* dK
    cdef int32_t* limit_common
    cdef int32_t common_ring_cap
    # model
    cdef double* alpha
    cdef double* beta
    cdef uint8_t* is_sv
    cdef int32_t* sv_order
    cdef int32_t* sv_number
    cdef double* sv_alpha
    cdef int64_t n_sv
    cdef int32_t max_sv_length
    cdef double sum_alpha
    # conjunction table of ranks < n_common: dense for ranks < n_dense, else hashed
    cdef int32_t n_common
    cdef int32_t n_dense
    cdef double* w1
    cdef double* w2
    cdef double* w3
    cdef KeyIndex index
    cdef double* hashed
    cdef int64_t hashed_cap
    cdef int64_t table_bytes_cap
    # inverted index of the ranks >= post_from
    cdef int32_t post_from
    cdef int32_t** post
    cdef int32_t* post_len
    cdef int32_t* post_cap
    # scratch
    cdef int32_t* counts
    cdef int32_t* touched
    cdef uint8_t* marks
    # split's common-rank bitsets: common_bits[v * bit_words + w] for vector v (bit_words 0:
    # scan instead), x_bits for the example, x_words its nonzero words
    cdef int32_t bit_words
    cdef uint64_t* common_bits
    cdef uint64_t* x_bits
    cdef int32_t* x_words
    cdef int32_t* order
    # slicing
    cdef PrefixNode* prefix
    cdef RankState* rank_state
    cdef RingEntry* ring
    cdef int64_t ring_size
    cdef int64_t* gather_start
    cdef double* gather_coef
    cdef double* lo
    cdef double* hi
    # trace
    cdef double* trace_margin
    cdef double* trace_delta
    # statistics
    cdef int64_t n_steps
    cdef int64_t n_updates
    cdef int64_t n_terminated
    cdef int64_t slices_total
    cdef int64_t slices_skipped
    cdef int64_t slices_reused
    cdef int64_t slices_refreshed
    cdef int64_t updates_applied
    cdef int64_t slices_from_table
    cdef int64_t slices_from_index
    cdef int64_t peak_table_bytes
    cdef int64_t n_halvings
    cdef int32_t initial_common

    def __cinit__(self):
        self.K = self.dK = NULL
        self.limit_common = NULL
        self.alpha = self.beta = NULL
        self.is_sv = NULL
        self.sv_order = NULL
        self.sv_number = NULL
        self.sv_alpha = NULL
        self.w1 = self.w2 = self.w3 = NULL
        self.hashed = NULL
        self.post = NULL
        self.post_len = self.post_cap = NULL
        self.counts = self.touched = NULL
        self.marks = NULL
        self.bit_words = 0
        self.common_bits = self.x_bits = NULL
        self.x_words = NULL
        self.order = NULL
        self.prefix = NULL
        self.rank_state = NULL
        self.ring = NULL
        self.gather_start = NULL
        self.gather_coef = NULL
        self.lo = self.hi = NULL
        self.trace_margin = self.trace_delta = NULL

    def __dealloc__(self):
        cdef int32_t f
        if self.post != NULL and self.data is not None:
            for f in range(self.data.n_ranked):
                free(self.post[f])
        free(self.K)
        free(self.dK)
        free(self.limit_common)
        free(self.alpha)
        free(self.beta)
        free(self.is_sv)
        free(self.sv_order)
        free(self.sv_number)
        free(self.sv_alpha)
        free(self.w1)
        free(self.w2)
        free(self.w3)
        free(self.hashed)
        free(self.post)
        free(self.post_len)
        free(self.post_cap)
        free(self.counts)
        free(self.touched)
        free(self.common_bits)
        free(self.x_bits)
        free(self.x_words)
        free(self.marks)
        free(self.order)
        free(self.prefix)
        free(self.rank_state)
        free(self.ring)
        free(self.gather_start)
        free(self.gather_coef)
        free(self.lo)
        free(self.hi)
        free(self.trace_margin)
        free(self.trace_delta)

    def __init__(
        self, SlicingData data, signs, int degree=2, str variant="pa1", double C=1.0,
        int iterations=20, bint average=True, str strategy="slice", n_common=None,
        int64_t max_table_bytes=0, bint early_termination=True, uint64_t seed=0,
        bint record=False,
    ):
        """signs: +1/-1 (int8) per training row of data. n_common: N, the number of most
        frequent features whose conjunctions the table holds (split, slice; expand holds all,
        kernel none). max_table_bytes: 0 for no cap. record: keep every step's margin and
        update for trace()."""
        if degree < 1 or degree > MAX_DEGREE:
            raise ValueError(f"degree must be 1, 2 or 3, not {degree}")
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r} (available: {', '.join(VARIANTS)})")
        if strategy not in STRATEGIES:
            raise ValueError(
                f"unknown strategy {strategy!r} (available: {', '.join(STRATEGIES)})")
        if not (C > 0 and C < float("inf")):
            raise ValueError("C must be positive and finite")
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        if max_table_bytes < 0:
            raise ValueError("max_table_bytes must be >= 0")
        signs = np.ascontiguousarray(signs, dtype=np.int8)
        if signs.shape != (data.n_rows,) or not np.isin(signs, (-1, 1)).all():
            raise ValueError("signs must hold +1 or -1 for every training row")
        if data.n_rows * iterations >= (1 << 31):
            raise ValueError("at most 2**31 - 1 training steps (rows x iterations)")
        self.data = data
        self.signs_array = signs
        self.signs = <const int8_t*><size_t>signs.ctypes.data
        self.degree = degree
        self.variant = VARIANTS.index(variant)
        self.strategy = STRATEGIES.index(strategy)
        self.iterations = iterations
        self.average = average
        self.early_termination = early_termination
        self.record = record
        self.trained = False
        self.C = C
        self.theta = 0.0 if self.variant == PERCEPTRON else 1.0
        self.seed = seed
        self.max_table_bytes = max_table_bytes
        if self.strategy == KERNEL:
            common = 0
        elif self.strategy == EXPAND:
            common = data.n_ranked
        else:
            if n_common is None or int(n_common) < 0:
                raise ValueError("split and slice need n_common >= 0")
            common = min(int(n_common), data.n_ranked)
        self.n_common = common
        self.initial_common = common
        self.post_from = common
        cdef double[::1] coefficients = conjunction_coefficients(1.0, 1.0, degree)
        cdef int m
        for m in range(4):
            self.coef[m] = coefficients[m] if m <= degree else 0.0
        self._allocate()

    cdef int _allocate(self) except -1:
        cdef SlicingData data = self.data
        cdef int64_t n_vectors = max(data.n_vectors, 1), c, n_ranked = max(data.n_ranked, 1)
        cdef int32_t length = data.max_length, j, f
        cdef int degree = self.degree
        cdef double value, total
        self.K = <double*>malloc((length + 2) * sizeof(double))
        self.dK = <double*>malloc((length + 2) * sizeof(double))
        self.limit_common = <int32_t*>calloc(length + 1, sizeof(int32_t))
        if self.K == NULL or self.dK == NULL or self.limit_common == NULL:
            raise MemoryError()
        for c in range(length + 2):
            value = 1.0
            for j in range(degree):
                value *= c + 1.0
            self.K[c] = value
        for c in range(length + 1):
            self.dK[c] = self.K[c + 1] - self.K[c]
        self.dK[length + 1] = 0.0
        self.common_ring_cap = 1
        for j in range(length + 1):
            total = 0.0
            for c in range(degree):
                total += comb(j, c)
            self.limit_common[j] = <int32_t>(total // (j + 1))
            if j < self.n_common and self.limit_common[j] > self.common_ring_cap:
                self.common_ring_cap = self.limit_common[j]
        self.alpha = <double*>calloc(n_vectors, sizeof(double))
        self.is_sv = <uint8_t*>calloc(n_vectors, sizeof(uint8_t))
        self.sv_order = <int32_t*>malloc(n_vectors * sizeof(int32_t))
        self.sv_number = <int32_t*>malloc(n_vectors * sizeof(int32_t))
        self.sv_alpha = <double*>calloc(n_vectors, sizeof(double))
        self.marks = <uint8_t*>calloc(n_ranked, sizeof(uint8_t))
        self.order = <int32_t*>malloc(max(data.n_rows, 1) * sizeof(int32_t))
        self.post = <int32_t**>calloc(n_ranked, sizeof(int32_t*))
        self.post_len = <int32_t*>calloc(n_ranked, sizeof(int32_t))
        self.post_cap = <int32_t*>calloc(n_ranked, sizeof(int32_t))
        if (self.alpha == NULL or self.is_sv == NULL or self.sv_order == NULL
                or self.sv_number == NULL or self.sv_alpha == NULL
                or self.marks == NULL or self.order == NULL or self.post == NULL
                or self.post_len == NULL or self.post_cap == NULL):
            raise MemoryError()
        if self.average:
            self.beta = <double*>calloc(n_vectors, sizeof(double))
            if self.beta == NULL:
                raise MemoryError()
        if self.strategy == KERNEL or self.strategy == SPLIT:
            self.counts = <int32_t*>calloc(n_vectors, sizeof(int32_t))
            self.touched = <int32_t*>malloc(n_vectors * sizeof(int32_t))
            if self.counts == NULL or self.touched == NULL:
                raise MemoryError()
        self._build_common_bits()
        dense_budget = DEFAULT_MAX_DENSE_BYTES
        if self.max_table_bytes:
            dense_budget = min(dense_budget, self.max_table_bytes // 2)
        self.n_dense = dense_rank_count(self.n_common, degree, 1, dense_budget)
        self._allocate_dense(self.n_dense)
        self.index = KeyIndex(16)
        self.hashed_cap = 16
        self.hashed = <double*>calloc(self.hashed_cap, sizeof(double))
        if self.hashed == NULL:
            raise MemoryError()
        if self.strategy == SLICE:
            data.build_prefix_nodes()
            self.prefix = <PrefixNode*>calloc(max(data.n_nodes, 1), sizeof(PrefixNode))
            self.rank_state = <RankState*>calloc(n_ranked, sizeof(RankState))
            self.lo = <double*>calloc(length + 1, sizeof(double))
            self.hi = <double*>calloc(length + 1, sizeof(double))
            if (self.prefix == NULL or self.rank_state == NULL or self.lo == NULL
                    or self.hi == NULL):
                raise MemoryError()
            self.gather_start = <int64_t*>malloc(n_vectors * sizeof(int64_t))
            self.gather_coef = <double*>malloc(n_vectors * sizeof(double))
            if self.gather_start == NULL or self.gather_coef == NULL:
                raise MemoryError()
            for c in range(data.n_nodes):
                self.prefix[c].t = -1
            self._allocate_rings()
        if self.record:
            steps = max(data.n_rows * self.iterations, 1)
            self.trace_margin = <double*>calloc(steps, sizeof(double))
            self.trace_delta = <double*>calloc(steps, sizeof(double))
            if self.trace_margin == NULL or self.trace_delta == NULL:
                raise MemoryError()
        self.peak_table_bytes = self._table_bytes()
        return 0

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

    cdef int _allocate_rings(self) except -1:
        # Rings of the latest updates touching each rank: room for as many as Eq. 7 may apply
        # (the time stamps and sums of updates stay).
        cdef SlicingData data = self.data
        cdef RankState* state
        cdef int32_t f
        cdef int64_t total = 0
        for f in range(data.n_ranked):
            state = &self.rank_state[f]
            state.ring_start = total
            state.ring_cap = self.common_ring_cap if f < self.n_common else data.df[f]
            state.ring_pos = 0
            state.ring_count = 0
            total += state.ring_cap
        free(self.ring)
        self.ring = <RingEntry*>malloc(max(total, 1) * sizeof(RingEntry))
        if self.ring == NULL:
            raise MemoryError()
        self.ring_size = total
        return 0

    cdef int64_t _table_bytes(self) noexcept nogil:
        cdef int64_t n = self.n_dense
        cdef int64_t dense = n
        if self.degree >= 2:
            dense += n * (n - 1) // 2
        if self.degree >= 3:
            dense += n * (n - 1) * (n - 2) // 6
        return 8 * dense + 12 * <int64_t>(self.index.mask + 1) + 8 * self.hashed_cap

    # ----- the conjunction table --------------------------------------------------------------

    cdef double _table_slice(self, const int32_t* r, int j) noexcept nogil:
        # slice_j from the table: f_j = r[j] and r[0..j) are all common ranks.
        cdef int32_t c = r[j], rb
        cdef int a, b
        cdef int64_t base2, base3, base
        cdef double s1, s2 = 0.0, s3 = 0.0
        cdef const double* w2 = self.w2
        cdef const double* w3 = self.w3
        cdef const double* h = self.hashed
        cdef int32_t row
        cdef uint64_t kc, kbc
        if c < self.n_dense:
            s1 = self.w1[c]
            if self.degree >= 2:
                base2 = <int64_t>c * (c - 1) // 2
                for b in range(j):
                    s2 += w2[base2 + r[b]]
            if self.degree >= 3:
                base3 = <int64_t>c * (c - 1) * (c - 2) // 6
                for b in range(1, j):
                    rb = r[b]
                    base = base3 + <int64_t>rb * (rb - 1) // 2
                    for a in range(b):
                        s3 += w3[base + r[a]]
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
                _no_memory()
            self.hashed = grown
        self.hashed[row] += delta
        return 0

    cdef int _table_add(self, const int32_t* r, int nc, double delta) except -1 nogil:
        # Add delta to the weight of every conjunction (size <= degree) of r[0..nc).
        cdef int a, b, j
        cdef int32_t c, rb
        cdef int64_t base2, base3, base
        cdef uint64_t kbc
        cdef double* w2 = self.w2
        cdef double* w3 = self.w3
        for j in range(nc):
            c = r[j]
            if c < self.n_dense:
                self.w1[c] += delta
                if self.degree >= 2:
                    base2 = <int64_t>c * (c - 1) // 2
                    for b in range(j):
                        w2[base2 + r[b]] += delta
                if self.degree >= 3:
                    base3 = <int64_t>c * (c - 1) * (c - 2) // 6
                    for b in range(1, j):
                        rb = r[b]
                        base = base3 + <int64_t>rb * (rb - 1) // 2
                        for a in range(b):
                            w3[base + r[a]] += delta
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

    cdef int _halve(self) except -1:
        # N -> N / 2: drop the conjunctions holding a rank >= N / 2 (max_table_bytes).
        cdef int32_t old = self.n_common, new = self.n_common // 2, f
        cdef int64_t n, i, p
        cdef int32_t v
        cdef double* old1 = self.w1
        cdef double* old2 = self.w2
        cdef double* old3 = self.w3
        cdef double* hashed
        if self.counts == NULL:
            # expand turns into split: its rare part needs the PKI scratch.
            self.counts = <int32_t*>calloc(max(self.data.n_vectors, 1), sizeof(int32_t))
            self.touched = <int32_t*>malloc(max(self.data.n_vectors, 1) * sizeof(int32_t))
            if self.counts == NULL or self.touched == NULL:
                raise MemoryError()
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
        for i in range(self.n_sv):
            v = self.sv_order[i]
            for p in range(self.data.vptr[v], self.data.vptr[v + 1]):
                f = self.data.vranks[p]
                if new <= f < old:
                    if self._append_posting(f, v) < 0:
                        raise MemoryError()
        self.n_common = new
        self.post_from = new
        self.n_halvings += 1
        self._build_common_bits()
        if self.strategy == SLICE:
            self.common_ring_cap = 1
            for f in range(min(new, self.data.max_length + 1)):
                if self.limit_common[f] > self.common_ring_cap:
                    self.common_ring_cap = self.limit_common[f]
            self._allocate_rings()
        return 0

    cdef int _build_common_bits(self) except -1:
        # The bitsets of the common ranks of every support vector, for the strategies whose
        # margins run _margin_split (split, and expand once halved); none when N is 0 or needs
        # more than MAX_COMMON_BIT_WORDS words. |s_C & x_C| is then a few popcounts on one
        # cache line instead of a scan of s's ranks.
        cdef int64_t i, n_vectors = max(self.data.n_vectors, 1)
        cdef int32_t words = (self.n_common + 63) // 64
        free(self.common_bits)
        free(self.x_bits)
        free(self.x_words)
        self.common_bits = self.x_bits = NULL
        self.x_words = NULL
        self.bit_words = 0
        if (self.strategy == KERNEL or self.strategy == SLICE or words == 0
                or words > MAX_COMMON_BIT_WORDS):
            return 0
        self.common_bits = <uint64_t*>calloc(n_vectors * words, sizeof(uint64_t))
        self.x_bits = <uint64_t*>calloc(words, sizeof(uint64_t))
        self.x_words = <int32_t*>malloc(words * sizeof(int32_t))
        if self.common_bits == NULL or self.x_bits == NULL or self.x_words == NULL:
            raise MemoryError()
        self.bit_words = words
        for i in range(self.n_sv):
            self._fill_common_bits(self.sv_order[i])
        return 0

    cdef void _fill_common_bits(self, int32_t v) noexcept nogil:
        # Set the bits of v's ranks below N (its ranks are sorted).
        cdef uint64_t* bits = self.common_bits + <int64_t>v * self.bit_words
        cdef int64_t p
        cdef int32_t f
        for p in range(self.data.vptr[v], self.data.vptr[v + 1]):
            f = self.data.vranks[p]
            if f >= self.n_common:
                break
            bits[f >> 6] |= (<uint64_t>1) << (f & 63)

    # ----- inverted index ---------------------------------------------------------------------

    cdef int _append_posting(self, int32_t f, int32_t v) noexcept nogil:
        cdef int32_t* grown
        cdef int32_t capacity
        if self.post_len[f] == self.post_cap[f]:
            capacity = 4 if self.post_cap[f] == 0 else 2 * self.post_cap[f]
            grown = <int32_t*>realloc(self.post[f], capacity * sizeof(int32_t))
            if grown == NULL:
                return -1
            self.post[f] = grown
            self.post_cap[f] = capacity
        self.post[f][self.post_len[f]] = v
        self.post_len[f] += 1
        return 0

    # ----- margins ----------------------------------------------------------------------------

    cdef double _margin_kernel(self, const int32_t* r, int n) noexcept nogil:
        # PKI: counts |s & x| of the support vectors sharing a feature with x. Its postings
        # hold support-vector numbers (ascending), so the counts are written in order; when
        # they reach about every support vector, all are read back instead of a touched list.
        cdef int j
        cdef int32_t f, s, q, m = 0
        cdef int64_t total = 0
        cdef const int32_t* postings
        cdef int32_t* counts = self.counts
        cdef int32_t* touched = self.touched
        cdef const double* sv_alpha = self.sv_alpha
        cdef const double* K = self.K
        cdef double part = 0.0, k0 = self.K[0]
        for j in range(n):
            total += self.post_len[r[j]]
        if total >= self.n_sv:
            for j in range(n):
                f = r[j]
                postings = self.post[f]
                for q in range(self.post_len[f]):
                    counts[postings[q]] += 1
            for s in range(<int32_t>self.n_sv):
                if counts[s]:
                    part += sv_alpha[s] * (K[counts[s]] - k0)
                    counts[s] = 0
        else:
            for j in range(n):
                f = r[j]
                postings = self.post[f]
                for q in range(self.post_len[f]):
                    s = postings[q]
                    if counts[s] == 0:
                        touched[m] = s
                        m += 1
                    counts[s] += 1
            for q in range(m):
                s = touched[q]
                part += sv_alpha[s] * (K[counts[s]] - k0)
                counts[s] = 0
        return k0 * self.sum_alpha + part

    cdef double _margin_split(self, const int32_t* r, int n) noexcept nogil:
        # Kernel splitting: common conjunctions from the table, rare features by PKI with k'_d;
        # |s_C & x_C| by popcounts of the common-rank bitsets, or by a scan of s's ranks.
        cdef int j, nc = 0, nw = 0, i
        cdef int32_t f, s, q, m = 0, cnt, cc, word
        cdef int64_t p, end
        cdef const int32_t* postings
        cdef const int32_t* vranks = self.data.vranks
        cdef const int64_t* vptr = self.data.vptr
        cdef int32_t* counts = self.counts
        cdef int32_t* touched = self.touched
        cdef uint8_t* marks = self.marks
        cdef int32_t n_common = self.n_common, words = self.bit_words
        cdef const uint64_t* bits
        cdef uint64_t* x_bits = self.x_bits
        cdef int32_t* x_words = self.x_words
        cdef double part = 0.0
        while nc < n and r[nc] < n_common:
            nc += 1
        for j in range(nc):
            part += self._table_slice(r, j)
        if nc < n:
            for j in range(nc):
                if words:
                    word = r[j] >> 6
                    if x_bits[word] == 0:
                        x_words[nw] = word
                        nw += 1
                    x_bits[word] |= (<uint64_t>1) << (r[j] & 63)
                else:
                    marks[r[j]] = 1
            for j in range(nc, n):
                f = r[j]
                postings = self.post[f]
                for q in range(self.post_len[f]):
                    s = postings[q]
                    if counts[s] == 0:
                        touched[m] = s
                        m += 1
                    counts[s] += 1
            for q in range(m):
                if words:
                    prefetch(self.common_bits + <int64_t>touched[q] * words)
                else:
                    prefetch(vranks + vptr[touched[q]])
            for q in range(m):
                s = touched[q]
                cnt = counts[s]
                counts[s] = 0
                cc = 0
                if words:
                    bits = self.common_bits + <int64_t>s * words
                    for i in range(nw):
                        cc += popcount(bits[x_words[i]] & x_bits[x_words[i]])
                else:
                    p = vptr[s]
                    end = vptr[s + 1]
                    while p < end and vranks[p] < n_common:
                        cc += marks[vranks[p]]
                        p += 1
                part += self.alpha[s] * (self.K[cc + cnt] - self.K[cc])
            for i in range(nw):
                x_bits[x_words[i]] = 0
            for j in range(nc):
                marks[r[j]] = 0
        return self.K[0] * self.sum_alpha + part

    cdef double _gathered_sum(self, int32_t n, int32_t f) noexcept nogil:
        # sum_i gather_coef[i] dK(|s_i & x_{j-1}|) over the vectors s_i whose ranks start at
        # gather_start[i] (each holds f): |s_i & x_{j-1}| counts the marked ranks below f. The
        # starts were gathered (and prefetched) first, so the scans' cache misses overlap.
        cdef const int32_t* vranks = self.data.vranks
        cdef const uint8_t* marks = self.marks
        cdef const double* dK = self.dK
        cdef const int32_t* rank
        cdef int32_t i, c
        cdef double total = 0.0
        for i in range(n):
            rank = vranks + self.gather_start[i]
            c = 0
            while rank[0] < f:
                c += marks[rank[0]]
                rank += 1
            total += self.gather_coef[i] * dK[c]
        return total

    cdef bint _margin_slice(self, const int32_t* r, int n, const int32_t* nodes, int y,
                            double* out) noexcept nogil:
        # Kernel slicing (Algorithm 2); True when ended early (the loss is surely zero).
        cdef int j, i
        cdef int32_t f, node, tf, nt, nusv, limit, cap, q, u, cm
        cdef RankState* state
        cdef PrefixNode* entry
        cdef RingEntry* ring
        cdef uint8_t* marks = self.marks
        cdef double m = self.K[0] * self.sum_alpha, sl, bound, acc_lo = 0.0, acc_hi = 0.0
        cdef double* lo = self.lo
        cdef double* hi = self.hi
        cdef const double* dK = self.dK
        cdef const int32_t* postings
        cdef bint prune = self.early_termination and self.n_sv > 0
        if prune:
            j = n - 1
            while j >= 0:
                f = r[j]
                cm = j if j < self.max_sv_length - 1 else self.max_sv_length - 1
                state = &self.rank_state[f]
                acc_lo += state.neg * dK[cm] + state.pos * dK[0]
                acc_hi += state.pos * dK[cm] + state.neg * dK[0]
                lo[j] = acc_lo
                hi[j] = acc_hi
                j -= 1
        for j in range(n):
            if prune:
                bound = m + lo[j] if y > 0 else -(m + hi[j])
                if bound > self.theta + TOLERANCE * (
                        1.0 + fabs(m) + fabs(lo[j]) + fabs(hi[j])):
                    self.n_terminated += 1
                    self.slices_skipped += n - j
                    for i in range(j):
                        marks[r[i]] = 0
                    return True
            f = r[j]
            node = nodes[j]
            state = &self.rank_state[f]
            entry = &self.prefix[node]
            tf = state.t
            nt = entry.t
            if nt == tf:
                sl = entry.slice
                self.slices_reused += 1
            else:
                nusv = tf - nt
                limit = self.limit_common[j] if f < self.n_common else self.post_len[f]
                if nt >= 0 and nusv <= limit and nusv <= state.ring_count:
                    # Eq. 6: apply the updates touching f since the time stamp.
                    sl = entry.slice
                    ring = self.ring + state.ring_start
                    cap = state.ring_cap
                    q = state.ring_pos - nusv
                    if q < 0:
                        q += cap
                    for i in range(nusv):
                        self.gather_start[i] = ring[q].start
                        self.gather_coef[i] = ring[q].delta
                        prefetch(self.data.vranks + ring[q].start)
                        q += 1
                        if q == cap:
                            q = 0
                    sl += self._gathered_sum(nusv, f)
                    self.slices_refreshed += 1
                    self.updates_applied += nusv
                elif f < self.n_common:
                    sl = self._table_slice(r, j)
                    self.slices_from_table += 1
                else:
                    postings = self.post[f]
                    for i in range(self.post_len[f]):
                        u = postings[i]
                        self.gather_start[i] = self.data.vptr[u]
                        self.gather_coef[i] = self.alpha[u]
                        prefetch(self.data.vranks + self.data.vptr[u])
                    sl = self._gathered_sum(self.post_len[f], f)
                    self.slices_from_index += 1
                entry.slice = sl
                entry.t = tf
            m += sl
            marks[f] = 1
        for j in range(n):
            marks[r[j]] = 0
        out[0] = m
        return False

    # ----- updates ----------------------------------------------------------------------------

    cdef int _update(self, int32_t v, const int32_t* r, int n, double delta,
                     int64_t step) except -1 nogil:
        cdef int j, nc = 0
        cdef int64_t start
        cdef RankState* state
        cdef RingEntry* entry
        if not self.is_sv[v]:
            self.is_sv[v] = 1
            self.sv_number[v] = <int32_t>self.n_sv
            self.sv_order[self.n_sv] = v
            if n > self.max_sv_length:
                self.max_sv_length = n
            for j in range(n):
                if r[j] >= self.post_from:
                    # kernel's postings hold support-vector numbers, the others vectors.
                    if self._append_posting(
                            r[j], <int32_t>self.n_sv if self.strategy == KERNEL else v) < 0:
                        _no_memory()
            if self.bit_words:
                self._fill_common_bits(v)
            self.n_sv += 1
        self.alpha[v] += delta
        self.sv_alpha[self.sv_number[v]] += delta
        if self.average:
            self.beta[v] += <double>(step - 1) * delta
        self.sum_alpha += delta
        self.n_updates += 1
        if self.strategy != KERNEL:
            while nc < n and r[nc] < self.n_common:
                nc += 1
            if nc:
                self._table_add(r, nc, delta)
        if self.strategy == SLICE:
            start = self.data.vptr[v]
            for j in range(n):
                state = &self.rank_state[r[j]]
                if state.ring_cap > 0:
                    entry = &self.ring[state.ring_start + state.ring_pos]
                    entry.start = start
                    entry.delta = delta
                    state.ring_pos += 1
                    if state.ring_pos == state.ring_cap:
                        state.ring_pos = 0
                    if state.ring_count < state.ring_cap:
                        state.ring_count += 1
                state.t += 1
                if delta > 0:
                    state.pos += delta
                else:
                    state.neg += delta
        if self.strategy != KERNEL:
            self._check_table()
        return 0

    cdef int _check_table(self) except -1 nogil:
        cdef int64_t size = self._table_bytes()
        if size > self.peak_table_bytes:
            self.peak_table_bytes = size
        if self.max_table_bytes and size > self.max_table_bytes:
            with gil:
                while self.n_common > 0 and self._table_bytes() > self.max_table_bytes:
                    self._halve()
        return 0

    # ----- training ---------------------------------------------------------------------------

    cdef int _train(self) except -1 nogil:
        cdef int64_t n_rows = self.data.n_rows, p, step = 0
        cdef int it, n, y
        cdef int32_t row, v
        cdef const int32_t* r
        cdef const int32_t* nodes = NULL
        cdef uint64_t state = self.seed
        cdef double m = 0.0, ym, loss, tau, norm, delta
        cdef bint ended
        for p in range(n_rows):
            self.order[p] = <int32_t>p
        for it in range(self.iterations):
            _shuffle(self.order, n_rows, &state)
            for p in range(n_rows):
                row = self.order[p]
                v = self.data.rows[row]
                y = self.signs[row]
                r = self.data.vranks + self.data.vptr[v]
                n = <int>(self.data.vptr[v + 1] - self.data.vptr[v])
                step += 1
                ended = False
                if self.strategy == KERNEL:
                    m = self._margin_kernel(r, n)
                elif self.strategy == SLICE:
                    nodes = self.data.nodes + self.data.vptr[v]
                    ended = self._margin_slice(r, n, nodes, y, &m)
                else:
                    m = self._margin_split(r, n)
                self.slices_total += n
                delta = 0.0
                if not ended:
                    ym = y * m
                    if self.variant == PERCEPTRON:
                        if ym <= 0.0:
                            delta = y
                    else:
                        loss = 1.0 - ym
                        if loss > 0.0:
                            norm = self.K[n]
                            if self.variant == PA:
                                tau = loss / norm
                            elif self.variant == PA1:
                                tau = loss / norm
                                if tau > self.C:
                                    tau = self.C
                            else:
                                tau = loss / (norm + 0.5 / self.C)
                            delta = y * tau
                    if delta != 0.0:
                        self._update(v, r, n, delta, step)
                if self.record:
                    self.trace_margin[step - 1] = NAN if ended else m
                    self.trace_delta[step - 1] = delta
        self.n_steps = step
        return 0

    def train(self) -> None:
        """Run every iteration (without the GIL, except to shrink the table)."""
        if self.trained:
            raise RuntimeError("this learner has already been trained")
        self.trained = True
        with nogil:
            self._train()

    def coefficients(self) -> np.ndarray:
        """Coefficient of every vector (0 for those never updated): the averaged alpha when
        average is set, else the final alpha."""
        n = self.data.n_vectors
        out = np.zeros(n, dtype=np.float64)
        cdef double[::1] o = out
        cdef int64_t v
        cdef double steps = max(self.n_steps, 1)
        for v in range(n):
            if self.is_sv[v]:
                o[v] = self.alpha[v] - self.beta[v] / steps if self.average else self.alpha[v]
        return out

    def trace(self) -> tuple[np.ndarray, np.ndarray]:
        """(margins, deltas) of every step (record=True): the margin m(x) computed at step t
        (NaN when the computation ended early) and the change y tau of alpha_x (0: none)."""
        if not self.record:
            raise RuntimeError("the learner was made without record=True")
        steps = self.data.n_rows * self.iterations
        margins = np.array(<double[:max(steps, 1)]>self.trace_margin)[:steps]
        deltas = np.array(<double[:max(steps, 1)]>self.trace_delta)[:steps]
        return margins, deltas

    def table_entries(self) -> int:
        """Conjunctions the table holds (dense slots and hashed keys)."""
        cdef int64_t n = self.n_dense
        dense = n + (n * (n - 1) // 2 if self.degree >= 2 else 0)
        dense += n * (n - 1) * (n - 2) // 6 if self.degree >= 3 else 0
        return int(dense + self.index.size) if self.strategy != KERNEL else 0

    def stats(self) -> dict:
        """Counters of the run (JSON-ready)."""
        cdef int64_t postings = 0, rings = 0
        cdef int32_t f
        for f in range(self.data.n_ranked):
            postings += self.post_cap[f]
        if self.strategy == SLICE:
            rings = self.ring_size
        result = {
            "strategy": STRATEGIES[self.strategy],
            "steps": int(self.n_steps),
            "updates": int(self.n_updates),
            "n_support_vectors": int(self.n_sv),
            "n_common_initial": int(self.initial_common),
            "n_common": int(self.n_common),
            "n_dense": int(self.n_dense) if self.strategy != KERNEL else 0,
            "halvings": int(self.n_halvings),
            "table_entries": self.table_entries(),
            "table_bytes": int(self._table_bytes()) if self.strategy != KERNEL else 0,
            "peak_table_bytes": int(self.peak_table_bytes) if self.strategy != KERNEL else 0,
            "inverted_index_bytes": int(4 * postings + 16 * self.data.n_ranked),
        }
        if self.strategy == SLICE:
            result.update({
                "margins_ended_early": int(self.n_terminated),
                "slices": int(self.slices_total),
                "slices_skipped": int(self.slices_skipped),
                "slices_reused": int(self.slices_reused),
                "slices_refreshed": int(self.slices_refreshed),
                "updates_applied_by_refresh": int(self.updates_applied),
                "slices_from_table": int(self.slices_from_table),
                "slices_from_index": int(self.slices_from_index),
                "partial_margin_nodes": int(self.data.n_nodes),
                "partial_margin_bytes": int(sizeof(PrefixNode) * self.data.n_nodes
                                            + 4 * self.data.vector_ranks.size),
                "ring_bytes": int(sizeof(RingEntry) * rings
                                  + sizeof(RankState) * self.data.n_ranked),
            })
        return result
