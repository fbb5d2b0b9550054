# cython: language_level=3
"""Feature keys of the bunsetsu parser and chunker, after J.DepP (Yoshinaga & Kitsuregawa 2009,
2010, 2014) and the features of Kudo & Matsumoto 2002 and Sassano 2004.

Each bunsetsu (chunk) is seen through four of its morphemes: the first (mzero), the last
(mlast), the head word (mhead: the last morpheme that is neither a symbol, JUMAN's 特殊, nor
助詞) and the function word (mtail: the last that is not a symbol), each by surface, POS (pos1),
sub-POS (pos2) and conjugated form. For the modifier i, the candidate head j, and their
neighbours h = i - 1 and k = j + 1, a pair (i, j) gives:

- lexical keys: h.mlast.surf; i.mhead {surf, pos1, pos2, form}; i.mtail {surf, pos1, pos2, form};
  i.mlast {surf, pos2}; j.mzero {surf, pos2}; j.mhead {surf, pos1, pos2, form}; j.mtail {surf,
  pos2, form}; j.mlast.pos2; k.mzero.surf, k.mhead.surf, k.mlast.surf;
- coordination: h, i against j and i against k have the same head-word surface;
- local: i is the first chunk, j the last; bracket state (more 括弧始 than 括弧終, fewer, none,
  balanced) and punctuation (読点, 句点, both, none) of i and of j; the particles (助詞) of i
  and of j;
- global: the distance j - i (1, 2-5, 6 or more), the bracket state and the punctuation of the
  chunks between i and j, and, dynamically, the particles of the chunks already attached to j
  (J.DepP's dynamic features; Kudo & Matsumoto 2002's "modifiers of the head"), and those of
  the chunks already attached to i.

A key is (template << 48) | value, where value is a lexicon id or a small state. A missing
chunk or morpheme gives no key, nor does a string the lexicon lacks (id < 3).

The chunker (J.DepP's) decides at each morpheme m >= 1 whether m starts a bunsetsu, from
m - 2 {surf, pos2, form}, m - 1 and m {surf, pos1, pos2, form}, m + 1 {surf, pos1, pos2} and
m + 2 {surf}; the character class of m - 2, m - 1, m and m + 1 (the scripts of the first and
the last character: kanji, hiragana, katakana, digit, latin, other; char_class; those of m - 2
and m + 1 tell a coordination 誹謗・中傷 from a name ジョン・スミス, which KWDLC bunsetsu split
and do not); and, dynamically, the
pos1 and pos2 of the first morpheme of the bunsetsu holding m - 1 when that bunsetsu already has
two morphemes or more (its start is the last start decided before m).
"""
from libc.stdint cimport int32_t, uint32_t, uint64_t

import numpy as np

cdef enum:
    SURF = 0
    POS1 = 1
    POS2 = 2
    FORM = 3

# Pair templates (before << 48).
cdef enum:
    T_H_LAST = 1            # + 4 attributes each: base template + attribute
    T_I_HEAD = 5
    T_I_TAIL = 9
    T_I_LAST = 13
    T_J_ZERO = 17
    T_J_HEAD = 21
    T_J_TAIL = 25
    T_J_LAST = 29
    T_K_ZERO = 33
    T_K_HEAD = 37
    T_K_LAST = 41
    T_COORD_HJ = 45
    T_COORD_IJ = 46
    T_COORD_IK = 47
    T_I_FIRST = 48
    T_J_FINAL = 49
    T_I_BRACKET = 50
    T_J_BRACKET = 51
    T_I_PUNCT = 52
    T_J_PUNCT = 53
    T_I_PARTICLE = 54
    T_J_PARTICLE = 55
    T_DISTANCE = 56
    T_GAP_BRACKET = 57
    T_GAP_PUNCT = 58
    T_CHILD_PARTICLE = 59
    T_I_CHILD_PARTICLE = 60
    # Boundary templates.
    T_B_PREV2 = 64
    T_B_PREV = 68
    T_B_THIS = 72
    T_B_NEXT = 76
    T_B_NEXT2 = 80
    T_B_CLASS_PREV = 84
    T_B_CLASS_THIS = 85
    T_B_FIRST = 86          # + attribute: the first morpheme of the bunsetsu holding m - 1
    T_B_CLASS_PREV2 = 90
    T_B_CLASS_NEXT = 91


