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
parameters follow Daume III 2006 (classifiers/online/support_set.pyx).

Features are ranked by frequency in the training data (0 = most frequent) and every vector is
kept sorted by rank (classifiers/online/slicing_data.pyx), so x_j, the first j features of x, is
a frequency-ordered prefix. With K(c) = (c + 1)^d of the shared count c,

    m(x) = K(0) sum_s alpha_s + sum_j slice_j(x),
    slice_j(x) = m(x_j) - m(x_{j-1}) = sum_{s holding f_j} alpha_s [K(|s & x_{j-1}| + 1)
                                                                    - K(|s & x_{j-1}|)]    (*)

since |s & x_j| grows by one exactly when s holds f_j. The margin strategies compute the same
m(x) in different ways, each in its own module:

- `kernel` (margin_kernel.pyx): PKI, an inverted index of every feature;
- `expand` and `split` (margin_split.pyx): kernel splitting (section 3.1), the conjunctions of
  the N most frequent features in a weight table (conjunction_table.pyx; expand: N = |F|), the
  rare features by an inverted index (inverted_index.pyx);
- `slice` (margin_slice.pyx): kernel slicing (section 3.2, Algorithm 2), the slices (*) cached
  per prefix and brought up to date by Eq. 6, with early termination (Eqs. 8-9).

