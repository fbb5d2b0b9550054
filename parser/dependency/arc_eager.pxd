# Arc-eager transition system (Nivre 2003): state, moves, validity mask and static oracle.
from libc.stdint cimport int32_t, uint64_t

cdef enum:
    SHIFT = 0
    REDUCE = 1
    LEFT = 2
    RIGHT = 3
    N_MOVES = 4

cdef struct StateC:
    int n                 # words 1..n; 0 is the artificial root, kept at the bottom of the stack
    int* stack
    int stack_len
    int buffer            # index of the first buffer word; > n when the buffer is empty
    int* heads            # -1 while unattached
    int* labels           # label id of the arc into the word, -1 while unattached
    int* leftmost         # leftmost / second leftmost / rightmost / second rightmost child, -1 if none
    int* leftmost2
    int* rightmost
    int* rightmost2
    int* n_left           # number of left and right children (valency)
    int* n_right
    uint64_t* left_labels   # the labels of the left / right children, bit (label mod 64)
    uint64_t* right_labels
    bint single_root

cdef StateC* state_new(int n, bint single_root) except NULL nogil
cdef void state_free(StateC* st) noexcept nogil
cdef void state_reset(StateC* st, int n) noexcept nogil
cdef void state_copy(StateC* dst, const StateC* src) noexcept nogil
cdef bint is_final(const StateC* st) noexcept nogil
cdef int valid_moves(const StateC* st, bint* valid) noexcept nogil
cdef void apply_move(StateC* st, int move, int label) noexcept nogil
cdef int oracle_move(const StateC* st, const int32_t* gold_heads) noexcept nogil
cdef void finish(StateC* st, int root_label) noexcept nogil
cdef int move_cost(const StateC* st, int move, const int32_t* gold_heads) noexcept nogil

cdef inline int stack_at(const StateC* st, int depth) noexcept nogil:
    """Word at depth `depth` of the stack (0 = top), -1 when the stack is not that deep."""
    if depth < st.stack_len:
        return st.stack[st.stack_len - 1 - depth]
    return -1

cdef inline int buffer_at(const StateC* st, int offset) noexcept nogil:
    """Word at position `offset` of the buffer (0 = front), -1 past its end."""
    cdef int i = st.buffer + offset
    if i <= st.n:
        return i
    return -1


cdef class ArcEagerState:
    cdef StateC* st
    cdef list label_names
    cdef dict label_ids
