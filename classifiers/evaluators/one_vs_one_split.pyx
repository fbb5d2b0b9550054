# cython: language_level=3
"""OneVsOneSplitScorer: split-svm for one-vs-one models with many classes, one table for all.

A one-vs-one model's pair value splits into one half per class (Hsu & Lin 2002; libsvm):

    d_ij(x) = g_i[j-1](x) + g_j[i](x) - rho_ij,   g_c[m](x) = sum_{s in SV(c)} sv_coef[m][s] K(s, x)

and each class's halves are a kernel expansion with k-1 outputs over its own support vectors.
They are evaluated here as split-svm does (Goldberg & Elhadad 2008; classifiers/evaluators/split_svm.pyx):
features held by at least s support vectors are common, ranked once for the whole model, and
the kernel over them is expanded into conjunction weights (PKE, Isozaki & Kazawa 2002; Kudo &
Matsumoto 2003); rare features go through an inverted index with K_R(s, x) = K(|s_C & x_C| +
|s_R & x_R|) - K(|s_C & x_C|). All classes share one hash of conjunctions; a conjunction's row
lists the classes whose support vectors hold it, each with its k-1 weights, so a conjunction
costs one lookup and m (k-1) additions when m classes hold it.

`vote` is libsvm's vote with most pairs skipped (a guided exact vote):

1. A guide names a candidate c*: S_c = sum_j (d_cj signed toward c) (classifiers/evaluators.
   sum_expansion), read from the same conjunction rows, one vector of k sums per row. Only the
   tenth of the rows with the largest weights keep a guide vector (float32), so the guide stays
   in the processor's cache; it is a heuristic and decides nothing.
2. One pass computes only c*'s k-1 pair values d_c*j = g_c*[j'] + g_j[c*'] - rho (j' and c*'
   the positions of j among c*'s pairs and of c* among j's). For every row that c* holds, a
   precomputed vector V_g[c*][j'] = W_g[c*][j'] + W_g[j][c*'] gives all of them at once (k-1
   contiguous weights instead of one cache line per class holding g); from a row that c* does
   not hold it takes W_g[j][c*'] of each class j holding it. V is stored in float32 and summed
   in float32 with a bound on the distance to the float64 sum (the weights' rounding plus
   gamma_n sum |V|, Higham 2002 eq. 4.4); a pair whose value lies within that bound of 0 makes
   the pass run again in float64.
3. If c* wins every pair against the allowed classes, it has |A|-1 votes and every other class
   at most |A|-2, so it is libsvm's winner. Otherwise a class that wins all its pairs must be
   one of those that beat c*: the first two of them by the guide get the same check, and only
   when neither wins all does a full pass compute every class's halves and count the votes.

The feature scan, the rare support vectors' kernel terms and the row lookups are done once per
vote and shared by the passes, and the rows' weights are prefetched a few rows ahead. Pass 2
adds the two halves of a pair in another order than the full pass does, so both give the pair
values to rounding (as every evaluator here does).
"""
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

from typing import Any

import numpy as np

from polyparse.classifiers.evaluators.pke cimport KEY_BITS, conjunction_count, extend_key, sort_ranks
from polyparse.classifiers.evaluators.pke import build_store, key_ranks, key_sizes
from polyparse.classifiers.evaluators.pki cimport ScratchPool
from polyparse.classifiers.evaluators.one_vs_one_scorer cimport OneVsOneVoter
from polyparse.classifiers.evaluators.one_vs_one_expansion import class_expansion
from polyparse.classifiers.evaluators.scorer_arrays import part_bytes
from polyparse.classifiers.evaluators.split_svm cimport (RareIndex, RareScratch, point_rare_index,
                                               rare_scratch, rare_scratch_bytes, split_features)
from polyparse.classifiers.evaluators.choices import minimum_common_count
from polyparse.classifiers.evaluators.split_svm import feature_index, split_index
from polyparse.classifiers.scorer cimport no_scores
from polyparse.features.key_index cimport KeyIndex

cdef extern from *:
    void prefetch "__builtin_prefetch"(const void* address) noexcept nogil

cdef enum:
    # Rows looked ahead by the software prefetches of the guide and candidate passes.
    PREFETCH_ROWS = 6
    STACK_FEATURES = 256
    ALL_CLASSES = -1

# u = 2^-24, the unit roundoff of float32.
cdef double FLOAT_UNIT_ROUNDOFF = 5.9604644775390625e-08

