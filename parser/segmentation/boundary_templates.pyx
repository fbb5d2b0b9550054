# cython: language_level=3
"""Feature templates of the segmenter's decisions as keys: key = template << 56 | hash >> 8.

Three decisions, each a linear classifier of its own (parser/segmentation/model.py):

- inner: does a token end between two characters? The features are those of pointwise word
  segmentation (Neubig, Nakata & Mori 2011, KyTea; after Sassano 2002 and Kudo's character
  n-grams): the values and the classes of the three units on either side of the boundary as
  unigrams, bigrams and trigrams (30 keys); then, as UDPipe 1's tokenizer reads them (Straka,
  Hajič & Straková 2016), the token so far (its values while it is at most 8 units long), the
  token so far with the next value, the rest of the chunk (the characters up to the next gap),
  the length of the token so far with the classes around the boundary, and the chunk itself
  with the boundary's offset in it (a chunk of at most 16 units: the treebank's tokenization of
  the strings it has seen).
- gap: is a gap inside a token (Vietnamese `Hà Nội`)? Asked only of models whose treebank has
  tokens holding whitespace. The same window (units on either side of the gap), the chunks
  around the gap (two either side) as unigrams, bigrams and trigrams, the token so far (up to 24
  units), with the next chunk, and the number of its chunks with the classes around the gap.
- sentence: does a sentence end after token t? The tokens around the boundary (t-1, t, t+1,
  t+2) and their pairs, the last value of token t and the first of t+1 with their classes, the
  shapes of t and t+1, token t's last two and three values, t+1's first three, whether a gap
  follows t, the length of t, and the number of tokens of the sentence so far (bucketed): the
  features of Gillick (2009) and Punkt (Kiss & Strunk 2006), without a list of candidates, so
  that a sentence may end anywhere (text without punctuation, text without spaces).

A window never looks past its region's ends (lo..hi: units, r0..r1: tokens), where it reads
EDGE_VALUE and EDGE_CLASS, so that a text gives the same decisions whether its paragraphs are
segmented together or one by one.
"""
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.parser.segmentation.text_units cimport (
    CHAR,
    EDGE_CLASS,
    EDGE_VALUE,
    GAP,
    SEED,
    TextUnits,
    Units,
    combine,
    hash_values,
)

# The first template id of each decision (keys of the three never meet); the longest token so
# far (in units) whose values an inner / a gap decision reads; the longest chunk rest, and
# chunk, whose values an inner decision reads; the most runs of one class a shape holds.
cdef enum:
    INNER_BASE = 0
    GAP_BASE = 64
    SENTENCE_BASE = 128
    MAX_INNER_TOKEN = 8
    MAX_GAP_TOKEN = 24
    MAX_CHUNK_REST = 8
    MAX_CHUNK = 16
    MAX_SHAPE_RUNS = 4

TEMPLATE_BASES = {"inner": INNER_BASE, "gap": GAP_BASE, "sentence": SENTENCE_BASE}
LIMITS = {"inner_token": MAX_INNER_TOKEN, "gap_token": MAX_GAP_TOKEN,
          "chunk_rest": MAX_CHUNK_REST, "chunk": MAX_CHUNK, "shape_runs": MAX_SHAPE_RUNS}
INNER_KEYS = N_INNER_KEYS
GAP_KEYS = N_GAP_KEYS
SENTENCE_KEYS = N_SENTENCE_KEYS


cdef inline uint64_t make_key(int template, uint64_t h) noexcept nogil:
    return (<uint64_t>template << 56) | (h >> 8)


cdef inline uint64_t one(uint64_t a) noexcept nogil:
    return combine(SEED, a)


cdef inline uint64_t two(uint64_t a, uint64_t b) noexcept nogil:
    return combine(combine(SEED, a), b)


