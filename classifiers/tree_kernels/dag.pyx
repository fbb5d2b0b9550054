# cython: language_level=3
"""DAG models of tree-kernel expansions (Aiolli, Da San Martino, Sperduti & Moschitti 2007,
"Efficient kernel-based learning for trees"; Severyn & Moschitti 2010, "Fast support vector
machines for structural kernels", Theorem 1).

A model is a weighted forest {(T_i, alpha_i)}. Every subtree of every T_i is hash-consed
bottom-up: a node's identity is its label, its production and the ordered identities of its
children (word leaves included), so equal subtrees anywhere become one DAG node d, whose
children are DAG nodes. Each DAG node carries
    f(d) = sum_i alpha_i' * |{n in T_i : subtree(n) = d}|,
    alpha_i' = alpha_i / sqrt(K(T_i, T_i)) for the normalised kernel, alpha_i otherwise.
Delta(n1, n2) of SST, ST, PT and ET depends only on the subtrees rooted at n1 and n2, hence
    sum_i alpha_i' K(T_i, T) = sum_{d in DAG} sum_{n in T} f(d) Delta(d, n),
divided by sqrt(K(T, T)) for the normalised score. Only pairs with equal productions (SST/ST)
or labels (PT/ET) are visited: a tree node n of key k meets the DAG nodes of the index of k,
and Delta(d, n) is memoised at memo[offset[n] + rank[d]] (rank: d's position in that index).
"""
from libc.math cimport NAN, isnan, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free
from libcpp.vector cimport vector

import numpy as np

from polyparse.classifiers.tree_kernels.kernels import tree_rows

from polyparse.classifiers.tree_kernels.kernels cimport (
    KIND_ET,
    KIND_PT,
    KIND_SST,
    DagDeltas,
    ForestView,
    KernelParams,
    child_subsequence_sum,
    forest_view,
    grow,
    kernel_params,
    max_children,
    pair_kernel,
    single_pair_kernel,
    workspace_free,
)
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps


cdef void dag_workspace_free(DagWorkspace* w) noexcept nogil:
    free(w.memo)
    free(w.offset)
    free(w.table)
    free(w.expansion)
    workspace_free(&w.kernel)
    dag_workspace_init(w)


