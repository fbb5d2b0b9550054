# cython: language_level=3
"""Feature templates of the POS tagger as integer keys: key = template_id << 48 | value.

The templates are those of the classic feature-based taggers: Ratnaparkhi (1996) and Collins
(2002) (the word, its prefixes and suffixes up to 4 characters, its shape, the two words on
either side, the previous tag and the previous two tags), with Toutanova, Klein, Manning &
Singer (2003)'s lowercased word forms, word-pair and tag-word conjunctions, and the ambiguity
class of the word and of the next two words (the set of tags each took in training; Giménez &
Màrquez 2004, SVMTool), which stands in for the right-hand tags a left-to-right tagger cannot
see. `two-pass` adds the first pass's tags of the next two words (Toutanova et al. 2003's right
context, from a first tagger's output). Tag values are class id + 3 (0: no word, i.e. before
the sentence).
"""
from libc.stdint cimport int32_t, uint64_t

import numpy as np

# Template set name -> id; the names of their templates, in key order.
TEMPLATE_SETS = {"left": 0, "two-pass": 1}
LEFT_NAMES = (
    "w0.form", "w0.lower", "w0.suffix1", "w0.suffix2", "w0.suffix3", "w0.suffix4",
    "w0.prefix1", "w0.prefix2", "w0.prefix3", "w0.shape", "w0.ambiguity",
    "w-1.lower", "w+1.lower", "w-2.lower", "w+2.lower", "t-1", "t-2+t-1",
    "w+1.ambiguity", "w+2.ambiguity", "w-1.ambiguity", "w+1.suffix3", "w-1.suffix3",
    "w+1.shape", "t-1+w0.lower", "w-1.lower+w0.lower", "w0.lower+w+1.lower",
    "t-1+w+1.ambiguity", "t-1+w0.suffix3", "w0.ambiguity+w+1.ambiguity",
    "w-1.shape", "t-1+w+1.lower", "t-1+w0.shape", "w+1.lower+w+2.lower", "w-2.lower+w-1.lower",
)
TWO_PASS_NAMES = LEFT_NAMES + ("t'+1", "t'+1+t'+2", "t-1+t'+1", "w0.lower+t'+1")


def template_names(str template_set) -> tuple[str, ...]:
    return LEFT_NAMES if TEMPLATE_SETS[template_set] == 0 else TWO_PASS_NAMES


cdef int n_tag_templates(int template_set) noexcept nogil:
    return 34 if template_set == 0 else 38


cdef inline uint64_t key(int template, uint64_t value) noexcept nogil:
    return (<uint64_t>template << 48) | value


cdef inline uint64_t pair(uint64_t a, uint64_t b) noexcept nogil:
    return (a << 24) | (b & 0xFFFFFF)


cdef inline uint64_t attribute(const TagSentence* s, int i, int a) noexcept nogil:
    if i < 0 or i >= s.n:
        return 0
    return <uint64_t>s.lexicon[<Py_ssize_t>s.entry[i] * N_ATTRIBUTES + a]


cdef inline uint64_t left_tag(const TagSentence* s, int i) noexcept nogil:
    return <uint64_t>(s.tags[i] + 3) if i >= 0 else 0


cdef inline uint64_t right_tag(const TagSentence* s, int i) noexcept nogil:
    return <uint64_t>(s.right_tags[i] + 3) if i < s.n else 0