cdef inline uint64_t three(uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    return combine(combine(combine(SEED, a), b), c)


cdef inline uint64_t long_marker() noexcept nogil:
    # What a token, chunk or rest longer than its template reads reads instead of its values.
    return combine(SEED, EDGE_VALUE + 1)


cdef inline uint64_t edge_hash() noexcept nogil:
    return combine(SEED, EDGE_VALUE)


cdef int ngrams_alloc(Ngrams* g, Py_ssize_t longest) except -1 nogil:
    """Room for the n-grams of regions of up to `longest` units."""
    cdef Py_ssize_t size = longest + 7
    cdef uint64_t* block = <uint64_t*>malloc(6 * size * sizeof(uint64_t))
    if block == NULL:
        with gil:
            raise MemoryError()
    g.uni_v = block
    g.bi_v = block + size
    g.tri_v = block + 2 * size
    g.uni_c = block + 3 * size
    g.bi_c = block + 4 * size
    g.tri_c = block + 5 * size
    return 0


cdef void ngrams_free(Ngrams* g) noexcept nogil:
    free(g.uni_v)
    g.uni_v = NULL


cdef inline uint64_t value_at(const Units* u, Py_ssize_t p, Py_ssize_t lo,
                              Py_ssize_t hi) noexcept nogil:
    return u.value[p] if lo <= p <= hi else EDGE_VALUE


cdef inline uint64_t class_at(const Units* u, Py_ssize_t p, Py_ssize_t lo,
                              Py_ssize_t hi) noexcept nogil:
    return u.klass[p] if lo <= p <= hi else EDGE_CLASS


cdef void ngrams_fill(Ngrams* g, const Units* u, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The n-grams of region lo..hi: two(a, b) = combine(one(a), b), three(a, b, c) =
    combine(two(a, b), c), so each position costs three steps for values and three for
    classes."""
    cdef Py_ssize_t k, size = hi - lo + 7
    g.lo = lo
    g.hi = hi
    for k in range(size):
        g.uni_v[k] = one(value_at(u, lo - 3 + k, lo, hi))
        g.uni_c[k] = one(class_at(u, lo - 3 + k, lo, hi))
    for k in range(size - 1):
        g.bi_v[k] = combine(g.uni_v[k], value_at(u, lo - 2 + k, lo, hi))
        g.bi_c[k] = combine(g.uni_c[k], class_at(u, lo - 2 + k, lo, hi))
    for k in range(size - 2):
        g.tri_v[k] = combine(g.bi_v[k], value_at(u, lo - 1 + k, lo, hi))
        g.tri_c[k] = combine(g.bi_c[k], class_at(u, lo - 1 + k, lo, hi))


cdef int inner_window(const Ngrams* g, Py_ssize_t k0, int base, const uint64_t* uni,
                      const uint64_t* bi, const uint64_t* tri, uint64_t* out) noexcept nogil:
    """Six unigrams, five bigrams and four trigrams from entry k0 on: 15 keys."""
    cdef int j
    for j in range(6):
        out[j] = make_key(base + j, uni[k0 + j])
    for j in range(5):
        out[6 + j] = make_key(base + 6 + j, bi[k0 + j])
    for j in range(4):
        out[11 + j] = make_key(base + 11 + j, tri[k0 + j])
    return 15


cdef int gap_window(const Ngrams* g, Py_ssize_t k0, int base, const uint64_t* uni,
                    const uint64_t* bi, const uint64_t* tri, uint64_t after,
                    uint64_t after2, uint64_t* out) noexcept nogil:
    """The n-grams of the units around a gap (entry k0 + 3), the gap left out; after and
    after2 are the value (or class) of the two units after it: 15 keys."""
    cdef uint64_t left = uni[k0 + 2]
    out[0] = make_key(base + 0, uni[k0])
    out[1] = make_key(base + 1, uni[k0 + 1])
    out[2] = make_key(base + 2, left)
    out[3] = make_key(base + 3, uni[k0 + 4])
    out[4] = make_key(base + 4, uni[k0 + 5])
    out[5] = make_key(base + 5, uni[k0 + 6])
    out[6] = make_key(base + 6, bi[k0])
    out[7] = make_key(base + 7, bi[k0 + 1])
    out[8] = make_key(base + 8, combine(left, after))
    out[9] = make_key(base + 9, bi[k0 + 4])
    out[10] = make_key(base + 10, bi[k0 + 5])
    out[11] = make_key(base + 11, tri[k0])
    out[12] = make_key(base + 12, combine(bi[k0 + 1], after))
    out[13] = make_key(base + 13, combine(combine(left, after), after2))
    out[14] = make_key(base + 14, tri[k0 + 4])
    return 15


cdef int inner_keys(const Units* u, const Ngrams* g, Py_ssize_t i, Py_ssize_t ts,
                    uint64_t* out) noexcept nogil:
    """Keys of the boundary before character unit i (unit i - 1 a character too) of the
    region of g; the token so far starts at unit ts."""
    cdef Py_ssize_t k0 = i - g.lo
    cdef int n = inner_window(g, k0, INNER_BASE, g.uni_v, g.bi_v, g.tri_v, out)
    n += inner_window(g, k0, INNER_BASE + n, g.uni_c, g.bi_c, g.tri_c, out + n)
    cdef uint64_t next_value = u.value[i]
    cdef uint64_t class_before = u.klass[i - 1]
    cdef uint64_t next_class = u.klass[i]
    cdef Py_ssize_t length = i - ts
    cdef uint64_t so_far = (hash_values(u.value, ts, i - 1) if length <= MAX_INNER_TOKEN
                            else long_marker())
    out[n] = make_key(INNER_BASE + n, so_far)
    n += 1
    out[n] = make_key(INNER_BASE + n, combine(so_far, next_value))
    n += 1
    cdef Py_ssize_t chunk_last = u.chunk_last[i]
    cdef Py_ssize_t chunk_first = u.chunk_first[i]
    out[n] = make_key(INNER_BASE + n,
                      hash_values(u.value, i, chunk_last) if chunk_last - i < MAX_CHUNK_REST
                      else long_marker())
    n += 1
    out[n] = make_key(INNER_BASE + n, three(length if length < MAX_INNER_TOKEN
                                            else MAX_INNER_TOKEN, class_before, next_class))
    n += 1
    out[n] = make_key(INNER_BASE + n,
                      combine(u.chunk_hash[i], i - chunk_first)
                      if chunk_last - chunk_first < MAX_CHUNK else long_marker())
    n += 1
    return n


cdef inline uint64_t chunk_before(const Units* u, Py_ssize_t p, Py_ssize_t lo) noexcept nogil:
    # The hash of the chunk before the chunk of character unit p (across one gap), EDGE at lo.
    cdef Py_ssize_t gap = u.chunk_first[p] - 1
    if gap - 1 < lo or u.kind[gap] != GAP:
        return edge_hash()
    return u.chunk_hash[gap - 1]


cdef inline uint64_t chunk_after(const Units* u, Py_ssize_t p, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t gap = u.chunk_last[p] + 1
    if gap + 1 > hi or u.kind[gap] != GAP:
        return edge_hash()
    return u.chunk_hash[gap + 1]


cdef int gap_keys(const Units* u, const Ngrams* g, Py_ssize_t i, Py_ssize_t ts,
                  Py_ssize_t chunks, uint64_t* out) noexcept nogil:
    """Keys of gap unit i (between characters) of the region of g; the token so far starts
    at unit ts and holds this many chunks."""
    cdef Py_ssize_t lo = g.lo, hi = g.hi
    cdef Py_ssize_t k0 = i - lo
    cdef int n = gap_window(g, k0, GAP_BASE, g.uni_v, g.bi_v, g.tri_v, u.value[i + 1],
                            value_at(u, i + 2, lo, hi), out)
    n += gap_window(g, k0, GAP_BASE + n, g.uni_c, g.bi_c, g.tri_c, u.klass[i + 1],
                    class_at(u, i + 2, lo, hi), out + n)
    cdef uint64_t p1 = u.chunk_hash[i - 1]
    cdef uint64_t n1 = u.chunk_hash[i + 1]
    cdef uint64_t p2 = chunk_before(u, i - 1, lo)
    cdef uint64_t n2 = chunk_after(u, i + 1, hi)
    out[n] = make_key(GAP_BASE + n, one(p1))
    out[n + 1] = make_key(GAP_BASE + n + 1, one(n1))
    out[n + 2] = make_key(GAP_BASE + n + 2, two(p1, n1))
    out[n + 3] = make_key(GAP_BASE + n + 3, two(p2, p1))
    out[n + 4] = make_key(GAP_BASE + n + 4, two(n1, n2))
    out[n + 5] = make_key(GAP_BASE + n + 5, three(p2, p1, n1))
    out[n + 6] = make_key(GAP_BASE + n + 6, three(p1, n1, n2))
    n += 7
    cdef Py_ssize_t length = i - ts
    cdef uint64_t so_far = (hash_values(u.value, ts, i - 1) if length <= MAX_GAP_TOKEN
                            else long_marker())
    out[n] = make_key(GAP_BASE + n, so_far)
    out[n + 1] = make_key(GAP_BASE + n + 1, two(so_far, n1))
    out[n + 2] = make_key(GAP_BASE + n + 2, one(p2))
    out[n + 3] = make_key(GAP_BASE + n + 3, one(n2))
    out[n + 4] = make_key(GAP_BASE + n + 4, three(chunks if chunks < 4 else 4,
                                                  u.klass[i - 1], u.klass[i + 1]))
    return n + 5


cdef inline uint64_t bucket(Py_ssize_t n) noexcept nogil:
    # Sentence lengths in tokens: 1, 2, 3, 4, 5-6, 7-9, 10-14, 15-19, 20-29, 30-49, 50 and more.
    if n <= 4:
        return <uint64_t>n
    if n <= 6:
        return 5
    if n <= 9:
        return 7
    if n <= 14:
        return 10
    if n <= 19:
        return 15
    if n <= 29:
        return 20
    if n <= 49:
        return 30
    return 50


cdef int sentence_keys(const Units* u, const TokenSpans* s, Py_ssize_t t, Py_ssize_t st,
                       Py_ssize_t r0, Py_ssize_t r1, uint64_t* out) noexcept nogil:
    """Keys of a sentence end after token t (t < r1); the sentence so far starts at token st;
    the region's tokens are r0..r1."""
    cdef uint64_t w0 = s.whole[t]
    cdef uint64_t w1 = s.whole[t + 1]
    cdef uint64_t before = s.whole[t - 1] if t - 1 >= r0 else edge_hash()
    cdef uint64_t w2 = s.whole[t + 2] if t + 2 <= r1 else edge_hash()
    cdef uint64_t last0 = u.value[s.last[t]]
    cdef uint64_t last_class0 = u.klass[s.last[t]]
    cdef uint64_t first1 = u.value[s.first[t + 1]]
    cdef uint64_t first_class1 = u.klass[s.first[t + 1]]
    cdef uint64_t last_before = u.value[s.last[t - 1]] if t - 1 >= r0 else EDGE_VALUE
    cdef uint64_t first_class2 = u.klass[s.first[t + 2]] if t + 2 <= r1 else EDGE_CLASS
    cdef uint64_t gap = u.kind[s.last[t] + 1] != CHAR
    cdef Py_ssize_t length = s.last[t] - s.first[t] + 1
    cdef uint64_t so_far = bucket(t - st + 1)
    cdef int b = SENTENCE_BASE
    out[0] = make_key(b + 0, one(w0))
    out[1] = make_key(b + 1, one(w1))
    out[2] = make_key(b + 2, one(before))
    out[3] = make_key(b + 3, one(w2))
    out[4] = make_key(b + 4, two(w0, w1))
    out[5] = make_key(b + 5, two(before, w0))
    out[6] = make_key(b + 6, one(last0))
    out[7] = make_key(b + 7, one(first1))
    out[8] = make_key(b + 8, two(last_class0, first_class1))
    out[9] = make_key(b + 9, two(last0, first_class1))
    out[10] = make_key(b + 10, two(last_class0, first1))
    out[11] = make_key(b + 11, one(s.shape[t]))
    out[12] = make_key(b + 12, one(s.shape[t + 1]))
    out[13] = make_key(b + 13, two(s.shape[t], s.shape[t + 1]))
    out[14] = make_key(b + 14, three(gap, last0, first_class1))
    out[15] = make_key(b + 15, one(s.suffix3[t]))
    out[16] = make_key(b + 16, one(s.prefix3[t + 1]))
    out[17] = make_key(b + 17, two(length if length < 6 else 6, last_class0))
    out[18] = make_key(b + 18, two(w0, first_class1))
    out[19] = make_key(b + 19, three(before, w0, first_class1))
    out[20] = make_key(b + 20, one(so_far))
    out[21] = make_key(b + 21, two(so_far, last0))
    out[22] = make_key(b + 22, three(w0, first_class1, gap))
    out[23] = make_key(b + 23, three(last_before, last0, first1))
    out[24] = make_key(b + 24, two(first1, first_class2))
    out[25] = make_key(b + 25, one(s.suffix2[t]))
    out[26] = make_key(b + 26, three(gap, last_class0, first_class1))
    return N_SENTENCE_KEYS


cdef void token_hashes(const Units* u, Py_ssize_t first, Py_ssize_t last, uint64_t* whole,
                       uint64_t* shape, uint64_t* suffix2, uint64_t* suffix3,
                       uint64_t* prefix3) noexcept nogil:
    """The hashes of TokenSpans for the token of units first..last."""
    whole[0] = hash_values(u.value, first, last)
    suffix2[0] = hash_values(u.value, last - 1 if last - 1 > first else first, last)
    suffix3[0] = hash_values(u.value, last - 2 if last - 2 > first else first, last)
    prefix3[0] = hash_values(u.value, first, first + 2 if first + 2 < last else last)
    cdef uint64_t h = SEED
    cdef uint32_t previous = 0
    cdef int runs = 0
    cdef Py_ssize_t p
    for p in range(first, last + 1):
        if p > first and u.klass[p] == previous:
            continue
        previous = u.klass[p]
        runs += 1
        if runs > MAX_SHAPE_RUNS:
            h = combine(h, EDGE_CLASS)
            break
        h = combine(h, previous)
    shape[0] = h


cdef class TokenTable:
    """Tokens of a text (units first..last of each) with the hashes sentence_keys reads (arrays
    of one entry more than tokens)."""

    def __init__(self, TextUnits units, first, last):
        first = np.ascontiguousarray(first, dtype=np.int64)
        last = np.ascontiguousarray(last, dtype=np.int64)
        cdef Py_ssize_t n = first.shape[0]
        if last.shape[0] != n:
            raise ValueError("first and last need one entry per token")
        if n and (first.min() < 0 or last.max() >= len(units) or np.any(last < first)):
            raise ValueError("every token needs units first <= last inside the text")
        # One more entry each: a sentinel, so that the arrays are never empty.
        self.first = np.append(first, 0)
        self.last = np.append(last, 0)
        self.whole = np.zeros(n + 1, dtype=np.uint64)
        self.shape = np.zeros(n + 1, dtype=np.uint64)
        self.suffix2 = np.zeros(n + 1, dtype=np.uint64)
        self.suffix3 = np.zeros(n + 1, dtype=np.uint64)
        self.prefix3 = np.zeros(n + 1, dtype=np.uint64)
        cdef const int64_t[::1] f = self.first
        cdef const int64_t[::1] l = self.last
        cdef uint64_t[::1] whole = self.whole
        cdef uint64_t[::1] shape = self.shape
        cdef uint64_t[::1] suffix2 = self.suffix2
        cdef uint64_t[::1] suffix3 = self.suffix3
        cdef uint64_t[::1] prefix3 = self.prefix3
        cdef Py_ssize_t t
        cdef const Units* u = &units.units
        with nogil:
            for t in range(n):
                token_hashes(u, f[t], l[t], &whole[t], &shape[t], &suffix2[t], &suffix3[t],
                             &prefix3[t])
        self.spans.n = n
        self.spans.first = &f[0]
        self.spans.last = &l[0]
        self.spans.whole = &whole[0]
        self.spans.shape = &shape[0]
        self.spans.suffix2 = &suffix2[0]
        self.spans.suffix3 = &suffix3[0]
        self.spans.prefix3 = &prefix3[0]

    def __len__(self) -> int:
        return self.spans.n


def inner_keys_at(TextUnits units, Py_ssize_t i, Py_ssize_t ts, Py_ssize_t lo,
                  Py_ssize_t hi) -> np.ndarray:
    """The inner keys of the boundary before unit i (for tests)."""
    _check_window(units, i, ts, lo, hi)
    if i <= lo or units.units.kind[i] != CHAR or units.units.kind[i - 1] != CHAR:
        raise ValueError("an inner boundary lies between two character units of the region")
    return _boundary_keys(units, i, ts, lo, hi, 0)


def gap_keys_at(TextUnits units, Py_ssize_t i, Py_ssize_t ts, Py_ssize_t lo,
                Py_ssize_t hi) -> np.ndarray:
    """The gap keys of gap unit i (for tests)."""
    _check_window(units, i, ts, lo, hi)
    if i <= lo or i >= hi or units.units.kind[i] != GAP:
        raise ValueError("a gap decision is asked of a gap unit inside the region")
    return _boundary_keys(units, i, ts, lo, hi, 1 + int(np.count_nonzero(units.kind[ts:i] == GAP)))


cdef object _boundary_keys(TextUnits units, Py_ssize_t i, Py_ssize_t ts, Py_ssize_t lo,
                           Py_ssize_t hi, Py_ssize_t chunks):
    # The keys of the decision at unit i over the n-grams of region lo..hi: a gap's after
    # `chunks` chunks of the token so far, or with chunks 0 the inner boundary's before i.
    out = np.zeros(MAX_KEYS, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef Ngrams g
    cdef int n
    ngrams_alloc(&g, hi - lo + 1)
    ngrams_fill(&g, &units.units, lo, hi)
    if chunks:
        n = gap_keys(&units.units, &g, i, ts, chunks, &o[0])
    else:
        n = inner_keys(&units.units, &g, i, ts, &o[0])
    ngrams_free(&g)
    return out[:n]


def sentence_keys_at(TextUnits units, TokenTable tokens, Py_ssize_t t, Py_ssize_t st,
                     Py_ssize_t r0, Py_ssize_t r1) -> np.ndarray:
    """The sentence keys after token t (for tests)."""
    if not (0 <= r0 <= st <= t < r1 < tokens.spans.n):
        raise ValueError("need r0 <= st <= t < r1 inside the tokens")
    out = np.zeros(MAX_KEYS, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    return out[:sentence_keys(&units.units, &tokens.spans, t, st, r0, r1, &o[0])]


def _check_window(TextUnits units, Py_ssize_t i, Py_ssize_t ts, Py_ssize_t lo,
                  Py_ssize_t hi) -> None:
    if not (0 <= lo <= ts <= i <= hi < len(units)):
        raise ValueError("need lo <= ts <= i <= hi inside the text's units")
