# cython: language_level=3
"""The weight table of a structured perceptron over binary features (Collins 2002), averaged
(Freund & Schapire 1999; Collins 2002, section 2.5) by the lazy form of Daume III (2006, p. 19).

A weight belongs to a (feature key, class) pair; the table keeps, for each feature key, a row
of (class, weight) entries, so that scoring a parser state costs one hash lookup per feature and
a short loop over the classes that feature has been updated for (Zhang & Clark 2008 score all
the actions of a state from its features in this way).

Averaging: after T examples, the averaged weight is the mean of the weights after each example,
    avg = (1 / T) * sum_{t=1..T} w_t = w_T - (1 / T) * sum_{updates} (t_u - 1) * delta_u,
where an update delta_u happens during example t_u. Each entry keeps w and the sum
`summed` = sum (t_u - 1) * delta_u, so that an update costs O(1) and `averaged()` computes
w - summed / T for every entry at once.
"""
from libc.stdint cimport int32_t, int64_t, uint16_t, uint64_t

import numpy as np

from polyparse.features.key_index cimport EMPTY_KEY, KeyIndex, KeySlots, mix64

cdef extern from *:
    """
    #define WEIGHT_TABLE_PREFETCH(address) __builtin_prefetch(address)
    /* scores[j] += row[j] for j < n: with AVX2 where the processor has it (the same sums, each
       element being one addition either way). */
    __attribute__((target("avx2")))
    static void weight_table_add_row_avx2(double* scores, const double* row, int n) {
        for (int j = 0; j < n; j++) scores[j] += row[j];
    }
    static void weight_table_add_row_plain(double* scores, const double* row, int n) {
        for (int j = 0; j < n; j++) scores[j] += row[j];
    }
    static int weight_table_avx2 = -1;
    static void weight_table_add_row(double* scores, const double* row, int n) {
        if (weight_table_avx2 < 0) {
            __builtin_cpu_init();
            weight_table_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        }
        if (weight_table_avx2) weight_table_add_row_avx2(scores, row, n);
        else weight_table_add_row_plain(scores, row, n);
    }
    """
    void prefetch "WEIGHT_TABLE_PREFETCH"(const void* address) noexcept nogil
    void add_row "weight_table_add_row"(double* scores, const double* row, int n) noexcept nogil

# Keys looked up together: their table slots, rows and entries are fetched from memory in
# three rounds of independent loads (prefetches), so that the cache misses of a state's
# features overlap instead of following one another.
cdef enum:
    BATCH = 128


cdef inline void find_rows(const KeySlots* slots, const uint64_t* keys, int n,
                           int32_t* rows) noexcept nogil:
    # rows[t]: the id of keys[t] in the table, -1 when absent (linear probing, as KeyIndex).
    cdef uint64_t place[BATCH]
    cdef uint64_t i, k
    cdef int t
    for t in range(n):
        place[t] = mix64(keys[t]) & slots.mask
        prefetch(&slots.keys[place[t]])
        prefetch(&slots.values[place[t]])
    for t in range(n):
        i = place[t]
        rows[t] = -1
        while True:
            k = slots.keys[i]
            if k == keys[t]:
                rows[t] = slots.values[i]
                break
            if k == EMPTY_KEY:
                break
            i = (i + 1) & slots.mask

# Entries of a new row, before it grows (doubling).
cdef int FIRST_CAPACITY = 2


cdef class ClassScores:
    cdef void add_scores(self, const uint64_t* keys, int n, double* scores) noexcept nogil:
        pass

    def scores(self, keys) -> np.ndarray:
        """The scores of every class for the feature keys (the Python view of add_scores)."""
        cdef const uint64_t[::1] k = np.ascontiguousarray(keys, dtype=np.uint64)
        out = np.zeros(self.n_classes, dtype=np.float64)
        cdef double[::1] o = out
        if k.shape[0] and self.n_classes:
            self.add_scores(&k[0], k.shape[0], &o[0])
        return out


