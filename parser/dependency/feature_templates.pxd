# Feature templates of the arc-eager parser: each produces one 64-bit key (template id, value).
from libc.stdint cimport int32_t, uint64_t

from polyparse.parser.dependency.arc_eager cimport StateC

cdef enum:
    CHANG2010 = 0
    RICH = 1
    MORPH = 2
    MAX_TEMPLATES = 96
    # The morphological slots of the morph set: the FEATS features a model reads (the
    # treebank's most frequent feature names), each a row of SentenceC.morph.
    MORPH_SLOTS = 6  # parser/dependency/morph_columns.py MORPH_SLOTS

# Reserved value ids shared by the word, tag and label interners.
cdef enum:
    VALUE_NONE = 0      # no such token
    VALUE_ROOT = 1      # the artificial root token / no label yet
    VALUE_UNKNOWN = 2   # a string not seen in training

cdef struct SentenceC:
    int n
    const int32_t* word   # index 0 is the root token
    const int32_t* tag    # the tag column used by the templates (XPOS by default)
    const int32_t* coarse # UPOS
    # The morph set's columns (other sets never read them): MORPH_SLOTS rows of feature
    # values, row k of token i at morph[k * morph_stride + i]; the word's suffix.
    const int32_t* morph
    Py_ssize_t morph_stride
    const int32_t* suffix

cdef inline void sentence_at(SentenceC* sent, const int32_t* word, const int32_t* tag,
                             const int32_t* coarse, int n) noexcept nogil:
    """Point `sent` at one sentence of n words whose token 0 (the root) is at the pointers."""
    sent.n = n
    sent.word = word
    sent.tag = tag
    sent.coarse = coarse
    sent.morph = word
    sent.morph_stride = 0
    sent.suffix = word

cdef inline void morph_at(SentenceC* sent, const int32_t* morph, Py_ssize_t morph_stride,
                          const int32_t* suffix) noexcept nogil:
    """Point `sent` at the morph set's columns of the same sentence (morph: its first token's
    value in row 0; morph_stride: the distance between rows)."""
    sent.morph = morph
    sent.morph_stride = morph_stride
    sent.suffix = suffix


cdef int n_templates(int feature_set) noexcept nogil
cdef int extract_keys(const StateC* st, const SentenceC* sent, int feature_set,
                      uint64_t* out) noexcept nogil
