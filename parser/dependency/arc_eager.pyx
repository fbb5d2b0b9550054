# cython: language_level=3
"""Arc-eager transitions (Nivre 2003) with a per-state validity mask and Nivre's static oracle.

Moves: SHIFT pushes b0; REDUCE pops s0 (which must have a head); LEFT-ARC(l) makes b0 the head
of s0 and pops it; RIGHT-ARC(l) makes s0 the head of b0 and pushes b0. The root 0 starts on the
stack; parsing ends when the buffer is empty.

Single-root mode (UD) attaches the root last, as the root-at-the-end arc-eager system of
Ballesteros & Nivre (2013): no arc ever leaves 0 while parsing, and when the buffer is empty the
one word left without a head becomes the dependent of 0 (in `finish`). Two constraints keep
every reachable state completable into such a tree, so no repair is ever needed:
  - RIGHT-ARC from 0 is invalid;
  - with one word n left in the buffer, SHIFT is valid only if no stack word is headless (n
    becomes the root) and RIGHT-ARC only if at most one is (that one becomes the root).
Both hold for the static oracle on any projective single-rooted tree. (Attaching the root
first, from the bottom of the stack, gave 0.7 UAS less on EWT dev: 86.22 against 86.95 with
the default model; its root decisions come too early.)
Without single_root (CoNLL-X treebanks with several roots) the plain system is used and words
left headless at the end are attached to 0.
"""
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

import numpy as np

MOVE_NAMES = ("S", "D", "L", "R")


cdef StateC* state_new(int n, bint single_root) except NULL nogil:
    cdef StateC* st = <StateC*>calloc(1, sizeof(StateC))
    cdef int size = n + 2
    if st == NULL:
        with gil:
            raise MemoryError()
    st.stack = <int*>malloc(size * sizeof(int))
    st.heads = <int*>malloc(size * sizeof(int))
    st.labels = <int*>malloc(size * sizeof(int))
    st.leftmost = <int*>malloc(size * sizeof(int))
    st.leftmost2 = <int*>malloc(size * sizeof(int))
    st.rightmost = <int*>malloc(size * sizeof(int))
    st.rightmost2 = <int*>malloc(size * sizeof(int))
    st.n_left = <int*>malloc(size * sizeof(int))
    st.n_right = <int*>malloc(size * sizeof(int))
    st.left_labels = <uint64_t*>malloc(size * sizeof(uint64_t))
    st.right_labels = <uint64_t*>malloc(size * sizeof(uint64_t))
    if (st.stack == NULL or st.heads == NULL or st.labels == NULL or st.leftmost == NULL
            or st.leftmost2 == NULL or st.rightmost == NULL or st.rightmost2 == NULL
            or st.n_left == NULL or st.n_right == NULL or st.left_labels == NULL
            or st.right_labels == NULL):
        state_free(st)
        with gil:
            raise MemoryError()
    st.single_root = single_root
    state_reset(st, n)
    return st


cdef void state_free(StateC* st) noexcept nogil:
    if st == NULL:
        return
    free(st.stack)
    free(st.heads)
    free(st.labels)
    free(st.leftmost)
    free(st.leftmost2)
    free(st.rightmost)
    free(st.rightmost2)
    free(st.n_left)
    free(st.n_right)
    free(st.left_labels)
    free(st.right_labels)
    free(st)


cdef void state_reset(StateC* st, int n) noexcept nogil:
    """Initial configuration for a sentence of n words (arrays must hold n + 2 entries)."""
    cdef int i
    st.n = n
    st.stack[0] = 0
    st.stack_len = 1
    st.buffer = 1
    for i in range(n + 1):
        st.heads[i] = -1
        st.labels[i] = -1
        st.leftmost[i] = -1
        st.leftmost2[i] = -1
        st.rightmost[i] = -1
        st.rightmost2[i] = -1
        st.n_left[i] = 0
        st.n_right[i] = 0
        st.left_labels[i] = 0
        st.right_labels[i] = 0


cdef void state_copy(StateC* dst, const StateC* src) noexcept nogil:
    """Make dst the configuration of src (dst's arrays must hold src.n + 2 entries)."""
    cdef size_t words = <size_t>(src.n + 1)
    dst.n = src.n
    dst.stack_len = src.stack_len
    dst.buffer = src.buffer
    dst.single_root = src.single_root
    memcpy(dst.stack, src.stack, src.stack_len * sizeof(int))
    memcpy(dst.heads, src.heads, words * sizeof(int))
    memcpy(dst.labels, src.labels, words * sizeof(int))
    memcpy(dst.leftmost, src.leftmost, words * sizeof(int))
    memcpy(dst.leftmost2, src.leftmost2, words * sizeof(int))
    memcpy(dst.rightmost, src.rightmost, words * sizeof(int))
    memcpy(dst.rightmost2, src.rightmost2, words * sizeof(int))
    memcpy(dst.n_left, src.n_left, words * sizeof(int))
    memcpy(dst.n_right, src.n_right, words * sizeof(int))
    memcpy(dst.left_labels, src.left_labels, words * sizeof(uint64_t))
    memcpy(dst.right_labels, src.right_labels, words * sizeof(uint64_t))


