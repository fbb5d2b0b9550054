# cython: language_level=3
"""The bunsetsu parser's loops: dependency parsing by Sassano's shift-reduce or by Kudo &
Matsumoto's cascaded chunking, bunsetsu chunking, and the oracle runs that give their training
examples. Every decision is binary: "does chunk i depend on chunk j?" or "does morpheme m start
a bunsetsu?".

Shift-reduce for head-final languages (Sassano 2004, "Linear-time dependency analysis for
Japanese", COLING; as in J.DepP): for j = 1 .. n-1, push j - 1; while the stack is not empty,
let i be its top; if j is the last chunk or the classifier says i depends on j, then head(i) = j
and pop, otherwise go on to the next j. Every chunk is pushed once and popped once: at most
2n - 3 decisions, none for pairs whose head can only be the last chunk.

Cascaded chunking (Kudo & Matsumoto 2002, "Japanese dependency analysis using cascaded
chunking", CoNLL): while more than one chunk is unresolved, tag each unresolved chunk D when it
depends on the next unresolved one (always D when that one is the last chunk), then resolve
every chunk tagged D whose preceding unresolved chunk is not tagged D (its modifiers are all
resolved) and remove it. The last chunk before the end is always D, so each round resolves at
least one chunk.

Oracle runs take the gold decisions (head(i) == j; morpheme m starts a chunk) and record each
decision's keys and label; parsing looks the keys up in the feature vocabulary (Decision's
direct table, the KeyIndex beyond it), sorts the ids and asks the classifier (a BinaryScorer)
for its value, whose sign, read through `positive_means_yes`, decides.

Every loop counts its decisions (morphemes for the chunker) and checks for signals every
CHECK_STEPS of them (features/signal_checks.pyx), so that SIGINT and SIGTERM end a parse inside a
sentence of 100,000 bunsetsu.
"""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libcpp.vector cimport vector

import numpy as np

from polyparse.parser.bunsetsu.config import ALGORITHMS

from polyparse.features.key_index cimport KeyIndex
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts
from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.parser.bunsetsu.bunsetsu_features cimport (
    MAX_PAIR_KEYS,
    SentenceBuffers,
    SentenceView,
    SpecialIds,
    boundary_keys,
    chunk_properties,
    pair_keys,
    set_head,
)

cdef enum:
    SHIFT_REDUCE = 0
    CASCADED = 1


cdef struct Examples:
    vector[uint64_t]* keys
    vector[int64_t]* indptr
    vector[int32_t]* labels


cdef enum:
    # Keys are (template << 48) | value (bunsetsu_features.make_key); templates below
    # DIRECT_TEMPLATES with values below DIRECT_VALUES are looked up in Decision's direct table.
    TEMPLATE_SHIFT = 48
    DIRECT_TEMPLATES = 128
    DIRECT_VALUES = 1 << 24

cdef uint64_t VALUE_MASK = (<uint64_t>1 << TEMPLATE_SHIFT) - 1
# No feature id: the vocabulary's ids are below it.
cdef int32_t EMPTY_ID = 0x7FFFFFFF
# Vocabularies of up to this many features sort a decision's ids on an IdBits (three levels of
# 64-bit words: at most 64 top words); larger ones by comparison counting.
cdef int64_t MAX_BITMAP_IDS = <int64_t>1 << 24
BITMAP_IDS = MAX_BITMAP_IDS


cdef extern from *:
    """
    static inline int polyparse_lowest_bit(unsigned long long word) {
        return __builtin_ctzll(word);
    }
    """
    int lowest_bit "polyparse_lowest_bit"(unsigned long long word) noexcept nogil


cdef struct IdBits:
    # A set of feature ids below 2**24 as a three-level bitmap, a tree of 64-bit words: bit f
    # of low, bit f >> 6 of mid (low word f >> 6 has a bit), bit f >> 12 of top (mid word
    # f >> 12 has one). Every word is zero between two decisions: taking the ids out clears
    # what putting them in set.
    uint64_t* low
    uint64_t* mid
    uint64_t* top


