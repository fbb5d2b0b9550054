# One-vs-one kernel SVMs as the parser sees them: pair values and libsvm's vote.
from libc.stdint cimport int32_t

from polyparse.classifiers.scorer cimport BinaryScorer


cdef class OneVsOneVoter(BinaryScorer):
    # Decision values: one per pair of classes in libsvm's order.
    cdef readonly int n_classes

    # libsvm's vote among the classes c with allowed[c] (class indices, not labels), ties to the
    # first class; -1 when none is allowed.
    cdef int vote(self, const int32_t* feats, int n, const bint* allowed) noexcept nogil


cdef class OneVsOneScorer(OneVsOneVoter):
    cdef readonly list class_scorers
    cdef readonly object rho
    cdef void** scorers
    cdef const double* rho_values