# Row numbers of the singles and pairs of common features sit in a dense table (no hashing)
# when there are at most this many common features.
MAX_DENSE_ROW_FEATURES = 2048

# The guide reads this fraction of the conjunction rows, those of largest weights: on the EWT
# dev oracle rows of the parser's 36 many-label classifiers, a tenth of the rows names the same
# candidate as all of them in 98 % of the votes, and fits in the processor's cache.
DEFAULT_GUIDE_ROWS = 0.1

# Default rare threshold: features held by fewer support vectors than this fraction of them
# (and at least 2) are rare.
DEFAULT_RARE_FRACTION = 0.002


cdef inline int pair_index(int i, int j, int k) noexcept nogil:
    # Position of the pair (i, j), i < j, in libsvm's order (0,1), (0,2), ..., (1,2), ...
    return i * k - i * (i + 1) // 2 + j - i - 1


def build_arrays(model, rare_threshold: int | float | str = "auto",
                 guide_rows: float = DEFAULT_GUIDE_ROWS) -> dict[str, Any]:
    """Arrays of a OneVsOneSplitScorer of a OneVsOneExpansion (degree 1..3, >= 3 classes); the
    guide keeps the fraction guide_rows of the conjunction rows, those of largest weights."""
    if not 0.0 < guide_rows <= 1.0:
        raise ValueError("guide_rows must be a fraction in (0, 1]")
    sv = model.support_vectors
    k, width = model.n_classes, model.n_classes - 1
    n_sv = len(sv)
    ids, holders = np.unique(sv.indices, return_counts=True)
    if isinstance(rare_threshold, str):
        s = max(2.0, float(np.ceil(DEFAULT_RARE_FRACTION * n_sv)))
    else:
        s = minimum_common_count(rare_threshold, n_sv)
    common_ids, rare_ids, rare_index, rare_svs = split_index(sv, ids, holders, s)
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
    n_rows = unique_keys.size
    entry_ptr = np.zeros(unique_keys.size + 1, dtype=np.int64)
    np.cumsum(entry_count, out=entry_ptr[1:])
    entry_class = np.concatenate(classes)[order]
    entry_weights = np.concatenate(weights)[order].reshape(-1, width)
    sv_class = np.repeat(np.arange(k, dtype=np.int32), model.n_support)
    longest = int(sv.row_lengths().max()) if n_sv else 0
    champion_weights = champion_table(entry_ptr, entry_class, entry_weights)
    champion_narrow = champion_weights.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        rounding = np.abs(champion_weights - champion_narrow).max(axis=1, initial=0.0)
        largest = np.abs(champion_narrow.astype(np.float64)).max(axis=1, initial=0.0)
        champion_bounds = np.stack([(rounding + largest * 2.0 ** -30) * (1.0 + 2.0 ** -20),
                                    largest], axis=1)
    champion_bounds[~np.isfinite(champion_bounds).all(axis=1)] = np.inf
    guide_weights = (np.add.reduceat(toward_each_class(entry_weights, entry_class, k),
                                     entry_ptr[:n_rows], axis=0) if entry_class.size
                     else np.zeros((0, k)))
    largest = np.abs(guide_weights).max(axis=1, initial=0.0)
    kept = np.sort(np.argsort(-largest, kind="stable")[:int(np.ceil(guide_rows * n_rows))])
    guide_row = np.full(n_rows, -1, dtype=np.int32)
    guide_row[kept] = np.arange(kept.size, dtype=np.int32)
    rare_sv_class = sv_class[rare_svs]
    rare_sv_coef = np.ascontiguousarray(model.dual_coef.T[rare_svs])
    halves_constant = np.concatenate(constant).astype(np.float64)
    guide_constant = toward_each_class(halves_constant.reshape(k, width), np.arange(k), k).sum(0)
    for p, (i, j) in enumerate(model.pairs()):
        guide_constant[i] -= model.rho[p]
        guide_constant[j] += model.rho[p]
    return {
        "settings": {"degree": model.degree, "gamma": model.gamma, "coef0": model.coef0,
                     "rare_threshold": rare_threshold, "min_common_count": s,
                     "n_support_vectors": n_sv},
        "keys": unique_keys,
        "entry_ptr": entry_ptr,
        "entry_class": entry_class,
        "entry_weights": np.ascontiguousarray(entry_weights),
        "champion_weights": champion_narrow,
        "champion_bounds": champion_bounds,
        "guide_row": guide_row,
        "guide_weights": guide_weights[kept].astype(np.float32),
        "constant": halves_constant,
        "guide_constant": guide_constant,
        "rho": model.rho,
        "n_common": np.array([common_ids.size], dtype=np.int64),
        "common_ids": common_ids,
        "rare_ids": rare_ids,
        **rare_index,
        "rare_sv_class": rare_sv_class,
        "rare_sv_coef": rare_sv_coef,
        "rare_sv_guide": toward_each_class(rare_sv_coef, rare_sv_class, k),
        "kernel": model.kernel_of_count(np.arange(longest + 1)),
    }