cdef bint is_final(const StateC* st) noexcept nogil:
    return st.buffer > st.n


cdef inline int count_headless(const StateC* st) noexcept nogil:
    """Number of stack words other than 0 without a head."""
    cdef int i, count = 0
    for i in range(1, st.stack_len):
        count += st.heads[st.stack[i]] < 0
    return count


cdef int valid_moves(const StateC* st, bint* valid) noexcept nogil:
    """Fill valid[N_MOVES]; return how many moves are valid."""
    cdef int s0 = stack_at(st, 0)
    cdef int remaining = st.n - st.buffer + 1
    cdef int count = 0
    valid[SHIFT] = remaining > 0
    valid[REDUCE] = s0 > 0 and st.heads[s0] >= 0
    valid[LEFT] = remaining > 0 and s0 > 0 and st.heads[s0] < 0
    valid[RIGHT] = remaining > 0 and s0 >= 0
    cdef int headless
    if st.single_root:
        if s0 == 0:
            valid[RIGHT] = False
        if remaining == 1:
            headless = count_headless(st)
            valid[SHIFT] = headless == 0
            valid[RIGHT] = valid[RIGHT] and headless <= 1
    else:
        if s0 == 0 and remaining == 0:
            valid[REDUCE] = False
    count = valid[SHIFT] + valid[REDUCE] + valid[LEFT] + valid[RIGHT]
    return count


cdef inline void add_arc(StateC* st, int head, int child, int label) noexcept nogil:
    st.heads[child] = head
    st.labels[child] = label
    if child < head:
        st.n_left[head] += 1
        st.left_labels[head] |= <uint64_t>1 << (label & 63)
        if st.leftmost[head] < 0 or child < st.leftmost[head]:
            st.leftmost2[head] = st.leftmost[head]
            st.leftmost[head] = child
        elif st.leftmost2[head] < 0 or child < st.leftmost2[head]:
            st.leftmost2[head] = child
    else:
        st.n_right[head] += 1
        st.right_labels[head] |= <uint64_t>1 << (label & 63)
        if st.rightmost[head] < 0 or child > st.rightmost[head]:
            st.rightmost2[head] = st.rightmost[head]
            st.rightmost[head] = child
        elif st.rightmost2[head] < 0 or child > st.rightmost2[head]:
            st.rightmost2[head] = child


cdef void apply_move(StateC* st, int move, int label) noexcept nogil:
    cdef int s0 = stack_at(st, 0)
    cdef int b0 = st.buffer
    if move == SHIFT:
        st.stack[st.stack_len] = b0
        st.stack_len += 1
        st.buffer += 1
    elif move == REDUCE:
        st.stack_len -= 1
    elif move == LEFT:
        add_arc(st, b0, s0, label)
        st.stack_len -= 1
    elif move == RIGHT:
        add_arc(st, s0, b0, label)
        st.stack[st.stack_len] = b0
        st.stack_len += 1
        st.buffer += 1


cdef int oracle_move(const StateC* st, const int32_t* gold_heads) noexcept nogil:
    """Static oracle for a projective gold tree (Nivre 2003; MaltParser's arc-eager oracle).

    gold_heads[i] is the head of word i (gold_heads[0] unused). LEFT if b0 heads s0, RIGHT if
    s0 heads b0, REDUCE as soon as s0 is attached and none of its gold dependents is left in
    the buffer, SHIFT otherwise. (Reducing early rather than only when b0 needs a deeper stack
    word, as in Goldberg & Nivre 2012, Alg. 1, gave 0.5 UAS more on EWT dev: 86.22 against
    85.73 with the default model and the root attached first.)
    """
    cdef int s0 = stack_at(st, 0)
    cdef int b0 = st.buffer
    cdef int w
    if b0 > st.n:
        return REDUCE
    if s0 > 0 and gold_heads[s0] == b0:
        return LEFT
    if s0 >= 0 and gold_heads[b0] == s0 and (s0 > 0 or not st.single_root):
        return RIGHT
    if s0 > 0 and st.heads[s0] >= 0:
        for w in range(b0, st.n + 1):
            if gold_heads[w] == s0:
                return SHIFT
        return REDUCE
    return SHIFT


cdef inline bint on_stack(const StateC* st, int word) noexcept nogil:
    cdef int i
    for i in range(st.stack_len):
        if st.stack[i] == word:
            return True
    return False