cdef class TreeDag:
    """The distinct subtrees of a weighted forest of model trees with their weights f(d), for
    one kernel (kind, lam, mu, normalize): the normalisation is folded into the weights.

    Trees are added one at a time (`add_tree`) or all at once (`from_forest`); forests added
    and scored must share the label and production interners of the first one added."""

    def __cinit__(self, str kind="sst", double lam=0.4, double mu=0.4, bint normalize=True):
        self._params = kernel_params(kind, lam, mu)
        self.kind = kind
        self.lam = lam
        self.mu = mu
        self.normalize = normalize
        self._ids = {}
        self._child_ptr.push_back(0)
        self._max_children = 0
        self._max_size = 0
        self.labels = None
        self.productions = None
        self.n_trees = 0
        self.n_tree_nodes = 0

    @classmethod
    def from_forest(cls, forest, coefficients, str kind="sst", double lam=0.4,
                    double mu=0.4, bint normalize=True) -> TreeDag:
        """The DAG of sum_t coefficients[t] K(., tree t of forest)."""
        coef = np.ascontiguousarray(coefficients, dtype=np.float64)
        if coef.shape != (len(forest),):
            raise ValueError(f"{coef.shape[0]} coefficients for {len(forest)} model trees")
        dag = cls(kind, lam, mu, normalize)
        for t in np.flatnonzero(coef).tolist():
            dag.add_tree(forest, t, float(coef[t]))
        return dag

    def add_tree(self, forest, int64_t t, double weight) -> list | None:
        """Add weight * K(., tree t of forest): weight' (weight / sqrt(K(t, t)) when normalised,
        nothing for an empty tree or K(t, t) = 0) to f of the DAG node of each of its subtrees,
        creating the missing ones. Returns the DAG node of each of the tree's nodes (in the
        tree's order), None when nothing was added."""
        cdef ForestView v = forest_view(forest)
        cdef double k
        cdef int64_t start, n, x
        cdef int32_t d
        if t < 0 or t >= v.n_trees:
            raise IndexError(f"tree {t} is outside the forest ({v.n_trees} trees)")
        self._check_interners(forest)
        start = v.tree_ptr[t]
        n = v.tree_ptr[t + 1] - start
        if weight == 0.0 or n == 0:
            return None
        if self.normalize:
            with nogil:
                k = single_pair_kernel(&v, t, &v, t, &self._params)
            if isnan(k):
                raise MemoryError("out of memory in the tree kernel")
            if k <= 0.0:
                return None
            weight /= sqrt(k)
        labels = forest.label[start:start + n].tolist()
        productions = forest.production[start:start + n].tolist()
        child_ptr = forest.child_ptr[start:start + n + 1].tolist()
        children = (forest.children[child_ptr[0]:child_ptr[n]] - start).tolist()
        base = child_ptr[0]
        ids = [0] * n
        for x in range(n - 1, -1, -1):
            kids = [ids[c] for c in children[child_ptr[x] - base:child_ptr[x + 1] - base]]
            d = self._node(labels[x], productions[x], kids)
            self._weight[d] += weight
            ids[x] = d
        self.n_trees += 1
        self.n_tree_nodes += n
        return ids

    cdef int32_t _node(self, int32_t label, int32_t production, list kids):
        key = (label, production, *kids)
        found = self._ids.get(key)
        if found is not None:
            return found
        cdef int32_t d = <int32_t>self._label.size()
        cdef int64_t size = 1
        cdef int32_t c
        for c in kids:
            self._children.push_back(c)
            self._child_production.push_back(self._production[c])
            self._child_rank.push_back(self._rank_production[c])
            size += self._size[c]
        self._label.push_back(label)
        self._production.push_back(production)
        self._child_ptr.push_back(self._children.size())
        self._size.push_back(size)
        self._weight.push_back(0.0)
        if <int64_t>len(kids) > self._max_children:
            self._max_children = len(kids)
        if size > self._max_size:
            self._max_size = size
        if <size_t>label >= self._by_label.size():
            self._by_label.resize(label + 1)
        self._rank_label.push_back(<int32_t>self._by_label[label].size())
        self._by_label[label].push_back(d)
        if production != 0:
            if <size_t>production >= self._by_production.size():
                self._by_production.resize(production + 1)
            self._rank_production.push_back(<int32_t>self._by_production[production].size())
            self._by_production[production].push_back(d)
        else:
            self._rank_production.push_back(-1)
        self._ids[key] = d
        return d

    def _check_interners(self, forest) -> None:
        if self.labels is None:
            self.labels = forest.labels
            self.productions = forest.productions
        elif forest.labels is not self.labels or forest.productions is not self.productions:
            raise ValueError("the forest does not share the label and production interners "
                             "of the DAG's trees")

    def set_weights(self, weights) -> None:
        """Replace every f(d) by weights[d] (the cutting-plane SDAG+ rescales the weights of one
        DAG as its cuts' coefficients change); weights are taken as given, already normalised
        when the DAG is."""
        cdef const double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
        cdef Py_ssize_t d
        if w.shape[0] != <Py_ssize_t>self._weight.size():
            raise ValueError(f"{w.shape[0]} weights for {self._weight.size()} DAG nodes")
        for d in range(w.shape[0]):
            self._weight[d] = w[d]

    @property
    def n_nodes(self) -> int:
        return self._label.size()

    @property
    def label(self) -> np.ndarray:
        return np.array(self._label, dtype=np.int32)

    @property
    def production(self) -> np.ndarray:
        return np.array(self._production, dtype=np.int32)

    @property
    def child_ptr(self) -> np.ndarray:
        return np.array(self._child_ptr, dtype=np.int64)

    @property
    def children(self) -> np.ndarray:
        return np.array(self._children, dtype=np.int32)

    @property
    def subtree_size(self) -> np.ndarray:
        return np.array(self._size, dtype=np.int64)

    @property
    def weight(self) -> np.ndarray:
        return np.array(self._weight, dtype=np.float64)

    cdef double score_view(self, const ForestView* f, int64_t j,
                           DagWorkspace* w) noexcept nogil:
        # sum_d sum_n f(d) Delta(d, n) over tree j of f (see the module notes), normalised by
        # sqrt(K(T, T)) when the DAG is; NaN when out of memory.
        return self.match_view(f, j, w, NULL, NULL)

    cdef double match_view(self, const ForestView* f, int64_t j, DagWorkspace* w,
                           double* node_sums, vector[int32_t]* touched) noexcept nogil:
        # score_view; with node_sums, also node_sums[d] += sum_n Delta(d, n) for every DAG node
        # d that meets tree j, each such d appended once to touched (node_sums starts at 0
        # there: Delta > 0 for a matched pair).
        cdef int64_t sb = f.tree_ptr[j], nb = f.tree_ptr[j + 1] - sb
        cdef bint by_label = self._params.kind == KIND_PT or self._params.kind == KIND_ET
        cdef const int32_t* key = f.label if by_label else f.production
        cdef vector[vector[int32_t]]* index = &self._by_label if by_label else &self._by_production
        cdef int64_t y, r, n, total_pairs = 0, k
        cdef int32_t d
        cdef const int32_t* bucket
        cdef double total = 0.0, value, kq
        cdef size_t table = 0
        if nb == 0 or self._label.size() == 0:
            return 0.0
        if not grow(<void**>&w.offset, &w.offset_capacity, <size_t>(nb + 1), sizeof(int64_t)):
            return NAN
        for y in range(nb):
            w.offset[y] = total_pairs
            k = key[sb + y]
            if (by_label or k != 0) and <size_t>k < index.size():
                total_pairs += index[0][k].size()
        w.offset[nb] = total_pairs
        if not grow(<void**>&w.memo, &w.memo_capacity, <size_t>total_pairs + 1, sizeof(double)):
            return NAN
        if self._params.kind == KIND_PT:
            table = <size_t>((self._max_children + 1) * (max_children(f, sb, nb) + 1))
            if not grow(<void**>&w.table, &w.table_capacity, 2 * table, sizeof(double)):
                return NAN
        elif self._params.kind == KIND_ET:
            if not (grow(<void**>&w.table, &w.table_capacity,
                          <size_t>((self._max_size + 1) * (nb + 1)), sizeof(double))
                    and grow(<void**>&w.expansion, &w.expansion_capacity,
                              <size_t>(3 * self._max_size), sizeof(int32_t))):
                return NAN
        for y in range(nb - 1, -1, -1):
            n = w.offset[y + 1] - w.offset[y]
            if n == 0:
                continue
            bucket = index[0][key[sb + y]].data()
            for r in range(n):
                d = bucket[r]
                if self._params.kind == KIND_SST:
                    value = self._subset_delta(d, f, sb, y, 1.0, w)
                elif self._params.kind == KIND_PT:
                    value = self._partial_delta(d, f, sb, y, w, table)
                elif self._params.kind == KIND_ET:
                    value = self._elastic_delta(d, f, sb, y, w)
                else:
                    value = self._subset_delta(d, f, sb, y, 0.0, w)
                w.memo[w.offset[y] + r] = value
                total += self._weight[d] * value
                if node_sums != NULL:
                    if node_sums[d] == 0.0:
                        touched.push_back(d)
                    node_sums[d] += value
        if self.normalize:
            kq = pair_kernel(f, j, f, j, &self._params, &w.kernel)
            if isnan(kq):
                return NAN
            if kq <= 0.0:
                return 0.0
            total /= sqrt(kq)
        return total

    # The SST/ST, PT and ET recursions below are those of kernels.pyx, kept apart because the
    # layouts differ in every read: here n1 is a DAG node whose children are DAG nodes (their
    # productions and index ranks stored per child) and Delta is memoised at memo[offset[n] +
    # rank[d]]; there both nodes are forest nodes and Delta sits in a dense na x nb table; ET's
    # F table runs over the DAG node's subtree expanded in pre-order instead of a forest range.
    # One shared recursion would first gather each pair's child Deltas (or ET's C table) into a
    # common layout: measured on PT, that gathering made both the forest and the DAG kernels
    # about 7% slower (addressing the Deltas through per-child index arrays instead was no
    # faster either), so each layout keeps its own loop.
    # SST (sigma 1) and ST (sigma 0), as kernels._subset_tree:
    #   Delta(d, n) = lam * prod_k (sigma + Delta(c_k(d), c_k(n))), equal productions only.
    cdef double _subset_delta(self, int32_t d, const ForestView* f, int64_t sb, int64_t y,
                              double sigma, const DagWorkspace* w) noexcept nogil:
        cdef double prod = self._params.lam
        cdef int64_t k, c2, first = self._child_ptr[d]
        cdef int64_t nc = self._child_ptr[d + 1] - first, tree_first = f.child_ptr[sb + y]
        cdef int32_t p1, p2
        for k in range(nc):
            c2 = f.children[tree_first + k]
            p1 = self._child_production[first + k]
            p2 = f.production[c2]
            if p1 == 0 and p2 == 0:
                continue
            if p1 == p2:
                prod *= sigma + w.memo[w.offset[c2 - sb] + self._child_rank[first + k]]
            else:
                prod *= sigma
                if prod == 0.0:
                    break
        return prod

    # PT, as kernels._partial_tree / _partial_tree_children (Moschitti 2006, ECML):
    #   Delta(d, n) = mu * lam^2 for a leaf, else mu * (lam^2 + the child-subsequence sum).
    cdef double _partial_delta(self, int32_t d, const ForestView* f, int64_t sb, int64_t y,
                               const DagWorkspace* w, size_t table) noexcept nogil:
        cdef int64_t first = self._child_ptr[d]
        cdef int64_t n = self._child_ptr[d + 1] - first
        cdef int64_t m = f.child_ptr[sb + y + 1] - f.child_ptr[sb + y]
        cdef double lam = self._params.lam, lam2 = lam * lam
        cdef DagDeltas deltas = DagDeltas(w.memo, w.offset, self._rank_label.data(), sb)
        if n == 0 or m == 0:
            return self._params.mu * lam2
        return self._params.mu * (lam2 + child_subsequence_sum(
            self._label.data(), self._children.data() + first, n,
            f.label, f.children + f.child_ptr[sb + y], m, &deltas, lam, w.table, w.table + table))

    # ET, as kernels._elastic_tree (Kashima & Koyanagi 2002): the DAG node's subtree is laid
    # out in pre-order (node, end of its subtree) and F(p, q) runs over the two subtrees.
    cdef double _elastic_delta(self, int32_t d, const ForestView* f, int64_t sb, int64_t y,
                               const DagWorkspace* w) noexcept nogil:
        cdef int64_t rows = self._size[d]
        cdef int32_t* node = w.expansion
        cdef int32_t* end = w.expansion + rows
        cdef int32_t* stack = w.expansion + 2 * rows
        cdef int64_t top = 1, pos = 0, k, e2 = f.subtree_end[sb + y] - sb
        cdef int64_t cols = e2 - y, stride = cols + 1, p, q, qe
        cdef int32_t x
        cdef double* t = w.table
        cdef double value
        stack[0] = d
        while top > 0:
            top -= 1
            x = stack[top]
            node[pos] = x
            end[pos] = <int32_t>(pos + self._size[x])
            pos += 1
            for k in range(self._child_ptr[x + 1] - 1, self._child_ptr[x] - 1, -1):
                stack[top] = self._children[k]
                top += 1
        for q in range(cols + 1):
            t[rows * stride + q] = 1.0
        for p in range(rows + 1):
            t[p * stride + cols] = 1.0
        for p in range(rows - 1, 0, -1):
            x = node[p]
            for q in range(e2 - 1, y, -1):
                value = (t[(p + 1) * stride + (q - y)] + t[p * stride + (q + 1 - y)]
                         - t[(p + 1) * stride + (q + 1 - y)])
                if self._label[x] == f.label[sb + q]:
                    qe = f.subtree_end[sb + q] - sb
                    value += (w.memo[w.offset[q] + self._rank_label[x]]
                              * t[end[p] * stride + (qe - y)])
                t[p * stride + (q - y)] = value
        return self._params.lam * t[stride + 1]