All strategies take the same steps in the same order and so train the same model; only the
rounding of the margins differs. The table's memory can be capped: when it exceeds the cap, N
is halved and the conjunctions of the rarer half are dropped (their features join the inverted
index), as section 3.1 suggests.
"""
from libc.math cimport NAN
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

import numpy as np

from polyparse.classifiers.online.choices import STRATEGIES, VARIANTS

from polyparse.classifiers.online cimport slicing_data
from polyparse.classifiers.online.conjunction_table cimport ConjunctionTable
from polyparse.classifiers.online.inverted_index cimport InvertedIndex
from polyparse.classifiers.online.margin_kernel cimport KernelMargin
from polyparse.classifiers.online.margin_slice cimport SliceMargin
from polyparse.classifiers.online.margin_split cimport SplitMargin
from polyparse.classifiers.online.margin_strategy cimport MarginStrategy
from polyparse.classifiers.online.support_set cimport SupportSet
from polyparse.classifiers.random_order cimport shuffle_from_back
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts

# SlicingData and TERMINATION_TOLERANCE are part of this module's Python API.
from polyparse.classifiers.online.margin_slice import TERMINATION_TOLERANCE
from polyparse.classifiers.online.slicing_data import SlicingData

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

MAX_DEGREE = 3


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
            shuffle_from_back(&o[0], n_rows, &state)
        out[it] = order
    return out


cdef class BinaryLearner:
    """One binary PA learner over SlicingData: train() once, then coefficients() and stats()."""
    cdef slicing_data.SlicingData data
    cdef object signs_array
    cdef const int8_t* signs
    cdef int variant
    cdef int strategy
    cdef int iterations
    cdef bint record
    cdef bint trained
    cdef double C
    cdef uint64_t seed
    cdef int64_t max_table_bytes
    cdef SupportSet support
    cdef InvertedIndex index
    # None for the kernel strategy
    cdef ConjunctionTable table
    cdef MarginStrategy margins
    cdef int32_t* order
    # trace
    cdef double* trace_margin
    cdef double* trace_delta
    # statistics
    cdef int64_t n_steps
    cdef int64_t n_updates
    cdef int64_t peak_table_bytes
    cdef int64_t n_halvings
    cdef int32_t initial_common

    def __dealloc__(self):
        free(self.order)
        free(self.trace_margin)
        free(self.trace_delta)

    def __init__(
        self, slicing_data.SlicingData data, signs, int degree=2, str variant="pa1", double C=1.0,
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
        self.variant = VARIANTS.index(variant)
        self.strategy = STRATEGIES.index(strategy)
        self.iterations = iterations
        self.record = record
        self.trained = False
        self.C = C
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
        self.initial_common = common
        self._allocate(degree, average, early_termination)

    cdef int _allocate(self, int degree, bint average, bint early_termination) except -1:
        cdef slicing_data.SlicingData data = self.data
        cdef int64_t steps
        self.support = SupportSet(data.n_vectors, data.max_length, degree, average)
        self.index = InvertedIndex(data.n_ranked, self.initial_common)
        self.order = <int32_t*>malloc(max(data.n_rows, 1) * sizeof(int32_t))
        if self.order == NULL:
            raise MemoryError()
        if self.strategy == KERNEL:
            self.margins = KernelMargin(data, self.support, self.index)
        else:
            self.table = ConjunctionTable(degree, self.initial_common, self.max_table_bytes)
            self.peak_table_bytes = self.table.size_bytes()
            if self.strategy == SLICE:
                self.margins = SliceMargin(data, self.support, self.index, self.table, degree,
                                           0.0 if self.variant == PERCEPTRON else 1.0,
                                           early_termination)
            else:
                self.margins = SplitMargin(data, self.support, self.index, self.table)
        if self.record:
            steps = max(data.n_rows * self.iterations, 1)
            self.trace_margin = <double*>calloc(steps, sizeof(double))
            self.trace_delta = <double*>calloc(steps, sizeof(double))
            if self.trace_margin == NULL or self.trace_delta == NULL:
                raise MemoryError()
        return 0

    # ----- updates ----------------------------------------------------------------------------

    cdef double _change(self, int y, double m, int n) noexcept nogil:
        # y tau of Algorithm 1 for the margin m of an example of n features (0: no update).
        cdef double ym = y * m, loss, tau, norm
        if self.variant == PERCEPTRON:
            return y if ym <= 0.0 else 0.0
        loss = 1.0 - ym
        if loss <= 0.0:
            return 0.0
        norm = self.support.K[n]
        if self.variant == PA:
            tau = loss / norm
        elif self.variant == PA1:
            tau = loss / norm
            if tau > self.C:
                tau = self.C
        else:
            tau = loss / (norm + 0.5 / self.C)
        return y * tau

    cdef int _update(self, int32_t v, const int32_t* r, int n, double delta,
                     int64_t step) except -1 nogil:
        # alpha_v += delta at step t, and every structure that holds alpha with it.
        cdef int nc
        if self.support.add(v, n, delta, step):
            # kernel's postings hold support-vector numbers, the others vectors.
            self.index.add_ranks(r, n, self.index.first_rank, self.index.n_ranked,
                                 self.support.sv_number[v] if self.strategy == KERNEL else v)
            self.margins.joined(v)
        self.n_updates += 1
        if self.strategy != KERNEL:
            nc = self.table.common_length(r, n)
            if nc:
                self.table.add(r, nc, delta)
        self.margins.updated(v, r, n, delta)
        if self.strategy != KERNEL:
            self._check_table()
        return 0

    cdef int _check_table(self) except -1 nogil:
        cdef int64_t size = self.table.size_bytes()
        if size > self.peak_table_bytes:
            self.peak_table_bytes = size
        if self.max_table_bytes and size > self.max_table_bytes:
            with gil:
                while (self.table.n_common > 0
                       and self.table.size_bytes() > self.max_table_bytes):
                    self._halve()
        return 0

    cdef int _halve(self) except -1:
        # N -> N / 2 (section 3.1): the table drops the conjunctions holding a rank >= N / 2,
        # whose ranks join the inverted index (postings of the support vectors in order).
        cdef int32_t old = self.table.n_common, v
        cdef int64_t i
        self.table.halve()
        for i in range(self.support.n_sv):
            v = self.support.sv_order[i]
            self.index.add_ranks(self.data.vranks + self.data.vptr[v],
                                 <int>(self.data.vptr[v + 1] - self.data.vptr[v]),
                                 self.table.n_common, old, v)
        self.index.first_rank = self.table.n_common
        self.margins.common_ranks_changed()
        self.n_halvings += 1
        return 0

    # ----- training ---------------------------------------------------------------------------

    cdef int _train(self) except -1 nogil:
        # An example is a step of the signal checks, and a step more per thousand support
        # vectors its margin may visit.
        cdef int64_t n_rows = self.data.n_rows, p, step = 0, steps_left = CHECK_STEPS
        cdef int it, n, y
        cdef int32_t row, v
        cdef const int32_t* r
        cdef uint64_t state = self.seed
        cdef double m = 0.0, delta
        cdef bint ended
        for p in range(n_rows):
            self.order[p] = <int32_t>p
        for it in range(self.iterations):
            shuffle_from_back(self.order, n_rows, &state)
            for p in range(n_rows):
                count_steps(&steps_left, 1 + (self.support.n_sv >> 10))
                row = self.order[p]
                v = self.data.rows[row]
                y = self.signs[row]
                r = self.data.vranks + self.data.vptr[v]
                n = <int>(self.data.vptr[v + 1] - self.data.vptr[v])
                step += 1
                ended = self.margins.margin(v, r, n, y, &m)
                delta = 0.0
                if not ended:
                    delta = self._change(y, m, n)
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
            long_input_starts(self.data.n_rows)
            self._train()
            long_input_ends(self.data.n_rows)

    def coefficients(self) -> np.ndarray:
        """Coefficient of every vector (0 for those never updated): the averaged alpha when
        average is set, else the final alpha."""
        return self.support.coefficients(self.data.n_vectors, self.n_steps)

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
        return self.table.entries() if self.table is not None else 0

    def stats(self) -> dict:
        """Counters of the run (JSON-ready)."""
        cdef bint has_table = self.table is not None
        result = {
            "strategy": STRATEGIES[self.strategy],
            "steps": int(self.n_steps),
            "updates": int(self.n_updates),
            "n_support_vectors": int(self.support.n_sv),
            "n_common_initial": int(self.initial_common),
            "n_common": int(self.table.n_common) if has_table else 0,
            "n_dense": int(self.table.n_dense) if has_table else 0,
            "halvings": int(self.n_halvings),
            "table_entries": self.table_entries(),
            "table_bytes": int(self.table.size_bytes()) if has_table else 0,
            "peak_table_bytes": int(self.peak_table_bytes) if has_table else 0,
            "inverted_index_bytes": self.index.size_bytes(),
        }
        result.update(self.margins.stats())
        return result
