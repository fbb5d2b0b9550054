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


cdef inline int32_t probe(const uint64_t* slot_keys, const int32_t* slot_values, uint64_t mask,
                          uint64_t key) noexcept nogil:
    # Linear probing from the key's mixed hash: the key's id, or -1 when it is absent.
    cdef uint64_t i = mix64(key) & mask
    cdef uint64_t k
    while True:
        k = slot_keys[i]
        if k == key:
            return slot_values[i]
        if k == EMPTY_KEY:
            return -1
        i = (i + 1) & mask


cdef struct KeySlots:
    # A KeyIndex's table, for C structs that look keys up without holding the object; valid
    # while the index lives and takes no new key.
    const uint64_t* keys
    const int32_t* values
    uint64_t mask


cdef inline int32_t slots_get(const KeySlots* slots, uint64_t key) noexcept nogil:
    return probe(slots.keys, slots.values, slots.mask, key)


cdef class KeyIndex:
    cdef uint64_t* slot_keys
    cdef int32_t* slot_values
    cdef uint64_t mask
    cdef readonly int64_t size

    cdef int _grow(self) except -1 nogil
    cdef int32_t get_or_insert(self, uint64_t key) except -2 nogil

    cdef inline int32_t get(self, uint64_t key) noexcept nogil:
        return probe(self.slot_keys, self.slot_values, self.mask, key)

    cdef inline KeySlots slots(self) noexcept nogil:
        cdef KeySlots view
        view.keys = self.slot_keys
        view.values = self.slot_values
        view.mask = self.mask
        return view
