# cython: language_level=3
"""Feature templates as integer keys: key = template_id << 48 | value (no strings in the loop).

`chang2010` is the 13 feature types of Chang, Hsieh, Chang, Ringgaard & Lin (2010), Table 8,
binarised as type=value predicates. `rich` adds the distance, valency, second-order and
word/tag-pair templates of Zhang & Nivre (2011), Table 1, as far as they apply to greedy
arc-eager parsing. `zn2011` is all of that table: the baseline templates (words, tags and
their pairs and triples around S0 and N0), distance, valency, unigrams of heads and children,
third-order templates (second children, the head's head) and label sets (the labels of S0's
and N0's children so far). `zn2011-affix` adds the last three characters and the character
shape of S0, N0, N1 and N2 (with tags), which carry what a language's fine tags carry when a
treebank has only universal ones. Label values are label id + 3 (0: no token, 1: no
label/child). `zn2011` keys of several values are hashed into the 48 value bits.
"""
from libc.stdint cimport int32_t, uint64_t

from features.key_index cimport mix64
from parser.dependency.arc_eager cimport ArcEagerState, buffer_at, stack_at

import numpy as np

CHANG2010_NAMES = (
    "input(1).tag", "input(2).tag", "input(3).tag", "input.word", "input(1).word",
    "stack.tag", "stack(1).tag", "stack.label", "stack.word", "stack.head.word",
    "stack.leftmost-child.label", "stack.rightmost-child.label", "input.leftmost-child.label",
)
RICH_NAMES = CHANG2010_NAMES + (
    "input.tag", "input(2).word", "stack(1).word", "stack.head.tag", "stack.head.label",
    "stack.head.head.tag", "stack.leftmost-child.tag", "stack.rightmost-child.tag",
    "input.leftmost-child.tag", "stack.leftmost-child2.label", "stack.rightmost-child2.label",
    "input.leftmost-child2.label", "stack.word+tag", "input.word+tag", "input(1).word+tag",
    "stack.word+input.word", "stack.tag+input.tag", "stack.tag+input.tag+input(1).tag",
    "input.tag+input(1).tag+input(2).tag", "stack.tag+stack(1).tag+input.tag",
    "distance", "distance+stack.tag+input.tag", "stack.left-valency+stack.tag",
    "stack.right-valency+stack.tag", "input.left-valency+input.tag", "stack.coarse+input.coarse",
)
ZN2011_NAMES = (
    "S0wp", "S0w", "S0p", "N0wp", "N0w", "N0p", "N1wp", "N1w", "N1p", "N2wp", "N2w", "N2p",
    "S0wpN0wp", "S0wpN0w", "S0wN0wp", "S0wpN0p", "S0pN0wp", "S0wN0w", "S0pN0p", "N0pN1p",
    "N0pN1pN2p", "S0pN0pN1p", "S0hpS0pN0p", "S0pS0lpN0p", "S0pS0rpN0p", "S0pN0pN0lp",
    "S0wd", "S0pd", "N0wd", "N0pd", "S0wN0wd", "S0pN0pd",
    "S0wvr", "S0pvr", "S0wvl", "S0pvl", "N0wvl", "N0pvl",
    "S0hw", "S0hp", "S0l", "S0lw", "S0lp", "S0ll", "S0rw", "S0rp", "S0rl", "N0lw", "N0lp",
    "N0ll",
    "S0h2w", "S0h2p", "S0hl", "S0l2w", "S0l2p", "S0l2l", "S0r2w", "S0r2p", "S0r2l", "N0l2w",
    "N0l2p", "N0l2l", "S0pS0lpS0l2p", "S0pS0rpS0r2p", "S0pS0hpS0h2p", "N0pN0lpN0l2p",
    "S0wsr", "S0psr", "S0wsl", "S0psl", "N0wsl", "N0psl",
)
AFFIX_NAMES = (
    "S0x", "S0xp", "S0sh", "N0x", "N0xp", "N0sh", "N1x", "N1xp", "N1sh", "N2x", "N2sh",
    "S0xN0x",
)
FEATURE_SETS = {"chang2010": CHANG2010, "rich": RICH, "zn2011": ZN2011,
                "zn2011-affix": ZN2011_AFFIX}