cdef int bitmap_sorted_unique(const int32_t* found, int m, int32_t* ids,
                              IdBits* bits) noexcept nogil:
    # The distinct values of found[0..m) (0 <= id < 2**24) into ids in increasing order; their
    # count. Each id sets its bit at the three levels; the ids are then read out in order by
    # walking the set bits of the top words in range, of the mid words they point to and of
    # the low words those point to (count-trailing-zeros), each word cleared once read: work
    # in proportion to the ids and the words they touch, not to their range, and no compare
    # of one id with another (comparison counting takes m^2 of them).
    cdef int t, u = 0
    cdef uint32_t f
    cdef int64_t w, first_top = 64, last_top = -1, mid_word, low_word
    cdef uint64_t top_bits, mid_bits, low_bits
    for t in range(m):
        f = <uint32_t>found[t]
        bits.low[f >> 6] |= (<uint64_t>1) << (f & 63)
        bits.mid[f >> 12] |= (<uint64_t>1) << ((f >> 6) & 63)
        bits.top[f >> 18] |= (<uint64_t>1) << ((f >> 12) & 63)
        if <int64_t>(f >> 18) < first_top:
            first_top = f >> 18
        if <int64_t>(f >> 18) > last_top:
            last_top = f >> 18
    for w in range(first_top, last_top + 1):
        top_bits = bits.top[w]
        bits.top[w] = 0
        while top_bits:
            mid_word = (w << 6) | lowest_bit(top_bits)
            top_bits &= top_bits - 1
            mid_bits = bits.mid[mid_word]
            bits.mid[mid_word] = 0
            while mid_bits:
                low_word = (mid_word << 6) | lowest_bit(mid_bits)
                mid_bits &= mid_bits - 1
                low_bits = bits.low[low_word]
                bits.low[low_word] = 0
                while low_bits:
                    ids[u] = <int32_t>((low_word << 6) | lowest_bit(low_bits))
                    u += 1
                    low_bits &= low_bits - 1
    return u


cdef class IdScratch:
    """One thread's IdBits for the decisions of a vocabulary of n_ids features (none when
    n_ids exceeds MAX_BITMAP_IDS: those sort by comparison counting)."""

    cdef IdBits bits
    cdef bint usable

    def __cinit__(self, int64_t n_ids):
        cdef int64_t n_low = (n_ids + 63) >> 6
        cdef int64_t n_mid = (n_low + 63) >> 6
        cdef int64_t n_top = (n_mid + 63) >> 6
        self.bits.low = NULL
        self.bits.mid = NULL
        self.bits.top = NULL
        self.usable = 0 < n_ids <= MAX_BITMAP_IDS
        if not self.usable:
            return
        self.bits.low = <uint64_t*>calloc(n_low, sizeof(uint64_t))
        self.bits.mid = <uint64_t*>calloc(n_mid, sizeof(uint64_t))
        self.bits.top = <uint64_t*>calloc(n_top, sizeof(uint64_t))
        if self.bits.low == NULL or self.bits.mid == NULL or self.bits.top == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.bits.low)
        free(self.bits.mid)
        free(self.bits.top)

    cdef inline IdBits* get(self) noexcept:
        return &self.bits if self.usable else NULL


cdef int sorted_unique(const int32_t* found, int m, int32_t* ids) noexcept nogil:
    # The distinct values of found[0..m) (ids >= 0) into ids in increasing order; their count.
    # Sorting by comparison counting (Knuth, TAOCP vol. 3, 5.2, algorithm C): each id goes to
    # the place given by the number of ids below it, so copies of an id land on one place and
    # leave the next ones empty (EMPTY_ID), which the last pass drops. Its m^2 comparisons
    # have no branch to mispredict and vectorise; a decision has a few dozen ids, where
    # insertion sort's unpredictable loop exits cost more.
    cdef int t, k, u
    cdef int32_t f
    for t in range(m):
        ids[t] = EMPTY_ID
    for t in range(m):
        f = found[t]
        u = 0
        for k in range(m):
            u += found[k] < f
        ids[u] = f
    u = 0
    for t in range(m):
        if ids[t] != EMPTY_ID:
            ids[u] = ids[t]
            u += 1
    return u


