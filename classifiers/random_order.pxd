# Random orders from a seed, without the GIL: the splitmix64 generator (Steele, Lea & Flood
# 2014) and the two Fisher-Yates shuffles the online and dual solvers visit their rows in.
from libc.stdint cimport int32_t, int64_t, uint64_t

from polyparse.features.key_index cimport mix64


cdef inline uint64_t next_random(uint64_t* state) noexcept nogil:
    # splitmix64: the state moves on by the golden gamma; the draw is its mix64.
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    return mix64(state[0])


cdef inline int64_t random_below(uint64_t* state, int64_t n) noexcept nogil:
    # Uniform in [0, n) for n < 2**32 by multiply-shift (Lemire 2019, without rejection).
    return <int64_t>(((next_random(state) >> 32) * <uint64_t>n) >> 32)


cdef inline void shuffle_from_back(int32_t* order, int64_t n, uint64_t* state) noexcept nogil:
    # Fisher-Yates shuffle of order[0..n) in place, from the back: order[i] swaps with
    # order[draw mod (i + 1)].
    cdef int64_t i, j
    cdef int32_t value
    i = n - 1
    while i > 0:
        j = <int64_t>(next_random(state) % <uint64_t>(i + 1))
        value = order[i]
        order[i] = order[j]
        order[j] = value
        i -= 1


cdef inline void shuffle_from_front(int64_t* order, int64_t n, uint64_t* state) noexcept nogil:
    # Fisher-Yates shuffle of order[0..n) in place, from the front: order[s] swaps with
    # order[s + random_below(n - s)] (one draw for every s, the last one included).
    cdef int64_t s, t
    for s in range(n):
        t = s + random_below(state, n - s)
        order[s], order[t] = order[t], order[s]
