# cython: language_level=3
"""split-svm: the exact kernel sum from a split of the features into common and rare ones.

Goldberg & Elhadad 2008, "splitSVM: fast, space-efficient, non-heuristic, polynomial kernel
computation for NLP applications" (ACL-08: HLT short papers), section 3. A feature is rare when
fewer than s support vectors hold it (s = rare_threshold: a count, a fraction of the support
vectors, or by default the smallest s whose common features fit the dense array below), common
otherwise. Every vector splits as s = s_C + s_R, so |s & x| = |s_C & x_C| +
|s_R & x_R| and with K(c) = (gamma c + coef0)^d

    K(s, x)   = K_C(s, x) + K_R(s, x),
    K_C(s, x) = K(|s_C & x_C|),
    K_R(s, x) = K(|s_C & x_C| + |s_R & x_R|) - K(|s_C & x_C|),

where K_R(s, x) = 0 unless s and x share a rare feature. The decision value is then

    value_k(x) = intercept_k + sum_i a_ki K_C(s_i, x) + sum_{i : s_iR & x_R != {}} a_ki K_R(s_i, x).

The first sum is a kernel over common features only, expanded into conjunction weights exactly as
PKE does (classifiers/evaluators/pke.pyx, Isozaki & Kazawa 2002; Kudo & Matsumoto 2003), so its table only
holds conjunctions of the few common features; they are ranked by the number of support vectors
holding them, and the conjunctions of the top ranks sit in a dense array (all of them when they
fit max_dense_bytes), the rest in a hash table. The second sum walks an inverted index over rare
features: it counts |s_R & x_R| for the support vectors it reaches, counts |s_C & x_C| from their
stored common ranks against a mark per common feature of x, and adds a_ki K_R.

Features are found by id through one hash (features/key_index.pyx) holding the common ids by
rank and then the rare ids, so every table is sized by the number of distinct features of the
support vectors, however large the ids are (feature hashing writes ids up to 2**31 - 1).

Nothing is approximated: the total is the kernel sum (to floating-point rounding). s = 0 or 1
makes every feature common (PKE); s above the largest count makes every feature rare (all support
vectors go through the index, as in PKI).
"""
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

from typing import Any

import numpy as np

from polyparse.classifiers.evaluators.choices import AUTO, DEFAULT_RARE_THRESHOLD, minimum_common_count
from polyparse.classifiers.model_file import require_arrays
from polyparse.classifiers.evaluators.scorer_arrays import (
    arrays_checked,
    header_values,
    narrow_ranks,
    part_bytes,
)
from polyparse.classifiers.evaluators.pke cimport ConjunctionStore
from polyparse.classifiers.evaluators.pke import (
    DEFAULT_MAX_DENSE_BYTES,
    build_store,
    dense_rank_count,
)
from polyparse.classifiers.evaluators.pki cimport ScratchPool
from polyparse.classifiers.scorer cimport BinaryScorer, no_scores
from polyparse.features.key_index cimport KeyIndex

cdef enum:
    STACK_FEATURES = 256

def auto_common_count(holders: np.ndarray, int64_t n_dense) -> int:
    """The smallest s that leaves at most n_dense features held by >= s support vectors."""
    counts = np.sort(holders[holders > 0])[::-1]
    return 1 if counts.size <= n_dense else int(counts[n_dense]) + 1