def sorted_distinct_ids(values, int64_t n_ids) -> np.ndarray:
    """The distinct values (each 0 <= value < n_ids, at most MAX_PAIR_KEYS of them) in
    increasing order, as Decision sorts a decision's ids for a vocabulary of n_ids features
    (on an IdBits up to MAX_BITMAP_IDS, by comparison counting beyond): for tests."""
    cdef const int32_t[::1] v = np.ascontiguousarray(values, dtype=np.int32)
    cdef int32_t ids[MAX_PAIR_KEYS]
    cdef IdScratch scratch = IdScratch(n_ids)
    cdef IdBits* bits = scratch.get()
    cdef int t, m = v.shape[0]
    if m > MAX_PAIR_KEYS:
        raise ValueError(f"at most {MAX_PAIR_KEYS} values")
    for t in range(m):
        if not 0 <= v[t] < n_ids:
            raise ValueError(f"{v[t]} is not an id below {n_ids}")
    if m == 0:
        return np.zeros(0, dtype=np.int32)
    if bits != NULL:
        m = bitmap_sorted_unique(&v[0], m, ids, bits)
    else:
        m = sorted_unique(&v[0], m, ids)
    return np.array([ids[t] for t in range(m)], dtype=np.int32)


cdef class Decision:
    """One binary classifier as the loops use it; None scorer: the constant `constant`.

    A key's feature id comes from a direct table, one row per template indexed by the key's
    value (the vocabulary's values of a template are lexicon ids or small states: a row is as
    long as the largest), so that a lookup is one read without hashing or probing; keys the
    rows do not cover go to the vocabulary's KeyIndex. The ids of one decision are then put in
    order, duplicates dropped (on the caller's IdBits; by comparison counting for a vocabulary
    too large for one): the scorers take sorted, unique ids."""

    cdef KeyIndex index
    cdef BinaryScorer scorer
    cdef bint yes_sign
    cdef bint constant
    cdef object direct_ids
    cdef const int32_t* direct
    cdef int64_t row_start[DIRECT_TEMPLATES]
    cdef uint64_t row_length[DIRECT_TEMPLATES]
    cdef bint beyond_rows
    # The size of the vocabulary: its ids are 0 .. n_ids - 1.
    cdef readonly int64_t n_ids

    def __init__(self, KeyIndex index=None, BinaryScorer scorer=None,
                 bint positive_means_yes=True, bint constant=False):
        self.index = index
        self.scorer = scorer
        self.yes_sign = positive_means_yes
        self.constant = constant
        self.beyond_rows = False
        self.n_ids = len(index) if index is not None else 0
        for t in range(DIRECT_TEMPLATES):
            self.row_start[t] = 0
            self.row_length[t] = 0
        self.direct_ids = np.full(1, -1, dtype=np.int32)
        if index is not None:
            self._fill_rows(index.keys())
        self.direct = <const int32_t*><size_t>self.direct_ids.ctypes.data

    def _fill_rows(self, keys: np.ndarray) -> None:
        # keys[i]: the key of id i.
        templates = (keys >> np.uint64(TEMPLATE_SHIFT)).astype(np.int64)
        values = (keys & np.uint64(VALUE_MASK)).astype(np.int64)
        covered = (templates < DIRECT_TEMPLATES) & (values < DIRECT_VALUES)
        self.beyond_rows = not bool(covered.all())
        lengths = np.zeros(DIRECT_TEMPLATES, dtype=np.int64)
        np.maximum.at(lengths, templates[covered], values[covered] + 1)
        starts = np.zeros(DIRECT_TEMPLATES, dtype=np.int64)
        np.cumsum(lengths[:DIRECT_TEMPLATES - 1], out=starts[1:])
        table = np.full(max(1, int(lengths.sum())), -1, dtype=np.int32)
        ids = np.flatnonzero(covered)
        table[starts[templates[ids]] + values[ids]] = ids.astype(np.int32)
        for t in range(DIRECT_TEMPLATES):
            self.row_start[t] = starts[t]
            self.row_length[t] = lengths[t]
        self.direct_ids = table

    def feature_ids(self, keys) -> np.ndarray:
        """The feature id of each key (-1 outside the vocabulary), as decide finds them."""
        cdef const uint64_t[::1] k = np.ascontiguousarray(keys, dtype=np.uint64)
        out = np.empty(k.shape[0], dtype=np.int32)
        cdef int32_t[::1] o = out
        cdef Py_ssize_t t
        if self.index is None:
            raise ValueError("a constant decision has no vocabulary")
        for t in range(k.shape[0]):
            o[t] = self.feature_id(k[t])
        return out

    def decision_ids(self, keys) -> np.ndarray:
        """The sorted, distinct feature ids that decide gives the scorer for these keys."""
        cdef const uint64_t[::1] k = np.ascontiguousarray(keys, dtype=np.uint64)
        cdef int32_t found[MAX_PAIR_KEYS]
        cdef int32_t ids[MAX_PAIR_KEYS]
        cdef int t, m = 0
        cdef IdScratch scratch = IdScratch(self.n_ids)
        if self.index is None:
            raise ValueError("a constant decision has no vocabulary")
        if k.shape[0] > MAX_PAIR_KEYS:
            raise ValueError(f"a decision has at most {MAX_PAIR_KEYS} keys")
        for t in range(k.shape[0]):
            found[m] = self.feature_id(k[t])
            m += found[m] >= 0
        m = self.sort_ids(found, m, ids, scratch.get())
        return np.array([ids[t] for t in range(m)], dtype=np.int32)

    cdef inline int sort_ids(self, const int32_t* found, int m, int32_t* ids,
                             IdBits* bits) noexcept nogil:
        # The distinct ids of found[0..m) in increasing order (bits: the caller's IdBits, NULL
        # for a vocabulary larger than MAX_BITMAP_IDS); their count.
        if bits != NULL:
            return bitmap_sorted_unique(found, m, ids, bits)
        return sorted_unique(found, m, ids)

    cdef inline int32_t feature_id(self, uint64_t key) noexcept nogil:
        cdef uint64_t template = key >> TEMPLATE_SHIFT
        cdef uint64_t value = key & VALUE_MASK
        if template < DIRECT_TEMPLATES and value < self.row_length[template]:
            return self.direct[self.row_start[template] + <int64_t>value]
        if self.beyond_rows:
            return self.index.get(key)
        return -1

    cdef bint decide(self, const uint64_t* keys, int n, double* value,
                     IdBits* bits) noexcept nogil:
        cdef int32_t ids[MAX_PAIR_KEYS]
        cdef int32_t found[MAX_PAIR_KEYS]
        cdef int m = 0, t
        cdef int32_t f
        cdef double out = 0.0
        if self.scorer is None:
            value[0] = 1.0 if self.constant else -1.0
            return self.constant
        # The reads first, all independent (their cache misses overlap), then the sort.
        for t in range(n):
            f = self.feature_id(keys[t])
            found[m] = f
            m += f >= 0
        m = self.sort_ids(found, m, ids, bits)
        self.scorer.scores(ids, m, &out)
        if not self.yes_sign:
            out = -out
        value[0] = out
        return out > 0.0