cdef inline uint64_t make_key(int template, int32_t value) noexcept nogil:
    return (<uint64_t>template << 48) | <uint64_t><uint32_t>value


cdef inline int32_t attribute(const SentenceView* s, int m, int a) noexcept nogil:
    if a == SURF:
        return s.surface[m]
    if a == POS1:
        return s.pos1[m]
    if a == POS2:
        return s.pos2[m]
    return s.conj_form[m]


cdef inline int add_token(const SentenceView* s, int m, int template, int a, uint64_t* out,
                          int n) noexcept nogil:
    # One key for attribute a of morpheme m, unless m is missing or the string unknown.
    cdef int32_t v
    if m < 0 or n >= MAX_PAIR_KEYS:
        return n
    v = attribute(s, m, a)
    if v <= NO_ID:
        return n
    out[n] = make_key(template + a, v)
    return n + 1


cdef inline int add_value(int template, int32_t value, uint64_t* out, int n) noexcept nogil:
    if n >= MAX_PAIR_KEYS:
        return n
    out[n] = make_key(template, value)
    return n + 1


cdef inline int bracket_state(int opened, int closed) noexcept nogil:
    if opened > closed:
        return 1
    if opened < closed:
        return 2
    if opened == 0:
        return 0
    return 3


cdef inline int32_t known(int32_t value) noexcept nogil:
    # A special string the lexicon lacks (NO_ID) matches no morpheme, not those of unknown POS.
    return value if value > NO_ID else -1


cdef void chunk_properties(SentenceView* s, const SpecialIds* given) noexcept nogil:
    # J.DepP's scan of each chunk's morphemes from last to first.
    cdef int c, m, q, p = 0, first
    cdef int32_t pos1, pos2
    cdef bint seen
    cdef SpecialIds known_ids
    cdef const SpecialIds* ids = &known_ids
    known_ids.special = known(given.special)
    known_ids.comma = known(given.comma)
    known_ids.period = known(given.period)
    known_ids.bracket_in = known(given.bracket_in)
    known_ids.bracket_out = known(given.bracket_out)
    known_ids.particle = known(given.particle)
    s.before_in[0] = s.before_out[0] = s.before_comma[0] = s.before_period[0] = 0
    for c in range(s.n_chunks):
        s.first_child[c] = -1
        s.next_sibling[c] = -1
        s.mhead[c] = -1
        s.mtail[c] = -1
        s.punct[c] = 0
        s.bracket_in[c] = 0
        s.bracket_out[c] = 0
        s.particle_ptr[c] = p
        first = p
        m = s.chunk_start[c + 1] - 1
        while m >= s.chunk_start[c]:
            pos1 = s.pos1[m]
            if pos1 == ids.special:
                pos2 = s.pos2[m]
                if pos2 == ids.comma:
                    s.punct[c] |= 1
                elif pos2 == ids.period:
                    s.punct[c] |= 2
                elif pos2 == ids.bracket_in:
                    s.bracket_in[c] += 1
                elif pos2 == ids.bracket_out:
                    s.bracket_out[c] += 1
            else:
                if s.mtail[c] < 0:
                    s.mtail[c] = m
                if pos1 == ids.particle:
                    seen = False
                    for q in range(first, p):
                        if s.particles[q] == s.surface[m]:
                            seen = True
                            break
                    if not seen and s.surface[m] > NO_ID:
                        s.particles[p] = s.surface[m]
                        p += 1
                elif s.mhead[c] < 0:
                    s.mhead[c] = m
            m -= 1
        s.before_in[c + 1] = s.before_in[c] + s.bracket_in[c]
        s.before_out[c + 1] = s.before_out[c] + s.bracket_out[c]
        s.before_comma[c + 1] = s.before_comma[c] + (s.punct[c] & 1)
        s.before_period[c + 1] = s.before_period[c] + (s.punct[c] >> 1)
    s.particle_ptr[s.n_chunks] = p


