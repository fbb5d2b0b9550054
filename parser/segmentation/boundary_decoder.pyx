# cython: language_level=3
"""The segmenter's decisions in Cython: greedy left to right over a text's units (tokens), then
over its tokens (sentences), each decision a linear classifier's sign (w . x + b > 0: a token
or a sentence ends there; for a gap: the gap separates two tokens); and the training rows of the
same decisions with the treebank's tokens and sentences on the left (teacher forcing, as
parser/tagging/tag_decoder.pyx trains the tagger).

Tokens: in each region (parser/segmentation/text_units.pyx) the token so far starts at the
region's first unit; before each character unit that follows a character, the inner classifier
decides whether a token ends; at each gap, the gap classifier decides whether the gap separates
tokens (a model without one: always). Sentences: in each region, after each token but the last
the sentence classifier decides whether the sentence ends; the region's last token ends one.
"""
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.features.key_index cimport mix64
from polyparse.parser.segmentation.boundary_templates cimport (
    MAX_KEYS,
    N_GAP_KEYS,
    N_INNER_KEYS,
    N_SENTENCE_KEYS,
    Ngrams,
    TokenSpans,
    TokenTable,
    gap_keys,
    inner_keys,
    ngrams_alloc,
    ngrams_fill,
    ngrams_free,
    sentence_keys,
)
from polyparse.parser.segmentation.text_units cimport CHAR, GAP, TextUnits, Units


cdef struct WeightSlot:
    uint64_t key
    double weight


cdef uint64_t EMPTY = 0xFFFFFFFFFFFFFFFF


cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil


cdef class LinearWeights:
    """A linear classifier as explicit weights: key -> weight (float32), and a bias; the score
    of a row of keys is the bias plus the weights of the keys it knows (summed in float64).

    The weights live in an open-addressing table of (key, weight) slots (linear probing from
    mix64 of the key, at most half full), so that a key costs one cache line, not the three of
    a KeyIndex and a weight array."""

    cdef readonly object keys, weights
    cdef readonly double bias
    cdef WeightSlot* slots
    cdef uint64_t mask

    def __cinit__(self):
        self.slots = NULL

    def __init__(self, keys, weights, double bias):
        self.keys = np.ascontiguousarray(keys, dtype=np.uint64)
        self.weights = np.ascontiguousarray(weights, dtype=np.float32)
        if self.keys.ndim != 1 or self.weights.shape != self.keys.shape:
            raise ValueError("keys and weights need one entry each per feature")
        cdef const uint64_t[::1] k = self.keys
        cdef const float[::1] w = self.weights
        cdef Py_ssize_t n = k.shape[0], j
        cdef uint64_t size = 16, i
        while size < <uint64_t>(2 * n):
            size <<= 1
        self.slots = <WeightSlot*>malloc(size * sizeof(WeightSlot))
        if self.slots == NULL:
            raise MemoryError()
        self.mask = size - 1
        for i in range(size):
            self.slots[i].key = EMPTY
            self.slots[i].weight = 0.0
        for j in range(n):
            if k[j] == EMPTY:
                raise ValueError(f"key {k[j]} is reserved")
            i = mix64(k[j]) & self.mask
            while self.slots[i].key != EMPTY:
                if self.slots[i].key == k[j]:
                    raise ValueError(f"duplicate key {k[j]} at position {j}")
                i = (i + 1) & self.mask
            self.slots[i].key = k[j]
            self.slots[i].weight = w[j]
        self.bias = bias

    def __dealloc__(self):
        free(self.slots)

    cdef inline double score(self, const uint64_t* keys, int n) noexcept nogil:
        cdef double total = self.bias
        cdef int done = 0
        while done < n:
            total = self._add(total, keys + done, n - done if n - done < MAX_KEYS else MAX_KEYS)
            done += MAX_KEYS
        return total

    cdef inline double _add(self, double total, const uint64_t* keys, int n) noexcept nogil:
        # total plus the weights of at most MAX_KEYS keys, in their order: their slots are
        # fetched at once, then read.
        cdef int k
        cdef uint64_t i, key
        cdef const WeightSlot* slots = self.slots
        cdef uint64_t start[MAX_KEYS]
        for k in range(n):
            start[k] = mix64(keys[k]) & self.mask
            __builtin_prefetch(&slots[start[k]])
        for k in range(n):
            key = keys[k]
            i = start[k]
            while slots[i].key != EMPTY:
                if slots[i].key == key:
                    total += slots[i].weight
                    break
                i = (i + 1) & self.mask
        return total

    def scores(self, keys) -> np.ndarray:
        """Scores of rows of keys (rows, width)."""
        cdef const uint64_t[:, ::1] rows = np.ascontiguousarray(keys, dtype=np.uint64)
        out = np.empty(rows.shape[0], dtype=np.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t r
        with nogil:
            for r in range(rows.shape[0]):
                o[r] = self.score(&rows[r, 0], <int>rows.shape[1]) if rows.shape[1] else self.bias
        return out


def _regions(regions) -> np.ndarray:
    found = np.ascontiguousarray(regions, dtype=np.int64).reshape(-1, 2)
    if found.size and np.any(found[:, 1] < found[:, 0]):
        raise ValueError("every region needs first <= last")
    return found


cdef Py_ssize_t _longest(const int64_t[:, ::1] r) noexcept:
    cdef Py_ssize_t k, longest = 0
    for k in range(r.shape[0]):
        longest = max(longest, r[k, 1] - r[k, 0] + 1)
    return longest


cdef inline void end_token(int64_t* first, int64_t* last, Py_ssize_t* m, Py_ssize_t ts,
                           Py_ssize_t end) noexcept nogil:
    first[m[0]] = ts
    last[m[0]] = end
    m[0] += 1


cdef struct Classifiers:
    # decode_tokens' decisions: the signs of the inner and the gap classifier (LinearWeights;
    # gap NULL: every gap separates tokens); keys holds the row being scored.
    PyObject* inner
    PyObject* gap
    uint64_t keys[MAX_KEYS]


cdef struct GoldRows:
    # token_training_rows' decisions: the gold labels (one per unit; without with_gaps every gap
    # separates tokens), each decision's row written as it is met: inner keys (N_INNER_KEYS a
    # row) and labels, gap keys (N_GAP_KEYS a row) and labels, and the rows written so far.
    const uint8_t* gold
    bint with_gaps
    uint64_t* inner_keys
    int32_t* inner_labels
    uint64_t* gap_keys
    int32_t* gap_labels
    Py_ssize_t n_inner
    Py_ssize_t n_gap


# The token walk is compiled once for each (a template): decoding pays nothing for training.
ctypedef fused TokenDecisions:
    Classifiers
    GoldRows


cdef inline bint token_ends(const Units* u, const Ngrams* g, Py_ssize_t i, Py_ssize_t ts,
                            TokenDecisions* d) noexcept nogil:
    # Whether a token ends before character unit i (which follows a character).
    cdef int nk
    if TokenDecisions is GoldRows:
        inner_keys(u, g, i, ts, d.inner_keys + d.n_inner * N_INNER_KEYS)
        d.inner_labels[d.n_inner] = d.gold[i]
        d.n_inner += 1
        return d.gold[i] != 0
    else:
        nk = inner_keys(u, g, i, ts, d.keys)
        return (<LinearWeights>d.inner).score(d.keys, nk) > 0


cdef inline bint gap_separates(const Units* u, const Ngrams* g, Py_ssize_t i, Py_ssize_t ts,
                               Py_ssize_t chunks, TokenDecisions* d) noexcept nogil:
    # Whether gap unit i separates tokens.
    cdef int nk
    if TokenDecisions is GoldRows:
        if not d.with_gaps:
            return True
        gap_keys(u, g, i, ts, chunks, d.gap_keys + d.n_gap * N_GAP_KEYS)
        d.gap_labels[d.n_gap] = d.gold[i]
        d.n_gap += 1
        return d.gold[i] != 0
    else:
        if d.gap == NULL:
            return True
        nk = gap_keys(u, g, i, ts, chunks, d.keys)
        return (<LinearWeights>d.gap).score(d.keys, nk) > 0


cdef Py_ssize_t walk_tokens(const Units* u, const int64_t* r, Py_ssize_t n_regions, Ngrams* g,
                            TokenDecisions* d, int64_t* first, int64_t* last,
                            int64_t* offsets) noexcept nogil:
    # The tokens of regions r[2k] .. r[2k + 1], left to right (module docstring): each token's
    # first and last unit into first and last (their number returned), the number of tokens
    # before region k + 1 into offsets[k + 1]. Each decision is token_ends' or gap_separates'.
    cdef Py_ssize_t k, i, lo, hi, ts, chunks, m = 0
    for k in range(n_regions):
        lo = r[2 * k]
        hi = r[2 * k + 1]
        ngrams_fill(g, u, lo, hi)
        ts = lo
        chunks = 1
        for i in range(lo + 1, hi + 1):
            if u.kind[i] == CHAR:
                if u.kind[i - 1] == CHAR and token_ends(u, g, i, ts, d):
                    end_token(first, last, &m, ts, i - 1)
                    ts = i
                    chunks = 1
            elif gap_separates(u, g, i, ts, chunks, d):
                end_token(first, last, &m, ts, i - 1)
                ts = i + 1
                chunks = 1
            else:
                chunks += 1
        end_token(first, last, &m, ts, hi)
        offsets[k + 1] = m
    return m


cdef tuple _tokens(TextUnits units, const int64_t[:, ::1] r, TokenDecisions* d):
    # walk_tokens over the checked regions r: (first, last, offsets) as decode_tokens gives them.
    cdef Py_ssize_t n = len(units), m
    first_out = np.empty(n + 1, dtype=np.int64)
    last_out = np.empty(n + 1, dtype=np.int64)
    offsets_out = np.zeros(r.shape[0] + 1, dtype=np.int64)
    cdef int64_t[::1] first = first_out
    cdef int64_t[::1] last = last_out
    cdef int64_t[::1] offsets = offsets_out
    cdef const int64_t* regions = &r[0, 0] if r.shape[0] else NULL
    cdef Ngrams g
    ngrams_alloc(&g, _longest(r))
    with nogil:
        m = walk_tokens(&units.units, regions, r.shape[0], &g, d, &first[0], &last[0],
                        &offsets[0])
    ngrams_free(&g)
    return first_out[:m], last_out[:m], offsets_out


def _unit_regions(regions, Py_ssize_t n) -> np.ndarray:
    found = _regions(regions)
    if found.shape[0] and (found[0, 0] < 0 or found[found.shape[0] - 1, 1] >= n):
        raise ValueError("regions lie outside the text's units")
    return found


def decode_tokens(TextUnits units, regions, LinearWeights inner, LinearWeights gap=None):
    """(first, last, offsets): the first and last unit of every token, and where each region's
    tokens start (one entry more than regions). gap None: every gap separates tokens."""
    cdef const int64_t[:, ::1] r = _unit_regions(regions, len(units))
    cdef Classifiers d
    d.inner = <PyObject*>inner
    d.gap = <PyObject*>gap if gap is not None else NULL
    return _tokens(units, r, &d)


def decode_sentences(TextUnits units, TokenTable tokens, offsets,
                     LinearWeights sentence) -> np.ndarray:
    """1 for each token that ends a sentence: offsets[k] .. offsets[k + 1] - 1 are the tokens
    of region k, whose last token ends one."""
    cdef const int64_t[::1] o = _offsets(offsets, len(tokens))
    ends_out = np.zeros(len(tokens), dtype=np.uint8)
    if not len(tokens):
        return ends_out
    cdef uint8_t[::1] ends = ends_out
    cdef const Units* u = &units.units
    cdef const TokenSpans* s = &tokens.spans
    cdef uint64_t keys[MAX_KEYS]
    cdef Py_ssize_t k, t, r0, r1, st
    cdef int nk
    with nogil:
        for k in range(o.shape[0] - 1):
            r0 = o[k]
            r1 = o[k + 1] - 1
            if r1 < r0:
                continue
            st = r0
            for t in range(r0, r1):
                nk = sentence_keys(u, s, t, st, r0, r1, keys)
                if sentence.score(keys, nk) > 0:
                    ends[t] = 1
                    st = t + 1
            ends[r1] = 1
    return ends_out


def _offsets(offsets, Py_ssize_t n_tokens) -> np.ndarray:
    found = np.ascontiguousarray(offsets, dtype=np.int64)
    if found.ndim != 1 or found.size < 1 or found[0] != 0 or found[found.size - 1] != n_tokens \
            or np.any(np.diff(found) < 0):
        raise ValueError("offsets must run from 0 to the number of tokens")
    return found


def token_training_rows(TextUnits units, regions, gold, bint with_gaps):
    """The rows of the token decisions with the gold tokens on the left: (inner keys, inner
    labels, gap keys, gap labels, first, last, offsets). gold[i] is 1 when a token starts at
    character unit i, or when gap unit i separates tokens; the last three are the gold tokens
    as decode_tokens gives tokens."""
    cdef const uint8_t[::1] labels = np.ascontiguousarray(gold, dtype=np.uint8)
    cdef Py_ssize_t n = len(units)
    if labels.shape[0] < n:
        raise ValueError("gold needs one entry per unit")
    cdef const int64_t[:, ::1] r = _unit_regions(regions, n)
    cdef const Units* u = &units.units
    cdef Py_ssize_t k, i, n_inner = 0, n_gap = 0
    for k in range(r.shape[0]):
        for i in range(r[k, 0] + 1, r[k, 1] + 1):
            if u.kind[i] == CHAR:
                n_inner += u.kind[i - 1] == CHAR
            else:
                n_gap += 1
    if not with_gaps:
        n_gap = 0
    inner_out = np.zeros((n_inner, N_INNER_KEYS), dtype=np.uint64)
    inner_labels_out = np.zeros(n_inner, dtype=np.int32)
    gap_out = np.zeros((n_gap, N_GAP_KEYS), dtype=np.uint64)
    gap_labels_out = np.zeros(n_gap, dtype=np.int32)
    cdef GoldRows d
    d.gold = &labels[0] if n else NULL
    d.with_gaps = with_gaps
    d.inner_keys = <uint64_t*><size_t>inner_out.ctypes.data
    d.inner_labels = <int32_t*><size_t>inner_labels_out.ctypes.data
    d.gap_keys = <uint64_t*><size_t>gap_out.ctypes.data
    d.gap_labels = <int32_t*><size_t>gap_labels_out.ctypes.data
    d.n_inner = d.n_gap = 0
    first, last, offsets = _tokens(units, r, &d)
    return inner_out, inner_labels_out, gap_out, gap_labels_out, first, last, offsets


def sentence_training_rows(TextUnits units, TokenTable tokens, offsets, gold):
    """The rows of the sentence decisions with the gold sentences on the left: (keys, labels);
    gold[t] is 1 when token t ends a sentence."""
    cdef const int64_t[::1] o = _offsets(offsets, len(tokens))
    cdef const uint8_t[::1] g = np.ascontiguousarray(gold, dtype=np.uint8)
    if g.shape[0] != len(tokens):
        raise ValueError("gold needs one entry per token")
    cdef Py_ssize_t k, t, r0, r1, st, rows = 0, a = 0
    for k in range(o.shape[0] - 1):
        if o[k + 1] > o[k]:
            rows += o[k + 1] - o[k] - 1
    keys_out = np.zeros((rows, N_SENTENCE_KEYS), dtype=np.uint64)
    labels_out = np.zeros(rows, dtype=np.int32)
    cdef uint64_t[:, ::1] keys = keys_out
    cdef int32_t[::1] labels = labels_out
    cdef const Units* u = &units.units
    cdef const TokenSpans* s = &tokens.spans
    with nogil:
        for k in range(o.shape[0] - 1):
            r0 = o[k]
            r1 = o[k + 1] - 1
            st = r0
            for t in range(r0, r1):
                sentence_keys(u, s, t, st, r0, r1, &keys[a, 0])
                labels[a] = g[t]
                a += 1
                if g[t]:
                    st = t + 1
    return keys_out, labels_out