cdef inline void record(Examples* ex, const uint64_t* keys, int n, int label) noexcept nogil:
    cdef int t
    for t in range(n):
        ex.keys.push_back(keys[t])
    ex.indptr.push_back(<int64_t>ex.keys.size())
    ex.labels.push_back(label)


cdef class Corpus:
    """Sentences as flat arrays: morpheme attributes (lexicon ids; char_class, the chunker's
    character classes, bunsetsu_features.char_class, zeros when None), sentence offsets into them,
    and per sentence its chunks' first morphemes relative to the sentence, followed by its
    morpheme count (chunk_bounds[chunk_ptr[t] + t : chunk_ptr[t + 1] + t + 1])."""

    cdef readonly object surface, pos1, pos2, conj_form, morpheme_ptr, chunk_ptr, chunk_bounds
    cdef readonly object char_class
    cdef const int32_t[::1] su, p1, p2, cf, cb, cc
    cdef const int64_t[::1] mp, cp
    cdef readonly int n_sentences
    cdef readonly int max_morphemes

    def __init__(self, surface, pos1, pos2, conj_form, morpheme_ptr, chunk_ptr, chunk_bounds,
                 char_class=None):
        self.surface = np.ascontiguousarray(surface, dtype=np.int32)
        self.pos1 = np.ascontiguousarray(pos1, dtype=np.int32)
        self.pos2 = np.ascontiguousarray(pos2, dtype=np.int32)
        self.conj_form = np.ascontiguousarray(conj_form, dtype=np.int32)
        self.morpheme_ptr = np.ascontiguousarray(morpheme_ptr, dtype=np.int64)
        self.chunk_ptr = np.ascontiguousarray(chunk_ptr, dtype=np.int64)
        self.chunk_bounds = np.ascontiguousarray(chunk_bounds, dtype=np.int32)
        self.char_class = np.ascontiguousarray(
            np.zeros(self.surface.shape[0], dtype=np.int32) if char_class is None else char_class,
            dtype=np.int32)
        if self.char_class.shape[0] != self.surface.shape[0]:
            raise ValueError("one char_class per morpheme needed")
        self.n_sentences = self.morpheme_ptr.shape[0] - 1
        if self.chunk_ptr.shape[0] != self.n_sentences + 1:
            raise ValueError("morpheme_ptr and chunk_ptr differ in sentence count")
        if self.chunk_bounds.shape[0] != self.chunk_ptr[-1] + self.n_sentences:
            raise ValueError("chunk_bounds must hold each sentence's chunk starts and length")
        lengths = np.diff(self.morpheme_ptr)
        self.max_morphemes = int(lengths.max()) if lengths.size else 0
        self.su, self.p1, self.p2, self.cf = self.surface, self.pos1, self.pos2, self.conj_form
        self.cc = self.char_class
        self.mp, self.cp, self.cb = self.morpheme_ptr, self.chunk_ptr, self.chunk_bounds

    cdef void view(self, int t, SentenceView* s) noexcept nogil:
        cdef int64_t m0 = self.mp[t]
        s.n_morphemes = <int>(self.mp[t + 1] - m0)
        s.n_chunks = <int>(self.cp[t + 1] - self.cp[t])
        if s.n_morphemes == 0:
            return
        s.surface = &self.su[m0]
        s.pos1 = &self.p1[m0]
        s.pos2 = &self.p2[m0]
        s.conj_form = &self.cf[m0]
        s.char_class = &self.cc[m0]
        s.chunk_start = &self.cb[self.cp[t] + t]