def split_index(support_vectors, ids: np.ndarray, holders: np.ndarray,
                double min_common_count
                ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """The split of the features at s = min_common_count (ids: the distinct ids the support
    vectors hold, ascending; holders[j]: how many of them hold ids[j]): the common ids by rank
    (most held first, ties: smaller id), the rare ids ascending (rare feature r is rare_ids[r]),
    the arrays of the RareIndex but its kernel (split_svm.pxd), and the support vectors holding
    a rare feature, ascending (the rare support vectors 0, 1, ...)."""
    sv = support_vectors
    common = holders >= min_common_count
    by_rank = np.flatnonzero(common)[np.argsort(-holders[common], kind="stable")]
    rare = np.flatnonzero(~common)
    n_common = by_rank.size
    # Each distinct feature's value in the feature index: common rank, or n_common + rare number.
    value = np.empty(ids.size, dtype=np.int32)
    value[by_rank] = np.arange(n_common, dtype=np.int32)
    value[rare] = n_common + np.arange(rare.size, dtype=np.int32)
    # The rare support vectors' rare features as postings, their common features as ranks.
    rows = np.repeat(np.arange(len(sv)), sv.row_lengths())
    rare_svs = np.unique(rows[value[np.searchsorted(ids, sv.indices)] >= n_common])
    sub = sv.take(rare_svs)
    sub_rows = np.repeat(np.arange(rare_svs.size), sub.row_lengths())
    sub_value = value[np.searchsorted(ids, sub.indices)]
    in_rare = sub_value >= n_common
    rare_number = sub_value[in_rare] - n_common
    order = np.lexsort((sub_rows[in_rare], rare_number))
    rare_ptr = np.zeros(rare.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(rare_number, minlength=rare.size), out=rare_ptr[1:])
    in_common = ~in_rare
    rare_sv_ptr = np.zeros(rare_svs.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(sub_rows[in_common], minlength=rare_svs.size), out=rare_sv_ptr[1:])
    index = {
        "rare_ptr": rare_ptr,
        "rare_postings": sub_rows[in_rare][order].astype(np.int32),
        "rare_sv_ptr": rare_sv_ptr,
        "rare_sv_common": sub_value[in_common],
    }
    return ids[by_rank].astype(np.int32), ids[rare].astype(np.int32), index, rare_svs


def feature_index(common_ids: np.ndarray, rare_ids: np.ndarray) -> KeyIndex:
    """The KeyIndex of a split's features: the common ids by rank, then the rare ids, so that
    an id's value is its common rank, or n_common plus its rare number; ValueError when an id is
    negative or given twice."""
    ids = np.concatenate([common_ids, rare_ids]).astype(np.int64)
    if ids.size and ids.min() < 0:
        raise ValueError("feature ids must be non-negative")
    return KeyIndex.from_keys(ids.astype(np.uint64))


def rare_ids_of_feature_class(feature_class: np.ndarray, common_ids: np.ndarray) -> np.ndarray:
    """The rare ids of a split stored in the earlier layout, whose feature_class array gave
    every id below its length its common rank, -1 (held by no support vector) or -2 - r (the
    rare feature r); ValueError when it does not agree with common_ids."""
    feature_class = np.asarray(feature_class)
    n_common = common_ids.size
    if n_common and (common_ids.min() < 0 or common_ids.max() >= feature_class.size
                     or (feature_class[common_ids] != np.arange(n_common)).any()):
        raise ValueError("common_ids and feature_class disagree")
    if np.count_nonzero(feature_class >= 0) != n_common:
        raise ValueError("feature_class must hold ranks, -1 or rare feature numbers")
    rare = np.flatnonzero(feature_class <= -2)
    numbers = -2 - feature_class[rare].astype(np.int64)
    if (np.sort(numbers) != np.arange(rare.size)).any():
        raise ValueError("feature_class must number the rare features 0, 1, ...")
    rare_ids = np.empty(rare.size, dtype=np.int32)
    rare_ids[numbers] = rare
    return rare_ids


cdef int point_rare_index(RareIndex* index, dict arrays, int32_t n_common,
                          KeyIndex features) except -1:
    for name, dtype in (("rare_ids", np.int32), ("rare_ptr", np.int64),
                        ("rare_postings", np.int32), ("rare_sv_ptr", np.int64),
                        ("rare_sv_common", np.int32), ("kernel", np.float64)):
        array = arrays[name]
        if name == "rare_sv_common" and array.dtype == np.int16:
            dtype = np.int16
        if array.dtype != dtype or array.ndim != 1 or not array.flags.c_contiguous:
            raise ValueError(f"{name} must be a {np.dtype(dtype)} array")
    for ptr_name, data_name in (("rare_ptr", "rare_postings"),
                                ("rare_sv_ptr", "rare_sv_common")):
        ptr, data = arrays[ptr_name], arrays[data_name]
        if (ptr.size < 1 or ptr[0] != 0 or ptr[ptr.size - 1] != data.size
                or np.any(np.diff(ptr) < 0)):
            raise ValueError(f"{ptr_name} must delimit {data_name}")
    rare_ids = arrays["rare_ids"]
    n_rare = arrays["rare_ptr"].size - 1
    n_rare_sv = arrays["rare_sv_ptr"].size - 1
    if rare_ids.size != n_rare:
        raise ValueError("rare_ids must name every rare feature")
    if len(features) != n_common + n_rare:
        raise ValueError("the feature index must hold the common and the rare features")
    largest = int(features.keys().max()) if len(features) else -1
    postings, ranks = arrays["rare_postings"], arrays["rare_sv_common"]
    if postings.size and (postings.min() < 0 or postings.max() >= n_rare_sv):
        raise ValueError("rare_postings must hold rare support vector numbers")
    if ranks.size and (ranks.min() < 0 or ranks.max() >= n_common):
        raise ValueError("rare_sv_common must hold common feature ranks")
    longest = 0
    if n_rare_sv:
        longest = int((np.diff(arrays["rare_sv_ptr"])
                       + np.bincount(postings, minlength=n_rare_sv)).max())
    if arrays["kernel"].size < longest + 1:
        raise ValueError("kernel must cover every possible shared-feature count")
    index.max_id = largest
    index.n_common = n_common
    index.n_support_vectors = n_rare_sv
    index.features = features.slots()
    index.rare_ptr = <const int64_t*><size_t>arrays["rare_ptr"].ctypes.data
    index.rare_postings = <const int32_t*><size_t>postings.ctypes.data
    index.rare_sv_ptr = <const int64_t*><size_t>arrays["rare_sv_ptr"].ctypes.data
    index.rare_sv_common = NULL
    index.rare_sv_common16 = NULL
    if ranks.dtype == np.int16:
        index.rare_sv_common16 = <const int16_t*><size_t>ranks.ctypes.data
    else:
        index.rare_sv_common = <const int32_t*><size_t>ranks.ctypes.data
    index.kernel = <const double*><size_t>arrays["kernel"].ctypes.data
    index.low_ranks = NULL
    index.rest_ptr = NULL
    index.rest_common = NULL
    index.rest_common16 = NULL
    index.direct = NULL
    return 0


# A direct table of feature ids is built when it has at most this many entries per feature of
# the index (beyond DIRECT_SLACK): ids ranked by frequency are dense, hashed ones are not.
DIRECT_ENTRIES_PER_FEATURE = 4
DIRECT_SLACK = 1 << 16


cdef object index_direct_ids(RareIndex* index, object common_ids, object rare_ids):
    """The feature index as a table over the ids 0..max_id (common rank, n_common + rare
    number, or -1 for an id no support vector holds), which split_features reads instead of
    hashing the id; None, and index left to the hash, when the ids are too sparse for it."""
    cdef int64_t n_features = common_ids.size + rare_ids.size
    cdef int64_t size = <int64_t>index.max_id + 1
    if size > DIRECT_ENTRIES_PER_FEATURE * n_features + DIRECT_SLACK:
        return None
    table = np.full(max(1, size), -1, dtype=np.int32)
    table[common_ids] = np.arange(common_ids.size, dtype=np.int32)
    table[rare_ids] = common_ids.size + np.arange(rare_ids.size, dtype=np.int32)
    index.direct = <const int32_t*><size_t>table.ctypes.data
    return table


cdef tuple index_low_ranks(RareIndex* index):
    """Split each rare support vector's common ranks into a bit set of those below LOW_RANKS
    and the list of the others (a rank met twice goes to the list the second time, so that the
    bits and the list count what the whole list counts), point index at them and return the
    arrays (low_ranks, rest_ptr, rest_common) that hold them."""
    cdef int64_t n_sv = index.n_support_vectors
    cdef int64_t q
    cdef bint narrow = index.rare_sv_common16 != NULL
    cdef int64_t n_ranks = index.rare_sv_ptr[n_sv] if n_sv else 0
    low = np.zeros(max(1, n_sv * LOW_RANK_WORDS), dtype=np.uint64)
    rest_ptr = np.zeros(n_sv + 1, dtype=np.int64)
    rest = np.empty(max(1, n_ranks), dtype=np.int16 if narrow else np.int32)
    cdef uint64_t* low_bits = <uint64_t*><size_t>low.ctypes.data
    cdef int64_t* ptr = <int64_t*><size_t>rest_ptr.ctypes.data
    cdef void* kept = <void*><size_t>rest.ctypes.data
    with nogil:
        if narrow:
            q = _split_ranks[int16_t](index.rare_sv_common16, index.rare_sv_ptr, n_sv, low_bits,
                                      ptr, <int16_t*>kept)
        else:
            q = _split_ranks[int32_t](index.rare_sv_common, index.rare_sv_ptr, n_sv, low_bits,
                                      ptr, <int32_t*>kept)
    rest = rest[:max(1, q)].copy()
    index.low_ranks = <const uint64_t*><size_t>low.ctypes.data
    index.rest_ptr = <const int64_t*><size_t>rest_ptr.ctypes.data
    if narrow:
        index.rest_common16 = <const int16_t*><size_t>rest.ctypes.data
    else:
        index.rest_common = <const int32_t*><size_t>rest.ctypes.data
    return low, rest_ptr, rest


ctypedef fused _rank_t:
    int16_t
    int32_t


cdef int64_t _split_ranks(const _rank_t* ranks, const int64_t* sv_ptr, int64_t n_sv,
                          uint64_t* low, int64_t* rest_ptr, _rank_t* rest) noexcept nogil:
    # index_low_ranks' pass over the ranks (low zeroed, rest_ptr[0] = 0); the ranks kept in
    # rest.
    cdef int64_t s, p, q = 0
    cdef int32_t rank
    cdef uint64_t bit
    cdef uint64_t* word
    for s in range(n_sv):
        for p in range(sv_ptr[s], sv_ptr[s + 1]):
            rank = ranks[p]
            if rank < LOW_RANKS:
                word = low + s * LOW_RANK_WORDS + (rank >> 6)
                bit = (<uint64_t>1) << (rank & 63)
                if not (word[0] & bit):
                    word[0] |= bit
                    continue
            rest[q] = <_rank_t>rank
            q += 1
        rest_ptr[s + 1] = q
    return q

cdef class SplitSVMScorer(BinaryScorer):
    def __init__(
        self,
        expansion,
        rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD,
        int64_t max_dense_bytes=DEFAULT_MAX_DENSE_BYTES,
        bint drop_zero_weights=True,
    ):
        """Split a KernelExpansion (degree 1..3) at rare_threshold.

        rare_threshold is a count s, a fraction of the support vectors, or 'auto': the smallest
        s whose common features all have their conjunctions in the dense array. That array
        takes at most max_dense_bytes (the conjunctions of the most held common features), the
        others go in a hash table (drop_zero_weights as in PKE).
        """
        sv = expansion.support_vectors
        n_sv = len(sv)
        ids, holders = np.unique(sv.indices, return_counts=True)
        if isinstance(rare_threshold, str) and rare_threshold == AUTO:
            n_dense = dense_rank_count(ids.size, expansion.degree, expansion.n_outputs,
                                       max_dense_bytes)
            s = float(auto_common_count(holders, n_dense))
        else:
            s = minimum_common_count(rare_threshold, n_sv)
        common_ids, rare_ids, rare_index, rare_svs = split_index(sv, ids, holders, s)
        rare_index["rare_sv_common"] = narrow_ranks(rare_index["rare_sv_common"])
        store, constant = build_store(expansion, common_ids, max_dense_bytes, drop_zero_weights)
        longest = int(sv.row_lengths().max()) if n_sv else 0
        arrays = {
            "constant": constant,
            "common_ids": common_ids,
            "rare_ids": rare_ids,
            **rare_index,
            "rare_sv_coef": np.ascontiguousarray(expansion.coefficients.T[rare_svs]),
            "kernel": expansion.kernel_of_count(np.arange(longest + 1)),
        }
        settings = {
            "degree": expansion.degree,
            "gamma": expansion.gamma,
            "coef0": expansion.coef0,
            "rare_threshold": rare_threshold,
            "min_common_count": s,
            "n_support_vectors": n_sv,
        }
        self._install(store, arrays, settings)

    def _install(self, ConjunctionStore store, dict arrays, dict settings) -> None:
        cdef RareIndex rare
        a = {name: np.ascontiguousarray(value) for name, value in arrays.items()}
        for name, dtype, ndim in (("constant", np.float64, 1), ("common_ids", np.int32, 1),
                                  ("rare_sv_coef", np.float64, 2)):
            if a[name].dtype != dtype or a[name].ndim != ndim:
                raise ValueError(f"{name} must be a {np.dtype(dtype)} array")
        n_outputs = store.n_outputs
        n_common = a["common_ids"].size
        if store.degree != int(settings["degree"]) or store.n_ranked != n_common:
            raise ValueError("the conjunction store does not match the degree or common features")
        if a["constant"].shape != (n_outputs,):
            raise ValueError("constant must hold one value per output")
        features = feature_index(a["common_ids"], a["rare_ids"])
        point_rare_index(&rare, a, n_common, features)
        self.low_rank_arrays = index_low_ranks(&rare)
        self.direct_ids = index_direct_ids(&rare, a["common_ids"], a["rare_ids"])
        if a["rare_sv_coef"].shape != (rare.n_support_vectors, n_outputs):
            raise ValueError("rare_sv_coef must be (n_rare_support_vectors, n_outputs)")
        self.common = store
        self.features = features
        self.arrays = a
        self.settings = dict(settings)
        self.n_outputs = n_outputs
        self.rare = rare
        self.pool = ScratchPool(rare_scratch_bytes(&rare))
        self.constant = <const double*><size_t>a["constant"].ctypes.data
        self.rare_sv_coef = <const double*><size_t>a["rare_sv_coef"].ctypes.data

    @property
    def n_common_features(self) -> int:
        return int(self.rare.n_common)

    @property
    def n_rare_support_vectors(self) -> int:
        return int(self.rare.n_support_vectors)

    @property
    def n_rare_features(self) -> int:
        return int(self.arrays["rare_ptr"].size - 1)

    @property
    def dense(self) -> bool:
        """True when every conjunction of common features sits in the dense array."""
        return self.common.n_dense == self.common.n_ranked

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int32_t stack_ranks[STACK_FEATURES]
        cdef int32_t* x_ranks = stack_ranks
        cdef int n_outputs = self.n_outputs
        cdef int slot, k, m_common, n_rare
        cdef RareScratch scratch
        cdef void* buffer
        for k in range(n_outputs):
            out[k] = self.constant[k]
        buffer = self.pool.acquire(&slot)
        if n > STACK_FEATURES:
            x_ranks = <int32_t*>malloc(n * sizeof(int32_t))
        if buffer == NULL or x_ranks == NULL:
            no_scores(out, n_outputs)
            if buffer != NULL:
                self.pool.release(buffer, slot)
            if x_ranks != stack_ranks:
                free(x_ranks)
            return
        scratch = rare_scratch(&self.rare, buffer)
        m_common = split_features(&self.rare, scratch, feats, n, x_ranks, &n_rare,
                                  self.rare_sv_coef, n_outputs, out)
        self.pool.release(buffer, slot)
        self.common.add(x_ranks, m_common, out)
        if x_ranks != stack_ranks:
            free(x_ranks)

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: common expansion, the hash from feature id to common rank or
        rare feature (and its table, when the ids are dense), rare index, rare support vectors
        (and their low ranks' bit sets), scratch."""
        parts = self.common.memory_report()
        return {
            "common_dense": parts["dense"],
            "common_hashed": parts["hashed"],
            "feature_index": self.features.nbytes,
            **part_bytes(self.arrays, {
                "common_ranks": ("constant", "common_ids"),
                "rare_index": ("rare_ids", "rare_ptr", "rare_postings",
                               *(("feature_class",) if "feature_class" in self.arrays else ())),
                "rare_support_vectors": ("rare_sv_ptr", "rare_sv_common", "rare_sv_coef",
                                         "kernel"),
            }),
            "rare_support_vector_low_ranks": sum(a.nbytes for a in self.low_rank_arrays),
            "feature_table": self.direct_ids.nbytes if self.direct_ids is not None else 0,
            "scratch_per_call": self.pool.bytes_per_call,
        }

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this scorer. A scorer
        read from a file of the earlier layout keeps its feature_class array (never looked
        up) and writes it back instead of rare_ids, so that the file is written as it was."""
        header = {"evaluator": "split", "n_outputs": self.n_outputs,
                  "n_dense": self.common.n_dense, **self.settings}
        arrays = {**self.arrays, **self.common.to_arrays()}
        if "feature_class" in arrays:
            del arrays["rare_ids"]
        arrays["rare_sv_common"] = narrow_ranks(arrays["rare_sv_common"])
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> SplitSVMScorer:
        """Rebuild a scorer from to_arrays() output; ModelFileError names `source`. Files of
        the earlier layout, which held a feature_class array over every id up to the largest
        instead of rare_ids, are read too."""
        settings = header_values(header, "split", "split-svm", {
            "n_outputs": int,
            "n_dense": int,
            "degree": int,
            "gamma": float,
            "coef0": float,
            "rare_threshold": None,
            "min_common_count": float,
            "n_support_vectors": int,
        }, source)
        n_outputs, n_dense = settings.pop("n_outputs"), settings.pop("n_dense")
        expected = {
            "constant": ("float64", (n_outputs,)),
            "common_ids": ("int32", (None,)),
            "rare_ids": ("int32", (None,)),
            "rare_ptr": ("int64", (None,)),
            "rare_postings": ("int32", (None,)),
            "rare_sv_ptr": ("int64", (None,)),
            "rare_sv_common": ("int32", (None,)),
            "rare_sv_coef": ("float64", (None, n_outputs)),
            "kernel": ("float64", (None,)),
        }
        # The ranks stay int16 when the file holds them so (narrow_ranks): half the bytes to
        # walk.
        ranks = arrays.get("rare_sv_common")
        if ranks is not None and ranks.dtype == np.int16:
            expected["rare_sv_common"] = ("int16", (None,))
        if "rare_ids" not in arrays and "feature_class" in arrays:
            require_arrays(source, arrays, {"feature_class": ("int32", (None,)),
                                            "common_ids": ("int32", (None,))})
            with arrays_checked(source, "split-svm"):
                arrays = {**arrays, "rare_ids": rare_ids_of_feature_class(
                    arrays["feature_class"], arrays["common_ids"])}
        require_arrays(source, arrays, expected)
        scorer = cls.__new__(cls)
        with arrays_checked(source, "split-svm"):
            store = ConjunctionStore.from_arrays(arrays, settings["degree"],
                                                 arrays["common_ids"].size, n_dense, n_outputs,
                                                 source)
            kept = [*expected, "feature_class"] if "feature_class" in arrays else expected
            scorer._install(store, {name: arrays[name] for name in kept}, settings)
        return scorer
