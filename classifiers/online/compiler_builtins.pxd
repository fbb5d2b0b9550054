# GCC/Clang builtins for the margins' inner loops: a read prefetch and a 64-bit popcount.
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    static inline void polyparse_prefetch(const void* address) {
        __builtin_prefetch(address, 0, 1);
    }
    static inline int polyparse_popcount(unsigned long long word) {
        return __builtin_popcountll(word);
    }
    """
    void prefetch "polyparse_prefetch"(const void* address) noexcept nogil
    int popcount "polyparse_popcount"(uint64_t word) noexcept nogil
