# Compiled naive decision function of a one-vs-one polynomial-kernel SVM (libsvm's layout).
from libc.stdint cimport int32_t, int64_t

from polyparse.classifiers.scorer cimport BinaryScorer


cdef class OneVsOneSumScorer(BinaryScorer):
    # decision_p(x) = sum over the support vectors s of classes i and j of
    # dual_coef[., s] (gamma |sv_s & x| + coef0)^degree - rho[p], for the p-th pair (i, j)
    # in libsvm's order (0,1), (0,2), ..., (1,2), ...; one class: a single constant +1.
    cdef readonly int degree
    cdef readonly double gamma
    cdef readonly double coef0
    cdef readonly int n_classes
    cdef readonly int n_support_vectors
    cdef readonly int max_count
    cdef readonly dict arrays
    cdef object table_array
    cdef const int64_t* sv_indptr
    cdef const int32_t* sv_indices
    cdef const double* dual_coef
    cdef const double* rho
    cdef const int64_t* class_start
    cdef const double* table

    cdef void pair_sums(self, const double* kvalue, double* out) noexcept nogil