cdef class PerceptronWeights(ClassScores):
    """The weights being learned: update(), next_example(), scores from the current weights,
    and averaged() for the averaged weights so far."""

    def __init__(self, int n_classes):
        if n_classes < 1:
            raise ValueError("a weight table needs at least one class")
        self.n_classes = n_classes
        self.index = KeyIndex()
        self.examples = 0
        self.restricted = False

    def restrict(self, keys) -> None:
        """From now on only these feature keys get weights: updates skip every other key (a
        feature count cutoff, parser/dependency/beam_parser.py). Refused once weights exist."""
        if self.index.size:
            raise ValueError("restrict() comes before the first update")
        self.allowed = KeyIndex.from_keys(keys)
        self.restricted = True

    def __len__(self) -> int:
        """Number of (feature, class) weights."""
        cdef int64_t total = 0
        cdef size_t r
        for r in range(self.row_length.size()):
            total += self.row_length[r]
        return total

    cdef void add_scores(self, const uint64_t* keys, int n, double* scores) noexcept nogil:
        cdef int32_t rows[BATCH]
        cdef KeySlots slots = self.index.slots()
        cdef int t, e, m, done = 0
        cdef const WeightEntry* row
        while done < n:
            m = n - done if n - done < BATCH else BATCH
            find_rows(&slots, keys + done, m, rows)
            for t in range(m):
                if rows[t] >= 0:
                    prefetch(&self.row_start[rows[t]])
                    prefetch(&self.row_length[rows[t]])
            for t in range(m):
                if rows[t] >= 0:
                    prefetch(&self.entries[self.row_start[rows[t]]])
            for t in range(m):
                if rows[t] >= 0:
                    row = &self.entries[self.row_start[rows[t]]]
                    for e in range(self.row_length[rows[t]]):
                        scores[row[e].cls] += row[e].weight
            done += m

    cdef WeightEntry* entry(self, uint64_t key, int cls) except NULL nogil:
        # The entry of (key, cls), made (weight 0) when absent.
        cdef int32_t r = self.index.get_or_insert(key)
        cdef int64_t start, e, new_start
        cdef int32_t length, capacity
        if <size_t>r == self.row_start.size():
            self.row_start.push_back(<int64_t>self.entries.size())
            self.row_length.push_back(0)
            self.row_capacity.push_back(FIRST_CAPACITY)
            self.entries.resize(self.entries.size() + FIRST_CAPACITY)
        start = self.row_start[r]
        length = self.row_length[r]
        for e in range(start, start + length):
            if self.entries[e].cls == cls:
                return &self.entries[e]
        capacity = self.row_capacity[r]
        if length == capacity:
            # Move the row to the end with twice the room (the old place is left unused).
            new_start = <int64_t>self.entries.size()
            self.entries.resize(self.entries.size() + 2 * capacity)
            for e in range(length):
                self.entries[new_start + e] = self.entries[start + e]
            self.row_start[r] = new_start
            self.row_capacity[r] = 2 * capacity
            start = new_start
        self.entries[start + length].cls = cls
        self.entries[start + length].weight = 0
        self.entries[start + length].summed = 0
        self.row_length[r] = length + 1
        return &self.entries[start + length]

    cdef int update(self, const uint64_t* keys, int n, int cls, int delta) except -1 nogil:
        """Add delta to the weight of (key, cls) for every key (a key twice: twice) that is
        allowed (restrict())."""
        cdef int t
        cdef WeightEntry* found
        for t in range(n):
            if self.restricted and self.allowed.get(keys[t]) < 0:
                continue
            found = self.entry(keys[t], cls)
            found.weight += delta
            found.summed += self.examples * <int64_t>delta
        return 0

    def add(self, keys, int cls, int delta) -> None:
        """The Python view of update()."""
        cdef const uint64_t[::1] k = np.ascontiguousarray(keys, dtype=np.uint64)
        if not 0 <= cls < self.n_classes:
            raise ValueError(f"class {cls} outside 0..{self.n_classes - 1}")
        if k.shape[0]:
            self.update(&k[0], k.shape[0], cls, delta)

    def next_example(self) -> None:
        """One more example is finished (the time of the averaging moves on)."""
        self.examples += 1

    def current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (feature key, class, current weight), in the order of the table."""
        cdef int64_t total = len(self), r, e, k = 0
        keys = np.empty(total, dtype=np.uint64)
        classes = np.empty(total, dtype=np.int32)
        weights = np.empty(total, dtype=np.int64)
        row_keys = self.index.keys()
        for r in range(<int64_t>self.row_start.size()):
            for e in range(self.row_start[r], self.row_start[r] + self.row_length[r]):
                keys[k] = row_keys[r]
                classes[k] = self.entries[e].cls
                weights[k] = self.entries[e].weight
                k += 1
        return keys, classes, weights

    def weight(self, uint64_t key, int cls) -> int:
        """The current weight of (key, cls)."""
        cdef int32_t r = self.index.get(key)
        cdef int64_t e
        if r < 0:
            return 0
        for e in range(self.row_start[r], self.row_start[r] + self.row_length[r]):
            if self.entries[e].cls == cls:
                return self.entries[e].weight
        return 0

    def averaged(self) -> AveragedWeights:
        """The mean of the weights after each finished example (the current weights before the
        first), without the entries whose mean is 0, in the order the features were first
        updated."""
        keys = self.index.keys()
        cdef int64_t n_rows = keys.shape[0], r, e, kept = 0
        cdef double examples = <double>self.examples
        row_ptr = np.zeros(n_rows + 1, dtype=np.int64)
        classes = np.empty(len(self), dtype=np.int32)
        values = np.empty(len(self), dtype=np.float32)
        kept_rows = np.zeros(n_rows, dtype=bool)
        cdef int64_t[::1] ptr = row_ptr
        cdef int32_t[::1] c = classes
        cdef float[::1] v = values
        cdef double mean
        cdef WeightEntry* entry
        for r in range(n_rows):
            for e in range(self.row_start[r], self.row_start[r] + self.row_length[r]):
                entry = &self.entries[e]
                mean = entry.weight
                if examples > 0:
                    mean -= entry.summed / examples
                if <float>mean != 0:
                    c[kept] = entry.cls
                    v[kept] = <float>mean
                    kept += 1
            ptr[r + 1] = kept
        lengths = np.diff(row_ptr)
        used = lengths > 0
        new_ptr = np.zeros(int(used.sum()) + 1, dtype=np.int64)
        np.cumsum(lengths[used], out=new_ptr[1:])
        return AveragedWeights(keys[used], new_ptr, classes[:kept].copy(), values[:kept].copy(),
                               self.n_classes)


cdef class AveragedWeights(ClassScores):
    """Fixed weights as arrays: keys (one per row), row_ptr, classes and values of the entries
    (what a model file stores). Scoring looks the keys up in a table of WeightSlots built from
    them (linear probing, load at most 3/4), each holding the first INLINE_ENTRIES entries of
    its row, so that a feature with a short row costs one memory access; rows of at least
    DENSE_ENTRIES entries are kept dense (a weight for every class) and added as vectors."""

    def __init__(self, keys, row_ptr, classes, values, int n_classes):
        self.keys = np.ascontiguousarray(keys, dtype=np.uint64)
        self.row_ptr = np.ascontiguousarray(row_ptr, dtype=np.int64)
        self.classes = np.ascontiguousarray(classes, dtype=np.int32)
        self.values = np.ascontiguousarray(values, dtype=np.float32)
        self.n_classes = n_classes
        if self.row_ptr.shape[0] != self.keys.shape[0] + 1 or self.row_ptr[0] != 0 \
                or self.row_ptr[-1] != self.classes.shape[0] \
                or self.classes.shape[0] != self.values.shape[0] \
                or (np.diff(self.row_ptr) < 0).any():
            raise ValueError("keys, row_ptr, classes and values do not fit together")
        if self.classes.size and (self.classes.min() < 0 or self.classes.max() >= n_classes):
            raise ValueError(f"a class outside 0..{n_classes - 1}")
        if n_classes > 65535:
            raise ValueError("at most 65535 classes")
        if (np.diff(self.row_ptr) >= DENSE_FLAG).any():
            raise ValueError(f"a row of {DENSE_FLAG} entries or more")
        self._build()

    def _build(self) -> None:
        cdef uint64_t n_slots = 16
        cdef int64_t n_rows = self.keys.shape[0], r, e, k, extra = 0
        while 3 * n_slots < 4 * <uint64_t>n_rows:
            n_slots <<= 1
        self.slot_bytes = np.zeros(n_slots * sizeof(WeightSlot), dtype=np.uint8)
        self.slots = <WeightSlot*><size_t>self.slot_bytes.ctypes.data
        self.mask = n_slots - 1
        lengths = np.diff(self.row_ptr)
        dense_rows = lengths >= DENSE_ENTRIES
        self.dense_rows = np.zeros((int(dense_rows.sum()), max(1, self.n_classes)))
        self.dense = <const double*><size_t>self.dense_rows.ctypes.data
        cdef double[:, ::1] dense = self.dense_rows
        cdef int32_t n_dense = 0
        self.overflow_entries = np.empty(
            int(np.maximum(lengths[~dense_rows] - INLINE_ENTRIES, 0).sum()),
            dtype=np.dtype([("cls", np.int32), ("value", np.float32)]))
        self.overflow = <const FixedEntry*><size_t>self.overflow_entries.ctypes.data
        cdef FixedEntry* out = <FixedEntry*><size_t>self.overflow_entries.ctypes.data
        cdef const uint64_t[::1] keys = self.keys
        cdef const int64_t[::1] ptr = self.row_ptr
        cdef const int32_t[::1] cls = self.classes
        cdef const float[::1] value = self.values
        cdef uint64_t i, s
        cdef WeightSlot* slot
        for s in range(n_slots):
            self.slots[s].key = EMPTY_KEY
        for r in range(n_rows):
            if keys[r] == EMPTY_KEY:
                raise ValueError("key 2**64-1 is reserved")
            i = mix64(keys[r]) & self.mask
            while self.slots[i].key != EMPTY_KEY:
                if self.slots[i].key == keys[r]:
                    raise ValueError(f"duplicate key {keys[r]} at row {r}")
                i = (i + 1) & self.mask
            slot = &self.slots[i]
            slot.key = keys[r]
            slot.length = <uint16_t>(ptr[r + 1] - ptr[r])
            if slot.length >= DENSE_ENTRIES:
                for e in range(ptr[r], ptr[r + 1]):
                    dense[n_dense, cls[e]] = value[e]
                slot.length |= DENSE_FLAG
                slot.overflow = n_dense
                n_dense += 1
                continue
            slot.overflow = <int32_t>extra
            for k in range(slot.length):
                e = ptr[r] + k
                if k < INLINE_ENTRIES:
                    slot.cls[k] = <uint16_t>cls[e]
                    slot.value[k] = value[e]
                else:
                    out[extra].cls = cls[e]
                    out[extra].value = value[e]
                    extra += 1

    def __len__(self) -> int:
        return int(self.classes.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of the scoring table and the entries beyond its slots."""
        return int(self.slot_bytes.nbytes + self.overflow_entries.nbytes
                   + self.dense_rows.nbytes)

    cdef void add_scores(self, const uint64_t* keys, int n, double* scores) noexcept nogil:
        cdef uint64_t place[BATCH]
        cdef int32_t long_rows[BATCH]
        cdef int t, k, m, n_long, done = 0
        cdef uint64_t i
        cdef const WeightSlot* slot
        cdef const FixedEntry* rest
        while done < n:
            m = n - done if n - done < BATCH else BATCH
            for t in range(m):
                place[t] = mix64(keys[done + t]) & self.mask
                prefetch(&self.slots[place[t]])
            n_long = 0
            for t in range(m):
                i = place[t]
                while True:
                    slot = &self.slots[i]
                    if slot.key == keys[done + t]:
                        if slot.length & DENSE_FLAG:
                            prefetch(&self.dense[<int64_t>slot.overflow * self.n_classes])
                            long_rows[n_long] = <int32_t>i
                            n_long += 1
                            break
                        for k in range(slot.length if slot.length < INLINE_ENTRIES
                                       else INLINE_ENTRIES):
                            scores[slot.cls[k]] += slot.value[k]
                        if slot.length > INLINE_ENTRIES:
                            prefetch(&self.overflow[slot.overflow])
                            long_rows[n_long] = <int32_t>i
                            n_long += 1
                        break
                    if slot.key == EMPTY_KEY:
                        break
                    i = (i + 1) & self.mask
            for t in range(n_long):
                slot = &self.slots[long_rows[t]]
                if slot.length & DENSE_FLAG:
                    add_row(scores, &self.dense[<int64_t>slot.overflow * self.n_classes],
                            self.n_classes)
                    continue
                rest = &self.overflow[slot.overflow]
                for k in range(slot.length - INLINE_ENTRIES):
                    scores[rest[k].cls] += rest[k].value
            done += m