def _one_each(values, dtype, Py_ssize_t n, str message) -> np.ndarray:
    """values as a contiguous array of dtype, which must hold n of them (ValueError(message)
    otherwise)."""
    column = np.ascontiguousarray(values, dtype=dtype)
    if column.shape[0] != n:
        raise ValueError(message)
    return column


cdef class ExampleLists:
    """The decisions an oracle run records (record()) through ex: their keys, the rows' ends in
    keys (indptr) and their labels."""

    cdef vector[uint64_t] keys
    cdef vector[int64_t] indptr
    cdef vector[int32_t] labels
    cdef Examples ex

    def __cinit__(self):
        self.indptr.push_back(0)
        self.ex.keys, self.ex.indptr, self.ex.labels = &self.keys, &self.indptr, &self.labels

    cdef tuple arrays(self):
        # (keys, indptr, labels) as NumPy arrays.
        cdef size_t n_keys = self.keys.size()
        cdef size_t n_rows = self.labels.size()
        keys = np.empty(n_keys, dtype=np.uint64)
        indptr = np.empty(n_rows + 1, dtype=np.int64)
        labels = np.empty(n_rows, dtype=np.int32)
        cdef uint64_t[::1] k = keys
        cdef int64_t[::1] p = indptr
        cdef int32_t[::1] y = labels
        cdef size_t r
        for r in range(n_keys):
            k[r] = self.keys[r]
        for r in range(n_rows + 1):
            p[r] = self.indptr[r]
        for r in range(n_rows):
            y[r] = self.labels[r]
        return keys, indptr, labels


