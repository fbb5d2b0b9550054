# cython: language_level=3
# distutils: extra_compile_args = -fopenmp
# distutils: extra_link_args = -fopenmp
"""The tree part of the cutting-plane kernel sums, three ways (Severyn & Moschitti 2010, "Large-
scale support vector learning with structural kernels", section 3; eq. numbers of that paper).

A cut is g_j = sum_{m in cut j} c_m phi(t_m) (c_m = y_m times its count in the sample, over r),
and w = sum_j alpha_j g_j, so the margin of a tree x is (eq. 3)
    w . phi(x) = sum_j alpha_j sum_{m in cut j} c_m K_n(t_m, x),
with K_n(a, b) = K(a, b) / sqrt(K(a, a) K(b, b)) (0 for an empty tree), inv_norm[t] = 1 /
sqrt(K(t, t)) given per training tree.
- uSVM, `plain_cut_values`: every K(t_m, x) evaluated as a pair kernel;
- SDAG, `dag_cut_values`: cut j as one DAG of its trees (eq. 5: f(d) = sum_m c_m inv_norm[m]
  times the count of subtree d in t_m), so g_j . phi(x) is one DAG score;
- SDAG+, `dag_scores`: all cuts in one DAG with f(d) = sum_j alpha_j f_j(d) (eq. 6), so the
  margin is one DAG score; `dag_node_sums` gives the DAG's per-node sums over a set of trees,
  from which the Gram entries g_new . g_j = sum_d f_j(d) N(d) follow without per-cut DAGs.
The DAGs here are built unnormalised (the normalisation of the model trees is in f, that of x is
inv_norm[x]). Each tree of a sample is one task of a `prange` (GIL released); every task sums in
a fixed order into its own output, so the values do not depend on the number of threads. The
sample is taken in blocks of about CHECK_STEPS kernels or DAG scores per thread, with a check for
signals between two blocks (features/signal_checks.pyx).
"""
from cpython.ref cimport PyObject
from cython.parallel cimport prange, threadid
from libc.math cimport isnan
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc
from libcpp.vector cimport vector

import numpy as np

from polyparse.classifiers.tree_kernels.dag cimport (
    DagWorkspace,
    TreeDag,
    dag_workspace_free,
    dag_workspace_init,
)
from polyparse.classifiers.tree_kernels.kernels cimport (
    ForestView,
    KernelParams,
    Workspace,
    forest_view,
    kernel_params,
    pair_kernel,
    workspace_free,
    workspace_init,
)
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps


ctypedef int (*TreeTask)(void* task, Py_ssize_t k, int thread) except -1 nogil


