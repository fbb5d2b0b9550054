# cython: language_level=3
# distutils: extra_compile_args = -fopenmp
# distutils: extra_link_args = -fopenmp
"""Kernel columns of trees (plus binary vectors) against a fixed set of target instances.

A column is K(q, t_j) for one query instance q and every target t_j, with SVM-light-TK's kernel
(Moschitti 2006, `svm_learn -t 5`; `-C +` sums the parts, each normalised under `-N 3`):
    K(a, b) = P_n(x_a, x_b) + T * TK_n(a, b)   or   TK_n(a, b) alone,
    TK_n(a, b) = TK(a, b) / sqrt(TK(a, a) TK(b, b)),   P_n(x, z) = P(x, z) / sqrt(P(x, x) P(z, z)),
    P(x, z) = (s x.z + r)^d on binary vectors (x.z = shared ids; a zero P(x, x) counts as 1),
(0 for an empty tree), or the un-normalised parts. Columns feed the SMO solver
(classifiers/kernel_svm/smo.pyx, as a ColumnSource) and give decision values (queries = the
support vectors, targets = the instances to classify).

SST and ST by one DAG of the targets (Aiolli et al. 2007, "Efficient kernel-based learning for
trees"): every target node with a production is hash-consed bottom-up by (production, DAG ids
of its children), so equal subtrees become one DAG node d; Delta(n1, n2) of Collins & Duffy
(2002) depends only on the two subtrees, hence
    TK(q, t_j) = sum_{n2 in t_j} g_q(dag(n2)),   g_q(d) = sum_{n1 in q} Delta(n1, d).
g_q is computed once per column for the DAG nodes of each production p of q (the bucket of p,
d at rank r(d)): Delta(n1, d) = lam * prod_k f_k with f_k = 1 for two leaf children, sigma +
Delta(c_k(n1), c_k(d)) for children with equal productions (memoised at the child's rank) and
sigma otherwise; the children of n1 come first (reverse pre-order). The occurrences of each
production among the targets, (target j, rank of its DAG node), then scatter g_q into the
column: the work is the size of the buckets and occurrence lists of q's productions instead of
one pair kernel per target. PT and ET columns evaluate the pair kernels (kernels.pyx).

Vector part: posting lists of the targets by feature (a feature held by more than half of the
targets keeps the list of targets without it), so x_q.x_j costs l plus the lists of q's ids.

Threads (OpenMP): with `threads` > 1 and enough targets, a column is split into contiguous target
ranges, one per thread; occurrence and posting lists are sorted by target, so each thread finds
its slice by binary search and sums in the same order as one thread (identical values).
"""
from libc.math cimport isnan, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.stdlib cimport bsearch, calloc, free, realloc
from libc.string cimport memset

from cython.parallel cimport prange

import numpy as np

from polyparse.classifiers.evaluators.kernel_sum import kernel_table
from polyparse.classifiers.kernel_svm.smo import inverted_index
from polyparse.classifiers.tree_kernels.kernels import self_kernels

from polyparse.classifiers.kernel_svm.smo cimport ColumnSource
from polyparse.classifiers.tree_kernels.kernels cimport (
    KIND_SST,
    KIND_ST,
    ForestView,
    KernelParams,
    Workspace,
    forest_view,
    grow,
    kernel_params,
    pair_kernel,
    workspace_free,
)
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps


cdef int _compare_int32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