cdef inline int chunk_head_surface(const SentenceView* s, int c) noexcept nogil:
    # -1 when there is no head word or the lexicon lacks it: two unknown words are not "the
    # same head word".
    if c < 0 or c >= s.n_chunks or s.mhead[c] < 0 or s.surface[s.mhead[c]] <= NO_ID:
        return -1
    return s.surface[s.mhead[c]]


cdef inline int add_particles(const SentenceView* s, int c, int template, uint64_t* out,
                              int n) noexcept nogil:
    cdef int q
    for q in range(s.particle_ptr[c], s.particle_ptr[c + 1]):
        n = add_value(template, s.particles[q], out, n)
    return n


cdef int pair_keys(const SentenceView* s, int i, int j, uint64_t* out) noexcept nogil:
    """The keys of "does chunk i depend on chunk j?" (i < j) into out; returns their count."""
    cdef int n = 0, a, h = i - 1, k = j + 1, c, opened = 0, closed = 0, punct = 0, dist
    cdef int hs, is_, js
    if h >= 0:
        n = add_token(s, s.chunk_start[h + 1] - 1, T_H_LAST, SURF, out, n)
    for a in range(4):
        n = add_token(s, s.mhead[i], T_I_HEAD, a, out, n)
        n = add_token(s, s.mtail[i], T_I_TAIL, a, out, n)
        n = add_token(s, s.mhead[j], T_J_HEAD, a, out, n)
    n = add_token(s, s.chunk_start[i + 1] - 1, T_I_LAST, SURF, out, n)
    n = add_token(s, s.chunk_start[i + 1] - 1, T_I_LAST, POS2, out, n)
    n = add_token(s, s.chunk_start[j], T_J_ZERO, SURF, out, n)
    n = add_token(s, s.chunk_start[j], T_J_ZERO, POS2, out, n)
    n = add_token(s, s.mtail[j], T_J_TAIL, SURF, out, n)
    n = add_token(s, s.mtail[j], T_J_TAIL, POS2, out, n)
    n = add_token(s, s.mtail[j], T_J_TAIL, FORM, out, n)
    n = add_token(s, s.chunk_start[j + 1] - 1, T_J_LAST, POS2, out, n)
    if k < s.n_chunks:
        n = add_token(s, s.chunk_start[k], T_K_ZERO, SURF, out, n)
        n = add_token(s, s.mhead[k], T_K_HEAD, SURF, out, n)
        n = add_token(s, s.chunk_start[k + 1] - 1, T_K_LAST, SURF, out, n)
    hs = chunk_head_surface(s, h)
    is_ = chunk_head_surface(s, i)
    js = chunk_head_surface(s, j)
    if js >= 0 and hs == js:
        n = add_value(T_COORD_HJ, 1, out, n)
    if js >= 0 and is_ == js:
        n = add_value(T_COORD_IJ, 1, out, n)
    if is_ >= 0 and is_ == chunk_head_surface(s, k):
        n = add_value(T_COORD_IK, 1, out, n)
    if i == 0:
        n = add_value(T_I_FIRST, 1, out, n)
    if j == s.n_chunks - 1:
        n = add_value(T_J_FINAL, 1, out, n)
    n = add_value(T_I_BRACKET, bracket_state(s.bracket_in[i], s.bracket_out[i]), out, n)
    n = add_value(T_J_BRACKET, bracket_state(s.bracket_in[j], s.bracket_out[j]), out, n)
    n = add_value(T_I_PUNCT, s.punct[i], out, n)
    n = add_value(T_J_PUNCT, s.punct[j], out, n)
    n = add_particles(s, i, T_I_PARTICLE, out, n)
    n = add_particles(s, j, T_J_PARTICLE, out, n)
    dist = j - i
    n = add_value(T_DISTANCE, 0 if dist == 1 else (1 if dist < 6 else 2), out, n)
    # The chunks i + 1 .. j - 1, from the cumulative counts of chunk_properties.
    opened = s.before_in[j] - s.before_in[i + 1]
    closed = s.before_out[j] - s.before_out[i + 1]
    punct = ((s.before_comma[j] > s.before_comma[i + 1])
             | ((s.before_period[j] > s.before_period[i + 1]) << 1))
    n = add_value(T_GAP_BRACKET, bracket_state(opened, closed), out, n)
    n = add_value(T_GAP_PUNCT, punct, out, n)
    # The children of j between i and j, and those of i before it, through their lists, so that
    # a decision costs the same at any distance from the sentence's start.
    c = s.first_child[j]
    while c >= 0:
        if i < c < j:
            n = add_particles(s, c, T_CHILD_PARTICLE, out, n)
        c = s.next_sibling[c]
    c = s.first_child[i]
    while c >= 0:
        if c < i:
            n = add_particles(s, c, T_I_CHILD_PARTICLE, out, n)
        c = s.next_sibling[c]
    return n


