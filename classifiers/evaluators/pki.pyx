# cython: language_level=3
"""PKI: the kernel sum through an inverted index from features to support vectors.

Kudo & Matsumoto 2003, "Fast methods for kernel-based text analysis", section 3.1 (PKI): with
binary features only the support vectors sharing a feature with x have a count c_i = |s_i & x|
above 0, and those counts come from the posting lists of x's features. Every other support vector
contributes (gamma 0 + coef0)^d = coef0^d, so

    value_k(x) = intercept_k + sum_i a_ki K(c_i)
               = [intercept_k + K(0) sum_i a_ki] + sum_{i touched} a_ki (K(c_i) - K(0)),

with K(c) = (gamma c + coef0)^d: the bracket is stored per output ("constant"), the touched
support vectors are collected while counting and their counts reset to 0 on the way out.

The posting lists are numbered by the support vectors' distinct feature ids in ascending order,
and a hash (features/key_index.pyx) gives an id's number: the index is sized by the number of
distinct features, however large the ids are (feature hashing writes ids up to 2**31 - 1).
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free

from typing import Any

import numpy as np

from polyparse.classifiers.model_file import require_arrays
from polyparse.classifiers.evaluators.scorer_arrays import arrays_checked, header_values, part_bytes
from polyparse.classifiers.scorer cimport BinaryScorer, no_scores
from polyparse.features.key_index cimport KeyIndex

cdef extern from *:
    """
    static inline int polyparse_try_take(int* flag) {
        return __atomic_exchange_n(flag, 1, __ATOMIC_ACQUIRE) == 0;
    }
    static inline void polyparse_give_back(int* flag) {
        __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
    }
    """
    bint polyparse_try_take(int* flag) nogil
    void polyparse_give_back(int* flag) nogil

DEFAULT_SLOTS = 8


def inverted_index(support_vectors) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(feature_ids int32, postings_ptr int64 (n_features + 1), postings int32): the distinct
    ids the rows hold, ascending, and the rows holding feature_ids[j], ascending, as
    postings[postings_ptr[j]:postings_ptr[j + 1]]."""
    indices = support_vectors.indices
    rows = np.repeat(np.arange(len(support_vectors), dtype=np.int32),
                     support_vectors.row_lengths())
    feature_ids, counts = np.unique(indices, return_counts=True)
    postings = rows[np.argsort(indices, kind="stable")]
    ptr = np.zeros(feature_ids.size + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return (feature_ids.astype(np.int32), ptr, np.ascontiguousarray(postings, dtype=np.int32))


cdef class ScratchPool:
    def __cinit__(self, size_t slot_bytes, int n_slots=DEFAULT_SLOTS):
        self.slot_bytes = max(slot_bytes, 1)
        self.n_slots = max(n_slots, 0)
        self.buffers = <void**>calloc(max(self.n_slots, 1), sizeof(void*))
        self.busy = <int*>calloc(max(self.n_slots, 1), sizeof(int))
        if self.buffers == NULL or self.busy == NULL:
            raise MemoryError()

    def __dealloc__(self):
        cdef int s
        if self.buffers != NULL:
            for s in range(self.n_slots):
                free(self.buffers[s])
        free(self.buffers)
        free(self.busy)

    @property
    def bytes_per_call(self) -> int:
        return self.slot_bytes

    cdef void* acquire(self, int* slot) noexcept nogil:
        # A zeroed buffer; *slot = -1 when it is the caller's own (all slots busy). NULL when out
        # of memory.
        cdef int s
        cdef void* buffer
        for s in range(self.n_slots):
            if polyparse_try_take(&self.busy[s]):
                if self.buffers[s] == NULL:
                    self.buffers[s] = calloc(self.slot_bytes, 1)
                    if self.buffers[s] == NULL:
                        polyparse_give_back(&self.busy[s])
                        break
                slot[0] = s
                return self.buffers[s]
        slot[0] = -1
        return calloc(self.slot_bytes, 1)

    cdef void release(self, void* buffer, int slot) noexcept nogil:
        if slot < 0:
            free(buffer)
        else:
            polyparse_give_back(&self.busy[slot])


cdef class PKIScorer(BinaryScorer):
    def __init__(self, expansion):
        """Inverted index of a KernelExpansion's support vectors (any degree)."""
        sv = expansion.support_vectors
        feature_ids, postings_ptr, postings = inverted_index(sv)
        longest = int(sv.row_lengths().max()) if len(sv) else 0
        kernel = expansion.kernel_of_count(np.arange(longest + 1))
        arrays = {
            "feature_ids": feature_ids,
            "postings_ptr": postings_ptr,
            "postings": postings,
            "coef_by_sv": np.ascontiguousarray(expansion.coefficients.T),
            "constant": expansion.intercepts + kernel[0] * expansion.coefficients.sum(axis=1),
            "kernel_delta": kernel - kernel[0],
        }
        self._install(arrays, expansion.gamma, expansion.coef0, expansion.degree)

    def _install(self, dict arrays, double gamma, double coef0, int degree) -> None:
        feature_ids = np.ascontiguousarray(arrays["feature_ids"], dtype=np.int32)
        ptr = np.ascontiguousarray(arrays["postings_ptr"], dtype=np.int64)
        postings = np.ascontiguousarray(arrays["postings"], dtype=np.int32)
        coef = np.ascontiguousarray(arrays["coef_by_sv"], dtype=np.float64)
        constant = np.ascontiguousarray(arrays["constant"], dtype=np.float64)
        delta = np.ascontiguousarray(arrays["kernel_delta"], dtype=np.float64)
        if coef.ndim != 2 or coef.shape[1] < 1 or constant.shape != (coef.shape[1],):
            raise ValueError("coef_by_sv must be (n_sv, n_outputs) and constant (n_outputs,)")
        n_sv = coef.shape[0]
        if ptr.ndim != 1 or ptr.size < 1 or ptr[0] != 0 or ptr[ptr.size - 1] != postings.size:
            raise ValueError("postings_ptr must delimit the postings")
        if np.any(np.diff(ptr) < 0):
            raise ValueError("postings_ptr must be non-decreasing")
        if feature_ids.shape != (ptr.size - 1,) or (feature_ids.size and (
                feature_ids[0] < 0 or np.any(np.diff(feature_ids) <= 0))):
            raise ValueError("feature_ids must name the feature of every posting list, "
                             "ascending")
        if postings.size and (postings.min() < 0 or postings.max() >= n_sv):
            raise ValueError("postings must hold support vector numbers")
        # A count never exceeds the number of x's features found in one support vector.
        counts = np.bincount(postings, minlength=n_sv) if n_sv else np.zeros(0, np.int64)
        if delta.ndim != 1 or delta.size < int(counts.max(initial=0)) + 1:
            raise ValueError("kernel_delta must cover every possible shared-feature count")
        if n_sv > np.iinfo(np.int32).max // 2:
            raise ValueError("too many support vectors")
        self.arrays = {"feature_ids": feature_ids, "postings_ptr": ptr, "postings": postings,
                       "coef_by_sv": coef, "constant": constant, "kernel_delta": delta}
        self.n_outputs = coef.shape[1]
        self.n_support_vectors = n_sv
        self.feature_index = KeyIndex.from_keys(feature_ids)
        self.max_id = int(feature_ids[feature_ids.size - 1]) if feature_ids.size else -1
        self.gamma, self.coef0, self.degree = gamma, coef0, degree
        self.pool = ScratchPool(2 * max(n_sv, 1) * sizeof(int32_t))
        self.postings_ptr = <const int64_t*><size_t>ptr.ctypes.data
        self.postings = <const int32_t*><size_t>postings.ctypes.data
        self.coef_by_sv = <const double*><size_t>coef.ctypes.data
        self.constant = <const double*><size_t>constant.ctypes.data
        self.kernel_delta = <const double*><size_t>delta.ctypes.data

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int n_outputs = self.n_outputs
        cdef int slot, i, k
        cdef int32_t f, j, s, m = 0
        cdef double kd
        cdef const double* coef
        cdef int32_t* touched
        cdef int32_t* counts = <int32_t*>self.pool.acquire(&slot)
        if counts == NULL:
            no_scores(out, n_outputs)
            return
        touched = counts + self.n_support_vectors
        for i in range(n):
            f = feats[i]
            if f > self.max_id:
                break
            j = self.feature_index.get(<uint64_t>f)
            if j < 0:
                continue
            m = count_postings(self.postings + self.postings_ptr[j],
                               self.postings_ptr[j + 1] - self.postings_ptr[j], counts, touched, m)
        for k in range(n_outputs):
            out[k] = self.constant[k]
        for i in range(m):
            s = touched[i]
            kd = self.kernel_delta[counts[s]]
            counts[s] = 0
            coef = self.coef_by_sv + <int64_t>s * n_outputs
            for k in range(n_outputs):
                out[k] += coef[k] * kd
        self.pool.release(counts, slot)

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part: inverted index (with the hash from feature id to posting list),
        coefficients, tables, scratch of one call."""
        report = {
            **part_bytes(self.arrays, {"inverted_index": ("feature_ids", "postings_ptr",
                                                          "postings"),
                                       "coefficients": ("coef_by_sv",),
                                       "tables": ("constant", "kernel_delta")}),
            "scratch_per_call": self.pool.bytes_per_call,
        }
        report["inverted_index"] += self.feature_index.nbytes
        return report

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())

    def kernel_expansion(self):
        """The KernelExpansion this index was built from: the support vectors are the index
        read by support vector (features ascending), the intercepts the constants less the
        kernel of no shared feature (equal to the original ones up to rounding)."""
        from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
        from polyparse.features.binary_matrix import BinaryMatrix

        ptr = self.arrays["postings_ptr"]
        postings = self.arrays["postings"]
        coef = self.arrays["coef_by_sv"]
        kernel_zero = self.coef0 ** self.degree
        features = np.repeat(self.arrays["feature_ids"], np.diff(ptr))
        order = np.lexsort((features, postings))
        indptr = np.zeros(self.n_support_vectors + 1, dtype=np.int64)
        np.cumsum(np.bincount(postings, minlength=self.n_support_vectors), out=indptr[1:])
        support_vectors = BinaryMatrix(indptr, features[order],
                                       max(<int64_t>self.max_id + 1, 1))
        intercepts = self.arrays["constant"] - kernel_zero * coef.sum(axis=0)
        return KernelExpansion(support_vectors, np.ascontiguousarray(coef.T), intercepts,
                               self.gamma, self.coef0, self.degree)

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this scorer.

        Stored sparsely, since a model file is read at every load: the index as the feature
        ids that have postings, ascending, and their counts (from_arrays rebuilds
        postings_ptr; n_ids bounds the ids), and the coefficients as the nonzero entries of
        each support vector's row (their number per support vector, their outputs as int16
        when that holds them, and values)."""
        header = {"evaluator": "pki", "degree": self.degree, "gamma": self.gamma,
                  "coef0": self.coef0, "n_outputs": self.n_outputs,
                  "n_ids": <int64_t>self.max_id + 1}
        counts = np.diff(self.arrays["postings_ptr"])
        held = counts > 0
        coef = self.arrays["coef_by_sv"]
        rows, outputs = np.nonzero(coef)
        arrays = {
            "index_features": self.arrays["feature_ids"][held],
            "index_counts": counts[held].astype(np.int32),
            "postings": self.arrays["postings"],
            "coef_counts": np.bincount(rows, minlength=coef.shape[0]).astype(np.int32),
            "coef_outputs": outputs.astype(np.int16 if self.n_outputs < 2**15 else np.int32),
            "coef_values": coef[rows, outputs],
            "constant": self.arrays["constant"],
            "kernel_delta": self.arrays["kernel_delta"],
        }
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> PKIScorer:
        """Rebuild a scorer from to_arrays() output; ModelFileError names `source`."""
        values = header_values(header, "pki", "PKI", {"n_outputs": int, "degree": int,
                                                      "gamma": float, "coef0": float,
                                                      "n_ids": int}, source)
        require_arrays(source, arrays, {
            "index_features": ("int32", (None,)),
            "index_counts": ("int32", (None,)),
            "postings": ("int32", (None,)),
            "coef_counts": ("int32", (None,)),
            "coef_values": ("float64", (None,)),
            "constant": ("float64", (values["n_outputs"],)),
            "kernel_delta": ("float64", (None,)),
        })
        n_ids, n_outputs = values["n_ids"], values["n_outputs"]
        outputs_dtype = np.int16 if n_outputs < 2**15 else np.int32
        require_arrays(source, arrays, {"coef_outputs": (np.dtype(outputs_dtype).name, (None,))})
        with arrays_checked(source, "PKI"):
            features, counts = arrays["index_features"], arrays["index_counts"]
            if features.shape != counts.shape or (features.size and (
                    features.min() < 0 or features.max() >= n_ids or counts.min() < 0
                    or np.any(np.diff(features) <= 0))):
                raise ValueError("index_features and index_counts must name features below "
                                 "n_ids, ascending, with their posting counts")
            postings_ptr = np.zeros(features.size + 1, dtype=np.int64)
            np.cumsum(counts, out=postings_ptr[1:])
            coef_counts, outputs = arrays["coef_counts"], arrays["coef_outputs"]
            coefficients = arrays["coef_values"]
            n_sv = coef_counts.size
            if (outputs.shape != coefficients.shape or (n_sv and coef_counts.min() < 0)
                    or int(coef_counts.sum()) != outputs.size
                    or (outputs.size and (outputs.min() < 0 or outputs.max() >= n_outputs))):
                raise ValueError("coef_counts, coef_outputs and coef_values must give each "
                                 "support vector's nonzero coefficients")
            coef_by_sv = np.zeros((n_sv, n_outputs))
            coef_by_sv[np.repeat(np.arange(n_sv), coef_counts), outputs] = coefficients
            scorer = cls.__new__(cls)
            scorer._install({"feature_ids": features, "postings_ptr": postings_ptr,
                             "postings": arrays["postings"],
                             "coef_by_sv": coef_by_sv, "constant": arrays["constant"],
                             "kernel_delta": arrays["kernel_delta"]},
                            values["gamma"], values["coef0"], values["degree"])
        return scorer
