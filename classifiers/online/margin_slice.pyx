# cython: language_level=3
"""The `slice` margin strategy of kernel slicing (classifiers/online/kernel_slicing.pyx).

Kernel slicing (Yoshinaga & Kitsuregawa 2010, section 3.2, Algorithm 2): each slice (*) of the
learner's notes is cached per prefix x_j (a static prefix tree of the training vectors numbers
them, classifiers/online/slicing_data.pyx) with the time stamp t'_f, the number of updates
touching f = f_j so far. When x_j comes again at time t_f, its slice is reused as it is when
t_f = t'_f, or brought up to date by Eq. 6,

    slice_t(x_j) = slice_t'(x_j) + sum_{updates (s, delta) touching f after t'}
                                   delta [K(|s & x_{j-1}| + 1) - K(|s & x_{j-1}|)],

when Eq. 7 holds, i.e. when applying those updates (a scan of s each) is cheaper than
recomputing: for a common feature at position j at most floor(sum_{m<d} binom(j, m) / (j+1))
updates (the table lookups of the slice over the length of a scan), for a rare feature at most
the number of support vectors holding it. Otherwise the slice is recomputed, from the table for a
common feature, from the inverted index for a rare one. Before each slice, the margin
computation ends early (Eqs. 8-9) when the hinge loss is already certain to be zero: with P_f
and N_f the sums of the positive and negative updates of the support vectors holding f and
c_j <= min(j, longest support vector - 1),

    N_f dK(c_j) + P_f dK(0) <= slice_j <= P_f dK(c_j) + N_f dK(0),   dK(c) = K(c+1) - K(c),

and the margin lies in [m(x_{j-1}) + sum_{k >= j} lower_k, m(x_{j-1}) + sum_{k >= j} upper_k];
the example is passed over when the lower end of y m(x) exceeds the update threshold (1 for PA,
0 for the perceptron) by more than a relative TERMINATION_TOLERANCE, so rounding never changes a
decision.
"""
from libc.math cimport fabs
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc

from math import comb

from polyparse.classifiers.online.compiler_builtins cimport prefetch

# Early termination keeps this relative distance from the update threshold.
TERMINATION_TOLERANCE = 1e-9
cdef double TOLERANCE = TERMINATION_TOLERANCE


