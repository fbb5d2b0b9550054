# cython: language_level=3
"""Feature keys of the beam-search parser: the templates of Zhang & Nivre (2011, "Transition-
based dependency parsing with rich non-local features", ACL, Table 1) for the arc-eager system,
and templates over lemmas, FEATS and UPOS.

Notation (Table 1): s0 is the top of the stack, n0 n1 n2 the first three buffer words; h the
head, h2 the head's head; l / r the leftmost / rightmost child, l2 / r2 the second leftmost /
rightmost; w the word, p the tag, l the arc label into a word, d the distance n0 - s0, vl / vr
the number of left / right children, sl / sr the set of labels of the left / right children.
Templates:
  single words      s0wp s0w s0p n0wp n0w n0p n1wp n1w n1p n2wp n2w n2p
  word pairs        s0wp.n0wp s0wp.n0w s0w.n0wp s0wp.n0p s0p.n0wp s0w.n0w s0p.n0p n0p.n1p
  three words       n0p.n1p.n2p s0p.n0p.n1p s0hp.s0p.n0p s0p.s0lp.n0p s0p.s0rp.n0p s0p.n0p.n0lp
  distance          s0wd s0pd n0wd n0pd s0w.n0w.d s0p.n0p.d
  valency           s0w.vr s0p.vr s0w.vl s0p.vl n0w.vl n0p.vl
  unigrams          s0hw s0hp s0l s0lw s0lp s0ll s0rw s0rp s0rl n0lw n0lp n0ll
  third order       s0h2w s0h2p s0hl s0l2w s0l2p s0l2l s0r2w s0r2p s0r2l n0l2w n0l2p n0l2l
                    s0p.s0lp.s0l2p s0p.s0rp.s0r2p s0p.s0hp.s0h2p n0p.n0lp.n0l2p
  label sets        s0w.sr s0p.sr s0w.sl s0p.sl n0w.sl n0p.sl
and ours (m the lemma, f the FEATS string, c the UPOS):
  lemmas            s0m n0m n1m s0m.n0m s0m.n0p s0p.n0m s0hm n0lm
  FEATS             s0f n0f n1f s0f.n0f s0p.s0f.n0p n0p.n0f.s0p s0hf s0lf n0lf s0rf
  UPOS              s0c.n0c s0c.n0c.n1c n0c.n1c.n2c s0hc.s0c.n0c
and, when the model reads the morph columns (a the atomic value of one of the treebank's most
frequent FEATS features, `Case=Nom`, one set per feature; x the suffix):
  FEATS values      s0a n0a n1a s0a.n0a
  suffixes          s0x n0x n1x
A missing word gives the value 0 (1 is the root token); a label is its id + 3 (1: no label
yet); the distance is capped at 10 and the valencies at 8. A key is a 64-bit hash (splitmix64)
of the template number and its values: the weight table hashes it again, collisions among a
few million keys being improbable (about 2^-40 for a pair).
"""
from libc.stdint cimport int32_t, uint64_t

from polyparse.parser.dependency.arc_eager cimport ArcEagerState, StateC, buffer_at, stack_at

import numpy as np