def _production_dag(forest, rows):
    """The DAG of the production nodes of trees `rows` of forest (see the module notes).

    Returns (dag_production, dag_rank, dag_child_ptr, dag_children, bucket_ptr, bucket_nodes,
    occurrence_ptr, occurrence_target, occurrence_rank): DAG node d has production
    dag_production[d], rank dag_rank[d] in the bucket of its production (bucket_nodes[
    bucket_ptr[p] + rank]) and children dag_children[dag_child_ptr[d] : dag_child_ptr[d + 1]]
    (-1 for a child without production); the target nodes of production p are
    (occurrence_target[k], occurrence_rank[k]) for k in occurrence_ptr[p] : occurrence_ptr[p+1].
    """
    cdef const int64_t[::1] tree_ptr = forest.tree_ptr
    cdef const int32_t[::1] production = forest.production
    cdef const int64_t[::1] child_ptr = forest.child_ptr
    cdef const int32_t[::1] children = forest.children
    cdef const int64_t[::1] targets = rows
    cdef int64_t j, x, start, end, c, k
    cdef int32_t d, p
    cdef int n_productions = max(len(forest.productions), int(np.max(forest.production, initial=0)) + 1)
    ids = {}
    dag_of = np.full(forest.n_nodes, -1, dtype=np.int64)
    cdef int64_t[::1] dag_view = dag_of
    dag_production = []
    dag_child_ptr = [0]
    dag_children = []
    occurrence_target = []
    occurrence_node = []
    for j in range(targets.shape[0]):
        start = tree_ptr[targets[j]]
        end = tree_ptr[targets[j] + 1]
        for x in range(end - 1, start - 1, -1):
            p = production[x]
            if p == 0:
                continue
            kids = tuple([dag_view[children[c]] for c in range(child_ptr[x], child_ptr[x + 1])])
            key = (p, kids)
            found = ids.get(key)
            if found is None:
                d = len(dag_production)
                ids[key] = d
                dag_production.append(p)
                dag_children.extend(kids)
                dag_child_ptr.append(len(dag_children))
            else:
                d = found
            dag_view[x] = d
            occurrence_target.append(j)
            occurrence_node.append(d)
    dag_production = np.asarray(dag_production, dtype=np.int32)
    n_dag = dag_production.size
    order = np.argsort(dag_production, kind="stable").astype(np.int32)
    bucket_sizes = np.bincount(dag_production, minlength=n_productions)
    bucket_ptr = np.zeros(n_productions + 1, dtype=np.int64)
    np.cumsum(bucket_sizes, out=bucket_ptr[1:])
    dag_rank = np.empty(n_dag, dtype=np.int32)
    dag_rank[order] = (np.arange(n_dag) - bucket_ptr[dag_production[order]]).astype(np.int32)
    occurrence_node = np.asarray(occurrence_node, dtype=np.int64)
    occurrence_target = np.asarray(occurrence_target, dtype=np.int32)
    occurrence_production = dag_production[occurrence_node] if n_dag else np.zeros(0, np.int32)
    by_production = np.argsort(occurrence_production, kind="stable")
    occurrence_ptr = np.zeros(n_productions + 1, dtype=np.int64)
    np.cumsum(np.bincount(occurrence_production, minlength=n_productions), out=occurrence_ptr[1:])
    return (
        dag_production,
        dag_rank,
        np.asarray(dag_child_ptr, dtype=np.int64),
        np.asarray(dag_children, dtype=np.int32),
        bucket_ptr,
        order,
        occurrence_ptr,
        np.ascontiguousarray(occurrence_target[by_production]),
        np.ascontiguousarray(dag_rank[occurrence_node[by_production]]),
    )


cdef enum:
    # Below this many targets a column is computed by one thread.
    PARALLEL_TARGETS = 4096


# Scratch memory of one thread's part of a column; start zeroed.
cdef struct ColumnScratch:
    double* memo
    size_t memo_capacity
    int64_t* memo_offset
    size_t memo_offset_capacity
    double* gathered
    size_t gathered_capacity
    Workspace workspace


cdef void _scratch_free(ColumnScratch* w) noexcept nogil:
    free(w.memo)
    free(w.memo_offset)
    free(w.gathered)
    w.memo = NULL
    w.memo_offset = NULL
    w.gathered = NULL
    w.memo_capacity = w.memo_offset_capacity = w.gathered_capacity = 0
    workspace_free(&w.workspace)


cdef inline int64_t _lower_bound(const int32_t* values, int64_t begin, int64_t end,
                                 int64_t key) noexcept nogil:
    # The first position in [begin, end) of the ascending values whose value is >= key.
    cdef int64_t middle
    while begin < end:
        middle = begin + (end - begin) // 2
        if values[middle] < key:
            begin = middle + 1
        else:
            end = middle
    return begin


