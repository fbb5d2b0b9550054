# cython: language_level=3
"""Scores of the trees (and binary vectors) of one forest against a DAG model plus an explicit
polynomial table: SVM-light-TK's `-C +` sum (combination.svmlight_tk_sum) without a kernel sum,
    s(x) = table(v_x) + T * dag(t_x),
table(v) = sum_m a_m P_n(v_m, v) (poly2_table.Poly2Table) and dag(t) = sum_m a_m TK_n(t_m, t)
(dag.TreeDag, Aiolli et al. 2007 / Severyn & Moschitti 2010 Theorem 1). One scorer keeps the
forest's raw arrays and a DAG workspace, so that a perceptron asks for one score per training
instance without building arrays.
"""
from libc.math cimport isnan
from libc.stdint cimport int32_t, int64_t

import numpy as np

from polyparse.classifiers.tree_kernels.dag cimport (
    DagWorkspace,
    TreeDag,
    dag_workspace_free,
    dag_workspace_init,
)
from polyparse.classifiers.tree_kernels.kernels cimport ForestView, forest_view
from polyparse.classifiers.tree_kernels.poly2_table cimport Poly2Table
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts


cdef class CombinedScorer:
    """table(row t of vectors) + tree_constant * dag(tree t of forest) for one forest; the
    table (and vectors) may be None for a tree-only model."""

    cdef TreeDag dag
    cdef Poly2Table table
    cdef double tree_constant
    cdef object forest
    cdef object vectors
    cdef ForestView view
    cdef DagWorkspace w
    cdef const int64_t* indptr
    cdef const int32_t* indices
    cdef int64_t n_rows

    def __cinit__(self, TreeDag dag, Poly2Table table, double tree_constant, forest,
                  vectors=None):
        cdef const int64_t[::1] indptr
        cdef const int32_t[::1] indices
        dag_workspace_init(&self.w)
        if dag.labels is not None and (forest.labels is not dag.labels
                                       or forest.productions is not dag.productions):
            raise ValueError("the forest does not share the label and production interners "
                             "of the DAG's trees")
        self.dag = dag
        self.table = table
        self.tree_constant = tree_constant
        self.forest = forest
        self.view = forest_view(forest)
        self.n_rows = self.view.n_trees
        self.indptr = NULL
        self.indices = NULL
        if table is not None:
            if vectors is None or len(vectors) != len(forest):
                raise ValueError("the vector part needs one binary vector per tree")
            self.vectors = vectors
            indptr = vectors.indptr
            indices = vectors.indices
            self.indptr = &indptr[0]
            self.indices = &indices[0] if indices.shape[0] else NULL

    def __dealloc__(self):
        dag_workspace_free(&self.w)

    cdef double _score(self, int64_t t) noexcept nogil:
        cdef double total = self.tree_constant * self.dag.score_view(&self.view, t, &self.w)
        cdef int64_t start
        if self.table is not None:
            start = self.indptr[t]
            total += self.table.score_ids(
                self.indices + start if self.indices != NULL else NULL,
                self.indptr[t + 1] - start)
        return total

    def score(self, int64_t t) -> float:
        """The score of tree t (and vector row t)."""
        if t < 0 or t >= self.n_rows:
            raise IndexError(f"tree {t} is outside the forest ({self.n_rows} trees)")
        value = self._score(t)
        if isnan(value):
            raise MemoryError("out of memory in the DAG score")
        return value

    def scores(self, rows=None) -> np.ndarray:
        """The scores of trees `rows` (all by default)."""
        index = (np.arange(self.n_rows, dtype=np.int64) if rows is None
                 else np.ascontiguousarray(rows, dtype=np.int64))
        if index.size and (index.min() < 0 or index.max() >= self.n_rows):
            raise IndexError(f"tree indices must lie in 0 .. {self.n_rows - 1}")
        cdef const int64_t[::1] idx = index
        out = np.empty(idx.shape[0], dtype=np.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t k
        cdef int64_t steps_left = CHECK_STEPS
        with nogil:
            long_input_starts(idx.shape[0])
            for k in range(idx.shape[0]):
                count_steps(&steps_left, 1)
                o[k] = self._score(idx[k])
            long_input_ends(idx.shape[0])
        if np.isnan(out).any():
            raise MemoryError("out of memory in the DAG score")
        return out