cdef inline uint64_t mix(uint64_t x) noexcept nogil:
    # splitmix64 (Steele, Lea & Flood 2014).
    x += <uint64_t>0x9E3779B97F4A7C15
    x = (x ^ (x >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    x = (x ^ (x >> 27)) * <uint64_t>0x94D049BB133111EB
    return x ^ (x >> 31)


cdef inline uint64_t k1(int t, uint64_t a) noexcept nogil:
    return mix((<uint64_t>t << 56) ^ a)


cdef inline uint64_t k2(int t, uint64_t a, uint64_t b) noexcept nogil:
    return mix(k1(t, a) ^ b)


cdef inline uint64_t k3(int t, uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    return mix(k2(t, a, b) ^ c)


cdef inline uint64_t k4(int t, uint64_t a, uint64_t b, uint64_t c, uint64_t d) noexcept nogil:
    return mix(k3(t, a, b, c) ^ d)


cdef inline uint64_t col(const int32_t* column, int i) noexcept nogil:
    return <uint64_t>column[i] if i >= 0 else 0


cdef inline uint64_t arc_label(const StateC* st, int i) noexcept nogil:
    if i < 0:
        return 0
    return <uint64_t>(st.labels[i] + 3) if st.labels[i] >= 0 else 1


cdef inline int head(const StateC* st, int i) noexcept nogil:
    return st.heads[i] if i >= 0 else -1


cdef inline int child(const int* children, int i) noexcept nogil:
    return children[i] if i >= 0 else -1


cdef inline uint64_t capped(int value, int cap) noexcept nogil:
    return <uint64_t>(value if value < cap else cap)


cdef inline void single_word(uint64_t* out, int t, uint64_t w, uint64_t p) noexcept nogil:
    # Templates t, t + 1, t + 2 of Table 1's single words: a word's wp, w and p.
    out[t] = k2(t, w, p)
    out[t + 1] = k1(t + 1, w)
    out[t + 2] = k1(t + 2, p)


cdef inline void word_tag_label(uint64_t* out, int t, const int32_t* W, const int32_t* P,
                                const StateC* st, int word, int labelled) noexcept nogil:
    # Templates t, t + 1, t + 2 of Table 1's unigrams and third order: the word and the tag of
    # word, and the label of the arc into labelled (word itself, or the word it heads).
    out[t] = k1(t, col(W, word))
    out[t + 1] = k1(t + 1, col(P, word))
    out[t + 2] = k1(t + 2, arc_label(st, labelled))


cdef inline void with_word_and_tag(uint64_t* out, int t, uint64_t s0w, uint64_t s0p, uint64_t n0w,
                                   uint64_t n0p, uint64_t s0_right, uint64_t s0_left,
                                   uint64_t n0_left) noexcept nogil:
    # Templates t .. t + 5 of Table 1's valency and label sets: a value of s0's right side, of
    # its left side and of n0's left side (the number of children, or the set of their
    # labels), each with the word and with the tag.
    out[t] = k2(t, s0w, s0_right)
    out[t + 1] = k2(t + 1, s0p, s0_right)
    out[t + 2] = k2(t + 2, s0w, s0_left)
    out[t + 3] = k2(t + 3, s0p, s0_left)
    out[t + 4] = k2(t + 4, n0w, n0_left)
    out[t + 5] = k2(t + 5, n0p, n0_left)


cdef int zn2011_keys(const StateC* st, const WordColumns* words, uint64_t* out) noexcept nogil:
    """Write the keys of every template (module docstring) for the state; return their number."""
    cdef const int32_t* W = words.word
    cdef const int32_t* P = words.tag
    cdef const int32_t* C = words.coarse
    cdef const int32_t* M = words.lemma
    cdef const int32_t* F = words.feats
    cdef int s0 = stack_at(st, 0), n0 = buffer_at(st, 0), n1 = buffer_at(st, 1)
    cdef int n2 = buffer_at(st, 2)
    cdef int s0h = head(st, s0), s0h2 = head(st, head(st, s0))
    cdef int s0l = child(st.leftmost, s0), s0r = child(st.rightmost, s0)
    cdef int s0l2 = child(st.leftmost2, s0), s0r2 = child(st.rightmost2, s0)
    cdef int n0l = child(st.leftmost, n0), n0l2 = child(st.leftmost2, n0)
    cdef uint64_t s0w = col(W, s0), s0p = col(P, s0), n0w = col(W, n0), n0p = col(P, n0)
    cdef uint64_t n1w = col(W, n1), n1p = col(P, n1), n2w = col(W, n2), n2p = col(P, n2)
    cdef uint64_t d = capped(n0 - s0, 10) if s0 >= 0 and n0 >= 0 else 0
    cdef uint64_t s0vl = capped(st.n_left[s0], 8) + 1 if s0 >= 0 else 0
    cdef uint64_t s0vr = capped(st.n_right[s0], 8) + 1 if s0 >= 0 else 0
    cdef uint64_t n0vl = capped(st.n_left[n0], 8) + 1 if n0 >= 0 else 0
    cdef uint64_t s0sl = st.left_labels[s0] if s0 >= 0 else 0
    cdef uint64_t s0sr = st.right_labels[s0] if s0 >= 0 else 0
    cdef uint64_t n0sl = st.left_labels[n0] if n0 >= 0 else 0
    # Single words.
    single_word(out, 0, s0w, s0p)
    single_word(out, 3, n0w, n0p)
    single_word(out, 6, n1w, n1p)
    single_word(out, 9, n2w, n2p)
    # Word pairs.
    out[12] = k4(12, s0w, s0p, n0w, n0p)
    out[13] = k3(13, s0w, s0p, n0w)
    out[14] = k3(14, s0w, n0w, n0p)
    out[15] = k3(15, s0w, s0p, n0p)
    out[16] = k3(16, s0p, n0w, n0p)
    out[17] = k2(17, s0w, n0w)
    out[18] = k2(18, s0p, n0p)
    out[19] = k2(19, n0p, n1p)
    # Three words.
    out[20] = k3(20, n0p, n1p, n2p)
    out[21] = k3(21, s0p, n0p, n1p)
    out[22] = k3(22, col(P, s0h), s0p, n0p)
    out[23] = k3(23, s0p, col(P, s0l), n0p)
    out[24] = k3(24, s0p, col(P, s0r), n0p)
    out[25] = k3(25, s0p, n0p, col(P, n0l))
    # Distance.
    out[26] = k2(26, s0w, d)
    out[27] = k2(27, s0p, d)
    out[28] = k2(28, n0w, d)
    out[29] = k2(29, n0p, d)
    out[30] = k3(30, s0w, n0w, d)
    out[31] = k3(31, s0p, n0p, d)
    # Valency.
    with_word_and_tag(out, 32, s0w, s0p, n0w, n0p, s0vr, s0vl, n0vl)
    # Unigrams.
    word_tag_label(out, 38, W, P, st, s0h, s0)
    word_tag_label(out, 41, W, P, st, s0l, s0l)
    word_tag_label(out, 44, W, P, st, s0r, s0r)
    word_tag_label(out, 47, W, P, st, n0l, n0l)
    # Third order.
    word_tag_label(out, 50, W, P, st, s0h2, s0h)
    word_tag_label(out, 53, W, P, st, s0l2, s0l2)
    word_tag_label(out, 56, W, P, st, s0r2, s0r2)
    word_tag_label(out, 59, W, P, st, n0l2, n0l2)
    out[62] = k3(62, s0p, col(P, s0l), col(P, s0l2))
    out[63] = k3(63, s0p, col(P, s0r), col(P, s0r2))
    out[64] = k3(64, s0p, col(P, s0h), col(P, s0h2))
    out[65] = k3(65, n0p, col(P, n0l), col(P, n0l2))
    # Label sets.
    with_word_and_tag(out, 66, s0w, s0p, n0w, n0p, s0sr, s0sl, n0sl)
    # Lemmas.
    out[72] = k1(72, col(M, s0))
    out[73] = k1(73, col(M, n0))
    out[74] = k1(74, col(M, n1))
    out[75] = k2(75, col(M, s0), col(M, n0))
    out[76] = k2(76, col(M, s0), n0p)
    out[77] = k2(77, s0p, col(M, n0))
    out[78] = k1(78, col(M, s0h))
    out[79] = k1(79, col(M, n0l))
    # FEATS.
    out[80] = k1(80, col(F, s0))
    out[81] = k1(81, col(F, n0))
    out[82] = k1(82, col(F, n1))
    out[83] = k2(83, col(F, s0), col(F, n0))
    out[84] = k3(84, s0p, col(F, s0), n0p)
    out[85] = k3(85, n0p, col(F, n0), s0p)
    out[86] = k1(86, col(F, s0h))
    out[87] = k1(87, col(F, s0l))
    out[88] = k1(88, col(F, n0l))
    out[89] = k1(89, col(F, s0r))
    # UPOS.
    out[90] = k2(90, col(C, s0), col(C, n0))
    out[91] = k3(91, col(C, s0), col(C, n0), col(C, n1))
    out[92] = k3(92, col(C, n0), col(C, n1), col(C, n2))
    out[93] = k3(93, col(C, s0h), col(C, s0), col(C, n0))
    if not words.read_morph:
        return 94
    cdef int t = 94, slot
    cdef uint64_t s0a, n0a
    for slot in range(BEAM_MORPH_SLOTS):
        s0a = morph_value(words, slot, s0)
        n0a = morph_value(words, slot, n0)
        out[t] = k1(t, s0a)
        out[t + 1] = k1(t + 1, n0a)
        out[t + 2] = k1(t + 2, morph_value(words, slot, n1))
        out[t + 3] = k2(t + 3, s0a, n0a)
        t += 4
    out[t] = k1(t, col(words.suffix, s0))
    out[t + 1] = k1(t + 1, col(words.suffix, n0))
    out[t + 2] = k1(t + 2, col(words.suffix, n1))
    return t + 3


cdef inline uint64_t morph_value(const WordColumns* words, int slot, int i) noexcept nogil:
    return <uint64_t>words.morph[slot * words.morph_stride + i] if i >= 0 else 0


N_TEMPLATES = 94
N_MORPH_TEMPLATES = 94 + 4 * BEAM_MORPH_SLOTS + 3
N_BEAM_MORPH_SLOTS = BEAM_MORPH_SLOTS


def state_keys(ArcEagerState state, word, tag, coarse, lemma, feats, morph=None,
               suffix=None) -> np.ndarray:
    """The keys of a Python-view state (for tests); each column holds the value ids of tokens
    0..n, token 0 being the root; morph (BEAM_MORPH_SLOTS rows) and suffix, when given, are
    read by the morph templates."""
    columns = [np.ascontiguousarray(values, dtype=np.int32)
               for values in (word, tag, coarse, lemma, feats)]
    if any(array.shape[0] != state.st.n + 1 for array in columns):
        raise ValueError("every column needs one value per token, root included")
    morph_rows = np.zeros((BEAM_MORPH_SLOTS, columns[0].shape[0]), dtype=np.int32)
    if morph is not None:
        morph_rows[...] = morph
    cdef const int32_t[::1] w = columns[0]
    cdef const int32_t[::1] t = columns[1]
    cdef const int32_t[::1] c = columns[2]
    cdef const int32_t[::1] m = columns[3]
    cdef const int32_t[::1] f = columns[4]
    cdef const int32_t[:, ::1] a = morph_rows
    cdef const int32_t[::1] x = np.ascontiguousarray(
        np.zeros(columns[0].shape[0]) if suffix is None else suffix, dtype=np.int32)
    cdef WordColumns words
    words.n = state.st.n
    words.word = &w[0]
    words.tag = &t[0]
    words.coarse = &c[0]
    words.lemma = &m[0]
    words.feats = &f[0]
    words.read_morph = morph is not None
    words.morph = &a[0, 0]
    words.morph_stride = a.shape[1]
    words.suffix = &x[0]
    out = np.empty(MAX_RICH_KEYS, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef int n = zn2011_keys(state.st, &words, &o[0])
    return out[:n]
