# cython: language_level=3
"""RealOneVsOneSumScorer: libsvm's naive decision function of a one-vs-one polynomial-kernel
SVM whose support vectors, or whose rows, hold real values.

Chang & Lin, "LIBSVM", ACM TIST 2011, section 2.1 and svm_predict_values: for each support
vector s,

    K_s(x) = (gamma sv_s . x + coef0)^degree,   sv_s . x = sum over shared ids f of sv_s[f] x[f]

(the products added in ascending id order, as libsvm's Kernel::dot merges two rows; powi as
libsvm), then for the pair (i, j) of classes the sums of OneVsOneSumScorer.pair_sums. `scores`
takes a binary row (every value 1), `decision_function` a BinaryMatrix or a RealMatrix
(features/real_matrix.py); a binary model (sv_values None) has support vectors of value 1.
"""
from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.classifiers.evaluators.kernel_sum cimport powi
from polyparse.classifiers.evaluators.one_vs_one_sum cimport OneVsOneSumScorer
from polyparse.classifiers.evaluators.one_vs_one_sum import support_vector_numbers
from polyparse.features.real_matrix import as_feature_matrix
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts

cdef enum:
    STACK_SUPPORT_VECTORS = 512


cdef class RealOneVsOneSumScorer(OneVsOneSumScorer):
    cdef const double* sv_values
    cdef object sv_values_array

    def __init__(self, sv_indptr, sv_indices, sv_values, dual_coef, rho, n_support, int degree,
                 double gamma, double coef0):
        """As OneVsOneSumScorer, with sv_values: the value of each entry of sv_indices (None:
        every value 1)."""
        super().__init__(sv_indptr, sv_indices, dual_coef, rho, n_support, degree, gamma, coef0)
        n_entries = self.arrays["sv_indices"].shape[0]
        if sv_values is None:
            sv_values = np.ones(n_entries)
        sv_values = np.ascontiguousarray(sv_values, dtype=np.float64)
        if sv_values.shape != (n_entries,):
            raise ValueError("sv_values must hold one value per entry of sv_indices")
        self.sv_values_array = sv_values
        self.arrays["sv_values"] = sv_values
        self.sv_values = <const double*><size_t>sv_values.ctypes.data

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef double stack_kvalue[STACK_SUPPORT_VECTORS]
        cdef double* kvalue = stack_kvalue
        cdef int s, k, q, n_sv = self.n_support_vectors
        cdef int64_t p, end
        cdef double dot
        cdef int32_t f
        if n_sv > STACK_SUPPORT_VECTORS:
            kvalue = <double*>malloc(n_sv * sizeof(double))
            if kvalue == NULL:
                for k in range(self.n_outputs):
                    out[k] = NAN
                return
        for s in range(n_sv):
            # Merge of the two ascending id lists, adding the support vector's shared values.
            dot = 0.0
            p = self.sv_indptr[s]
            end = self.sv_indptr[s + 1]
            q = 0
            while p < end and q < n:
                f = self.sv_indices[p]
                if f == feats[q]:
                    dot += self.sv_values[p]
                    p += 1
                    q += 1
                elif f < feats[q]:
                    p += 1
                else:
                    q += 1
            kvalue[s] = powi(self.gamma * dot + self.coef0, self.degree)
        self.pair_sums(kvalue, out)
        if kvalue != stack_kvalue:
            free(kvalue)

    def decision_function(self, X) -> np.ndarray:
        """Decision values (n_rows, n_outputs) of every row of a BinaryMatrix or a RealMatrix
        (or what features.real_matrix.as_feature_matrix takes)."""
        X = as_feature_matrix(X)
        cdef const int64_t[::1] indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
        cdef const int32_t[::1] indices = np.ascontiguousarray(X.indices, dtype=np.int32)
        row_values = getattr(X, "values", None)
        if row_values is None:
            row_values = np.ones(indices.shape[0])
        cdef const double[::1] x_values = np.ascontiguousarray(row_values, dtype=np.float64)
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
        mark_array = np.zeros(max(width, 1), dtype=np.float64)
        cdef double* kvalue = <double*><size_t>kvalue_array.ctypes.data
        cdef double* mark = <double*><size_t>mark_array.ctypes.data
        cdef const int64_t* sv_indptr = self.sv_indptr
        cdef const int32_t* sv_indices = <const int32_t*><size_t>sv_numbers_array.ctypes.data
        cdef const double* sv_values = self.sv_values
        cdef int64_t p, start, end, steps_left = CHECK_STEPS
        cdef int64_t row_steps = 1 + (sv_indptr[n_sv] >> 10)
        cdef double dot
        with nogil:
            long_input_starts(n_rows)
            for i in range(n_rows):
                count_steps(&steps_left, row_steps)
                start = indptr[i]
                end = indptr[i + 1]
                for p in range(start, end):
                    if numbers[p] < width:
                        mark[numbers[p]] = x_values[p]
                for s in range(n_sv):
                    dot = 0.0
                    for p in range(sv_indptr[s], sv_indptr[s + 1]):
                        dot += mark[sv_indices[p]] * sv_values[p]
                    kvalue[s] = powi(self.gamma * dot + self.coef0, self.degree)
                self.pair_sums(kvalue, &values[i, 0])
                for p in range(start, end):
                    if numbers[p] < width:
                        mark[numbers[p]] = 0.0
            long_input_ends(n_rows)
        return out
