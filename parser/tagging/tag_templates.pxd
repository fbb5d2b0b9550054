# Feature templates of the POS tagger: each produces one 64-bit key (template id, value).
from libc.stdint cimport int32_t, uint64_t

cdef enum:
    # The attributes of a lexicon entry (a word form), one int32 id each (0: no token,
    # 2: a string unseen in training).
    A_FORM = 0
    A_LOWER = 1
    A_SUFFIX1 = 2
    A_SUFFIX2 = 3
    A_SUFFIX3 = 4
    A_SUFFIX4 = 5
    A_PREFIX1 = 6
    A_PREFIX2 = 7
    A_PREFIX3 = 8
    A_SHAPE = 9
    A_AMBIGUITY = 10
    A_SUFFIX5 = 11
    A_SUFFIX6 = 12
    A_MORPH_AMBIGUITY = 13
    # The word splits of parser/tagging/lexicon.py, read by the `+splits` template sets alone.
    A_SPLIT_TAIL = 14
    A_SPLIT_TAIL_HEAD_LENGTH = 15
    A_SPLIT_TAIL_HEAD = 16
    A_SPLIT_HEAD = 17
    A_LENGTH = 18
    N_BASE_ATTRIBUTES = 14
    N_ATTRIBUTES = 19
    MAX_TAG_TEMPLATES = 48
    # left, two-pass, morph; their `+splits` versions come after them.
    N_BASE_SETS = 3

cdef struct TagSentence:
    int n
    const int32_t* entry      # lexicon entry of each word 0..n-1
    const int32_t* lexicon    # N_ATTRIBUTES ids per entry
    const int32_t* tags       # class ids of the words already tagged (left of the current one)
    const int32_t* right_tags # first-pass class ids of every word, or NULL (one-pass sets)

cdef int n_tag_templates(int template_set) noexcept nogil
cdef int token_keys_at(const TagSentence* s, int i, int template_set,
                       uint64_t* out) noexcept nogil
