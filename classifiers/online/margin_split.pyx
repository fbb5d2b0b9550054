# cython: language_level=3
"""The `split` and `expand` margin strategies of kernel slicing
(classifiers/online/kernel_slicing.pyx).

Kernel splitting (Yoshinaga & Kitsuregawa 2010, section 3.1): the conjunctions of the N most
frequent features F_C are held in the conjunction table (classifiers/online/conjunction_table.pyx),
which gives the slices of x's common features; the rest of the margin,

    sum_{s sharing a rare feature with x} alpha_s k'_d(s, x),
    k'_d(s, x) = K(|s_C & x_C| + |s_R & x_R|) - K(|s_C & x_C|),

comes from an inverted index over the rare features, |s_C & x_C| by popcounts of bitsets of the
common ranks when N <= 64 x MAX_COMMON_BIT_WORDS (a few popcounts on one cache line), by a scan
of s's ranks otherwise. `expand` is the full expansion, N = |F| (section 3.1), with no rare part
until the table's cap halves N.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from polyparse.classifiers.online.compiler_builtins cimport popcount, prefetch

# The rare part counts |s_C & x_C| on bitsets of the common ranks when N is at most 64 x this
# many words, by a scan of s's ranks otherwise.
cdef enum:
    MAX_COMMON_BIT_WORDS = 4


cdef class SplitMargin(MarginStrategy):
    """Kernel splitting over the table's N common ranks and an index of the others."""

    def __dealloc__(self):
        free(self.counts)
        free(self.touched)
        free(self.marks)
        free(self.common_bits)
        free(self.x_bits)
        free(self.x_words)

    def __init__(self, data, support, index, ConjunctionTable table):
        MarginStrategy.__init__(self, data, support, index)
        cdef int64_t n_vectors = max(self.data.n_vectors, 1)
        self.table = table
        self.counts = <int32_t*>calloc(n_vectors, sizeof(int32_t))
        self.touched = <int32_t*>malloc(n_vectors * sizeof(int32_t))
        self.marks = <uint8_t*>calloc(max(self.data.n_ranked, 1), sizeof(uint8_t))
        if self.counts == NULL or self.touched == NULL or self.marks == NULL:
            raise MemoryError()
        self._build_common_bits()

    cdef bint margin(self, int32_t v, const int32_t* r, int n, int y,
                     double* out) noexcept nogil:
        cdef int j, nc = self.table.common_length(r, n)
        cdef double part = 0.0
        for j in range(nc):
            part += self.table.slice(r, j)
        if nc < n:
            part = self._add_rare_part(r, nc, n, part)
        out[0] = self.support.K[0] * self.support.sum_alpha + part
        return False

    cdef double _add_rare_part(self, const int32_t* r, int nc, int n, double part) noexcept nogil:
        # part + sum_s alpha_s k'_d(s, x) over the vectors s sharing one of the rare ranks
        # r[nc..n) with x (r[0..nc) are x's common ranks).
        cdef int j, nw = 0, i
        cdef int32_t s, q, m, cnt, cc, word
        cdef int64_t p, end
        cdef const int32_t* vranks = self.data.vranks
        cdef const int64_t* vptr = self.data.vptr
        cdef int32_t* counts = self.counts
        cdef int32_t* touched = self.touched
        cdef uint8_t* marks = self.marks
        cdef int32_t n_common = self.table.n_common, words = self.bit_words
        cdef const uint64_t* bits
        cdef uint64_t* x_bits = self.x_bits
        cdef int32_t* x_words = self.x_words
        cdef const double* alpha = self.support.alpha
        cdef const double* K = self.support.K
        for j in range(nc):
            if words:
                word = r[j] >> 6
                if x_bits[word] == 0:
                    x_words[nw] = word
                    nw += 1
                x_bits[word] |= (<uint64_t>1) << (r[j] & 63)
            else:
                marks[r[j]] = 1
        m = self.index.count_shared(r, nc, n, counts, touched)
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
            part += alpha[s] * (K[cc + cnt] - K[cc])
        for i in range(nw):
            x_bits[x_words[i]] = 0
        for j in range(nc):
            marks[r[j]] = 0
        return part

    cdef int joined(self, int32_t v) except -1 nogil:
        if self.bit_words:
            self._fill_common_bits(v)
        return 0

    cdef int common_ranks_changed(self) except -1:
        self._build_common_bits()
        return 0

    cdef int _build_common_bits(self) except -1:
        # The bitsets of the common ranks of every support vector; none when N is 0 or needs
        # more than MAX_COMMON_BIT_WORDS words.
        cdef int64_t i, n_vectors = max(self.data.n_vectors, 1)
        cdef int32_t words = (self.table.n_common + 63) // 64
        free(self.common_bits)
        free(self.x_bits)
        free(self.x_words)
        self.common_bits = self.x_bits = NULL
        self.x_words = NULL
        self.bit_words = 0
        if words == 0 or words > MAX_COMMON_BIT_WORDS:
            return 0
        self.common_bits = <uint64_t*>calloc(n_vectors * words, sizeof(uint64_t))
        self.x_bits = <uint64_t*>calloc(words, sizeof(uint64_t))
        self.x_words = <int32_t*>malloc(words * sizeof(int32_t))
        if self.common_bits == NULL or self.x_bits == NULL or self.x_words == NULL:
            raise MemoryError()
        self.bit_words = words
        for i in range(self.support.n_sv):
            self._fill_common_bits(self.support.sv_order[i])
        return 0

    cdef void _fill_common_bits(self, int32_t v) noexcept nogil:
        # Set the bits of v's ranks below N (its ranks are sorted).
        cdef uint64_t* bits = self.common_bits + <int64_t>v * self.bit_words
        cdef int64_t p
        cdef int32_t f
        for p in range(self.data.vptr[v], self.data.vptr[v + 1]):
            f = self.data.vranks[p]
            if f >= self.table.n_common:
                break
            bits[f >> 6] |= (<uint64_t>1) << (f & 63)
