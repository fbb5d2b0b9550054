# cython: language_level=3
"""One-vs-one kernel SVMs evaluated class by class, and libsvm's vote over their pair values.

libsvm's pair value for classes i < j (Hsu & Lin 2002; svm_predict_values) splits into one
half per class:

    d_ij(x) = g_i[j-1](x) + g_j[i](x) - rho_ij,
    g_c[m](x) = sum_{s in SV(c)} sv_coef[m][s] K(sv_s, x),

so class c's halves form one kernel expansion over its own support vectors only, with k-1
outputs (libsvm's sv_coef rows restricted to SV(c)). OneVsOneScorer gives each class its own
evaluator (PKI or PKE), whose tables then hold only that class's conjunctions or postings.
The values are the kernel sum's to rounding.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.classifiers.scorer cimport BinaryRows, BinaryScorer, no_scores
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps


cdef class OneVsOneVoter(BinaryScorer):
    cdef int vote(self, const int32_t* feats, int n, const bint* allowed) noexcept nogil:
        # Every pair value, then the vote (evaluators that can skip pairs override this).
        cdef int k = self.n_classes
        cdef int c, i, j, p = 0, best = -1
        cdef double* values = <double*>malloc(self.n_outputs * sizeof(double))
        cdef int* votes = <int*>malloc(k * sizeof(int))
        if values != NULL and votes != NULL:
            self.scores(feats, n, values)
            for c in range(k):
                votes[c] = 0
            for i in range(k):
                for j in range(i + 1, k):
                    if allowed[i] and allowed[j]:
                        if values[p] > 0:
                            votes[i] += 1
                        else:
                            votes[j] += 1
                    p += 1
            for c in range(k):
                if allowed[c] and (best < 0 or votes[c] > votes[best]):
                    best = c
        free(values)
        free(votes)
        return best

    def vote_classes(self, const int32_t[::1] feats, allowed) -> int:
        """vote() for Python callers (tests): allowed is a 0/1 vector over class indices."""
        cdef int32_t empty = 0
        mask = np.ascontiguousarray(allowed, dtype=np.intc)
        if mask.shape != (self.n_classes,):
            raise ValueError(f"allowed must hold {self.n_classes} flags")
        cdef const bint[::1] flags = mask
        return self.vote(&feats[0] if feats.shape[0] else &empty, <int>feats.shape[0],
                         &flags[0])

    def vote_rows(self, X, allowed) -> np.ndarray:
        """vote() for every row of a BinaryMatrix (class indices; -1 where none is allowed)."""
        cdef BinaryRows rows = BinaryRows(X)
        cdef Py_ssize_t n_rows = rows.n_rows, i
        mask = np.ascontiguousarray(allowed, dtype=np.intc)
        if mask.shape != (self.n_classes,):
            raise ValueError(f"allowed must hold {self.n_classes} flags")
        cdef const bint[::1] flags = mask
        out = np.empty(max(n_rows, 0), dtype=np.int32)
        cdef int32_t[::1] best = out
        cdef int64_t steps_left = CHECK_STEPS, row_steps = self.steps_per_row()
        with nogil:
            for i in range(n_rows):
                count_steps(&steps_left, row_steps)
                best[i] = self.vote(rows.row(i), rows.length(i), &flags[0])
        return out


cdef class OneVsOneScorer(OneVsOneVoter):
    def __init__(self, list class_scorers, rho):
        """class_scorers[c]: a BinaryScorer of class c's k-1 halves; rho: libsvm's rho."""
        cdef int c, k = len(class_scorers)
        if k < 3:
            raise ValueError("a one-vs-one composition needs at least three classes")
        self.rho = np.ascontiguousarray(rho, dtype=np.float64)
        if self.rho.shape != (k * (k - 1) // 2,):
            raise ValueError(f"rho must hold {k * (k - 1) // 2} values, not {self.rho.size}")
        for scorer in class_scorers:
            if not isinstance(scorer, BinaryScorer) or (<BinaryScorer>scorer).n_outputs != k - 1:
                raise ValueError(f"every class scorer must have {k - 1} outputs")
        self.n_outputs = k * (k - 1) // 2
        self.n_classes = k
        self.class_scorers = list(class_scorers)
        self.scorers = <void**>malloc(k * sizeof(void*))
        if self.scorers == NULL:
            raise MemoryError()
        for c in range(k):
            self.scorers[c] = <void*>self.class_scorers[c]
        self.rho_values = <const double*><size_t>self.rho.ctypes.data

    def __dealloc__(self):
        free(self.scorers)

    cdef void scores(self, const int32_t* feats, int n, double* out) noexcept nogil:
        cdef int k = self.n_classes
        cdef int c, i, j, p = 0
        cdef double* halves = <double*>malloc(k * (k - 1) * sizeof(double))
        if halves == NULL:
            no_scores(out, self.n_outputs)
            return
        for c in range(k):
            (<BinaryScorer>self.scorers[c]).scores(feats, n, halves + c * (k - 1))
        for i in range(k):
            for j in range(i + 1, k):
                out[p] = halves[i * (k - 1) + j - 1] + halves[j * (k - 1) + i] - self.rho_values[p]
                p += 1
        free(halves)

    def memory_report(self) -> dict[str, int]:
        """Bytes of each part, summed over the classes' evaluators."""
        total: dict[str, int] = {"rho": int(self.rho.nbytes)}
        for scorer in self.class_scorers:
            report = scorer.memory_report() if hasattr(scorer, "memory_report") else {}
            for part, size in report.items():
                if part != "scratch_per_call":
                    total[part] = total.get(part, 0) + int(size)
        return total

    def memory_bytes(self) -> int:
        return sum(self.memory_report().values())
