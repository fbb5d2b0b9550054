# The rich non-local feature templates of Zhang & Nivre (2011) for the beam-search parser, with
# lemma, FEATS and UPOS templates; each template gives one hashed 64-bit key.
from libc.stdint cimport int32_t, uint64_t

from polyparse.parser.dependency.arc_eager cimport StateC

cdef enum:
    MAX_RICH_KEYS = 128
    # The FEATS features of the morph columns (parser/dependency/morph_columns.py MORPH_SLOTS).
    BEAM_MORPH_SLOTS = 6

cdef struct WordColumns:
    int n
    const int32_t* word     # index 0 is the root token (value 1); 2: unknown
    const int32_t* tag      # the tag column the templates read (XPOS by default)
    const int32_t* coarse   # UPOS
    const int32_t* lemma
    const int32_t* feats    # the whole FEATS string
    # The morph columns (read when read_morph): BEAM_MORPH_SLOTS rows of atomic FEATS values,
    # row k of token i at morph[k * morph_stride + i]; the words' suffixes.
    bint read_morph
    const int32_t* morph
    Py_ssize_t morph_stride
    const int32_t* suffix

cdef int zn2011_keys(const StateC* st, const WordColumns* words, uint64_t* out) noexcept nogil