cdef class BunsetsuDecoder:
    """Parses, chunks and runs the oracles over a Corpus."""

    cdef SpecialIds ids
    cdef int algorithm

    def __init__(self, dict special_ids, str algorithm="shift-reduce"):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r} (available: "
                             f"{', '.join(ALGORITHMS)})")
        self.ids = special_ids
        self.algorithm = ALGORITHMS.index(algorithm)

    def parse(self, Corpus corpus, Decision decision) -> np.ndarray:
        """The head of every chunk (relative to its sentence, -1 for the last), flat."""
        heads = np.full(corpus.chunk_ptr[-1], -1, dtype=np.int32)
        self._run(corpus, decision, heads, None, NULL)
        return heads

    def oracle(self, Corpus corpus, gold_heads) -> tuple:
        """(keys, indptr, labels) of every decision the gold heads (flat, relative) imply."""
        gold = _one_each(gold_heads, np.int32, corpus.chunk_ptr[-1],
                         "one gold head per chunk needed")
        cdef ExampleLists examples = ExampleLists()
        self._run(corpus, None, np.full(gold.shape[0], -1, dtype=np.int32), gold, &examples.ex)
        return examples.arrays()

    cdef int _run(self, Corpus corpus, Decision decision, int32_t[::1] heads, gold_heads,
                  Examples* ex) except -1:
        cdef const int32_t[::1] gold
        cdef const int32_t* g = NULL
        cdef SentenceBuffers buffers = SentenceBuffers(corpus.max_morphemes + 1)
        cdef IdScratch scratch = IdScratch(decision.n_ids if decision is not None else 0)
        cdef IdBits* bits = scratch.get()
        cdef SentenceView s
        cdef int t, c
        cdef int64_t c0, steps_left = CHECK_STEPS
        buffers.attach(&s)
        if gold_heads is not None:
            gold = gold_heads
        with nogil:
            for t in range(corpus.n_sentences):
                corpus.view(t, &s)
                if s.n_chunks == 0:
                    continue
                c0 = corpus.cp[t]
                if ex != NULL:
                    g = &gold[c0]
                chunk_properties(&s, &self.ids)
                long_input_starts(s.n_chunks)
                if self.algorithm == SHIFT_REDUCE:
                    shift_reduce(&s, decision, bits, g, ex, &steps_left)
                else:
                    cascaded(&s, decision, bits, g, ex, &steps_left)
                long_input_ends(s.n_chunks)
                for c in range(s.n_chunks):
                    heads[c0 + c] = s.heads[c]
        return 0

    def chunk(self, Corpus corpus, Decision decision) -> np.ndarray:
        """1 for each morpheme that starts a bunsetsu, flat (the first of a sentence always)."""
        starts = np.zeros(corpus.morpheme_ptr[-1], dtype=np.int8)
        self._chunk(corpus, decision, starts, None, NULL)
        return starts

    def chunk_oracle(self, Corpus corpus, gold_starts) -> tuple:
        """(keys, indptr, labels) of every boundary decision; gold_starts flat 0/1 per morpheme."""
        gold = _one_each(gold_starts, np.int8, corpus.morpheme_ptr[-1],
                         "one gold flag per morpheme needed")
        cdef ExampleLists examples = ExampleLists()
        self._chunk(corpus, None, np.zeros(gold.shape[0], dtype=np.int8), gold, &examples.ex)
        return examples.arrays()

    cdef int _chunk(self, Corpus corpus, Decision decision, signed char[::1] starts,
                    gold_starts, Examples* ex) except -1:
        cdef const signed char[::1] gold
        cdef IdScratch scratch = IdScratch(decision.n_ids if decision is not None else 0)
        cdef IdBits* bits = scratch.get()
        cdef SentenceView s
        cdef uint64_t keys[MAX_PAIR_KEYS]
        cdef int t, m, n, start
        cdef int64_t m0, steps_left = CHECK_STEPS
        cdef double value
        cdef bint yes
        if gold_starts is not None:
            gold = gold_starts
        with nogil:
            for t in range(corpus.n_sentences):
                s.n_chunks = 0
                corpus.view(t, &s)
                m0 = corpus.mp[t]
                if s.n_morphemes > 0:
                    starts[m0] = 1
                start = 0
                long_input_starts(s.n_morphemes)
                for m in range(1, s.n_morphemes):
                    count_steps(&steps_left, 1)
                    n = boundary_keys(&s, m, start, keys)
                    if ex != NULL:
                        yes = gold[m0 + m] != 0
                        record(ex, keys, n, 1 if yes else -1)
                    else:
                        yes = decision.decide(keys, n, &value, bits)
                    starts[m0 + m] = 1 if yes else 0
                    if yes:
                        start = m
                long_input_ends(s.n_morphemes)
        return 0


