# cython: language_level=3
"""Feature templates as integer keys: key = template_id << 48 | value (no strings in the loop).

`chang2010` is the 13 feature types of Chang, Hsieh, Chang, Ringgaard & Lin (2010), Table 8,
binarised as type=value predicates. `rich` adds the distance, valency, second-order and
word/tag-pair templates of Zhang & Nivre (2011), Table 1, as far as they apply to greedy
arc-eager parsing. `morph` adds, for morphologically rich languages, the atomic FEATS values
(`Case=Nom`) of the stack's two top words and the input's first two, one template per
feature the model reads (MORPH_SLOTS of the treebank's most frequent feature names), each
feature's pair of s0 and b0 values (agreement, government) and its value with the word's UPOS,
and the suffixes of s0, b0 and b1; the word-feature templates of Bohnet & Nivre (2012) and of the
morphology-aware parsers of the SPMRL shared tasks read FEATS so. A degree-2 classifier pairs
them with each other and with the tags. Label values are label id + 3 (0: no token, 1: no
label/child).
"""
from libc.stdint cimport int32_t, uint64_t

from polyparse.parser.dependency.arc_eager cimport ArcEagerState, buffer_at, stack_at

import numpy as np

from polyparse.parser.dependency.choices import FEATURE_SETS as FEATURE_SET_NAMES

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
MORPH_POSITIONS = ("stack", "input", "input(1)", "stack(1)")
MORPH_NAMES = RICH_NAMES + tuple(
    name for slot in range(MORPH_SLOTS) for name in (
        *(f"{position}.feature{slot}" for position in MORPH_POSITIONS),
        f"stack.feature{slot}+input.feature{slot}", f"stack.coarse+stack.feature{slot}",
        f"input.coarse+input.feature{slot}")
) + ("stack.suffix", "input.suffix", "input(1).suffix")
N_MORPH_SLOTS = MORPH_SLOTS
# Name (parser/dependency/config.py, in its order) -> template set.
FEATURE_SETS = dict(zip(FEATURE_SET_NAMES, (CHANG2010, RICH, MORPH)))


def template_names(str feature_set) -> tuple[str, ...]:
    return (CHANG2010_NAMES, RICH_NAMES, MORPH_NAMES)[FEATURE_SETS[feature_set]]


cdef int n_templates(int feature_set) noexcept nogil:
    if feature_set == CHANG2010:
        return 13
    if feature_set == RICH:
        return 39
    return 39 + 7 * MORPH_SLOTS + 3


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


cdef inline uint64_t morph_of(const SentenceC* s, int slot, int i) noexcept nogil:
    return <uint64_t>s.morph[slot * s.morph_stride + i] if i >= 0 else 0


cdef inline uint64_t suffix_of(const SentenceC* s, int i) noexcept nogil:
    return <uint64_t>s.suffix[i] if i >= 0 else 0


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


cdef inline void child_labels(uint64_t* out, int t, const StateC* st, int s0, int b0,
                              const int* leftmost, const int* rightmost) noexcept nogil:
    # Templates t, t + 1, t + 2: the labels of the stack top's leftmost and rightmost child and
    # of the input's leftmost child (the children given by leftmost and rightmost: the
    # outermost ones, or the second ones).
    out[t] = key(t, child_label(st, s0, leftmost))
    out[t + 1] = key(t + 1, child_label(st, s0, rightmost))
    out[t + 2] = key(t + 2, child_label(st, b0, leftmost))


cdef int extract_keys(const StateC* st, const SentenceC* sent, int feature_set,
                      uint64_t* out) noexcept nogil:
    """Write the keys of every template of the set for this state; return their number."""
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
    child_labels(out, 10, st, s0, b0, st.leftmost, st.rightmost)
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
    child_labels(out, 22, st, s0, b0, st.leftmost2, st.rightmost2)
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
    if feature_set == RICH:
        return 39
    cdef int t = 39, slot
    for slot in range(MORPH_SLOTS):
        out[t] = key(t, morph_of(sent, slot, s0))
        out[t + 1] = key(t + 1, morph_of(sent, slot, b0))
        out[t + 2] = key(t + 2, morph_of(sent, slot, b1))
        out[t + 3] = key(t + 3, morph_of(sent, slot, s1))
        out[t + 4] = key(t + 4, pair(morph_of(sent, slot, s0), morph_of(sent, slot, b0)))
        out[t + 5] = key(t + 5, pair(coarse_of(sent, s0), morph_of(sent, slot, s0)))
        out[t + 6] = key(t + 6, pair(coarse_of(sent, b0), morph_of(sent, slot, b0)))
        t += 7
    out[t] = key(t, suffix_of(sent, s0))
    out[t + 1] = key(t + 1, suffix_of(sent, b0))
    out[t + 2] = key(t + 2, suffix_of(sent, b1))
    return t + 3


def state_keys(ArcEagerState state, word, tag, coarse, str feature_set, morph=None,
               suffix=None) -> np.ndarray:
    """The template keys of a Python-view state (for tests and --explain style inspection);
    word/tag/coarse (and, for the morph set, suffix and each of the MORPH_SLOTS rows of morph)
    hold the value ids of tokens 0..n, token 0 being the root."""
    cdef const int32_t[::1] w = np.ascontiguousarray(word, dtype=np.int32)
    cdef const int32_t[::1] t = np.ascontiguousarray(tag, dtype=np.int32)
    cdef const int32_t[::1] c = np.ascontiguousarray(coarse, dtype=np.int32)
    if not w.shape[0] == t.shape[0] == c.shape[0] == state.st.n + 1:
        raise ValueError("word, tag and coarse need one value per token, root included")
    morph_rows = np.zeros((MORPH_SLOTS, w.shape[0]), dtype=np.int32)
    if morph is not None:
        morph_rows[...] = morph
    cdef const int32_t[:, ::1] m = morph_rows
    cdef const int32_t[::1] x = np.ascontiguousarray(
        np.zeros(w.shape[0]) if suffix is None else suffix, dtype=np.int32)
    cdef SentenceC sent
    sentence_at(&sent, &w[0], &t[0], &c[0], state.st.n)
    morph_at(&sent, &m[0, 0], m.shape[1], &x[0])
    out = np.empty(MAX_TEMPLATES, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef int n = extract_keys(state.st, &sent, FEATURE_SETS[feature_set], &o[0])
    return out[:n]
