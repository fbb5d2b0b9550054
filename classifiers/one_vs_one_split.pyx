# cython: language_level=3
"""OneVsOneSplitScorer: split-svm for one-vs-one models with many classes, one table for all.

A one-vs-one model's pair value splits into one half per class (Hsu & Lin 2002; libsvm):

    d_ij(x) = g_i[j-1](x) + g_j[i](x) - rho_ij,   g_c[m](x) = sum_{s in SV(c)} sv_coef[m][s] K(s, x)

and each class's halves are a kernel expansion with k-1 outputs over its own support vectors.
They are evaluated here as split-svm does (Goldberg & Elhadad 2008; classifiers/split_svm.pyx):
features held by at least s support vectors are common, ranked once for the whole model, and
the kernel over them is expanded into conjunction weights (PKE, Isozaki & Kazawa 2002; Kudo &
Matsumoto 2003); rare features go through an inverted index with K_R(s, x) = K(|s_C & x_C| +
|s_R & x_R|) - K(|s_C & x_C|). All classes share one hash of conjunctions; a conjunction's row
lists the classes whose support vectors hold it, each with its k-1 weights, so a conjunction
costs one lookup and m (k-1) additions when m classes hold it.

`vote` is libsvm's vote with most pairs skipped: a guide scorer of S_c (the k signed pair sums,
classifiers/evaluators.sum_expansion) names a candidate c*; one pass adds c*'s k-1 halves and,
for every other class j, only its half toward c*. If c* wins every pair against the allowed
classes it has |A|-1 votes and every other class at most |A|-2, so it is the winner; otherwise
a full pass counts all votes. Each half is the same sum in the same order in both passes.
"""
from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from typing import Any

import numpy as np

from classifiers.pke cimport KEY_BITS, extend_key
from classifiers.pke import build_store, key_ranks, key_sizes, rank_features
from classifiers.pki cimport ScratchPool
from classifiers.one_vs_one_scorer cimport OneVsOneVoter
from classifiers.scorer cimport BinaryScorer
from classifiers.split_svm import minimum_common_count
from features.key_index cimport KeyIndex

cdef enum:
    STACK_FEATURES = 256
    ABSENT = -1
    FIRST_RARE = -2
    ALL_CLASSES = -1

# Row numbers of the singles and pairs of common features sit in a dense table (no hashing)
# when there are at most this many common features.
MAX_DENSE_ROW_FEATURES = 2048

# Default rare threshold: features held by fewer support vectors than this fraction of them
# (and at least 2) are rare.
DEFAULT_RARE_FRACTION = 0.002


cdef inline int pair_index(int i, int j, int k) noexcept nogil:
    # Position of the pair (i, j), i < j, in libsvm's order (0,1), (0,2), ..., (1,2), ...
    return i * k - i * (i + 1) // 2 + j - i - 1


cdef inline void add_half(double* halves, const double* weights, int cls, int width,
                          int champion, double scale) noexcept nogil:
    # Add scale * weights[0..width) to class cls's halves; with a champion, only the halves
    # that the champion's pairs read (all of the champion's, one of every other class).
    cdef int m
    cdef double* h = halves + cls * width
    if champion < 0 or cls == champion:
        for m in range(width):
            h[m] += weights[m] * scale
    else:
        m = champion - (champion > cls)
        h[m] += weights[m] * scale


