# cython: language_level=3
"""Feature templates of the POS tagger as integer keys: key = template_id << 48 | value.

The templates are those of the classic feature-based taggers: Ratnaparkhi (1996) and Collins
(2002) (the word, its prefixes up to 3 characters and suffixes up to 6, its shape, the two
words on either side, the previous tag and the previous two tags), with Toutanova, Klein,
Manning & Singer (2003)'s lowercased word forms, word-pair and tag-word conjunctions, and the
ambiguity class of the word and of the next two words (the set of tags each took in training;
Giménez & Màrquez 2004, SVMTool), which stands in for the right-hand tags a left-to-right tagger
cannot see, and the set of FEATS the word and the next one took. `two-pass` adds the first pass's tags of the next two words (Toutanova et al. 2003's right
context, from a first tagger's output). Tag values are class id + 3 (0: no word, i.e. before
the sentence).

`morph` is the template set of the morphology classifiers (parser/tagging/morphology.py), which
run after the tagger and read its tags of every word (through right_tags): the word's affixes,
shape and ambiguity classes, its tag and those of the two words on either side, the
neighbours' words, endings and sets of FEATS (agreement, as in MarMoT, Mueller et al. 2013, and
MorphoDiTa's tagger, Strakova et al. 2014), and endings conjoined with the neighbours' tags.

Each set has a `+splits` version (`left+splits`, `two-pass+splits`, `morph+splits`: the
tagger's default, TaggerConfig.word_splits) that adds the word's splits into known words
(parser/tagging/lexicon.py: the ambiguity class of the longest known word it ends with, alone,
with the length of the rest and with the class of the rest; the class of the longest known word
it starts with and the length of the rest; its length), after the set's own templates and before
the two-pass right context, so that the keys of the sets without splits are those of models
trained before them.
"""
from libc.stdint cimport int32_t, uint64_t

import numpy as np

# Template set name -> id; the names of their templates, in key order. A `+splits` set's id is
# its base set's plus N_BASE_SETS.
TEMPLATE_SETS = {"left": 0, "two-pass": 1, "morph": 2, "left+splits": 3,
                 "two-pass+splits": 4, "morph+splits": 5}
SPLITS_SUFFIX = "+splits"
LEFT_NAMES = (
    "w0.form", "w0.lower", "w0.suffix1", "w0.suffix2", "w0.suffix3", "w0.suffix4",
    "w0.prefix1", "w0.prefix2", "w0.prefix3", "w0.shape", "w0.ambiguity",
    "w-1.lower", "w+1.lower", "w-2.lower", "w+2.lower", "t-1", "t-2+t-1",
    "w+1.ambiguity", "w+2.ambiguity", "w-1.ambiguity", "w+1.suffix3", "w-1.suffix3",
    "w+1.shape", "t-1+w0.lower", "w-1.lower+w0.lower", "w0.lower+w+1.lower",
    "t-1+w+1.ambiguity", "t-1+w0.suffix3", "w0.ambiguity+w+1.ambiguity",
    "w-1.shape", "t-1+w+1.lower", "t-1+w0.shape", "w+1.lower+w+2.lower", "w-2.lower+w-1.lower",
    "w0.suffix5", "w0.suffix6", "w0.morph_ambiguity", "w+1.morph_ambiguity",
)
RIGHT_NAMES = ("t'+1", "t'+1+t'+2", "t-1+t'+1", "w0.lower+t'+1")
TWO_PASS_NAMES = LEFT_NAMES + RIGHT_NAMES
MORPH_NAMES = (
    "w0.form", "w0.lower", "w0.suffix1", "w0.suffix2", "w0.suffix3", "w0.suffix4",
    "w0.prefix1", "w0.prefix2", "w0.prefix3", "w0.shape", "w0.ambiguity", "w0.suffix5",
    "w0.suffix6", "w0.morph_ambiguity", "t0", "t-1", "t+1",
    "t-2+t-1", "t+1+t+2", "w-1.lower", "w+1.lower", "w-1.suffix2", "w+1.suffix2",
    "w-1.suffix3", "w+1.suffix3", "t-1+w-1.suffix3", "t+1+w+1.suffix3", "t-1+w0.suffix3",
    "t+1+w0.suffix3", "w-1.morph_ambiguity", "w+1.morph_ambiguity", "w-2.morph_ambiguity",
    "w-1.morph_ambiguity+w0.suffix3",
)


SPLIT_NAMES = ("w0.split_tail", "w0.split_tail+head_length", "w0.split_tail+head",
               "w0.split_head", "w0.length")


def template_names(str template_set) -> tuple[str, ...]:
    cdef int set_id = TEMPLATE_SETS[template_set]
    cdef int base = set_id % N_BASE_SETS
    names = MORPH_NAMES if base == 2 else LEFT_NAMES
    if set_id >= N_BASE_SETS:
        names = names + SPLIT_NAMES
    return names + RIGHT_NAMES if base == 1 else names


def reads_right_tags(int set_id) -> bool:
    """Whether the template set (its id) reads right_tags: two-pass and morph."""
    return set_id % N_BASE_SETS != 0


def with_splits(str template_set, bint splits) -> str:
    """The name of the template set, or of its `+splits` version."""
    return template_set + SPLITS_SUFFIX if splits else template_set


cdef enum:
    N_LEFT = 38
    N_MORPH = 33
    N_RIGHT = 4
    N_SPLITS = 5