cdef int each_tree(Py_ssize_t n, int64_t per_tree, int n_threads, TreeTask run,
                   void* task) except -1 nogil:
    # run(task, k, thread) for every tree k < n of a sample on n_threads threads (prange, dynamic
    # schedule; thread: the running thread's number), in blocks of about CHECK_STEPS steps a
    # thread (per_tree steps a tree), with a check for signals between two blocks.
    cdef Py_ssize_t block = block_size(per_tree, n_threads), first = 0, last, k
    cdef int64_t steps_left = CHECK_STEPS
    while first < n:
        last = min(n, first + block)
        for k in prange(first, last, num_threads=n_threads, schedule="dynamic"):
            run(task, k, threadid())
        count_steps(&steps_left, (last - first) * per_tree // n_threads)
        first = last
    return 0


cdef struct CutRows:
    # What plain_cut_values and dag_cut_values share: the forest, the sample's trees and
    # inv_norm as pointers, and V row-major (n_cuts a row).
    const ForestView* forest
    const int64_t* sample
    const double* inv_norm
    double* values
    Py_ssize_t n_cuts


cdef CutRows cut_rows(const ForestView* forest, const int64_t[::1] sample,
                      const double[::1] inv_norm, out: np.ndarray):
    # The CutRows of V = out (sample.shape[0] x n_cuts, C order).
    cdef CutRows rows
    rows.forest, rows.sample, rows.inv_norm = forest, _first(sample), _first(inv_norm)
    rows.values = <double*><size_t>out.ctypes.data
    rows.n_cuts = out.shape[1]
    return rows


cdef struct PlainCuts:
    # plain_cut_values' task: V's rows, the cuts' members (see there) as pointers, a kernel
    # workspace per thread.
    CutRows cuts
    const KernelParams* params
    Workspace* workspaces
    const int64_t* cut_ptr
    const int64_t* rows
    const double* coef


cdef int plain_row(void* task, Py_ssize_t k, int thread) except -1 nogil:
    # V[k, j] for every cut j by pair kernels (eq. 3).
    cdef PlainCuts* c = <PlainCuts*>task
    cdef const CutRows* cuts = &c.cuts
    cdef int64_t x = cuts.sample[k]
    cdef Py_ssize_t j, m
    cdef double total, value
    for j in range(cuts.n_cuts):
        total = 0.0
        for m in range(c.cut_ptr[j], c.cut_ptr[j + 1]):
            value = pair_kernel(cuts.forest, c.rows[m], cuts.forest, x, c.params,
                                &c.workspaces[thread])
            total = total + c.coef[m] * cuts.inv_norm[c.rows[m]] * value
        cuts.values[k * cuts.n_cuts + j] = total * cuts.inv_norm[x]
    return 0


def plain_cut_values(forest, sample, cut_ptr, member_rows, member_coef, inv_norm, str kind,
                     double lam, double mu, int threads=1) -> np.ndarray:
    """V[k, j] = sum_{m in cut j} c_m K_n(t_m, t_sample[k]) by pair kernels (uSVM); cut j's
    members are member_rows[cut_ptr[j]:cut_ptr[j + 1]] with coefficients member_coef."""
    cdef const int64_t[::1] s = _index(sample)
    cdef const int64_t[::1] ptr = _index(cut_ptr)
    cdef const int64_t[::1] rows = _index(member_rows)
    cdef const double[::1] coef = np.ascontiguousarray(member_coef, dtype=np.float64)
    cdef const double[::1] inv = np.ascontiguousarray(inv_norm, dtype=np.float64)
    cdef ForestView v = forest_view(forest)
    cdef KernelParams p = kernel_params(kind, lam, mu)
    cdef Py_ssize_t n = s.shape[0], t = ptr.shape[0] - 1, i
    cdef int n_threads = max(1, threads)
    # A tree of the sample takes one pair kernel per cut member.
    cdef int64_t per_tree = max(1, ptr[t] - ptr[0]) if t > 0 else 1
    out = np.zeros((n, t), dtype=np.float64)
    cdef PlainCuts task
    task.cuts = cut_rows(&v, s, inv, out)
    task.params, task.cut_ptr, task.rows, task.coef = &p, _first(ptr), _first(rows), _first(coef)
    task.workspaces = <Workspace*>malloc(n_threads * sizeof(Workspace))
    if task.workspaces == NULL:
        raise MemoryError("out of memory for the kernel workspaces")
    for i in range(n_threads):
        workspace_init(&task.workspaces[i])
    try:
        with nogil:
            each_tree(n, per_tree, n_threads, plain_row, &task)
    finally:
        for i in range(n_threads):
            workspace_free(&task.workspaces[i])
        free(task.workspaces)
    _check(out)
    return out


cdef struct DagCuts:
    # dag_cut_values' task: V's rows, one unnormalised TreeDag per cut, a DAG workspace per
    # thread.
    CutRows cuts
    PyObject** dags
    DagWorkspace* workspaces


cdef int dag_row(void* task, Py_ssize_t k, int thread) except -1 nogil:
    # V[k, j] for every cut j as one DAG score each (SDAG).
    cdef DagCuts* c = <DagCuts*>task
    cdef const CutRows* cuts = &c.cuts
    cdef int64_t x = cuts.sample[k]
    cdef Py_ssize_t j
    cdef double score
    for j in range(cuts.n_cuts):
        score = (<TreeDag>c.dags[j]).score_view(cuts.forest, x, &c.workspaces[thread])
        cuts.values[k * cuts.n_cuts + j] = score * cuts.inv_norm[x]
    return 0


def dag_cut_values(list dags, forest, sample, inv_norm, int threads=1) -> np.ndarray:
    """V[k, j] = dags[j] . phi(t_sample[k]) normalised by inv_norm (SDAG: one DAG per cut)."""
    cdef vector[PyObject*] pointers
    cdef TreeDag dag
    for dag in dags:
        _require_raw(dag, forest)
        pointers.push_back(<PyObject*>dag)
    cdef const int64_t[::1] s = _index(sample)
    cdef const double[::1] inv = np.ascontiguousarray(inv_norm, dtype=np.float64)
    cdef ForestView v = forest_view(forest)
    cdef Py_ssize_t n = s.shape[0], t = pointers.size()
    cdef int n_threads = max(1, threads)
    out = np.zeros((n, t), dtype=np.float64)
    cdef DagCuts task
    task.cuts = cut_rows(&v, s, inv, out)
    task.dags = pointers.data()
    task.workspaces = _dag_workspaces(n_threads)
    try:
        with nogil:
            # A tree of the sample takes one DAG score per cut.
            each_tree(n, max(1, t), n_threads, dag_row, &task)
    finally:
        _free_dag_workspaces(task.workspaces, n_threads)
    _check(out)
    return out


def dag_scores(TreeDag dag, forest, sample, inv_norm, int threads=1) -> np.ndarray:
    """dag . phi(t_sample[k]) normalised by inv_norm, for every k (SDAG+ margins): the cut
    values of the one DAG."""
    return dag_cut_values([dag], forest, sample, inv_norm, threads)[:, 0]


cdef struct NodeMatches:
    # dag_node_sums' task: the DAG, the trees' rows, per thread a DAG workspace, a buffer of
    # per-node sums, the nodes it touched and a count of failed matches; per tree the nodes
    # and sums found.
    PyObject* dag
    const ForestView* forest
    const int64_t* rows
    DagWorkspace* workspaces
    double** buffers
    vector[vector[int32_t]]* touched
    vector[vector[int32_t]]* nodes
    vector[vector[double]]* sums
    int* failed


cdef int match_tree(void* task, Py_ssize_t k, int thread) except -1 nogil:
    # Tree k's Deltas: the DAG nodes it matches and their sums, in the order touched.
    cdef NodeMatches* c = <NodeMatches*>task
    cdef vector[int32_t]* touched = &c.touched[0][thread]
    cdef double* buffer = c.buffers[thread]
    cdef Py_ssize_t e
    cdef int32_t d
    touched.clear()
    if isnan((<TreeDag>c.dag).match_view(c.forest, c.rows[k], &c.workspaces[thread], buffer,
                                         touched)):
        c.failed[thread] += 1
    for e in range(<Py_ssize_t>touched.size()):
        d = touched[0][e]
        c.nodes[0][k].push_back(d)
        c.sums[0][k].push_back(buffer[d])
        buffer[d] = 0.0
    return 0


def dag_node_sums(TreeDag dag, forest, rows, coef, inv_norm, int threads=1) -> np.ndarray:
    """N[d] = sum_k coef[k] inv_norm[rows[k]] sum_{n in t_rows[k]} Delta(d, n) for every DAG
    node d: the trees' Deltas are computed in parallel, then added in the order of rows."""
    _require_raw(dag, forest)
    cdef const int64_t[::1] r = _index(rows)
    cdef const double[::1] c = np.ascontiguousarray(coef, dtype=np.float64)
    cdef const double[::1] inv = np.ascontiguousarray(inv_norm, dtype=np.float64)
    if c.shape[0] != r.shape[0]:
        raise ValueError(f"{c.shape[0]} coefficients for {r.shape[0]} trees")
    cdef ForestView v = forest_view(forest)
    cdef Py_ssize_t n = r.shape[0], n_nodes = dag.n_nodes, k, i, e
    cdef int n_threads = max(1, threads)
    cdef vector[vector[int32_t]] nodes
    cdef vector[vector[double]] sums
    cdef vector[vector[int32_t]] touched
    cdef vector[int] failed
    nodes.resize(n)
    sums.resize(n)
    touched.resize(n_threads)
    failed.resize(n_threads)
    cdef double** buffers = <double**>calloc(n_threads, sizeof(double*))
    if buffers == NULL:
        raise MemoryError("out of memory for the DAG node sums")
    for i in range(n_threads):
        buffers[i] = <double*>calloc(n_nodes + 1, sizeof(double))
        if buffers[i] == NULL:
            _free_buffers(buffers, n_threads)
            raise MemoryError("out of memory for the DAG node sums")
    out = np.zeros(n_nodes, dtype=np.float64)
    cdef double[::1] o = out
    cdef NodeMatches task
    task.dag, task.forest, task.rows = <PyObject*>dag, &v, _first(r)
    task.buffers, task.touched, task.nodes, task.sums = buffers, &touched, &nodes, &sums
    task.failed = failed.data()
    task.workspaces = _dag_workspaces(n_threads)
    cdef double scale
    try:
        with nogil:
            each_tree(n, 1, n_threads, match_tree, &task)
            for k in range(n):
                scale = c[k] * inv[r[k]]
                for e in range(<Py_ssize_t>nodes[k].size()):
                    o[nodes[k][e]] += scale * sums[k][e]
    finally:
        _free_dag_workspaces(task.workspaces, n_threads)
        _free_buffers(buffers, n_threads)
    for i in range(n_threads):
        if failed[i]:
            raise MemoryError("out of memory in the DAG score")
    return out


ctypedef fused Entry:
    int64_t
    double


cdef inline const Entry* _first(const Entry[::1] values) noexcept:
    # The address of values' first element (NULL when there is none).
    return &values[0] if values.shape[0] else NULL


cdef Py_ssize_t block_size(int64_t per_tree, int n_threads) noexcept nogil:
    # Trees of a block: about CHECK_STEPS steps (kernels, DAG scores) for each thread.
    return max(1, CHECK_STEPS * n_threads // per_tree)


cdef void _free_buffers(double** buffers, int n) noexcept:
    cdef int i
    for i in range(n):
        free(buffers[i])
    free(buffers)


cdef DagWorkspace* _dag_workspaces(int n) except NULL:
    cdef DagWorkspace* ws = <DagWorkspace*>malloc(n * sizeof(DagWorkspace))
    cdef int i
    if ws == NULL:
        raise MemoryError("out of memory for the DAG workspaces")
    for i in range(n):
        dag_workspace_init(&ws[i])
    return ws


cdef void _free_dag_workspaces(DagWorkspace* ws, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        dag_workspace_free(&ws[i])
    free(ws)


def _index(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


def _require_raw(TreeDag dag, forest) -> None:
    if dag.normalize:
        raise ValueError("the cutting-plane DAGs are built unnormalised (normalize=False)")
    if dag.labels is not None and (forest.labels is not dag.labels
                                   or forest.productions is not dag.productions):
        raise ValueError("the forest does not share the label and production interners "
                         "of the DAG's trees")


def _check(out: np.ndarray) -> None:
    if np.isnan(out).any():
        raise MemoryError("out of memory in the tree kernel")