def champion_table(entry_ptr: np.ndarray, entry_class: np.ndarray,
                   entry_weights: np.ndarray) -> np.ndarray:
    """V[e] for every entry e of a conjunction row (a class c holding it; a row's entries sorted
    by class; W[e] its k-1 halves' weights): c's pair weights V[e][j'] = W[e][j'] + W[f][c'] over
    the entries f of the other classes j of that row (j' = j - (j > c), c' = c - (c > j))."""
    n_entries, width = entry_weights.shape
    n_of = np.diff(entry_ptr)
    first = np.repeat(entry_ptr[:n_of.size], n_of)
    per_entry = np.repeat(n_of, n_of)
    champion = entry_weights.astype(np.float64, copy=True)
    e = np.repeat(np.arange(n_entries), per_entry)
    f = np.repeat(first, per_entry) + (np.arange(e.size) - np.repeat(np.cumsum(per_entry)
                                                                    - per_entry, per_entry))
    e, f = e[e != f], f[e != f]
    ce, cf = entry_class[e].astype(np.int64), entry_class[f].astype(np.int64)
    champion[e, cf - (cf > ce)] += entry_weights[f, ce - (ce > cf)]
    return champion


def toward_each_class(weights: np.ndarray, cls: np.ndarray, int k) -> np.ndarray:
    """What halves weights[i] of class cls[i] add to the guide S_j of every class j: the pair
    (c, j) holds c's half at position j - (j > c); S_c takes it signed toward c (+ when c < j),
    S_j toward j (- when c < j)."""
    n, width = weights.shape
    c = np.asarray(cls, dtype=np.int64)[:, None]
    j = np.arange(k)[None, :]
    low = np.concatenate([weights, np.zeros((n, 1))], axis=1)
    high = np.concatenate([np.zeros((n, 1)), weights], axis=1)
    out = np.where(j < c, low, 0.0) - np.where(j > c, high, 0.0)
    m = np.arange(width)[None, :]
    out[np.arange(n), c[:, 0]] = np.where(m >= c, weights, -weights).sum(axis=1)
    return out


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
    cdef readonly bint guided
    cdef readonly dict arrays
    cdef readonly dict settings
    cdef readonly KeyIndex index
    cdef readonly KeyIndex features
    cdef readonly ScratchPool pool
    cdef int width
    cdef bint dense_rows
    cdef const int32_t* single_row
    cdef const int32_t* pair_row
    cdef RareIndex rare
    cdef const int64_t* entry_ptr
    cdef const int32_t* entry_class
    cdef const double* entry_weights
    cdef const float* champion_weights
    cdef const double* champion_bounds
    cdef const int32_t* guide_row
    cdef const float* guide_weights
    # How often `vote` took each of its paths (statistics; not synchronised between threads).
    cdef readonly int64_t n_votes
    cdef readonly int64_t n_candidate_misses
    cdef readonly int64_t n_exact_candidate_passes
    cdef readonly int64_t n_second_candidates
    cdef readonly int64_t n_full_passes
    cdef const double* constant
    cdef const double* guide_constant
    cdef const double* rho
    cdef const int32_t* rare_sv_class
    cdef const double* rare_sv_coef
    cdef const double* rare_sv_guide

    def __init__(self, model, rare_threshold: int | float | str = "auto", guided: bool = True,
                 guide_rows: float = DEFAULT_GUIDE_ROWS):
        """Split a OneVsOneExpansion with three or more classes (degree 1..3); guided=False makes
        every vote a full pass; guide_rows: the fraction of conjunction rows (those of largest
        weights) that the guide reads."""
        if model.n_classes < 3:
            raise ValueError("a one-vs-one split needs at least three classes")
        arrays = build_arrays(model, rare_threshold, guide_rows)
        self._install(arrays.pop("settings"), arrays, guided)

    def _install(self, dict settings, dict arrays, bint guided) -> None:
        cdef RareIndex rare
        a = {name: np.ascontiguousarray(value) for name, value in arrays.items()}
        k = int(a["rho"].size)
        n_classes = int(round((1 + (1 + 8 * k) ** 0.5) / 2))
        if n_classes * (n_classes - 1) // 2 != k or n_classes < 3:
            raise ValueError("rho must hold one value per pair of three or more classes")
        width = n_classes - 1
        n_rows = a["keys"].size
        n_entries = a["entry_class"].size
        n_rare_sv = a["rare_sv_ptr"].size - 1
        n_common = int(a["n_common"][0])
        if a["entry_ptr"].shape != (n_rows + 1,) or a["entry_ptr"][n_rows] != n_entries:
            raise ValueError("entry_ptr must delimit the entries of every conjunction")
        for name, shape in (("entry_weights", (n_entries, width)),
                            ("champion_weights", (n_entries, width)),
                            ("champion_bounds", (n_entries, 2)),
                            ("guide_row", (n_rows,)),
                            ("constant", (n_classes * width,)),
                            ("guide_constant", (n_classes,)),
                            ("rare_sv_coef", (n_rare_sv, width)),
                            ("rare_sv_guide", (n_rare_sv, n_classes)),
                            ("rare_sv_class", (n_rare_sv,))):
            if a[name].shape != shape:
                raise ValueError(f"{name} must have shape {shape}, not {a[name].shape}")
        if n_entries and (a["entry_class"].min() < 0 or a["entry_class"].max() >= n_classes):
            raise ValueError("entry_class must hold class indices")
        if a["common_ids"].shape != (n_common,):
            raise ValueError(f"common_ids must hold the {n_common} common features")
        features = feature_index(a["common_ids"], a["rare_ids"])
        point_rare_index(&rare, a, n_common, features)
        self.features = features
        self.index = KeyIndex.from_keys(a["keys"])
        self.dense_rows = n_common <= MAX_DENSE_ROW_FEATURES
        if self.dense_rows:
            a["single_row"], a["pair_row"] = dense_row_tables(a["keys"], n_common)
            self.single_row = <const int32_t*><size_t>a["single_row"].ctypes.data
            self.pair_row = <const int32_t*><size_t>a["pair_row"].ctypes.data
        self.arrays = a
        self.settings = dict(settings)
        self.degree = int(settings["degree"])
        self.guided = guided
        self.n_classes = n_classes
        self.width = width
        self.n_outputs = k
        self.rare = rare
        self.pool = ScratchPool(rare_scratch_bytes(&rare))
        self.entry_ptr = <const int64_t*><size_t>a["entry_ptr"].ctypes.data
        self.entry_class = <const int32_t*><size_t>a["entry_class"].ctypes.data
        self.entry_weights = <const double*><size_t>a["entry_weights"].ctypes.data
        if a["champion_weights"].dtype != np.float32 or a["guide_weights"].dtype != np.float32:
            raise ValueError("champion_weights and guide_weights must be float32")
        self.champion_weights = <const float*><size_t>a["champion_weights"].ctypes.data
        self.champion_bounds = <const double*><size_t>a["champion_bounds"].ctypes.data
        if (a["guide_weights"].ndim != 2 or a["guide_weights"].shape[1] != n_classes
                or (n_rows and a["guide_row"].max() >= a["guide_weights"].shape[0])):
            raise ValueError("guide_weights must hold k sums for every row guide_row names")
        self.guide_row = <const int32_t*><size_t>a["guide_row"].ctypes.data
        self.guide_weights = <const float*><size_t>a["guide_weights"].ctypes.data
        self.constant = <const double*><size_t>a["constant"].ctypes.data
        self.guide_constant = <const double*><size_t>a["guide_constant"].ctypes.data
        self.rho = <const double*><size_t>a["rho"].ctypes.data
        self.rare_sv_class = <const int32_t*><size_t>a["rare_sv_class"].ctypes.data
        self.rare_sv_coef = <const double*><size_t>a["rare_sv_coef"].ctypes.data
        self.rare_sv_guide = <const double*><size_t>a["rare_sv_guide"].ctypes.data

    @property
    def n_common_features(self) -> int:
        return int(self.rare.n_common)

    @property
    def n_rare_features(self) -> int:
        return int(self.arrays["rare_ptr"].size - 1)

    cdef int64_t row_bound(self, int64_t m) noexcept nogil:
        # The most conjunction rows that m common features can reach.
        return conjunction_count(m, self.degree)

    cdef int64_t collect_rows(self, const int32_t* ranks, int m_common,
                              int32_t* rows) noexcept nogil:
        # The rows of the conjunctions of x's common features that the table holds.
        cdef int a, b, c
        cdef int32_t row
        cdef uint64_t kbc
        cdef int64_t n_rows = 0
        for c in range(m_common):
            if self.dense_rows:
                row = self.single_row[ranks[c]]
            else:
                row = self.index.get(extend_key(0, ranks[c]))
            if row >= 0:
                rows[n_rows] = row
                n_rows += 1
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
                rows[n_rows] = row
                n_rows += 1
                if self.degree < 3:
                    continue
                for a in range(b):
                    row = self.index.get((<uint64_t>(ranks[a] + 1) << (2 * KEY_BITS)) | kbc)
                    if row >= 0:
                        rows[n_rows] = row
                        n_rows += 1
        return n_rows

    cdef void all_halves(self, const int32_t* rows, int64_t n_rows, const int32_t* touched,
                         const double* delta, int n_rare, double* h) noexcept nogil:
        # Every class's k-1 halves g_c[m] at h[c (k-1) + m].
        cdef int width = self.width
        cdef int64_t r, e
        cdef int i, m
        cdef int32_t s
        cdef double* hc
        cdef const double* w
        for i in range(self.n_classes * width):
            h[i] = self.constant[i]
        for i in range(n_rare):
            s = touched[i]
            hc = h + self.rare_sv_class[s] * width
            w = self.rare_sv_coef + <int64_t>s * width
            for m in range(width):
                hc[m] += w[m] * delta[i]
        for r in range(n_rows):
            for e in range(self.entry_ptr[rows[r]], self.entry_ptr[rows[r] + 1]):
                hc = h + self.entry_class[e] * width
                w = self.entry_weights + e * width
                for m in range(width):
                    hc[m] += w[m]

    cdef double champion_pass(self, const int32_t* rows, int64_t n_rows,
                              const int32_t* touched, const double* delta, int n_rare,
                              int champion, bint exact, double* v, float* acc) noexcept nogil:
        # The champion's k-1 pair values before rho: v[j'] = g_c[j'] + g_j[c']. Unless exact,
        # the rows the champion holds come from the float32 pair weights, summed in float32
        # (acc: k-1 floats of scratch); the return value bounds how far that puts each v[j']
        # from the float64 sum: the weights' rounding plus gamma_n sum |x| for n float32
        # additions (Higham 2002, eq. 4.4), 0 when exact.
        cdef int width = self.width
        cdef int64_t r, e, first, last
        cdef int i, m, c, n_held = 0
        cdef int32_t s
        cdef double rounding = 0.0, largest = 0.0, gamma
        cdef const double* w
        cdef const float* narrow
        for i in range(width):
            c = i + (i >= champion)
            v[i] = (self.constant[champion * width + i]
                    + self.constant[c * width + champion - (champion > c)])
            acc[i] = 0.0
        for i in range(n_rare):
            s = touched[i]
            c = self.rare_sv_class[s]
            w = self.rare_sv_coef + <int64_t>s * width
            if c == champion:
                for m in range(width):
                    v[m] += w[m] * delta[i]
            else:
                v[c - (c > champion)] += w[champion - (champion > c)] * delta[i]
        for r in range(n_rows):
            first = self.entry_ptr[rows[r]]
            last = self.entry_ptr[rows[r] + 1]
            if not exact:
                if r + PREFETCH_ROWS < n_rows:
                    e = self.held_entry(rows[r + PREFETCH_ROWS], champion)
                    if e >= 0:
                        narrow = self.champion_weights + e * width
                        for m in range(0, width, 16):
                            prefetch(narrow + m)
                        prefetch(narrow + width - 1)
                        prefetch(self.champion_bounds + 2 * e)
                e = self.held_entry(rows[r], champion)
                if e >= 0:
                    narrow = self.champion_weights + e * width
                    for m in range(width):
                        acc[m] += narrow[m]
                    rounding += self.champion_bounds[2 * e]
                    largest += self.champion_bounds[2 * e + 1]
                    n_held += 1
                    continue
            for e in range(first, last):
                c = self.entry_class[e]
                w = self.entry_weights + e * width
                if c == champion:
                    for m in range(width):
                        v[m] += w[m]
                else:
                    v[c - (c > champion)] += w[champion - (champion > c)]
        if n_held == 0:
            return 0.0
        for m in range(width):
            v[m] += acc[m]
        gamma = n_held * FLOAT_UNIT_ROUNDOFF
        if gamma >= 0.5:
            return INFINITY
        return (rounding + gamma / (1.0 - gamma) * largest) * (1.0 + 2.0 ** -20)

    cdef inline int64_t held_entry(self, int32_t row, int champion) noexcept nogil:
        # The entry of the champion in a conjunction row, -1 when it does not hold it.
        cdef int64_t e = self.entry_ptr[row], last = self.entry_ptr[row + 1]
        while e < last and self.entry_class[e] < champion:
            e += 1
        return e if e < last and self.entry_class[e] == champion else -1

    cdef int outcome(self, const double* v, double slack, int champion, const bint* allowed,
                     int* beaten_by, int* n_beaten) noexcept nogil:
        # 1 if the champion wins its pairs against every allowed class, 0 if it loses some (the
        # classes that beat it go to beaten_by), -1 if a pair value lies within slack of 0.
        cdef int j, k = self.n_classes
        cdef double value
        n_beaten[0] = 0
        for j in range(k):
            if j == champion or not allowed[j]:
                continue
            if champion < j:
                value = v[j - 1] - self.rho[pair_index(champion, j, k)]
            else:
                value = v[j] - self.rho[pair_index(j, champion, k)]
            if not (value > slack or value < -slack or (slack == 0.0 and value == 0.0)):
                return -1
            if (value > 0) != (champion < j):
                beaten_by[n_beaten[0]] = j
                n_beaten[0] += 1
        return n_beaten[0] == 0

    cdef bint candidate_wins(self, const int32_t* rows, int64_t n_rows, const int32_t* touched,
                             const double* delta, int n_rare, int champion, const bint* allowed,
                             double* v, float* acc, int* beaten_by,
                             int* n_beaten) noexcept nogil:
        # Whether the champion wins all its pairs (float32 pass, float64 when undecided).
        cdef double slack = self.champion_pass(rows, n_rows, touched, delta, n_rare, champion,
                                               False, v, acc)
        cdef int result = self.outcome(v, slack, champion, allowed, beaten_by, n_beaten)
        if result < 0:
            self.n_exact_candidate_passes += 1
            self.champion_pass(rows, n_rows, touched, delta, n_rare, champion, True, v, acc)
            result = self.outcome(v, 0.0, champion, allowed, beaten_by, n_beaten)
        return result == 1

    cdef void guide_sums(self, const int32_t* rows, int64_t n_rows, const int32_t* touched,
                         const double* delta, int n_rare, double* sums,
                         float* acc) noexcept nogil:
        # The guide S_c of every class, approximately: only the rows of largest weights take
        # part, held and summed in float32 (acc: k floats of scratch); it only names a candidate.
        cdef int k = self.n_classes
        cdef int64_t r
        cdef int i, c
        cdef int32_t g
        cdef const double* w
        cdef const float* narrow
        for c in range(k):
            sums[c] = self.guide_constant[c]
            acc[c] = 0.0
        for i in range(n_rare):
            w = self.rare_sv_guide + <int64_t>touched[i] * k
            for c in range(k):
                sums[c] += w[c] * delta[i]
        for r in range(n_rows):
            if r + PREFETCH_ROWS < n_rows:
                g = self.guide_row[rows[r + PREFETCH_ROWS]]
                if g >= 0:
                    narrow = self.guide_weights + <int64_t>g * k
                    for c in range(0, k, 16):
                        prefetch(narrow + c)
                    prefetch(narrow + k - 1)
                prefetch(self.entry_ptr + rows[r + PREFETCH_ROWS])
            if r + PREFETCH_ROWS // 2 < n_rows:
                prefetch(self.entry_class + self.entry_ptr[rows[r + PREFETCH_ROWS // 2]])
            g = self.guide_row[rows[r]]
            if g < 0:
                continue
            narrow = self.guide_weights + <int64_t>g * k
            for c in range(k):
                acc[c] += narrow[c]
        for c in range(k):
            sums[c] += acc[c]

    cdef inline double pair_value(self, const double* h, int i, int j) noexcept nogil:
        return (h[i * self.width + j - 1] + h[j * self.width + i]
                - self.rho[pair_index(i, j, self.n_classes)])

    cdef int32_t* acquire_rows(self, const int32_t* feats, int n, void** scratch, int* slot,
                               int32_t* ranks, int* m_common, int* n_rare,
                               int64_t* n_rows) noexcept nogil:
        # Scratch (the rare support vectors x reaches with their kernel terms, split_features),
        # x's sorted common ranks and the rows of their conjunctions; NULL (nothing held) when
        # out of memory.
        cdef int32_t* rows
        scratch[0] = self.pool.acquire(slot)
        if scratch[0] == NULL:
            return NULL
        m_common[0] = split_features(&self.rare, rare_scratch(&self.rare, scratch[0]), feats, n,
                                     ranks, n_rare, NULL, 0, NULL)
        sort_ranks(ranks, m_common[0])
        rows = <int32_t*>malloc(max(1, self.row_bound(m_common[0])) * sizeof(int32_t))
        if rows == NULL:
            self.pool.release(scratch[0], slot[0])
            return NULL
        n_rows[0] = self.collect_rows(ranks, m_common[0], rows)
        return rows

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int k = self.n_classes
        cdef int i, j, p = 0, slot, m_common, n_rare
        cdef int64_t n_rows
        cdef void* scratch
        cdef RareScratch reached
        cdef int32_t* ranks = <int32_t*>malloc(max(n, 1) * sizeof(int32_t))
        cdef int32_t* rows = NULL
        cdef double* h = <double*>malloc(k * self.width * sizeof(double))
        if ranks != NULL and h != NULL:
            rows = self.acquire_rows(feats, n, &scratch, &slot, ranks, &m_common, &n_rare,
                                     &n_rows)
        if rows == NULL:
            no_scores(out, self.n_outputs)
        else:
            reached = rare_scratch(&self.rare, scratch)
            self.all_halves(rows, n_rows, reached.touched, reached.kernel_terms, n_rare, h)
            self.pool.release(scratch, slot)
            for i in range(k):
                for j in range(i + 1, k):
                    out[p] = self.pair_value(h, i, j)
                    p += 1
        free(rows)
        free(h)
        free(ranks)

    cdef int vote(self, const int32_t* feats, int n, const bint* allowed) noexcept nogil:
        # libsvm's vote among the classes c with allowed[c], ties to the first; -1 if none (or
        # out of memory).
        cdef int k = self.n_classes
        cdef int c, i, j, t, best = -1, n_allowed = 0, slot, m_common, n_rare, n_beaten
        cdef int n_beating_second
        cdef int64_t n_rows
        cdef void* scratch
        cdef RareScratch reached
        cdef int32_t* rows = NULL
        cdef int32_t* ranks = <int32_t*>malloc(max(n, 1) * sizeof(int32_t))
        cdef double* h = <double*>malloc((k * self.width + 3 * k) * sizeof(double))
        cdef double* sums = h + k * self.width
        cdef int* votes = <int*>(sums + k)
        cdef int* beaten_by = votes + k
        cdef float* acc = <float*>(sums + 2 * k)
        for c in range(k):
            n_allowed += allowed[c]
            if allowed[c] and best < 0:
                best = c
        if n_allowed > 1 and ranks != NULL and h != NULL:
            best = -1
            rows = self.acquire_rows(feats, n, &scratch, &slot, ranks, &m_common, &n_rare,
                                     &n_rows)
        if rows != NULL:
            reached = rare_scratch(&self.rare, scratch)
            if self.guided:
                self.n_votes += 1
                self.guide_sums(rows, n_rows, reached.touched, reached.kernel_terms, n_rare, sums,
                                acc)
                for c in range(k):
                    if allowed[c] and (best < 0 or sums[c] > sums[best]):
                        best = c
                if not self.candidate_wins(rows, n_rows, reached.touched, reached.kernel_terms,
                                           n_rare, best, allowed, h, acc, beaten_by, &n_beaten):
                    best = -1
                    self.n_candidate_misses += 1
                    # A class that wins all its pairs beat the candidate: try the two of those
                    # with the highest guide sums.
                    for t in range(min(2, n_beaten)):
                        c = t
                        for i in range(t + 1, n_beaten):
                            if sums[beaten_by[i]] > sums[beaten_by[c]]:
                                c = i
                        beaten_by[t], beaten_by[c] = beaten_by[c], beaten_by[t]
                        self.n_second_candidates += 1
                        # (votes is free here: it takes the classes that beat this one.)
                        if self.candidate_wins(rows, n_rows, reached.touched,
                                               reached.kernel_terms, n_rare, beaten_by[t],
                                               allowed, h + self.width, acc, votes,
                                               &n_beating_second):
                            best = beaten_by[t]
                            break
            if best < 0:
                self.n_full_passes += 1
                self.all_halves(rows, n_rows, reached.touched, reached.kernel_terms, n_rare, h)
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
            self.pool.release(scratch, slot)
        free(rows)
        free(h)
        free(ranks)
        return best

    def champion_values(self, const int32_t[::1] feats, int champion,
                        bint exact = True) -> tuple[np.ndarray, float]:
        """The k-1 values of the pairs of class c = champion signed toward c (d_cj for c < j,
        -d_jc for j < c), in the order of the other classes: the candidate pass of `vote`
        (exact=False: with the float32 pair weights), and the bound on their distance from the
        float64 values."""
        cdef int j, c
        if not 0 <= champion < self.n_classes:
            raise ValueError(f"champion must be a class index below {self.n_classes}")
        out, slack = self._one_pass(feats, champion, exact)
        cdef double[::1] values = out
        for j in range(self.width):
            c = j + (j >= champion)
            if c > champion:
                values[j] -= self.rho[pair_index(champion, c, self.n_classes)]
            else:
                values[j] = self.rho[pair_index(c, champion, self.n_classes)] - values[j]
        return out, slack

    def guide_values(self, const int32_t[::1] feats) -> np.ndarray:
        """The guide S_c of every class (for tests)."""
        return self._one_pass(feats, -1, False)[0]

    def _one_pass(self, const int32_t[::1] feats, int champion, bint exact) -> tuple:
        # The guide pass (champion < 0) or a candidate pass over x alone, with its bound.
        cdef int32_t empty = 0
        cdef int slot, m_common, n_rare
        cdef int64_t n_rows
        cdef void* scratch
        cdef int32_t* rows
        cdef RareScratch reached
        cdef double slack = 0.0
        size = self.n_classes if champion < 0 else self.width
        out = np.empty(size, dtype=np.float64)
        ranks = np.empty(max(1, feats.shape[0]), dtype=np.int32)
        sums = np.empty(size, dtype=np.float32)
        cdef double[::1] values = out
        cdef int32_t[::1] rank_view = ranks
        cdef float[::1] acc = sums
        rows = self.acquire_rows(&feats[0] if feats.shape[0] else &empty, <int>feats.shape[0],
                                 &scratch, &slot, &rank_view[0], &m_common, &n_rare, &n_rows)
        if rows == NULL:
            raise MemoryError()
        reached = rare_scratch(&self.rare, scratch)
        if champion < 0:
            self.guide_sums(rows, n_rows, reached.touched, reached.kernel_terms, n_rare,
                            &values[0], &acc[0])
        else:
            slack = self.champion_pass(rows, n_rows, reached.touched, reached.kernel_terms,
                                       n_rare, champion, exact, &values[0], &acc[0])
        self.pool.release(scratch, slot)
        free(rows)
        return out, slack

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: conjunctions (hash, class entries, the candidate pass's pair
        weights), the guide's rows, rare index, rare support vectors, scratch of one call."""
        rows = ("entry_ptr", "entry_class", "entry_weights")
        if self.dense_rows:
            rows += ("single_row", "pair_row")
        report = part_bytes(self.arrays, {
            "common_conjunctions": rows,
            "candidate_pair_weights": ("champion_weights", "champion_bounds"),
            "guide": ("guide_weights", "guide_row", "guide_constant", "rare_sv_guide"),
            "feature_index": ("common_ids",),
            "rare_index": ("rare_ids", "rare_ptr", "rare_postings"),
            "rare_support_vectors": ("rare_sv_ptr", "rare_sv_common", "rare_sv_class",
                                     "rare_sv_coef", "kernel"),
            "constants": ("constant", "rho"),
        })
        report["common_conjunctions"] += self.index.nbytes
        report["feature_index"] += self.features.nbytes
        report["scratch_per_call"] = self.pool.bytes_per_call
        return report

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())