cdef int n_tag_templates(int template_set) noexcept nogil:
    cdef int base = template_set % N_BASE_SETS
    cdef int n = N_MORPH if base == 2 else N_LEFT
    if template_set >= N_BASE_SETS:
        n += N_SPLITS
    return n + N_RIGHT if base == 1 else n


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


cdef inline uint64_t tagged(const TagSentence* s, int i) noexcept nogil:
    return <uint64_t>(s.right_tags[i] + 3) if 0 <= i < s.n else 0


cdef int morph_keys_at(const TagSentence* s, int i, uint64_t* out) noexcept nogil:
    """The `morph` keys of word i, whose right_tags are the tagger's tags of every word."""
    cdef uint64_t suffix3 = attribute(s, i, A_SUFFIX3)
    cdef uint64_t t_left = tagged(s, i - 1)
    cdef uint64_t t_right = tagged(s, i + 1)
    cdef int a
    for a in range(N_BASE_ATTRIBUTES):
        out[a] = key(a, attribute(s, i, a))
    out[14] = key(14, tagged(s, i))
    out[15] = key(15, t_left)
    out[16] = key(16, t_right)
    out[17] = key(17, pair(tagged(s, i - 2), t_left))
    out[18] = key(18, pair(t_right, tagged(s, i + 2)))
    out[19] = key(19, attribute(s, i - 1, A_LOWER))
    out[20] = key(20, attribute(s, i + 1, A_LOWER))
    out[21] = key(21, attribute(s, i - 1, A_SUFFIX2))
    out[22] = key(22, attribute(s, i + 1, A_SUFFIX2))
    out[23] = key(23, attribute(s, i - 1, A_SUFFIX3))
    out[24] = key(24, attribute(s, i + 1, A_SUFFIX3))
    out[25] = key(25, pair(t_left, attribute(s, i - 1, A_SUFFIX3)))
    out[26] = key(26, pair(t_right, attribute(s, i + 1, A_SUFFIX3)))
    out[27] = key(27, pair(t_left, suffix3))
    out[28] = key(28, pair(t_right, suffix3))
    out[29] = key(29, attribute(s, i - 1, A_MORPH_AMBIGUITY))
    out[30] = key(30, attribute(s, i + 1, A_MORPH_AMBIGUITY))
    out[31] = key(31, attribute(s, i - 2, A_MORPH_AMBIGUITY))
    out[32] = key(32, pair(attribute(s, i - 1, A_MORPH_AMBIGUITY), suffix3))
    return N_MORPH


cdef int split_keys_at(const TagSentence* s, int i, int first, uint64_t* out) noexcept nogil:
    """The keys of word i's splits into known words, from template first on; the next one."""
    out[first] = key(first, attribute(s, i, A_SPLIT_TAIL))
    out[first + 1] = key(first + 1, attribute(s, i, A_SPLIT_TAIL_HEAD_LENGTH))
    out[first + 2] = key(first + 2, attribute(s, i, A_SPLIT_TAIL_HEAD))
    out[first + 3] = key(first + 3, attribute(s, i, A_SPLIT_HEAD))
    out[first + 4] = key(first + 4, attribute(s, i, A_LENGTH))
    return first + N_SPLITS


cdef int right_keys_at(const TagSentence* s, int i, int first, uint64_t* out) noexcept nogil:
    """The keys of the first pass's tags of the next words, from template first on; the next
    one."""
    cdef uint64_t r1 = right_tag(s, i + 1)
    cdef uint64_t t1 = left_tag(s, i - 1)
    out[first] = key(first, r1)
    out[first + 1] = key(first + 1, pair(r1, right_tag(s, i + 2)))
    out[first + 2] = key(first + 2, pair(t1, r1))
    out[first + 3] = key(first + 3, pair(attribute(s, i, A_LOWER), r1))
    return first + N_RIGHT


cdef int token_keys_at(const TagSentence* s, int i, int template_set,
                       uint64_t* out) noexcept nogil:
    """Write the keys of every template of the set for word i; return their number."""
    cdef int base = template_set % N_BASE_SETS
    cdef int n = morph_keys_at(s, i, out) if base == 2 else left_keys_at(s, i, out)
    if template_set >= N_BASE_SETS:
        n = split_keys_at(s, i, n, out)
    if base == 1:
        n = right_keys_at(s, i, n, out)
    return n


cdef int left_keys_at(const TagSentence* s, int i, uint64_t* out) noexcept nogil:
    """The keys of the `left` templates of word i."""
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
    out[34] = key(34, attribute(s, i, A_SUFFIX5))
    out[35] = key(35, attribute(s, i, A_SUFFIX6))
    out[36] = key(36, attribute(s, i, A_MORPH_AMBIGUITY))
    out[37] = key(37, attribute(s, i + 1, A_MORPH_AMBIGUITY))
    return N_LEFT


def token_keys(lexicon, entry, tags, right_tags, int i, str template_set) -> np.ndarray:
    """The template keys of word i of one sentence (for tests): lexicon (entries,
    N_ATTRIBUTES) attribute ids, entry the lexicon entry of each word, tags the class ids of
    the words left of i, right_tags the first-pass class ids (two-pass; morph: the tagger's
    class of every word) or None."""
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
    if reads_right_tags(set_id):
        r = np.ascontiguousarray(right_tags, dtype=np.int32)
        if r.shape[0] != e.shape[0]:
            raise ValueError("right_tags needs one class id per word")
        s.right_tags = &r[0]
    out = np.empty(MAX_TAG_TEMPLATES, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef int n = token_keys_at(&s, i, set_id, &o[0])
    return out[:n]