NAMES = {CHANG2010: CHANG2010_NAMES, RICH: RICH_NAMES, ZN2011: ZN2011_NAMES,
         ZN2011_AFFIX: ZN2011_NAMES + AFFIX_NAMES}
assert max(len(names) for names in NAMES.values()) <= MAX_TEMPLATES


def template_names(str feature_set) -> tuple[str, ...]:
    return NAMES[FEATURE_SETS[feature_set]]


cdef int n_templates(int feature_set) noexcept nogil:
    if feature_set == CHANG2010:
        return 13
    if feature_set == RICH:
        return 39
    if feature_set == ZN2011:
        return 72
    return 84


cdef inline uint64_t key(int template, uint64_t value) noexcept nogil:
    return (<uint64_t>template << 48) | value


cdef inline uint64_t pair(uint64_t a, uint64_t b) noexcept nogil:
    return (a << 24) | (b & 0xFFFFFF)


cdef inline uint64_t triple(uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    return (a << 32) | ((b & 0xFFFF) << 16) | (c & 0xFFFF)


cdef inline uint64_t word_of(const SentenceC* s, int i) noexcept nogil:
    return <uint64_t>s.word[i] if i >= 0 else 0


cdef inline uint64_t tag_of(const SentenceC* s, int i) noexcept nogil:
    return <uint64_t>s.tag[i] if i >= 0 else 0


cdef inline uint64_t coarse_of(const SentenceC* s, int i) noexcept nogil:
    return <uint64_t>s.coarse[i] if i >= 0 else 0


cdef inline uint64_t label_of(const StateC* st, int i) noexcept nogil:
    if i < 0:
        return 0
    if st.labels[i] < 0:
        return 1
    return <uint64_t>(st.labels[i] + 3)


cdef inline uint64_t child_label(const StateC* st, int i, const int* children) noexcept nogil:
    if i < 0:
        return 0
    if children[i] < 0:
        return 1
    return <uint64_t>(st.labels[children[i]] + 3)


cdef inline int child_of(int i, const int* children) noexcept nogil:
    return children[i] if i >= 0 else -1


cdef inline int head_of(const StateC* st, int i) noexcept nogil:
    return st.heads[i] if i >= 0 else -1


cdef inline uint64_t capped(int value, int cap) noexcept nogil:
    return <uint64_t>(value if value < cap else cap)


cdef inline uint64_t hashed(int template, uint64_t a, uint64_t b, uint64_t c,
                            uint64_t d) noexcept nogil:
    # A template's key from up to four values: a chain of splitmix64 mixes, cut to 48 bits.
    cdef uint64_t h = mix64(a + <uint64_t>0x9E3779B97F4A7C15)
    h = mix64(h ^ (b + <uint64_t>0x632BE59BD9B4E019))
    h = mix64(h ^ (c + <uint64_t>0x8CB92BA72F3D8DD7))
    h = mix64(h ^ (d + <uint64_t>0xD6E8FEB86659FD93))
    return key(template, h & <uint64_t>0xFFFFFFFFFFFF)


cdef inline uint64_t suffix_of(const SentenceC* s, int i) noexcept nogil:
    return <uint64_t>s.suffix[i] if i >= 0 else 0


cdef inline uint64_t shape_of(const SentenceC* s, int i) noexcept nogil:
    return <uint64_t>s.shape[i] if i >= 0 else 0


cdef inline uint64_t label_set(const uint64_t* sets, int i) noexcept nogil:
    return sets[i] if i >= 0 else <uint64_t>0xFFFFFFFFFFFFFFFF


cdef int extract_keys(const StateC* st, const SentenceC* sent, int feature_set,
                      uint64_t* out) noexcept nogil:
    """Write the keys of every template of the set for this state; return their number."""
    if feature_set >= ZN2011:
        return zn2011_keys(st, sent, feature_set == ZN2011_AFFIX, out)
    cdef int s0 = stack_at(st, 0)
    cdef int s1 = stack_at(st, 1)
    cdef int b0 = buffer_at(st, 0)
    cdef int b1 = buffer_at(st, 1)
    cdef int b2 = buffer_at(st, 2)
    cdef int b3 = buffer_at(st, 3)
    cdef int s0h = head_of(st, s0)
    out[0] = key(0, tag_of(sent, b1))
    out[1] = key(1, tag_of(sent, b2))
    out[2] = key(2, tag_of(sent, b3))
    out[3] = key(3, word_of(sent, b0))
    out[4] = key(4, word_of(sent, b1))
    out[5] = key(5, tag_of(sent, s0))
    out[6] = key(6, tag_of(sent, s1))
    out[7] = key(7, label_of(st, s0))
    out[8] = key(8, word_of(sent, s0))
    out[9] = key(9, word_of(sent, s0h))
    out[10] = key(10, child_label(st, s0, st.leftmost))
    out[11] = key(11, child_label(st, s0, st.rightmost))
    out[12] = key(12, child_label(st, b0, st.leftmost))
    if feature_set == CHANG2010:
        return 13
    cdef int s0l = child_of(s0, st.leftmost)
    cdef int s0r = child_of(s0, st.rightmost)
    cdef int b0l = child_of(b0, st.leftmost)
    cdef uint64_t distance = 0
    if s0 >= 0 and b0 >= 0:
        distance = capped(b0 - s0, 10)
    out[13] = key(13, tag_of(sent, b0))
    out[14] = key(14, word_of(sent, b2))
    out[15] = key(15, word_of(sent, s1))
    out[16] = key(16, tag_of(sent, s0h))
    out[17] = key(17, label_of(st, s0h) if s0h >= 0 else 0)
    out[18] = key(18, tag_of(sent, head_of(st, s0h)))
    out[19] = key(19, tag_of(sent, s0l))
    out[20] = key(20, tag_of(sent, s0r))
    out[21] = key(21, tag_of(sent, b0l))
    out[22] = key(22, child_label(st, s0, st.leftmost2))
    out[23] = key(23, child_label(st, s0, st.rightmost2))
    out[24] = key(24, child_label(st, b0, st.leftmost2))
    out[25] = key(25, pair(word_of(sent, s0), tag_of(sent, s0)))
    out[26] = key(26, pair(word_of(sent, b0), tag_of(sent, b0)))
    out[27] = key(27, pair(word_of(sent, b1), tag_of(sent, b1)))
    out[28] = key(28, pair(word_of(sent, s0), word_of(sent, b0)))
    out[29] = key(29, pair(tag_of(sent, s0), tag_of(sent, b0)))
    out[30] = key(30, triple(tag_of(sent, s0), tag_of(sent, b0), tag_of(sent, b1)))
    out[31] = key(31, triple(tag_of(sent, b0), tag_of(sent, b1), tag_of(sent, b2)))
    out[32] = key(32, triple(tag_of(sent, s0), tag_of(sent, s1), tag_of(sent, b0)))
    out[33] = key(33, distance)
    out[34] = key(34, triple(distance, tag_of(sent, s0), tag_of(sent, b0)))
    out[35] = key(35, pair(capped(st.n_left[s0], 8) if s0 >= 0 else 9, tag_of(sent, s0)))
    out[36] = key(36, pair(capped(st.n_right[s0], 8) if s0 >= 0 else 9, tag_of(sent, s0)))
    out[37] = key(37, pair(capped(st.n_left[b0], 8) if b0 >= 0 else 9, tag_of(sent, b0)))
    out[38] = key(38, pair(coarse_of(sent, s0), coarse_of(sent, b0)))
    return 39


cdef int zn2011_keys(const StateC* st, const SentenceC* sent, bint affix,
                     uint64_t* out) noexcept nogil:
    # Zhang & Nivre (2011), Table 1, for arc-eager: S0 is the stack top, N0..N2 the buffer
    # front; h/h2 head and head's head; l/r leftmost/rightmost child, l2/r2 the second ones;
    # d distance N0 - S0; vl/vr left/right valency; sl/sr label sets; w word, p tag, l label.
    cdef int s0 = stack_at(st, 0)
    cdef int n0 = buffer_at(st, 0)
    cdef int n1 = buffer_at(st, 1)
    cdef int n2 = buffer_at(st, 2)
    cdef int s0h = head_of(st, s0)
    cdef int s0h2 = head_of(st, s0h)
    cdef int s0l = child_of(s0, st.leftmost)
    cdef int s0r = child_of(s0, st.rightmost)
    cdef int s0l2 = child_of(s0, st.leftmost2)
    cdef int s0r2 = child_of(s0, st.rightmost2)
    cdef int n0l = child_of(n0, st.leftmost)
    cdef int n0l2 = child_of(n0, st.leftmost2)
    cdef uint64_t s0w = word_of(sent, s0), s0p = tag_of(sent, s0)
    cdef uint64_t n0w = word_of(sent, n0), n0p = tag_of(sent, n0)
    cdef uint64_t n1w = word_of(sent, n1), n1p = tag_of(sent, n1)
    cdef uint64_t n2w = word_of(sent, n2), n2p = tag_of(sent, n2)
    cdef uint64_t d = capped(n0 - s0, 16) if s0 >= 0 and n0 >= 0 else 0
    cdef uint64_t s0vl = capped(st.n_left[s0], 8) if s0 >= 0 else 9
    cdef uint64_t s0vr = capped(st.n_right[s0], 8) if s0 >= 0 else 9
    cdef uint64_t n0vl = capped(st.n_left[n0], 8) if n0 >= 0 else 9
    cdef uint64_t s0sl = label_set(st.left_labels, s0)
    cdef uint64_t s0sr = label_set(st.right_labels, s0)
    cdef uint64_t n0sl = label_set(st.left_labels, n0)
    out[0] = hashed(0, s0w, s0p, 0, 0)
    out[1] = key(1, s0w)
    out[2] = key(2, s0p)
    out[3] = hashed(3, n0w, n0p, 0, 0)
    out[4] = key(4, n0w)
    out[5] = key(5, n0p)
    out[6] = hashed(6, n1w, n1p, 0, 0)
    out[7] = key(7, n1w)
    out[8] = key(8, n1p)
    out[9] = hashed(9, n2w, n2p, 0, 0)
    out[10] = key(10, n2w)
    out[11] = key(11, n2p)
    out[12] = hashed(12, s0w, s0p, n0w, n0p)
    out[13] = hashed(13, s0w, s0p, n0w, 0)
    out[14] = hashed(14, s0w, n0w, n0p, 0)
    out[15] = hashed(15, s0w, s0p, n0p, 0)
    out[16] = hashed(16, s0p, n0w, n0p, 0)
    out[17] = hashed(17, s0w, n0w, 0, 0)
    out[18] = hashed(18, s0p, n0p, 0, 0)
    out[19] = hashed(19, n0p, n1p, 0, 0)
    out[20] = hashed(20, n0p, n1p, n2p, 0)
    out[21] = hashed(21, s0p, n0p, n1p, 0)
    out[22] = hashed(22, tag_of(sent, s0h), s0p, n0p, 0)
    out[23] = hashed(23, s0p, tag_of(sent, s0l), n0p, 0)
    out[24] = hashed(24, s0p, tag_of(sent, s0r), n0p, 0)
    out[25] = hashed(25, s0p, n0p, tag_of(sent, n0l), 0)
    out[26] = hashed(26, s0w, d, 0, 0)
    out[27] = hashed(27, s0p, d, 0, 0)
    out[28] = hashed(28, n0w, d, 0, 0)
    out[29] = hashed(29, n0p, d, 0, 0)
    out[30] = hashed(30, s0w, n0w, d, 0)
    out[31] = hashed(31, s0p, n0p, d, 0)
    out[32] = hashed(32, s0w, s0vr, 0, 0)
    out[33] = hashed(33, s0p, s0vr, 0, 0)
    out[34] = hashed(34, s0w, s0vl, 0, 0)
    out[35] = hashed(35, s0p, s0vl, 0, 0)
    out[36] = hashed(36, n0w, n0vl, 0, 0)
    out[37] = hashed(37, n0p, n0vl, 0, 0)
    out[38] = key(38, word_of(sent, s0h))
    out[39] = key(39, tag_of(sent, s0h))
    out[40] = key(40, label_of(st, s0))
    out[41] = key(41, word_of(sent, s0l))
    out[42] = key(42, tag_of(sent, s0l))
    out[43] = key(43, child_label(st, s0, st.leftmost))
    out[44] = key(44, word_of(sent, s0r))
    out[45] = key(45, tag_of(sent, s0r))
    out[46] = key(46, child_label(st, s0, st.rightmost))
    out[47] = key(47, word_of(sent, n0l))
    out[48] = key(48, tag_of(sent, n0l))
    out[49] = key(49, child_label(st, n0, st.leftmost))
    out[50] = key(50, word_of(sent, s0h2))
    out[51] = key(51, tag_of(sent, s0h2))
    out[52] = key(52, label_of(st, s0h))
    out[53] = key(53, word_of(sent, s0l2))
    out[54] = key(54, tag_of(sent, s0l2))
    out[55] = key(55, child_label(st, s0, st.leftmost2))
    out[56] = key(56, word_of(sent, s0r2))
    out[57] = key(57, tag_of(sent, s0r2))
    out[58] = key(58, child_label(st, s0, st.rightmost2))
    out[59] = key(59, word_of(sent, n0l2))
    out[60] = key(60, tag_of(sent, n0l2))
    out[61] = key(61, child_label(st, n0, st.leftmost2))
    out[62] = hashed(62, s0p, tag_of(sent, s0l), tag_of(sent, s0l2), 0)
    out[63] = hashed(63, s0p, tag_of(sent, s0r), tag_of(sent, s0r2), 0)
    out[64] = hashed(64, s0p, tag_of(sent, s0h), tag_of(sent, s0h2), 0)
    out[65] = hashed(65, n0p, tag_of(sent, n0l), tag_of(sent, n0l2), 0)
    out[66] = hashed(66, s0w, s0sr, 0, 0)
    out[67] = hashed(67, s0p, s0sr, 0, 0)
    out[68] = hashed(68, s0w, s0sl, 0, 0)
    out[69] = hashed(69, s0p, s0sl, 0, 0)
    out[70] = hashed(70, n0w, n0sl, 0, 0)
    out[71] = hashed(71, n0p, n0sl, 0, 0)
    if not affix:
        return 72
    out[72] = key(72, suffix_of(sent, s0))
    out[73] = hashed(73, suffix_of(sent, s0), s0p, 0, 0)
    out[74] = key(74, shape_of(sent, s0))
    out[75] = key(75, suffix_of(sent, n0))
    out[76] = hashed(76, suffix_of(sent, n0), n0p, 0, 0)
    out[77] = key(77, shape_of(sent, n0))
    out[78] = key(78, suffix_of(sent, n1))
    out[79] = hashed(79, suffix_of(sent, n1), n1p, 0, 0)
    out[80] = key(80, shape_of(sent, n1))
    out[81] = key(81, suffix_of(sent, n2))
    out[82] = key(82, shape_of(sent, n2))
    out[83] = hashed(83, suffix_of(sent, s0), suffix_of(sent, n0), 0, 0)
    return 84


def state_keys(ArcEagerState state, word, tag, coarse, str feature_set, suffix=None,
               shape=None) -> np.ndarray:
    """The template keys of a Python-view state (for tests and --explain style inspection);
    word/tag/coarse hold the value ids of tokens 0..n, token 0 being the root."""
    cdef const int32_t[::1] w = np.ascontiguousarray(word, dtype=np.int32)
    cdef const int32_t[::1] t = np.ascontiguousarray(tag, dtype=np.int32)
    cdef const int32_t[::1] c = np.ascontiguousarray(coarse, dtype=np.int32)
    zeros = np.zeros(w.shape[0], dtype=np.int32)
    cdef const int32_t[::1] x = np.ascontiguousarray(zeros if suffix is None else suffix,
                                                     dtype=np.int32)
    cdef const int32_t[::1] h = np.ascontiguousarray(zeros if shape is None else shape,
                                                     dtype=np.int32)
    if not w.shape[0] == t.shape[0] == c.shape[0] == x.shape[0] == h.shape[0] == state.st.n + 1:
        raise ValueError("word, tag, coarse, suffix and shape need one value per token, root "
                         "included")
    cdef SentenceC sent
    sentence_at(&sent, &w[0], &t[0], &c[0], &x[0], &h[0], state.st.n)
    out = np.empty(MAX_TEMPLATES, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef int n = extract_keys(state.st, &sent, FEATURE_SETS[feature_set], &o[0])
    return out[:n]