def build_arrays(model, rare_threshold: int | float | str = "auto") -> dict[str, Any]:
    """Arrays of a OneVsOneSplitScorer of a OneVsOneExpansion (degree 1..3, >= 3 classes)."""
    from classifiers.evaluators import class_expansion

    sv = model.support_vectors
    k, width = model.n_classes, model.n_classes - 1
    n_sv = len(sv)
    n_ids = int(sv.indices.max()) + 1 if sv.nnz else 0
    holders = np.bincount(sv.indices, minlength=n_ids)
    if isinstance(rare_threshold, str):
        s = max(2.0, float(np.ceil(DEFAULT_RARE_FRACTION * n_sv)))
    else:
        s = minimum_common_count(rare_threshold, n_sv)
    common = (holders >= s) & (holders > 0)
    rare = (holders < s) & (holders > 0)
    common_ids = rank_features(sv, common)
    rare_ids = np.flatnonzero(rare)
    feature_class = np.full(n_ids, ABSENT, dtype=np.int32)
    feature_class[common_ids] = np.arange(common_ids.size, dtype=np.int32)
    feature_class[rare_ids] = FIRST_RARE - np.arange(rare_ids.size, dtype=np.int32)
    keys, classes, weights, constant = [], [], [], []
    for c in range(k):
        store, const = build_store(class_expansion(model, c), common_ids, 0, True)
        class_keys = store.keys()
        keys.append(class_keys)
        classes.append(np.full(class_keys.size, c, dtype=np.int32))
        weights.append(store.hashed_weights)
        constant.append(const)
    all_keys = np.concatenate(keys)
    order = np.lexsort((np.concatenate(classes), all_keys))
    unique_keys, entry_count = np.unique(all_keys[order], return_counts=True)
    entry_ptr = np.zeros(unique_keys.size + 1, dtype=np.int64)
    np.cumsum(entry_count, out=entry_ptr[1:])
    rows = np.repeat(np.arange(n_sv), sv.row_lengths())
    rare_svs = np.unique(rows[rare[sv.indices]])
    sub = sv.take(rare_svs)
    sub_rows = np.repeat(np.arange(rare_svs.size), sub.row_lengths())
    sub_class = feature_class[sub.indices]
    in_rare = sub_class <= FIRST_RARE
    rare_number = FIRST_RARE - sub_class[in_rare]
    postings_order = np.lexsort((sub_rows[in_rare], rare_number))
    rare_ptr = np.zeros(rare_ids.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(rare_number, minlength=rare_ids.size), out=rare_ptr[1:])
    in_common = sub_class >= 0
    rare_sv_ptr = np.zeros(rare_svs.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(sub_rows[in_common], minlength=rare_svs.size), out=rare_sv_ptr[1:])
    sv_class = np.repeat(np.arange(k, dtype=np.int32), model.n_support)
    longest = int(sv.row_lengths().max()) if n_sv else 0
    return {
        "settings": {"degree": model.degree, "gamma": model.gamma, "coef0": model.coef0,
                     "rare_threshold": rare_threshold, "min_common_count": s,
                     "n_support_vectors": n_sv},
        "keys": unique_keys,
        "entry_ptr": entry_ptr,
        "entry_class": np.concatenate(classes)[order],
        "entry_weights": np.ascontiguousarray(np.concatenate(weights)[order].reshape(-1, width)),
        "constant": np.concatenate(constant).astype(np.float64),
        "rho": model.rho,
        "feature_class": feature_class,
        "n_common": np.array([common_ids.size], dtype=np.int64),
        "rare_ptr": rare_ptr,
        "rare_postings": sub_rows[in_rare][postings_order].astype(np.int32),
        "rare_sv_ptr": rare_sv_ptr,
        "rare_sv_common": sub_class[in_common].astype(np.int32),
        "rare_sv_class": sv_class[rare_svs],
        "rare_sv_coef": np.ascontiguousarray(model.dual_coef.T[rare_svs]),
        "kernel": model.kernel_of_count(np.arange(longest + 1)),
    }