cdef int move_cost(const StateC* st, int move, const int32_t* gold_heads) noexcept nogil:
    """Dynamic oracle (Goldberg & Nivre 2012, section 3): gold arcs a move makes unreachable.

    With s = s0, b = b0 and beta the buffer after b:
      LEFT   [h(s) in beta] + #{k in b|beta : h(k) = s}
      RIGHT  [h(b) != s and h(b) on the stack or in beta] + #{headless k on the stack : h(k) = b}
      REDUCE #{k in b|beta : h(k) = s}
      SHIFT  [h(b) on the stack] + #{headless k on the stack : h(k) = b}
    With the root attached last, the arc from 0 stays reachable while its dependent is
    headless: LEFT loses it when h(s) = 0, and SHIFT does not count 0 as a head on the stack.
    Exact for the unconstrained system; near the end of a sentence the single-root constraints
    can make further arcs unreachable, which these costs do not count.
    """
    cdef int s = stack_at(st, 0)
    cdef int b = st.buffer
    cdef int cost = 0, k, i
    if move == LEFT or move == REDUCE:
        for k in range(b, st.n + 1):
            if gold_heads[k] == s:
                cost += 1
        if move == LEFT and s > 0 and (gold_heads[s] > b
                                       or (st.single_root and gold_heads[s] == 0)):
            cost += 1
        return cost
    for i in range(st.stack_len):
        k = st.stack[i]
        if k > 0 and st.heads[k] < 0 and gold_heads[k] == b:
            cost += 1
    if move == SHIFT:
        if st.single_root and gold_heads[b] == 0:
            return cost
        return cost + on_stack(st, gold_heads[b])
    if gold_heads[b] != s and (gold_heads[b] > b or on_stack(st, gold_heads[b])):
        cost += 1
    return cost


cdef void finish(StateC* st, int root_label) noexcept nogil:
    """Attach the words left headless at the end to 0 (exactly one with single_root)."""
    cdef int i
    for i in range(1, st.n + 1):
        if st.heads[i] < 0:
            add_arc(st, 0, i, root_label)


cdef class ArcEagerState:
    """Python view of a StateC, driven by move strings ("S", "D", "L-nsubj", "R-obj").

    Label names get ids in order of first use, after those of `labels` if given (so that the
    ids can match a parser's label vocabulary).
    """

    def __cinit__(self, int n, bint single_root=True, labels=()):
        self.st = state_new(n, single_root)
        self.label_names = list(labels)
        self.label_ids = {name: i for i, name in enumerate(self.label_names)}

    def __dealloc__(self):
        state_free(self.st)

    def label_id(self, str name) -> int:
        if name not in self.label_ids:
            self.label_ids[name] = len(self.label_names)
            self.label_names.append(name)
        return self.label_ids[name]

    @property
    def stack(self) -> list[int]:
        return [self.st.stack[i] for i in range(self.st.stack_len)]

    @property
    def buffer(self) -> list[int]:
        return list(range(self.st.buffer, self.st.n + 1))

    @property
    def heads(self) -> list[int]:
        return [self.st.heads[i] for i in range(1, self.st.n + 1)]

    @property
    def labels(self) -> list[str | None]:
        return [self.label_names[self.st.labels[i]] if self.st.labels[i] >= 0 else None
                for i in range(1, self.st.n + 1)]

    @property
    def is_final(self) -> bool:
        return is_final(self.st)

    def children(self, int word) -> dict[str, int]:
        return {"leftmost": self.st.leftmost[word], "leftmost2": self.st.leftmost2[word],
                "rightmost": self.st.rightmost[word], "rightmost2": self.st.rightmost2[word],
                "n_left": self.st.n_left[word], "n_right": self.st.n_right[word]}

    def valid(self) -> set[str]:
        cdef bint valid[N_MOVES]
        valid_moves(self.st, valid)
        return {MOVE_NAMES[m] for m in range(N_MOVES) if valid[m]}

    def apply(self, str move) -> None:
        kind, _, label = move.partition("-")
        if kind not in MOVE_NAMES:
            raise ValueError(f"unknown move {move!r}")
        code = MOVE_NAMES.index(kind)
        if kind not in self.valid():
            raise ValueError(f"move {move!r} is not valid in this state")
        apply_move(self.st, code, self.label_id(label) if label else -1)
        if is_final(self.st):
            finish(self.st, self.label_id("root"))

    def cost(self, str move, gold_heads) -> int:
        """The dynamic oracle's cost of a move (gold heads for words 1..n)."""
        cdef int32_t[::1] gold = np.asarray([0] + list(gold_heads), dtype=np.int32)
        return move_cost(self.st, MOVE_NAMES.index(move[0]), &gold[0])

    def oracle(self, gold_heads) -> str:
        """The static oracle's move name for gold heads given as a list for words 1..n."""
        cdef int32_t[::1] gold = np.asarray([0] + list(gold_heads), dtype=np.int32)
        return MOVE_NAMES[oracle_move(self.st, &gold[0])]


SHIFT_MOVE, REDUCE_MOVE, LEFT_MOVE, RIGHT_MOVE = SHIFT, REDUCE, LEFT, RIGHT
