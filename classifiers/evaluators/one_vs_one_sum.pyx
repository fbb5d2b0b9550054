# cython: language_level=3
# distutils: extra_compile_args = -falign-loops=32
"""OneVsOneSumScorer: the naive decision function of a one-vs-one polynomial-kernel SVM.

For each support vector s, K_s(x) = (gamma |sv_s & x| + coef0)^degree, then for the pair (i, j)
of classes (libsvm's svm_predict_values):

    d_ij(x) = sum_{s in class i} sv_coef[j-1][s] K_s(x) + sum_{s in class j} sv_coef[i][s] K_s(x)
              - rho_ij

summed in that order, so the values equal libsvm's bit for bit. `scores` (one row, any thread)
counts |sv_s & x| by merging the two sorted id lists; `decision_function` (many rows) marks the
row's ids in a byte array and counts each support vector's marked ids. That array has one byte
per distinct id of the support vectors (numbered 0..k-1 in ascending order), not one per id up to
the largest, which may be 2**31 - 1 (feature hashing). Loops start on 32-byte boundaries (the
distutils line above): that count, 18 bytes of code, ran 40% slower wherever the code before it
happened to put it across a cache line.
"""
from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.classifiers.evaluators.kernel_sum import kernel_table
from polyparse.classifiers.evaluators.kernel_sum cimport shared_count
from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.features.binary_matrix import as_binary_matrix
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts

cdef enum:
    STACK_SUPPORT_VECTORS = 512


def support_vector_numbers(sv_indices, indices) -> tuple:
    """The support vectors' feature ids numbered 0 .. width - 1 (in id order): each entry of
    indices (a matrix's ids) as the number of its id, or width when no support vector has it;
    sv_indices as those numbers; and width, so that a row's ids can be marked in an array of
    width entries."""
    feature_ids, sv_numbers = np.unique(sv_indices, return_inverse=True)
    width = int(feature_ids.size)
    numbers = np.searchsorted(feature_ids, indices).astype(np.int32)
    if width:
        numbers[feature_ids[np.minimum(numbers, width - 1)] != np.asarray(indices)] = width
    return numbers, np.ascontiguousarray(sv_numbers.reshape(-1), dtype=np.int32), width