cdef int boundary_keys(const SentenceView* s, int m, int start, uint64_t* out) noexcept nogil:
    """The keys of "does morpheme m (>= 1) start a bunsetsu?" into out, given that the bunsetsu
    holding m - 1 starts at morpheme start (decided before m); returns their count."""
    cdef int n = 0, a
    if m >= 2:
        n = add_token(s, m - 2, T_B_PREV2, SURF, out, n)
        n = add_token(s, m - 2, T_B_PREV2, POS2, out, n)
        n = add_token(s, m - 2, T_B_PREV2, FORM, out, n)
    for a in range(4):
        n = add_token(s, m - 1, T_B_PREV, a, out, n)
        n = add_token(s, m, T_B_THIS, a, out, n)
    if m + 1 < s.n_morphemes:
        n = add_token(s, m + 1, T_B_NEXT, SURF, out, n)
        n = add_token(s, m + 1, T_B_NEXT, POS1, out, n)
        n = add_token(s, m + 1, T_B_NEXT, POS2, out, n)
    if m + 2 < s.n_morphemes:
        n = add_token(s, m + 2, T_B_NEXT2, SURF, out, n)
    n = add_value(T_B_CLASS_PREV, s.char_class[m - 1], out, n)
    n = add_value(T_B_CLASS_THIS, s.char_class[m], out, n)
    if m >= 2:
        n = add_value(T_B_CLASS_PREV2, s.char_class[m - 2], out, n)
    if m + 1 < s.n_morphemes:
        n = add_value(T_B_CLASS_NEXT, s.char_class[m + 1], out, n)
    if start < m - 1:
        n = add_token(s, start, T_B_FIRST, POS1, out, n)
        n = add_token(s, start, T_B_FIRST, POS2, out, n)
    return n


cdef class SentenceBuffers:
    """Per-chunk scratch arrays of a SentenceView for sentences of up to `capacity` morphemes."""

    def __cinit__(self, int capacity):
        self.capacity = max(1, capacity)
        self.data = np.zeros((14, self.capacity + 1), dtype=np.int32)

    cdef void attach(self, SentenceView* s) noexcept:
        cdef int32_t[:, ::1] d = self.data
        s.mhead = &d[0, 0]
        s.mtail = &d[1, 0]
        s.punct = &d[2, 0]
        s.bracket_in = &d[3, 0]
        s.bracket_out = &d[4, 0]
        s.particle_ptr = &d[5, 0]
        s.particles = &d[6, 0]
        s.heads = &d[7, 0]
        s.first_child = &d[8, 0]
        s.next_sibling = &d[9, 0]
        s.before_in = &d[10, 0]
        s.before_out = &d[11, 0]
        s.before_comma = &d[12, 0]
        s.before_period = &d[13, 0]


# The parts of speech chunk_properties tests for, in each dictionary's names: symbols (pos1)
# and among them commas, periods and opening and closing brackets (pos2), and particles.
SPECIAL_NAMES = {
    "juman": {"special": "特殊", "comma": "読点", "period": "句点", "bracket_in": "括弧始",
              "bracket_out": "括弧終", "particle": "助詞"},
    "ipadic": {"special": "記号", "comma": "読点", "period": "句点", "bracket_in": "括弧開",
               "bracket_out": "括弧閉", "particle": "助詞"},
    "unidic": {"special": "補助記号", "comma": "読点", "period": "句点", "bracket_in": "括弧開",
               "bracket_out": "括弧閉", "particle": "助詞"},
}


