# The Cython-level face of a DAG model (classifiers/tree_kernels/dag.pyx): the distinct subtrees
# of a weighted forest of model trees, each stored once with its weight, and the score of one
# forest tree against it without the GIL (for the perceptrons and cutting-plane learners).
cimport cython
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memset
from libcpp.vector cimport vector

from polyparse.classifiers.tree_kernels.kernels cimport ForestView, KernelParams, Workspace


# Scratch memory one thread reuses across scores; start with dag_workspace_init, free with
# dag_workspace_free.
cdef struct DagWorkspace:
    double* memo
    size_t memo_capacity
    int64_t* offset
    size_t offset_capacity
    double* table
    size_t table_capacity
    int32_t* expansion
    size_t expansion_capacity
    Workspace kernel


cdef inline void dag_workspace_init(DagWorkspace* w) noexcept nogil:
    memset(w, 0, sizeof(DagWorkspace))


cdef void dag_workspace_free(DagWorkspace* w) noexcept nogil


@cython.final
cdef class TreeDag:
    # DAG node d: label, production, children child_ptr[d] .. child_ptr[d+1]-1 (DAG nodes,
    # all smaller than d), the node count of its subtree and its weight f(d).
    cdef vector[int32_t] _label
    cdef vector[int32_t] _production
    cdef vector[int64_t] _child_ptr
    cdef vector[int32_t] _children
    # per entry of _children: the child's production and its rank in that production's index
    cdef vector[int32_t] _child_production
    cdef vector[int32_t] _child_rank
    cdef vector[int64_t] _size
    cdef vector[double] _weight
    # The DAG nodes of each production (label) id in creation order, and each node's position
    # there; nodes without a production are left out of the production index.
    cdef vector[vector[int32_t]] _by_production
    cdef vector[vector[int32_t]] _by_label
    cdef vector[int32_t] _rank_production
    cdef vector[int32_t] _rank_label
    cdef int64_t _max_children
    cdef int64_t _max_size
    cdef dict _ids
    cdef KernelParams _params
    cdef readonly str kind
    cdef readonly double lam
    cdef readonly double mu
    cdef readonly bint normalize
    cdef readonly object labels
    cdef readonly object productions
    cdef readonly int64_t n_trees
    cdef readonly int64_t n_tree_nodes

    cdef int32_t _node(self, int32_t label, int32_t production, list kids)
    cdef double score_view(self, const ForestView* forest, int64_t j,
                           DagWorkspace* w) noexcept nogil
    cdef double match_view(self, const ForestView* forest, int64_t j, DagWorkspace* w,
                           double* node_sums, vector[int32_t]* touched) noexcept nogil
    cdef double _subset_delta(self, int32_t d, const ForestView* f, int64_t sb, int64_t y,
                              double sigma, const DagWorkspace* w) noexcept nogil
    cdef double _partial_delta(self, int32_t d, const ForestView* f, int64_t sb, int64_t y,
                               const DagWorkspace* w, size_t table) noexcept nogil
    cdef double _elastic_delta(self, int32_t d, const ForestView* f, int64_t sb, int64_t y,
                               const DagWorkspace* w) noexcept nogil