def _check_params(TreeDag dag, kind, lam, mu, normalize) -> None:
    given = {"kind": kind, "lam": lam, "mu": mu, "normalize": normalize}
    own = {"kind": dag.kind, "lam": dag.lam, "mu": dag.mu, "normalize": bool(dag.normalize)}
    for name, value in given.items():
        if value is not None and value != own[name]:
            raise ValueError(f"the DAG was built for {name}={own[name]!r}, not {value!r}")


def dag_scores(TreeDag dag, forest, rows=None, kind=None, lam=None, mu=None,
               normalize=None) -> np.ndarray:
    """sum_i alpha_i K(x, T_i) (normalised as the DAG is) for each tree x of rows (all by
    default) of forest: kernels.kernel_expansion over the DAG. The kernel arguments, when
    given, must be those the DAG was built for (its weights depend on them)."""
    _check_params(dag, kind, lam, mu, normalize)
    index = tree_rows(forest, rows)
    if dag.labels is not None and (forest.labels is not dag.labels
                                   or forest.productions is not dag.productions):
        raise ValueError("the forest does not share the label and production interners "
                         "of the DAG's trees")
    cdef const int64_t[::1] idx = index
    cdef ForestView v = forest_view(forest)
    out = np.empty(index.size, dtype=np.float64)
    cdef double[::1] o = out
    cdef DagWorkspace w
    cdef Py_ssize_t r
    cdef int64_t steps_left = CHECK_STEPS
    dag_workspace_init(&w)
    try:
        with nogil:
            for r in range(idx.shape[0]):
                count_steps(&steps_left, 1)
                o[r] = dag.score_view(&v, idx[r], &w)
    finally:
        dag_workspace_free(&w)
    if np.isnan(out).any():
        raise MemoryError("out of memory in the DAG score")
    return out


def dag_score(TreeDag dag, forest, int64_t j, kind=None, lam=None, mu=None,
              normalize=None) -> float:
    """sum_i alpha_i K(tree j of forest, T_i), normalised as the DAG is (see dag_scores)."""
    if j < 0 or j >= len(forest):
        raise IndexError(f"tree j={j} is outside the forest ({len(forest)} trees)")
    return float(dag_scores(dag, forest, [j], kind, lam, mu, normalize)[0])