def special_ids(lexicon, tagset="juman") -> dict:
    """The lexicon ids of the strings chunk_properties tests for (NO_ID when absent), in the
    names of the dictionary tagset ("juman", "ipadic" or "unidic"; "" is JUMAN's)."""
    names = SPECIAL_NAMES[tagset or "juman"]
    return {field: lexicon.get(text) for field, text in names.items()}


def sentence_keys(surface, pos1, pos2, conj_form, chunk_start, heads, dict ids,
                  pairs=(), boundaries=(), char_class=None) -> tuple[list, list]:
    """Keys of the given (i, j) pairs and morpheme boundaries of one sentence (arrays of lexicon
    ids; chunk_start with n_chunks + 1 entries; heads of the chunks decided so far, -1 none):
    the Python view of pair_keys and boundary_keys, for tests. A boundary m sees the chunks of
chunk_start as the decisions before it; char_class: per morpheme (char_class()), 0 if None."""
    cdef const int32_t[::1] su = np.ascontiguousarray(surface, dtype=np.int32)
    cdef const int32_t[::1] p1 = np.ascontiguousarray(pos1, dtype=np.int32)
    cdef const int32_t[::1] p2 = np.ascontiguousarray(pos2, dtype=np.int32)
    cdef const int32_t[::1] cf = np.ascontiguousarray(conj_form, dtype=np.int32)
    cdef const int32_t[::1] cs = np.ascontiguousarray(chunk_start, dtype=np.int32)
    cdef const int32_t[::1] cc = np.ascontiguousarray(
        np.zeros(su.shape[0], dtype=np.int32) if char_class is None else char_class,
        dtype=np.int32)
    cdef SentenceBuffers buffers = SentenceBuffers(su.shape[0] + 1)
    cdef SentenceView s
    cdef SpecialIds special = ids
    cdef uint64_t keys[MAX_PAIR_KEYS]
    cdef int n, c
    s.n_morphemes = su.shape[0]
    s.n_chunks = cs.shape[0] - 1
    s.surface = &su[0]
    s.pos1 = &p1[0]
    s.pos2 = &p2[0]
    s.conj_form = &cf[0]
    s.char_class = &cc[0]
    s.chunk_start = &cs[0]
    buffers.attach(&s)
    chunk_properties(&s, &special)
    for c in range(s.n_chunks):
        s.heads[c] = -1
    for c in range(s.n_chunks - 1, -1, -1):
        if 0 <= heads[c] < s.n_chunks:
            set_head(&s, c, heads[c])
        else:
            s.heads[c] = heads[c]
    pair_out = []
    for i, j in pairs:
        n = pair_keys(&s, i, j, keys)
        pair_out.append([keys[c] for c in range(n)])
    boundary_out = []
    for m in boundaries:
        start = max(x for x in chunk_start[:-1] if x < m)
        n = boundary_keys(&s, m, start, keys)
        boundary_out.append([keys[c] for c in range(n)])
    return pair_out, boundary_out


cdef inline int script(Py_UCS4 c):
    # 1 kanji, 2 hiragana, 3 katakana (and the long vowel mark; not ・), 4 digit, 5 latin, 0 other.
    if 0x4E00 <= c <= 0x9FFF or 0x3400 <= c <= 0x4DBF or c == 0x3005:
        return 1
    if 0x3041 <= c <= 0x309F:
        return 2
    if (0x30A0 <= c <= 0x30FF and c != 0x30FB) or 0xFF66 <= c <= 0xFF9F:
        return 3
    if 0x30 <= c <= 0x39 or 0xFF10 <= c <= 0xFF19:
        return 4
    if 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A or 0xFF21 <= c <= 0xFF3A or 0xFF41 <= c <= 0xFF5A:
        return 5
    return 0


def char_class(str text) -> int:
    """The scripts of the first and last characters of a morpheme (8 * first + last; script:
    1 kanji, 2 hiragana, 3 katakana, 4 digit, 5 latin, 0 other); 0 for an empty string."""
    if not text:
        return 0
    return 8 * script(text[0]) + script(text[len(text) - 1])
