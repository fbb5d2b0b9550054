# cython: language_level=3
"""A text as the units the segmenter decides between (see text_units.pxd).

Each character that is not whitespace is a unit; so is each maximal run of whitespace and
control characters (a gap). A gap holding two or more line feeds or a paragraph separator
(U+2029) is a paragraph break; with `lines_are_breaks` (text already split into sentences, one
a line) a gap holding one line feed is a line break. Breaks are hard: a sentence ends there and
no feature window looks across one. Characters come with the value and class that
parser/segmentation/characters.py gives them, and with flags (FLAG_GAP, FLAG_NEWLINE,
FLAG_PARAGRAPH). Each character unit also knows its chunk (the run of characters between two
gaps): its first and last unit and the hash of its values.
"""
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

cdef uint64_t SEED = 0x243F6A8885A308D3

FLAG_GAP = 1
FLAG_NEWLINE = 2
FLAG_PARAGRAPH = 4
SEED_VALUE = SEED
GAP_UNIT_VALUE = GAP_VALUE
EDGE_UNIT_VALUE = EDGE_VALUE
GAP_UNIT_CLASS = GAP_CLASS
EDGE_UNIT_CLASS = EDGE_CLASS
KINDS = {"char": CHAR, "gap": GAP, "line": LINE_BREAK, "paragraph": PARAGRAPH_BREAK}


cdef class TextUnits:
    """The units of one text (arrays of n + 1 entries: the last is a sentinel)."""

    def __init__(self, value, klass, flags, bint lines_are_breaks=False):
        cdef const uint32_t[::1] char_value = np.ascontiguousarray(value, dtype=np.uint32)
        cdef const uint32_t[::1] char_class = np.ascontiguousarray(klass, dtype=np.uint32)
        cdef const uint8_t[::1] char_flags = np.ascontiguousarray(flags, dtype=np.uint8)
        cdef Py_ssize_t n_chars = char_value.shape[0]
        if char_class.shape[0] != n_chars or char_flags.shape[0] != n_chars:
            raise ValueError("value, class and flags need one entry per character")
        cdef Py_ssize_t i, n = 0
        cdef bint gap, in_gap = False
        for i in range(n_chars):
            gap = char_flags[i] & 1
            if not gap or not in_gap:
                n += 1
            in_gap = gap
        self.value = np.zeros(n + 1, dtype=np.uint32)
        self.klass = np.zeros(n + 1, dtype=np.uint32)
        self.kind = np.zeros(n + 1, dtype=np.uint8)
        self.start = np.zeros(n + 1, dtype=np.int64)
        self.chunk_first = np.full(n + 1, -1, dtype=np.int64)
        self.chunk_last = np.full(n + 1, -1, dtype=np.int64)
        self.chunk_hash = np.zeros(n + 1, dtype=np.uint64)
        cdef uint32_t[::1] unit_value = self.value
        cdef uint32_t[::1] unit_class = self.klass
        cdef uint8_t[::1] unit_kind = self.kind
        cdef int64_t[::1] unit_start = self.start
        cdef int64_t[::1] first = self.chunk_first
        cdef int64_t[::1] last = self.chunk_last
        cdef uint64_t[::1] chunk_hash = self.chunk_hash
        cdef Py_ssize_t u = -1, newlines = 0, chunk_start = -1, p
        cdef bint paragraph = False
        cdef uint64_t h
        in_gap = False
        with nogil:
            for i in range(n_chars):
                gap = char_flags[i] & 1
                if gap and in_gap:
                    newlines += (char_flags[i] >> 1) & 1
                    if char_flags[i] & 4:
                        paragraph = True
                    unit_kind[u] = _gap_kind(newlines, paragraph, lines_are_breaks)
                    continue
                u += 1
                unit_start[u] = i
                if gap:
                    newlines = (char_flags[i] >> 1) & 1
                    paragraph = (char_flags[i] & 4) != 0
                    unit_kind[u] = _gap_kind(newlines, paragraph, lines_are_breaks)
                    unit_value[u] = GAP_VALUE
                    unit_class[u] = GAP_CLASS
                else:
                    unit_kind[u] = CHAR
                    unit_value[u] = char_value[i]
                    unit_class[u] = char_class[i]
                in_gap = gap
            unit_start[n] = n_chars
            unit_kind[n] = PARAGRAPH_BREAK
            for u in range(n + 1):
                if unit_kind[u] == CHAR:
                    if chunk_start < 0:
                        chunk_start = u
                elif chunk_start >= 0:
                    h = hash_values(&unit_value[0], chunk_start, u - 1)
                    for p in range(chunk_start, u):
                        first[p] = chunk_start
                        last[p] = u - 1
                        chunk_hash[p] = h
                    chunk_start = -1
        self.point()

    cdef void point(self) noexcept:
        cdef const uint32_t[::1] value = self.value
        cdef const uint32_t[::1] klass = self.klass
        cdef const uint8_t[::1] kind = self.kind
        cdef const int64_t[::1] start = self.start
        cdef const int64_t[::1] first = self.chunk_first
        cdef const int64_t[::1] last = self.chunk_last
        cdef const uint64_t[::1] chunk_hash = self.chunk_hash
        self.units.n = value.shape[0] - 1
        self.units.value = &value[0]
        self.units.klass = &klass[0]
        self.units.kind = &kind[0]
        self.units.start = &start[0]
        self.units.chunk_first = &first[0]
        self.units.chunk_last = &last[0]
        self.units.chunk_hash = &chunk_hash[0]

    def __len__(self) -> int:
        return self.units.n

    def regions(self) -> np.ndarray:
        """(first, last) unit of each region: the units between hard breaks (and the text's
        ends), without the gaps at either end; regions without characters are left out."""
        cdef Py_ssize_t n = self.units.n
        cdef const uint8_t* kind = self.units.kind
        found = []
        cdef Py_ssize_t u = 0, first, last
        while u < n:
            while u < n and kind[u] != CHAR:
                u += 1
            if u >= n:
                break
            first = u
            last = u
            while u < n and not is_hard(kind[u]):
                if kind[u] == CHAR:
                    last = u
                u += 1
            found.append((first, last))
        return np.asarray(found, dtype=np.int64).reshape(-1, 2)


cdef inline uint8_t _gap_kind(Py_ssize_t newlines, bint paragraph,
                              bint lines_are_breaks) noexcept nogil:
    if paragraph or newlines >= 2:
        return PARAGRAPH_BREAK
    if lines_are_breaks and newlines >= 1:
        return LINE_BREAK
    return GAP


def hash_sequence(values) -> int:
    """The hash the segmenter gives a sequence of values (for tests and references)."""
    cdef const uint32_t[::1] v = np.ascontiguousarray(list(values) + [0], dtype=np.uint32)
    return hash_values(&v[0], 0, v.shape[0] - 2)


def combine_values(uint64_t h, uint64_t v) -> int:
    """One step of the sequence hash (for tests and references)."""
    return combine(h, v)