cdef class TreeKernelColumns:
    """K(q, t_j) for query instances q against the targets t_j (see the module notes).

    Targets: trees `rows` of `forest` (one per instance) and, with a vector part, the rows of
    `vectors` (a BinaryMatrix, one row per target). Queries come from any forest that shares
    forest's label and production interners.
    """

    cdef readonly int n_targets
    cdef readonly str kind
    cdef readonly double lam, mu, s, r, tree_constant
    cdef readonly int degree
    cdef readonly bint normalize, use_vector
    cdef readonly object forest, rows, vectors
    cdef readonly object tree_self
    cdef readonly int64_t n_dag_nodes
    cdef KernelParams params
    cdef ForestView targets_view
    cdef bint by_dag
    cdef double sigma
    cdef object arrays
    cdef const int64_t* target_tree
    cdef const double* target_tree_norm
    # DAG of the targets' production nodes (see _production_dag)
    cdef int n_productions
    cdef const int32_t* dag_production
    cdef const int32_t* dag_rank
    cdef const int64_t* dag_child_ptr
    cdef const int32_t* dag_children
    cdef const int64_t* bucket_ptr
    cdef const int32_t* bucket_nodes
    cdef const int64_t* occurrence_ptr
    cdef const int32_t* occurrence_target
    cdef const int32_t* occurrence_rank
    # Vector part: sorted distinct target feature ids (position = compact id), posting lists
    # by compact id, the targets' vector lengths and sqrt(P(x, x)), the table of (s c + r)^d.
    cdef int n_features
    cdef const int32_t* feature_ids
    cdef const int64_t* post_ptr
    cdef const int32_t* post_rows
    cdef const unsigned char* complement
    cdef const int64_t* target_indptr
    cdef const int32_t* target_indices
    cdef const double* vector_norm
    cdef const double* table
    # Scratch of one column: the un-normalised tree part, the shared ids, one ColumnScratch
    # per thread.
    cdef readonly int threads
    cdef double* raw
    cdef int32_t* count
    cdef ColumnScratch* scratch

    def __cinit__(self):
        self.raw = NULL
        self.count = NULL
        self.scratch = NULL
        self.threads = 0

    def __init__(self, forest, rows=None, vectors=None, str kind="sst", double lam=0.4,
                 double mu=0.4, bint normalize=True, int degree=2, double s=1.0,
                 double r=1.0, double tree_constant=1.0, int threads=1):
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        rows = np.arange(len(forest), dtype=np.int64) if rows is None else np.ascontiguousarray(
            rows, dtype=np.int64)
        if rows.ndim != 1 or (rows.size and (rows.min() < 0 or rows.max() >= len(forest))):
            raise IndexError(f"target trees must lie in 0 .. {len(forest) - 1}")
        self.params = kernel_params(kind, lam, mu)
        if degree < 1:
            raise ValueError(f"the polynomial degree must be at least 1, not {degree}")
        self.kind, self.lam, self.mu, self.normalize = kind, lam, mu, normalize
        self.degree, self.s, self.r, self.tree_constant = degree, s, r, tree_constant
        self.forest, self.rows, self.vectors = forest, rows, vectors
        self.use_vector = vectors is not None
        self.n_targets = rows.size
        self.targets_view = forest_view(forest)
        self.by_dag = self.params.kind == KIND_SST or self.params.kind == KIND_ST
        self.sigma = 1.0 if self.params.kind == KIND_SST else 0.0
        self.tree_self = self_kernels(forest, kind, lam, mu, rows)
        norm = np.sqrt(self.tree_self)
        dag = _production_dag(forest, rows) if self.by_dag else None
        self.n_dag_nodes = dag[0].size if self.by_dag else 0
        vector_arrays = self._vector_index(vectors) if self.use_vector else None
        self.arrays = (rows, norm, dag, vector_arrays)
        cdef const int64_t[::1] rows_view = rows
        cdef const double[::1] norm_view = norm
        if self.n_targets:
            self.target_tree = &rows_view[0]
            self.target_tree_norm = &norm_view[0]
        if self.by_dag:
            self._point_dag(dag)
        if self.use_vector:
            self._point_vectors(vector_arrays)
        self.raw = <double*>realloc(self.raw, max(self.n_targets, 1) * sizeof(double))
        self.count = <int32_t*>realloc(self.count, max(self.n_targets, 1) * sizeof(int32_t))
        if self.raw == NULL or self.count == NULL:
            raise MemoryError()
        if self.scratch == NULL:
            self.scratch = <ColumnScratch*>calloc(threads, sizeof(ColumnScratch))
            if self.scratch == NULL:
                raise MemoryError()
            self.threads = threads

    def __dealloc__(self):
        cdef int t
        if self.scratch != NULL:
            for t in range(self.threads):
                _scratch_free(&self.scratch[t])
        free(self.scratch)
        free(self.raw)
        free(self.count)

    cdef void _point_dag(self, tuple dag) except *:
        cdef const int32_t[::1] production = dag[0]
        cdef const int32_t[::1] rank = dag[1]
        cdef const int64_t[::1] child_ptr = dag[2]
        cdef const int32_t[::1] children = dag[3]
        cdef const int64_t[::1] bucket_ptr = dag[4]
        cdef const int32_t[::1] bucket_nodes = dag[5]
        cdef const int64_t[::1] occurrence_ptr = dag[6]
        cdef const int32_t[::1] occurrence_target = dag[7]
        cdef const int32_t[::1] occurrence_rank = dag[8]
        self.n_productions = bucket_ptr.shape[0] - 1
        self.dag_production = &production[0] if production.shape[0] else NULL
        self.dag_rank = &rank[0] if rank.shape[0] else NULL
        self.dag_child_ptr = &child_ptr[0]
        self.dag_children = &children[0] if children.shape[0] else NULL
        self.bucket_ptr = &bucket_ptr[0]
        self.bucket_nodes = &bucket_nodes[0] if bucket_nodes.shape[0] else NULL
        self.occurrence_ptr = &occurrence_ptr[0]
        self.occurrence_target = &occurrence_target[0] if occurrence_target.shape[0] else NULL
        self.occurrence_rank = &occurrence_rank[0] if occurrence_rank.shape[0] else NULL

    def _vector_index(self, vectors):
        if len(vectors) != self.n_targets:
            raise ValueError(f"{len(vectors)} vectors for {self.n_targets} target trees")
        indptr = np.ascontiguousarray(vectors.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(vectors.indices, dtype=np.int32)
        lengths = np.diff(indptr).astype(np.int32)
        ids = np.unique(indices).astype(np.int32)
        compact = np.searchsorted(ids, indices).astype(np.int32)
        post_ptr, post_rows, complement, _ = inverted_index(
            indptr[:indptr.size - 1].copy(), lengths, compact, ids.size
        )
        table = kernel_table(int(max(lengths.max(initial=0), 1)), self.degree, self.s, self.r)
        return (ids, post_ptr, post_rows, complement, indptr, indices,
                self.polynomial_norms(lengths), table)

    def polynomial_norms(self, lengths) -> np.ndarray:
        """sqrt(P(x, x)) of vectors with `lengths` ids (a zero P(x, x) counts as 1)."""
        own = (self.s * np.asarray(lengths, dtype=np.float64) + self.r) ** self.degree
        own[own == 0.0] = 1.0
        return np.sqrt(own)

    cdef void _point_vectors(self, tuple arrays) except *:
        cdef const int32_t[::1] ids = arrays[0]
        cdef const int64_t[::1] post_ptr = arrays[1]
        cdef const int32_t[::1] post_rows = arrays[2]
        cdef const unsigned char[::1] complement = arrays[3]
        cdef const int64_t[::1] indptr = arrays[4]
        cdef const int32_t[::1] indices = arrays[5]
        cdef const double[::1] norm = arrays[6]
        cdef const double[::1] table = arrays[7]
        self.n_features = ids.shape[0]
        self.feature_ids = &ids[0] if ids.shape[0] else NULL
        self.post_ptr = &post_ptr[0]
        self.post_rows = &post_rows[0] if post_rows.shape[0] else NULL
        self.complement = &complement[0] if complement.shape[0] else NULL
        self.target_indptr = &indptr[0]
        self.target_indices = &indices[0] if indices.shape[0] else NULL
        self.vector_norm = &norm[0] if norm.shape[0] else NULL
        self.table = &table[0]

    @property
    def diagonal(self) -> np.ndarray:
        """K(t_j, t_j) of every target."""
        tree = np.zeros(self.n_targets)
        positive = self.tree_self > 0.0
        tree[positive] = 1.0 if self.normalize else self.tree_self[positive]
        if not self.use_vector:
            return tree
        lengths = np.diff(self.arrays[3][4])
        own = (self.s * lengths.astype(np.float64) + self.r) ** self.degree
        if self.normalize:
            vector = (own != 0.0).astype(np.float64)
        else:
            vector = own
        return vector + self.tree_constant * tree

    cdef int tree_part(self, const ForestView* q, int64_t tree, int64_t lo, int64_t hi,
                       ColumnScratch* w, double* raw) noexcept nogil:
        # raw[j] += TK(q's tree, t_j) for the targets lo <= j < hi; -1 when out of memory.
        cdef int64_t sa = q.tree_ptr[tree], na = q.tree_ptr[tree + 1] - sa
        cdef int64_t x, k, nc, r, b, d, cd, c1, pos, first, last, j, begin, end, total = 0
        cdef int32_t p, pc, pd
        cdef double value, sigma = self.sigma, lam = self.lam
        cdef double* memo
        cdef const double* g
        cdef const int32_t* target = self.occurrence_target
        cdef const int32_t* rank = self.occurrence_rank
        cdef int64_t* offset
        cdef double k_value
        if not self.by_dag:
            for j in range(lo, hi):
                k_value = pair_kernel(q, tree, &self.targets_view, self.target_tree[j],
                                      &self.params, &w.workspace)
                if isnan(k_value):
                    return -1
                raw[j] += k_value
            return 0
        if not grow(<void**>&w.memo_offset, &w.memo_offset_capacity, <size_t>(na + 1),
                     sizeof(int64_t)):
            return -1
        offset = w.memo_offset
        for x in range(na):
            offset[x] = total
            p = q.production[sa + x]
            if p > 0 and p < self.n_productions:
                total += self.bucket_ptr[p + 1] - self.bucket_ptr[p]
        offset[na] = total
        if not grow(<void**>&w.memo, &w.memo_capacity, <size_t>(total + 1), sizeof(double)):
            return -1
        memo = w.memo
        # Delta(n1, d) for each query node n1 and DAG node d of its production, children first.
        for x in range(na - 1, -1, -1):
            p = q.production[sa + x]
            if p <= 0 or p >= self.n_productions:
                continue
            nc = q.child_ptr[sa + x + 1] - q.child_ptr[sa + x]
            first = self.bucket_ptr[p]
            for r in range(self.bucket_ptr[p + 1] - first):
                d = self.bucket_nodes[first + r]
                value = lam
                for k in range(nc):
                    c1 = q.children[q.child_ptr[sa + x] + k]
                    pc = q.production[c1]
                    cd = self.dag_children[self.dag_child_ptr[d] + k]
                    pd = self.dag_production[cd] if cd >= 0 else 0
                    if pc == 0 and pd == 0:
                        continue
                    if pc == pd:
                        value *= sigma + memo[offset[c1 - sa] + self.dag_rank[cd]]
                    else:
                        value *= sigma
                memo[offset[x] + r] = value
        # g_q over each production's bucket (summed over q's nodes of that production),
        # scattered over the targets' nodes of that production (sorted by target).
        pos = 0
        while pos < na:
            x = q.production_order[sa + pos] - sa
            p = q.production[sa + x]
            last = pos + 1
            while last < na and q.production[q.production_order[sa + last]] == p:
                last += 1
            if p <= 0 or p >= self.n_productions or self.bucket_ptr[p + 1] == self.bucket_ptr[p]:
                pos = last
                continue
            b = self.bucket_ptr[p + 1] - self.bucket_ptr[p]
            if last == pos + 1:
                g = memo + offset[x]
            else:
                if not grow(<void**>&w.gathered, &w.gathered_capacity, <size_t>b,
                             sizeof(double)):
                    return -1
                memset(w.gathered, 0, b * sizeof(double))
                for k in range(pos, last):
                    x = q.production_order[sa + k] - sa
                    for r in range(b):
                        w.gathered[r] += memo[offset[x] + r]
                g = w.gathered
            begin = _lower_bound(target, self.occurrence_ptr[p], self.occurrence_ptr[p + 1], lo)
            end = _lower_bound(target, begin, self.occurrence_ptr[p + 1], hi)
            for k in range(begin, end):
                raw[target[k]] += g[rank[k]]
            pos = last
        return 0

    cdef void vector_part(self, const int32_t* ids, int64_t n_ids, int64_t lo, int64_t hi,
                          int32_t* count) noexcept nogil:
        # count[j] = x_q . x_j (shared ids) for the targets lo <= j < hi.
        cdef int64_t p, j, k, begin, end
        cdef int32_t base = 0
        cdef const int32_t* found
        cdef int32_t f
        cdef const int32_t* posting = self.post_rows
        for p in range(n_ids):
            found = <const int32_t*>bsearch(&ids[p], self.feature_ids, self.n_features,
                                            sizeof(int32_t), _compare_int32)
            if found != NULL:
                base += self.complement[found - self.feature_ids]
        for j in range(lo, hi):
            count[j] = base
        for p in range(n_ids):
            found = <const int32_t*>bsearch(&ids[p], self.feature_ids, self.n_features,
                                            sizeof(int32_t), _compare_int32)
            if found == NULL:
                continue
            f = <int32_t>(found - self.feature_ids)
            begin = _lower_bound(posting, self.post_ptr[f], self.post_ptr[f + 1], lo)
            end = _lower_bound(posting, begin, self.post_ptr[f + 1], hi)
            if self.complement[f]:
                for k in range(begin, end):
                    count[posting[k]] -= 1
            else:
                for k in range(begin, end):
                    count[posting[k]] += 1

    cdef int column_part(self, const ForestView* q, int64_t tree, double tree_self,
                         const int32_t* ids, int64_t n_ids, int64_t lo, int64_t hi,
                         ColumnScratch* w, double* out) noexcept nogil:
        # out[j] = K(q, t_j) for the targets lo <= j < hi; -1 when out of memory.
        cdef int64_t j
        cdef double tree_norm = sqrt(tree_self) if tree_self > 0.0 else 0.0
        cdef double vector_norm = 1.0, v, own
        cdef double* raw = self.raw
        cdef int32_t* count = self.count
        cdef bint normalize = self.normalize
        if hi <= lo:
            return 0
        memset(raw + lo, 0, (hi - lo) * sizeof(double))
        if q.tree_ptr[tree + 1] > q.tree_ptr[tree] and self.tree_part(q, tree, lo, hi, w,
                                                                      raw) != 0:
            return -1
        if normalize:
            for j in range(lo, hi):
                if tree_norm > 0.0 and self.target_tree_norm[j] > 0.0:
                    raw[j] = raw[j] / (tree_norm * self.target_tree_norm[j])
                else:
                    raw[j] = 0.0
        if not self.use_vector:
            for j in range(lo, hi):
                out[j] = raw[j]
            return 0
        self.vector_part(ids, n_ids, lo, hi, count)
        if normalize:
            own = 1.0
            for j in range(self.degree):
                own *= self.s * n_ids + self.r
            vector_norm = sqrt(own) if own != 0.0 else 1.0
            for j in range(lo, hi):
                v = self.table[count[j]] / (vector_norm * self.vector_norm[j])
                out[j] = v + self.tree_constant * raw[j]
        else:
            for j in range(lo, hi):
                out[j] = self.table[count[j]] + self.tree_constant * raw[j]
        return 0

    cdef int column(self, const ForestView* q, int64_t tree, double tree_self,
                    const int32_t* ids, int64_t n_ids, double* out) noexcept nogil:
        # out[j] = K(q, t_j) for every target j (the module notes), the targets split into
        # one contiguous range per thread; -1 when out of memory.
        cdef int parts = self.threads if self.n_targets >= PARALLEL_TARGETS else 1
        cdef int part
        cdef int failed = 0
        cdef int64_t n = self.n_targets
        if parts == 1:
            return self.column_part(q, tree, tree_self, ids, n_ids, 0, n, &self.scratch[0], out)
        for part in prange(parts, num_threads=parts, schedule="static"):
            failed += self.column_part(q, tree, tree_self, ids, n_ids, n * part // parts,
                                       n * (part + 1) // parts, &self.scratch[part], out)
        return -1 if failed != 0 else 0

    cdef int target_column(self, int64_t row, double* out) noexcept nogil:
        # The column of target `row` itself as the query.
        cdef const int32_t* ids = NULL
        cdef int64_t n_ids = 0
        if self.use_vector:
            ids = self.target_indices + self.target_indptr[row]
            n_ids = self.target_indptr[row + 1] - self.target_indptr[row]
        return self.column(&self.targets_view, self.target_tree[row],
                           self.target_tree_norm[row] * self.target_tree_norm[row],
                           ids, n_ids, out)

    def target_kernels(self, int64_t row) -> np.ndarray:
        """K(t_row, t_j) for every target j."""
        if row < 0 or row >= self.n_targets:
            raise IndexError(f"target {row} is outside 0 .. {self.n_targets - 1}")
        out = np.empty(self.n_targets, dtype=np.float64)
        cdef double[::1] view = out
        cdef int status
        with nogil:
            status = self.target_column(row, &view[0])
        if status != 0:
            raise MemoryError("out of memory in the tree kernel columns")
        return out

    def expansion(self, forest, rows, coefficients, vectors=None) -> np.ndarray:
        """sum_m coefficients[m] K(q_m, t_j) for every target j, q_m = tree rows[m] of forest
        (with row m of vectors when the kernel has a vector part)."""
        index = np.ascontiguousarray(rows, dtype=np.int64)
        coef = np.ascontiguousarray(coefficients, dtype=np.float64)
        if index.ndim != 1 or coef.shape != index.shape:
            raise ValueError("one coefficient per query tree is needed")
        if index.size and (index.min() < 0 or index.max() >= len(forest)):
            raise IndexError(f"query trees must lie in 0 .. {len(forest) - 1}")
        if forest.labels is not self.forest.labels or (
                forest.productions is not self.forest.productions):
            raise ValueError("the query forest does not share the label and production "
                             "interners of the targets")
        if self.use_vector and (vectors is None or len(vectors) != index.size):
            raise ValueError("the kernel has a vector part: one query vector per tree is needed")
        query_self = self_kernels(forest, self.kind, self.lam, self.mu, index)
        cdef ForestView q = forest_view(forest)
        cdef const int64_t[::1] trees = index
        cdef const double[::1] alpha = coef
        cdef const double[::1] own = query_self
        empty64 = np.zeros(1, dtype=np.int64)
        empty32 = np.zeros(1, dtype=np.int32)
        indptr = np.ascontiguousarray(vectors.indptr, dtype=np.int64) if self.use_vector else empty64
        indices = np.ascontiguousarray(vectors.indices, dtype=np.int32) if self.use_vector else empty32
        if indices.size == 0:
            indices = empty32
        cdef const int64_t[::1] q_indptr = indptr
        cdef const int32_t[::1] q_indices = indices
        total = np.zeros(self.n_targets, dtype=np.float64)
        column = np.empty(max(self.n_targets, 1), dtype=np.float64)
        cdef double[::1] out = total
        cdef double[::1] col = column
        cdef Py_ssize_t m, j
        cdef int status = 0
        cdef int64_t steps_left = CHECK_STEPS
        with nogil:
            for m in range(trees.shape[0]):
                if alpha[m] == 0.0:
                    continue
                # A column: a step per 16 targets.
                count_steps(&steps_left, 1 + (self.n_targets >> 4))
                status = self.column(
                    &q, trees[m], own[m],
                    &q_indices[q_indptr[m]] if self.use_vector else NULL,
                    q_indptr[m + 1] - q_indptr[m] if self.use_vector else 0,
                    &col[0],
                )
                if status != 0:
                    break
                for j in range(self.n_targets):
                    out[j] += alpha[m] * col[j]
        if status != 0:
            raise MemoryError("out of memory in the tree kernel columns")
        return total


cdef class TreeColumnSource(ColumnSource):
    """The SMO's column source of a training set: the columns of TreeKernelColumns with the
    targets themselves as queries."""

    cdef readonly TreeKernelColumns columns
    cdef readonly bint failed
    cdef double* buffer

    def __cinit__(self, TreeKernelColumns columns):
        self.columns = columns
        self.n_rows = columns.n_targets
        self.diagonal = columns.diagonal
        self.failed = False
        self.buffer = <double*>realloc(NULL, max(self.n_rows, 1) * sizeof(double))
        if self.buffer == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.buffer)

    cdef void fill(self, int row, double y_row, const int* rows, const int8_t* y, float* data,
                   int start, int length) noexcept nogil:
        cdef int t
        cdef const double* k = self.buffer
        if self.columns.target_column(row, self.buffer) != 0:
            self.failed = True
            for t in range(start, length):
                data[t] = 0.0
            return
        for t in range(start, length):
            data[t] = <float>(y_row * y[t] * k[rows[t]])