cdef class OneVsOneSumScorer(BinaryScorer):
    def __init__(
        self, sv_indptr, sv_indices, dual_coef, rho, n_support, int degree, double gamma,
        double coef0,
    ):
        """sv_indptr/sv_indices: CSR of the support vectors (grouped by class in label order);
        dual_coef (n_classes-1, n_sv); rho (n_classes (n_classes-1) / 2,); n_support per class."""
        sv_indptr = np.ascontiguousarray(sv_indptr, dtype=np.int64)
        sv_indices = np.ascontiguousarray(sv_indices, dtype=np.int32)
        n_support = np.ascontiguousarray(n_support, dtype=np.int64)
        n_classes = n_support.shape[0]
        n_sv = sv_indptr.shape[0] - 1
        if n_classes < 1 or n_sv < 0 or n_support.min() < 0 or n_support.sum() != n_sv:
            raise ValueError("n_support must count the support vectors of each class")
        if sv_indptr[0] != 0 or sv_indptr[n_sv] != sv_indices.shape[0] or np.any(
            np.diff(sv_indptr) < 0
        ):
            raise ValueError("sv_indptr must delimit the support vectors' ids")
        dual_coef = np.ascontiguousarray(dual_coef, dtype=np.float64)
        if dual_coef.shape != (n_classes - 1, n_sv):
            raise ValueError(f"dual_coef must have shape ({n_classes - 1}, {n_sv})")
        rho = np.ascontiguousarray(rho, dtype=np.float64)
        n_pairs = n_classes * (n_classes - 1) // 2
        if rho.shape != (n_pairs,):
            raise ValueError(f"rho must hold {n_pairs} values")
        if degree < 1:
            raise ValueError("degree must be at least 1")
        class_start = np.zeros(n_classes + 1, dtype=np.int64)
        np.cumsum(n_support, out=class_start[1:])
        self.n_outputs = max(1, n_pairs)
        self.n_classes = n_classes
        self.n_support_vectors = n_sv
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.max_count = int(np.diff(sv_indptr).max()) if n_sv else 0
        self.table_array = kernel_table(self.max_count, degree, gamma, coef0)
        self.arrays = {
            "sv_indptr": sv_indptr, "sv_indices": sv_indices, "dual_coef": dual_coef, "rho": rho,
            "class_start": class_start,
        }
        self.sv_indptr = <const int64_t*><size_t>sv_indptr.ctypes.data
        self.sv_indices = <const int32_t*><size_t>sv_indices.ctypes.data
        self.dual_coef = <const double*><size_t>dual_coef.ctypes.data
        self.rho = <const double*><size_t>rho.ctypes.data
        self.class_start = <const int64_t*><size_t>class_start.ctypes.data
        self.table = <const double*><size_t>self.table_array.ctypes.data

    cdef void pair_sums(self, const double* kvalue, double* out) noexcept nogil:
        cdef int i, j, p = 0, n_sv = self.n_support_vectors
        cdef int64_t k
        cdef const double* coef1
        cdef const double* coef2
        cdef double total
        if self.n_classes == 1:
            out[0] = 1.0
            return
        for i in range(self.n_classes):
            for j in range(i + 1, self.n_classes):
                coef1 = self.dual_coef + <int64_t>(j - 1) * n_sv
                coef2 = self.dual_coef + <int64_t>i * n_sv
                total = 0
                for k in range(self.class_start[i], self.class_start[i + 1]):
                    total += coef1[k] * kvalue[k]
                for k in range(self.class_start[j], self.class_start[j + 1]):
                    total += coef2[k] * kvalue[k]
                out[p] = total - self.rho[p]
                p += 1

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef double stack_kvalue[STACK_SUPPORT_VECTORS]
        cdef double* kvalue = stack_kvalue
        cdef int s, k, n_sv = self.n_support_vectors
        cdef int64_t start
        if n_sv > STACK_SUPPORT_VECTORS:
            kvalue = <double*>malloc(n_sv * sizeof(double))
            if kvalue == NULL:
                for k in range(self.n_outputs):
                    out[k] = NAN
                return
        for s in range(n_sv):
            start = self.sv_indptr[s]
            kvalue[s] = self.table[shared_count(
                feats, n, self.sv_indices + start, <int>(self.sv_indptr[s + 1] - start)
            )]
        self.pair_sums(kvalue, out)
        if kvalue != stack_kvalue:
            free(kvalue)

    def decision_function(self, X) -> np.ndarray:
        """Decision values of every row of a BinaryMatrix, shape (n_rows, n_outputs)."""
        X = as_binary_matrix(X)
        cdef const int64_t[::1] indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
        cdef const int32_t[::1] indices = np.ascontiguousarray(X.indices, dtype=np.int32)
        cdef Py_ssize_t n_rows = indptr.shape[0] - 1, i
        out = np.zeros((max(n_rows, 0), self.n_outputs), dtype=np.float64)
        if n_rows <= 0:
            return out
        cdef double[:, ::1] values = out
        cdef int n_sv = self.n_support_vectors, s
        numbers_array, sv_numbers_array, width_found = support_vector_numbers(
            self.arrays["sv_indices"], indices)
        cdef int32_t width = width_found
        cdef const int32_t[::1] numbers = numbers_array
        kvalue_array = np.empty(max(n_sv, 1), dtype=np.float64)
        mark_array = np.zeros(max(width, 1), dtype=np.uint8)
        cdef double* kvalue = <double*><size_t>kvalue_array.ctypes.data
        cdef uint8_t* mark = <uint8_t*><size_t>mark_array.ctypes.data
        cdef const int64_t* sv_indptr = self.sv_indptr
        cdef const int32_t* sv_indices = <const int32_t*><size_t>sv_numbers_array.ctypes.data
        cdef const double* table = self.table
        cdef int64_t p, start, end, steps_left = CHECK_STEPS
        # A row reads every support vector's ids: about a microsecond per thousand.
        cdef int64_t row_steps = 1 + (sv_indptr[n_sv] >> 10)
        cdef int count
        with nogil:
            long_input_starts(n_rows)
            for i in range(n_rows):
                count_steps(&steps_left, row_steps)
                start = indptr[i]
                end = indptr[i + 1]
                for p in range(start, end):
                    if numbers[p] < width:
                        mark[numbers[p]] = 1
                for s in range(n_sv):
                    count = 0
                    for p in range(sv_indptr[s], sv_indptr[s + 1]):
                        count += mark[sv_indices[p]]
                    kvalue[s] = table[count]
                self.pair_sums(kvalue, &values[i, 0])
                for p in range(start, end):
                    if numbers[p] < width:
                        mark[numbers[p]] = 0
            long_input_ends(n_rows)
        return out