cdef inline bint attach(SentenceView* s, Decision decision, IdBits* bits, const int32_t* gold,
                        Examples* ex, int i, int j, double* value) noexcept nogil:
    cdef uint64_t keys[MAX_PAIR_KEYS]
    cdef int n = pair_keys(s, i, j, keys)
    cdef bint yes
    if ex != NULL:
        yes = gold[i] == j
        record(ex, keys, n, 1 if yes else -1)
        value[0] = 1.0 if yes else -1.0
        return yes
    return decision.decide(keys, n, value, bits)


cdef int shift_reduce(SentenceView* s, Decision decision, IdBits* bits, const int32_t* gold,
                      Examples* ex, int64_t* steps_left) except -1 nogil:
    cdef int n = s.n_chunks, j, i
    cdef double value
    cdef vector[int] stack
    for j in range(n):
        s.heads[j] = -1
    for j in range(1, n):
        stack.push_back(j - 1)
        while stack.size() > 0:
            count_steps(steps_left, 1)
            i = stack.back()
            if j != n - 1 and not attach(s, decision, bits, gold, ex, i, j, &value):
                break
            set_head(s, i, j)
            stack.pop_back()
    return 0


cdef int cascaded(SentenceView* s, Decision decision, IdBits* bits, const int32_t* gold,
                  Examples* ex, int64_t* steps_left) except -1 nogil:
    cdef int n = s.n_chunks, x, m, kept
    cdef double value
    cdef vector[int] active
    cdef vector[char] tagged
    for x in range(n):
        s.heads[x] = -1
        active.push_back(x)
    while active.size() > 1:
        m = <int>active.size()
        tagged.assign(m, 0)
        for x in range(m - 1):
            count_steps(steps_left, 1)
            if x == m - 2:
                tagged[x] = 1
            else:
                tagged[x] = attach(s, decision, bits, gold, ex, active[x], active[x + 1],
                                   &value)
        kept = 0
        for x in range(m):
            if x < m - 1 and tagged[x] and (x == 0 or not tagged[x - 1]):
                set_head(s, active[x], active[x + 1])
            else:
                active[kept] = active[x]
                kept += 1
        active.resize(kept)
    return 0
