# Open-addressing hash map from 64-bit keys to dense int32 ids, usable without the GIL.
from libc.stdint cimport int32_t, int64_t, uint64_t

cdef uint64_t EMPTY_KEY


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    # splitmix64 finaliser (Steele, Lea & Flood 2014): a bijective avalanche mix of the key.
    x ^= x >> 30
    x *= <uint64_t>0xbf58476d1ce4e5b9
    x ^= x >> 27
    x *= <uint64_t>0x94d049bb133111eb
    x ^= x >> 31
    return x


cdef class KeyIndex:
    cdef uint64_t* slot_keys
    cdef int32_t* slot_values
    cdef uint64_t mask
    cdef readonly int64_t size

    cdef int _grow(self) except -1 nogil
    cdef int32_t get_or_insert(self, uint64_t key) except -2 nogil

    cdef inline int32_t get(self, uint64_t key) noexcept nogil:
        cdef uint64_t i = mix64(key) & self.mask
        cdef uint64_t k
        while True:
            k = self.slot_keys[i]
            if k == key:
                return self.slot_values[i]
            if k == EMPTY_KEY:
                return -1
            i = (i + 1) & self.mask
