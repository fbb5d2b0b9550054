# cython: language_level=3
"""KeyIndex: a linear-probing hash map uint64 key -> int32 id (ids 0..size-1 in insertion order).

Used for the feature vocabulary (template key -> frequency rank), for condensed conjunction
indices (feature pair -> weight row) and for the feature ids a compiled evaluator knows (id ->
its rank or posting list, so that no table is sized by the largest id). Lookups are inline and
GIL-free (see key_index.pxd); the table is rebuilt from its (keys, ids) arrays on load, so files
hold no hash layout.
"""
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

import numpy as np

cdef uint64_t EMPTY_KEY = 0xFFFFFFFFFFFFFFFF


cdef class KeyIndex:
    def __cinit__(self, int64_t capacity=16):
        cdef uint64_t slots = 16
        while slots < <uint64_t>(2 * capacity):
            slots <<= 1
        self.slot_keys = <uint64_t*>malloc(slots * sizeof(uint64_t))
        self.slot_values = <int32_t*>malloc(slots * sizeof(int32_t))
        if self.slot_keys == NULL or self.slot_values == NULL:
            raise MemoryError()
        memset(self.slot_keys, 0xFF, slots * sizeof(uint64_t))
        self.mask = slots - 1
        self.size = 0

    def __dealloc__(self):
        free(self.slot_keys)
        free(self.slot_values)

    def __len__(self) -> int:
        return self.size

    cdef int _grow(self) except -1 nogil:
        cdef uint64_t old_slots = self.mask + 1
        cdef uint64_t new_slots = old_slots * 2
        cdef uint64_t* old_keys = self.slot_keys
        cdef int32_t* old_values = self.slot_values
        cdef uint64_t* new_keys = <uint64_t*>malloc(new_slots * sizeof(uint64_t))
        cdef int32_t* new_values = <int32_t*>malloc(new_slots * sizeof(int32_t))
        cdef uint64_t s, i, k
        if new_keys == NULL or new_values == NULL:
            free(new_keys)
            free(new_values)
            with gil:
                raise MemoryError()
        memset(new_keys, 0xFF, new_slots * sizeof(uint64_t))
        for s in range(old_slots):
            k = old_keys[s]
            if k != EMPTY_KEY:
                i = mix64(k) & (new_slots - 1)
                while new_keys[i] != EMPTY_KEY:
                    i = (i + 1) & (new_slots - 1)
                new_keys[i] = k
                new_values[i] = old_values[s]
        self.slot_keys = new_keys
        self.slot_values = new_values
        self.mask = new_slots - 1
        free(old_keys)
        free(old_values)
        return 0

    cdef int32_t get_or_insert(self, uint64_t key) except -2 nogil:
        """Id of `key`, inserting it with the next free id when absent."""
        cdef uint64_t i = mix64(key) & self.mask
        cdef uint64_t k
        if key == EMPTY_KEY:
            with gil:
                raise ValueError("key 2**64-1 is reserved")
        while True:
            k = self.slot_keys[i]
            if k == key:
                return self.slot_values[i]
            if k == EMPTY_KEY:
                break
            i = (i + 1) & self.mask
        if self.size >= 0x7FFFFFFF:
            with gil:
                raise OverflowError("KeyIndex holds at most 2**31-1 keys")
        self.slot_keys[i] = key
        self.slot_values[i] = <int32_t>self.size
        self.size += 1
        if 2 * <uint64_t>self.size > self.mask + 1:
            self._grow()
        return <int32_t>(self.size - 1)

    @classmethod
    def from_keys(cls, keys) -> "KeyIndex":
        """Index whose key keys[i] has id i; keys must be distinct."""
        cdef const uint64_t[::1] k = np.ascontiguousarray(keys, dtype=np.uint64)
        cdef KeyIndex index = cls(k.shape[0])
        cdef Py_ssize_t n = k.shape[0], j
        with nogil:
            for j in range(n):
                if index.get_or_insert(k[j]) != j:
                    with gil:
                        raise ValueError(f"duplicate key {k[j]} at position {j}")
        return index

    def keys(self) -> np.ndarray:
        """All keys ordered by id (so that from_keys(index.keys()) rebuilds the same index)."""
        out = np.empty(self.size, dtype=np.uint64)
        cdef uint64_t[::1] o = out
        cdef uint64_t s
        with nogil:
            for s in range(self.mask + 1):
                if self.slot_keys[s] != EMPTY_KEY:
                    o[self.slot_values[s]] = self.slot_keys[s]
        return out

    @property
    def nbytes(self) -> int:
        """Bytes of the table: an 8-byte key and a 4-byte id per slot."""
        return int((self.mask + 1) * (sizeof(uint64_t) + sizeof(int32_t)))

    def lookup(self, keys) -> np.ndarray:
        """Ids of many keys at once, -1 for absent keys."""
        return self._ids(keys, False)

    def add(self, keys) -> np.ndarray:
        """Ids of many keys, inserting the absent ones in order."""
        return self._ids(keys, True)

    def _ids(self, keys, bint insert) -> np.ndarray:
        cdef const uint64_t[::1] k = np.ascontiguousarray(keys, dtype=np.uint64).ravel()
        out = np.empty(k.shape[0], dtype=np.int32)
        cdef int32_t[::1] o = out
        cdef Py_ssize_t j
        with nogil:
            for j in range(k.shape[0]):
                o[j] = self.get_or_insert(k[j]) if insert else self.get(k[j])
        return out.reshape(np.shape(keys))
