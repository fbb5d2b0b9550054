# The rich non-local feature templates of Zhang & Nivre (2011) for the beam-search parser, with
# lemma, FEATS and UPOS templates; each template gives one hashed 64-bit key.
from libc.stdint cimport int32_t, uint64_t

from polyparse.parser.dependency.arc_eager cimport StateC

cdef enum:
    MAX_RICH_KEYS = 128

cdef struct WordColumns:
    int n
    const int32_t* word     # index 0 is the root token (value 1); 2: unknown
    const int32_t* tag      # the tag column the templates read (XPOS by default)
    const int32_t* coarse   # UPOS
    const int32_t* lemma
    const int32_t* feats    # the whole FEATS string

cdef int zn2011_keys(const StateC* st, const WordColumns* words, uint64_t* out) noexcept nogil