def dense_row_tables(keys: np.ndarray, int n_common) -> tuple[np.ndarray, np.ndarray]:
    """Row of every single (n_common) and pair {a < b} (at b (b-1) / 2 + a) of common ranks, -1
    where the key is absent."""
    sizes = key_sizes(keys)
    ranks = key_ranks(keys)
    rows = np.arange(keys.size, dtype=np.int32)
    single_row = np.full(n_common, -1, dtype=np.int32)
    single_row[ranks[sizes == 1, 0]] = rows[sizes == 1]
    pair_row = np.full(max(1, n_common * (n_common - 1) // 2), -1, dtype=np.int32)
    a, b = ranks[sizes == 2, 0], ranks[sizes == 2, 1]
    pair_row[b * (b - 1) // 2 + a] = rows[sizes == 2]
    return single_row, pair_row


cdef class OneVsOneSplitScorer(OneVsOneVoter):
    cdef readonly int degree
    cdef readonly dict arrays
    cdef readonly dict settings
    cdef readonly KeyIndex index
    cdef readonly object guide
    cdef readonly ScratchPool pool
    cdef int width
    cdef bint dense_rows
    cdef const int32_t* single_row
    cdef const int32_t* pair_row
    cdef int32_t n_ids
    cdef int32_t n_common
    cdef int32_t n_rare_support_vectors
    cdef const int64_t* entry_ptr
    cdef const int32_t* entry_class
    cdef const double* entry_weights
    cdef const double* constant
    cdef const double* rho
    cdef const int32_t* feature_class
    cdef const int64_t* rare_ptr
    cdef const int32_t* rare_postings
    cdef const int64_t* rare_sv_ptr
    cdef const int32_t* rare_sv_common
    cdef const int32_t* rare_sv_class
    cdef const double* rare_sv_coef
    cdef const double* kernel

    def __init__(self, model, rare_threshold: int | float | str = "auto", guide=None):
        """Split a OneVsOneExpansion with three or more classes (degree 1..3); guide: a
        BinaryScorer of the k signed pair sums for `vote` (None: every vote is a full pass)."""
        if model.n_classes < 3:
            raise ValueError("a one-vs-one split needs at least three classes")
        arrays = build_arrays(model, rare_threshold)
        self._install(arrays.pop("settings"), arrays, guide)

    def _install(self, dict settings, dict arrays, guide) -> None:
        a = {name: np.ascontiguousarray(value) for name, value in arrays.items()}
        k = int(a["rho"].size)
        n_classes = int(round((1 + (1 + 8 * k) ** 0.5) / 2))
        if n_classes * (n_classes - 1) // 2 != k or n_classes < 3:
            raise ValueError("rho must hold one value per pair of three or more classes")
        width = n_classes - 1
        n_rows = a["keys"].size
        n_rare_sv = a["rare_sv_ptr"].size - 1
        n_common = int(a["n_common"][0])
        if (a["entry_ptr"].shape != (n_rows + 1,)
                or a["entry_ptr"][n_rows] != a["entry_class"].size):
            raise ValueError("entry_ptr must delimit the entries of every conjunction")
        if a["entry_weights"].shape != (a["entry_class"].size, width):
            raise ValueError("entry_weights must hold k-1 weights per entry")
        if a["entry_class"].size and (a["entry_class"].min() < 0
                                      or a["entry_class"].max() >= n_classes):
            raise ValueError("entry_class must hold class indices")
        if a["constant"].shape != (n_classes * width,):
            raise ValueError("constant must hold k (k-1) halves")
        if a["rare_sv_coef"].shape != (n_rare_sv, width) or a["rare_sv_class"].shape != (n_rare_sv,):
            raise ValueError("rare support vectors need a class and k-1 coefficients each")
        if guide is not None and (not isinstance(guide, BinaryScorer)
                                  or (<BinaryScorer>guide).n_outputs != n_classes):
            raise ValueError(f"the guide must be a scorer with {n_classes} outputs")
        self.index = KeyIndex.from_keys(a["keys"])
        self.dense_rows = n_common <= MAX_DENSE_ROW_FEATURES
        if self.dense_rows:
            a["single_row"], a["pair_row"] = dense_row_tables(a["keys"], n_common)
            self.single_row = <const int32_t*><size_t>a["single_row"].ctypes.data
            self.pair_row = <const int32_t*><size_t>a["pair_row"].ctypes.data
        self.arrays = a
        self.settings = dict(settings)
        self.degree = int(settings["degree"])
        self.guide = guide
        self.n_classes = n_classes
        self.width = width
        self.n_outputs = k
        self.n_ids = a["feature_class"].size
        self.n_common = n_common
        self.n_rare_support_vectors = n_rare_sv
        self.pool = ScratchPool(2 * n_rare_sv * sizeof(int32_t) + n_common)
        self.entry_ptr = <const int64_t*><size_t>a["entry_ptr"].ctypes.data
        self.entry_class = <const int32_t*><size_t>a["entry_class"].ctypes.data
        self.entry_weights = <const double*><size_t>a["entry_weights"].ctypes.data
        self.constant = <const double*><size_t>a["constant"].ctypes.data
        self.rho = <const double*><size_t>a["rho"].ctypes.data
        self.feature_class = <const int32_t*><size_t>a["feature_class"].ctypes.data
        self.rare_ptr = <const int64_t*><size_t>a["rare_ptr"].ctypes.data
        self.rare_postings = <const int32_t*><size_t>a["rare_postings"].ctypes.data
        self.rare_sv_ptr = <const int64_t*><size_t>a["rare_sv_ptr"].ctypes.data
        self.rare_sv_common = <const int32_t*><size_t>a["rare_sv_common"].ctypes.data
        self.rare_sv_class = <const int32_t*><size_t>a["rare_sv_class"].ctypes.data
        self.rare_sv_coef = <const double*><size_t>a["rare_sv_coef"].ctypes.data
        self.kernel = <const double*><size_t>a["kernel"].ctypes.data

    @property
    def n_common_features(self) -> int:
        return int(self.n_common)

    @property
    def n_rare_features(self) -> int:
        return int(self.arrays["rare_ptr"].size - 1)

    cdef void add_row(self, int32_t row, double* halves, int champion) noexcept nogil:
        cdef int64_t e
        cdef int width = self.width
        for e in range(self.entry_ptr[row], self.entry_ptr[row + 1]):
            add_half(halves, self.entry_weights + e * width, self.entry_class[e], width,
                     champion, 1.0)

    cdef bint halves(self, const int32_t* feats, int n, int champion,
                     double* halves) noexcept nogil:
        # The k (k-1) halves (with a champion: those its pairs read). False when out of memory.
        cdef int32_t stack_ranks[STACK_FEATURES]
        cdef int32_t* ranks = stack_ranks
        cdef int width = self.width
        cdef int slot, i, a, b, c, m_common = 0
        cdef int32_t f, cls, s, shared, key, row, m = 0
        cdef int64_t p
        cdef uint64_t kbc
        cdef int32_t* counts
        cdef int32_t* touched
        cdef uint8_t* marks
        for i in range(self.n_classes * width):
            halves[i] = self.constant[i]
        counts = <int32_t*>self.pool.acquire(&slot)
        if n > STACK_FEATURES:
            ranks = <int32_t*>malloc(n * sizeof(int32_t))
        if counts == NULL or ranks == NULL:
            if counts != NULL:
                self.pool.release(counts, slot)
            return False
        touched = counts + self.n_rare_support_vectors
        marks = <uint8_t*>(touched + self.n_rare_support_vectors)
        for i in range(n):
            f = feats[i]
            if f >= self.n_ids:
                break
            cls = self.feature_class[f]
            if cls >= 0:
                ranks[m_common] = cls
                m_common += 1
                marks[cls] = 1
            elif cls <= FIRST_RARE:
                for p in range(self.rare_ptr[FIRST_RARE - cls], self.rare_ptr[FIRST_RARE - cls + 1]):
                    s = self.rare_postings[p]
                    if counts[s] == 0:
                        touched[m] = s
                        m += 1
                    counts[s] += 1
        for i in range(m):
            s = touched[i]
            shared = 0
            for p in range(self.rare_sv_ptr[s], self.rare_sv_ptr[s + 1]):
                shared += marks[self.rare_sv_common[p]]
            add_half(halves, self.rare_sv_coef + <int64_t>s * width, self.rare_sv_class[s], width,
                     champion, self.kernel[shared + counts[s]] - self.kernel[shared])
            counts[s] = 0
        for i in range(m_common):
            marks[ranks[i]] = 0
        self.pool.release(counts, slot)
        for c in range(1, m_common):
            key = ranks[c]
            b = c - 1
            while b >= 0 and ranks[b] > key:
                ranks[b + 1] = ranks[b]
                b -= 1
            ranks[b + 1] = key
        for c in range(m_common):
            if self.dense_rows:
                row = self.single_row[ranks[c]]
            else:
                row = self.index.get(extend_key(0, ranks[c]))
            if row >= 0:
                self.add_row(row, halves, champion)
            if self.degree < 2:
                continue
            for b in range(c):
                kbc = extend_key(extend_key(0, ranks[b]), ranks[c])
                if self.dense_rows:
                    row = self.pair_row[<int64_t>ranks[c] * (ranks[c] - 1) // 2 + ranks[b]]
                else:
                    row = self.index.get(kbc)
                if row < 0:
                    continue
                self.add_row(row, halves, champion)
                if self.degree < 3:
                    continue
                for a in range(b):
                    row = self.index.get((<uint64_t>(ranks[a] + 1) << (2 * KEY_BITS)) | kbc)
                    if row >= 0:
                        self.add_row(row, halves, champion)
        if ranks != stack_ranks:
            free(ranks)
        return True

    cdef inline double pair_value(self, const double* h, int i, int j) noexcept nogil:
        return (h[i * self.width + j - 1] + h[j * self.width + i]
                - self.rho[pair_index(i, j, self.n_classes)])

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int k = self.n_classes
        cdef int i, j, p = 0
        cdef double* h = <double*>malloc(k * self.width * sizeof(double))
        if h == NULL or not self.halves(feats, n, ALL_CLASSES, h):
            for i in range(self.n_outputs):
                out[i] = NAN
            free(h)
            return
        for i in range(k):
            for j in range(i + 1, k):
                out[p] = self.pair_value(h, i, j)
                p += 1
        free(h)

    cdef int vote(self, const int32_t* feats, int n, const bint* allowed) noexcept nogil:
        # libsvm's vote among the classes c with allowed[c], ties to the first; -1 if none.
        cdef int k = self.n_classes
        cdef int c, i, j, best = -1, n_allowed = 0
        cdef bint wins_all = True
        cdef double* h = <double*>malloc((k * self.width + k) * sizeof(double))
        cdef double* sums = h + k * self.width
        cdef int* votes = <int*>sums
        if h == NULL:
            return -1
        for c in range(k):
            n_allowed += allowed[c]
        if self.guide is not None and n_allowed > 1:
            (<BinaryScorer>self.guide).scores(feats, n, sums)
            for c in range(k):
                if allowed[c] and (best < 0 or sums[c] > sums[best]):
                    best = c
            c = best
            if self.halves(feats, n, c, h):
                for j in range(k):
                    if j != c and allowed[j]:
                        wins_all = (self.pair_value(h, c, j) > 0 if c < j
                                    else not self.pair_value(h, j, c) > 0)
                        if not wins_all:
                            break
                if wins_all:
                    free(h)
                    return c
        best = -1
        if self.halves(feats, n, ALL_CLASSES, h):
            for c in range(k):
                votes[c] = 0
            for i in range(k):
                for j in range(i + 1, k):
                    if allowed[i] and allowed[j]:
                        if self.pair_value(h, i, j) > 0:
                            votes[i] += 1
                        else:
                            votes[j] += 1
            for c in range(k):
                if allowed[c] and (best < 0 or votes[c] > votes[best]):
                    best = c
        free(h)
        return best

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: conjunctions (hash and class entries), rare index, rare support
        vectors, the guide, scratch of one call."""
        a = self.arrays
        report = {
            "common_conjunctions": int((self.index.mask + 1) * 12 + a["entry_ptr"].nbytes
                                       + a["entry_class"].nbytes + a["entry_weights"].nbytes
                                       + (a["single_row"].nbytes + a["pair_row"].nbytes
                                          if self.dense_rows else 0)),
            "rare_index": a["feature_class"].nbytes + a["rare_ptr"].nbytes + a["rare_postings"].nbytes,
            "rare_support_vectors": (a["rare_sv_ptr"].nbytes + a["rare_sv_common"].nbytes
                                     + a["rare_sv_class"].nbytes + a["rare_sv_coef"].nbytes
                                     + a["kernel"].nbytes),
            "constants": a["constant"].nbytes + a["rho"].nbytes,
            "scratch_per_call": self.pool.bytes_per_call,
        }
        if self.guide is not None and hasattr(self.guide, "memory_bytes"):
            report["guide"] = int(self.guide.memory_bytes())
        return report

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())