cdef class SliceMargin(MarginStrategy):
    """Kernel slicing over the table's N common ranks and an index of the others; theta is the
    update threshold that early termination compares with."""

    def __dealloc__(self):
        free(self.limit_common)
        free(self.marks)
        free(self.prefix)
        free(self.rank_state)
        free(self.ring)
        free(self.gather_start)
        free(self.gather_coef)
        free(self.lo)
        free(self.hi)

    def __init__(self, data, support, index, ConjunctionTable table, int degree, double theta,
                 bint early_termination):
        MarginStrategy.__init__(self, data, support, index)
        cdef int64_t n_vectors = max(self.data.n_vectors, 1), c
        cdef int64_t n_ranked = max(self.data.n_ranked, 1)
        cdef int32_t length = self.data.max_length, j
        cdef double total
        self.table = table
        self.theta = theta
        self.early_termination = early_termination
        self.limit_common = <int32_t*>calloc(length + 1, sizeof(int32_t))
        self.marks = <uint8_t*>calloc(n_ranked, sizeof(uint8_t))
        if self.limit_common == NULL or self.marks == NULL:
            raise MemoryError()
        for j in range(length + 1):
            total = 0.0
            for c in range(degree):
                total += comb(j, c)
            self.limit_common[j] = <int32_t>(total // (j + 1))
        self.data.build_prefix_nodes()
        self.prefix = <PrefixNode*>calloc(max(self.data.n_nodes, 1), sizeof(PrefixNode))
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
        for c in range(self.data.n_nodes):
            self.prefix[c].t = -1
        self._allocate_rings()

    cdef int _allocate_rings(self) except -1:
        # Rings of the latest updates touching each rank: room for as many as Eq. 7 may apply
        # (the time stamps and sums of updates stay).
        cdef RankState* state
        cdef int32_t f, j, common_ring_cap = 1
        cdef int64_t total = 0
        for j in range(min(self.table.n_common, self.data.max_length + 1)):
            if self.limit_common[j] > common_ring_cap:
                common_ring_cap = self.limit_common[j]
        for f in range(self.data.n_ranked):
            state = &self.rank_state[f]
            state.ring_start = total
            state.ring_cap = common_ring_cap if f < self.table.n_common else self.data.df[f]
            state.ring_pos = 0
            state.ring_count = 0
            total += state.ring_cap
        free(self.ring)
        self.ring = <RingEntry*>malloc(max(total, 1) * sizeof(RingEntry))
        if self.ring == NULL:
            raise MemoryError()
        self.ring_size = total
        return 0

    cdef double _gathered_sum(self, int32_t n, int32_t f) noexcept nogil:
        # sum_i gather_coef[i] dK(|s_i & x_{j-1}|) over the vectors s_i whose ranks start at
        # gather_start[i] (each holds f): |s_i & x_{j-1}| counts the marked ranks below f. The
        # starts were gathered (and prefetched) first, so the scans' cache misses overlap.
        cdef const int32_t* vranks = self.data.vranks
        cdef const uint8_t* marks = self.marks
        cdef const double* dK = self.support.dK
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

    cdef bint margin(self, int32_t v, const int32_t* r, int n, int y,
                     double* out) noexcept nogil:
        # Kernel slicing (Algorithm 2); True when ended early (the loss is surely zero).
        cdef int j, i
        cdef int32_t f, node, tf, nt, nusv, limit, cap, q, u, cm
        cdef RankState* state
        cdef PrefixNode* entry
        cdef RingEntry* ring
        cdef uint8_t* marks = self.marks
        cdef const int32_t* nodes = self.data.nodes + self.data.vptr[v]
        cdef const int32_t* post_len = self.index.post_len
        cdef int32_t** post = self.index.post
        cdef const double* alpha = self.support.alpha
        cdef int32_t n_common = self.table.n_common, longest = self.support.max_sv_length
        cdef double m = self.support.K[0] * self.support.sum_alpha, sl, bound
        cdef double acc_lo = 0.0, acc_hi = 0.0
        cdef double* lo = self.lo
        cdef double* hi = self.hi
        cdef const double* dK = self.support.dK
        cdef const int32_t* postings
        cdef bint prune = self.early_termination and self.support.n_sv > 0
        self.slices_total += n
        if prune:
            j = n - 1
            while j >= 0:
                f = r[j]
                cm = j if j < longest - 1 else longest - 1
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
                limit = self.limit_common[j] if f < n_common else post_len[f]
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
                elif f < n_common:
                    sl = self.table.slice(r, j)
                    self.slices_from_table += 1
                else:
                    postings = post[f]
                    for i in range(post_len[f]):
                        u = postings[i]
                        self.gather_start[i] = self.data.vptr[u]
                        self.gather_coef[i] = alpha[u]
                        prefetch(self.data.vranks + self.data.vptr[u])
                    sl = self._gathered_sum(post_len[f], f)
                    self.slices_from_index += 1
                entry.slice = sl
                entry.t = tf
            m += sl
            marks[f] = 1
        for j in range(n):
            marks[r[j]] = 0
        out[0] = m
        return False

    cdef int updated(self, int32_t v, const int32_t* r, int n, double delta) except -1 nogil:
        # The update joins the ring of every rank of v; time stamps and Eqs. 8-9's sums move on.
        cdef int j
        cdef int64_t start = self.data.vptr[v]
        cdef RankState* state
        cdef RingEntry* entry
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
        return 0

    cdef int common_ranks_changed(self) except -1:
        self._allocate_rings()
        return 0

    def stats(self) -> dict:
        """Counters of the partial margins (JSON-ready)."""
        return {
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
            "ring_bytes": int(sizeof(RingEntry) * self.ring_size
                              + sizeof(RankState) * self.data.n_ranked),
        }
