# split-svm: exact kernel sum as a common-feature expansion plus rare-feature corrections.
from libc.stdint cimport int32_t, int64_t

from classifiers.evaluators.pke cimport ConjunctionStore
from classifiers.evaluators.pki cimport ScratchPool
from classifiers.scorer cimport BinaryScorer


cdef class SplitSVMScorer(BinaryScorer):
    # Common part: conjunction weights over the ranks of the common features (pke.pxd).
    cdef readonly ConjunctionStore common
    cdef readonly int32_t n_common
    cdef readonly dict arrays
    cdef readonly dict settings
    cdef readonly int32_t n_ids
    cdef readonly int32_t n_rare_support_vectors
    cdef readonly ScratchPool pool
    cdef const double* constant
    cdef const int32_t* feature_class
    cdef const int64_t* rare_ptr
    cdef const int32_t* rare_postings
    cdef const int64_t* rare_sv_ptr
    cdef const int32_t* rare_sv_common
    cdef const double* rare_sv_coef
    cdef const double* kernel