cdef int token_keys_at(const TagSentence* s, int i, int template_set,
                       uint64_t* out) noexcept nogil:
    """Write the keys of every template of the set for word i; return their number."""
    cdef uint64_t lower = attribute(s, i, A_LOWER)
    cdef uint64_t t1 = left_tag(s, i - 1)
    cdef uint64_t next_ambiguity = attribute(s, i + 1, A_AMBIGUITY)
    out[0] = key(0, attribute(s, i, A_FORM))
    out[1] = key(1, lower)
    out[2] = key(2, attribute(s, i, A_SUFFIX1))
    out[3] = key(3, attribute(s, i, A_SUFFIX2))
    out[4] = key(4, attribute(s, i, A_SUFFIX3))
    out[5] = key(5, attribute(s, i, A_SUFFIX4))
    out[6] = key(6, attribute(s, i, A_PREFIX1))
    out[7] = key(7, attribute(s, i, A_PREFIX2))
    out[8] = key(8, attribute(s, i, A_PREFIX3))
    out[9] = key(9, attribute(s, i, A_SHAPE))
    out[10] = key(10, attribute(s, i, A_AMBIGUITY))
    out[11] = key(11, attribute(s, i - 1, A_LOWER))
    out[12] = key(12, attribute(s, i + 1, A_LOWER))
    out[13] = key(13, attribute(s, i - 2, A_LOWER))
    out[14] = key(14, attribute(s, i + 2, A_LOWER))
    out[15] = key(15, t1)
    out[16] = key(16, pair(left_tag(s, i - 2), t1))
    out[17] = key(17, next_ambiguity)
    out[18] = key(18, attribute(s, i + 2, A_AMBIGUITY))
    out[19] = key(19, attribute(s, i - 1, A_AMBIGUITY))
    out[20] = key(20, attribute(s, i + 1, A_SUFFIX3))
    out[21] = key(21, attribute(s, i - 1, A_SUFFIX3))
    out[22] = key(22, attribute(s, i + 1, A_SHAPE))
    out[23] = key(23, pair(t1, lower))
    out[24] = key(24, pair(attribute(s, i - 1, A_LOWER), lower))
    out[25] = key(25, pair(lower, attribute(s, i + 1, A_LOWER)))
    out[26] = key(26, pair(t1, next_ambiguity))
    out[27] = key(27, pair(t1, attribute(s, i, A_SUFFIX3)))
    out[28] = key(28, pair(attribute(s, i, A_AMBIGUITY), next_ambiguity))
    out[29] = key(29, attribute(s, i - 1, A_SHAPE))
    out[30] = key(30, pair(t1, attribute(s, i + 1, A_LOWER)))
    out[31] = key(31, pair(t1, attribute(s, i, A_SHAPE)))
    out[32] = key(32, pair(attribute(s, i + 1, A_LOWER), attribute(s, i + 2, A_LOWER)))
    out[33] = key(33, pair(attribute(s, i - 2, A_LOWER), attribute(s, i - 1, A_LOWER)))
    if template_set == 0:
        return 34
    cdef uint64_t r1 = right_tag(s, i + 1)
    out[34] = key(34, r1)
    out[35] = key(35, pair(r1, right_tag(s, i + 2)))
    out[36] = key(36, pair(t1, r1))
    out[37] = key(37, pair(lower, r1))
    return 38


def token_keys(lexicon, entry, tags, right_tags, int i, str template_set) -> np.ndarray:
    """The template keys of word i of one sentence (for tests): lexicon (entries,
    N_ATTRIBUTES) attribute ids, entry the lexicon entry of each word, tags the class ids of
    the words left of i, right_tags the first-pass class ids (two-pass) or None."""
    cdef const int32_t[:, ::1] lex = np.ascontiguousarray(lexicon, dtype=np.int32)
    cdef const int32_t[::1] e = np.ascontiguousarray(entry, dtype=np.int32)
    cdef const int32_t[::1] t = np.ascontiguousarray(tags, dtype=np.int32)
    cdef const int32_t[::1] r
    cdef TagSentence s
    cdef int set_id = TEMPLATE_SETS[template_set]
    if lex.shape[1] != N_ATTRIBUTES:
        raise ValueError(f"the lexicon needs {N_ATTRIBUTES} attributes per entry")
    if not (0 <= i < e.shape[0] == t.shape[0]) or (e.shape[0] and np.max(entry) >= lex.shape[0]):
        raise ValueError("word i, tags and entries do not fit the sentence and lexicon")
    s.n = <int>e.shape[0]
    s.entry = &e[0]
    s.lexicon = &lex[0, 0]
    s.tags = &t[0]
    s.right_tags = NULL
    if set_id == 1:
        r = np.ascontiguousarray(right_tags, dtype=np.int32)
        if r.shape[0] != e.shape[0]:
            raise ValueError("right_tags needs one class id per word")
        s.right_tags = &r[0]
    out = np.empty(MAX_TAG_TEMPLATES, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef int n = token_keys_at(&s, i, set_id, &o[0])
    return out[:n]
