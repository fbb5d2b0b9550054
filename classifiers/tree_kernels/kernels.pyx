# cython: language_level=3
"""SST, ST, PT and ET tree kernels on the trees of features.trees.TreeForest.

Every kernel is a convolution K(T1, T2) = sum over node pairs (n1, n2) of Delta(n1, n2), the
weighted count of the common fragments rooted at n1 and n2. Only pairs that can match are
visited: the per-tree production (label) order of the forest is merged, as in Moschitti (2006,
EACL, "Making tree kernels practical for natural language learning"), and Delta is computed
bottom-up (children come after their parent in pre-order), each pair once.

SST, subset trees (Collins & Duffy 2002, with sigma = 1), and ST, complete subtrees
(Vishwanathan & Smola 2003, sigma = 0):
    Delta(n1, n2) = 0                                   if the productions differ
                  = lam * prod_k f(c_k(n1), c_k(n2))    otherwise,
    f = 1 for two word leaves (the word is part of the production), else sigma + Delta.
  A preterminal thus gets lam; a fragment of s productions weighs lam^s.

PT, partial trees (Moschitti 2006, ECML, "Efficient convolution kernels for dependency and
constituent syntactic trees"; as SVM-light-TK 1.5 computes it), labels compared:
    Delta(n1, n2) = 0                        if the labels differ
                  = mu * lam^2               if n1 or n2 has no children
                  = mu * (lam^2 + sum_{J1, J2, |J1| = |J2| >= 1} lam^(g(J1) + g(J2))
                                  * prod_k Delta(c_J1k(n1), c_J2k(n2))),
  J1, J2 increasing child index sequences, g(J) = J_last - J_1 + 1 - |J| the children skipped
  inside the span; evaluated by the O(p |c(n1)| |c(n2)|) dynamic program of the ECML paper.

ET, elastic trees (Kashima & Koyanagi 2002, ICML, "Kernels for semi-structured data",
section 4, elastic structure matching; the "elastic tree kernel" of the mapping-kernels survey):
a fragment is embedded keeping labels, ancestor-descendant relations and left-to-right order
(a child of the fragment may sit any depth below its parent's image). Labels compared:
    C(n1, n2) = 0 if the labels differ, else
                lam * sum over sequences d_1 < ... < d_k of proper descendants of n1 that are
                pairwise unrelated (no ancestor of another), left to right, and e_1..e_k of n2
                (k >= 0) of prod_i C(d_i, e_i);
  each matched node pair weighs lam (lam = 1: the plain count of K&K). The sum over sequences
  is the K&K dynamic program, here over pre-order positions p, q of the two subtrees:
    F(p, q) = F(p+1, q) + F(p, q+1) - F(p+1, q+1) + C(p, q) F(end(p), end(q)),
  F = 1 at the subtree ends, end(p) the first position after p's subtree.
"""
from libc.math cimport NAN, isnan, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free

import numpy as np

from polyparse.classifiers.tree_kernels.settings import KINDS as KIND_NAMES

from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps

# Name (classifiers/tree_kernels/settings.py, in its order) -> kind.
KINDS = dict(zip(KIND_NAMES, (KIND_SST, KIND_ST, KIND_PT, KIND_ET)))


cdef ForestView forest_view(object forest) except *:
    cdef ForestView v
    cdef const int64_t[::1] tree_ptr = forest.tree_ptr
    cdef const int32_t[::1] label = forest.label
    cdef const int32_t[::1] production = forest.production
    cdef const int64_t[::1] child_ptr = forest.child_ptr
    cdef const int32_t[::1] children = forest.children
    cdef const int32_t[::1] subtree_end = forest.subtree_end
    cdef const int32_t[::1] production_order = forest.production_order
    cdef const int32_t[::1] label_order = forest.label_order
    v.n_trees = tree_ptr.shape[0] - 1
    v.tree_ptr = &tree_ptr[0]
    v.child_ptr = &child_ptr[0]
    v.label = &label[0] if label.shape[0] else NULL
    v.production = &production[0] if production.shape[0] else NULL
    v.children = &children[0] if children.shape[0] else NULL
    v.subtree_end = &subtree_end[0] if subtree_end.shape[0] else NULL
    v.production_order = &production_order[0] if production_order.shape[0] else NULL
    v.label_order = &label_order[0] if label_order.shape[0] else NULL
    return v


cdef KernelParams kernel_params(str kind, double lam, double mu) except *:
    cdef KernelParams p
    if kind not in KINDS:
        raise ValueError(f"unknown tree kernel {kind!r} (expected one of {', '.join(KINDS)})")
    if not lam > 0:
        raise ValueError(f"lambda must be positive, not {lam}")
    if not mu > 0:
        raise ValueError(f"mu must be positive, not {mu}")
    p.kind = KINDS[kind]
    p.lam = lam
    p.mu = mu
    return p


cdef void workspace_free(Workspace* w) noexcept nogil:
    free(w.delta)
    free(w.scratch)
    free(w.ranges)
    workspace_init(w)


cdef bint _reserve(Workspace* w, size_t delta, size_t scratch, size_t ranges) noexcept nogil:
    return (grow(<void**>&w.delta, &w.delta_capacity, delta, sizeof(double))
            and grow(<void**>&w.scratch, &w.scratch_capacity, scratch, sizeof(double))
            and grow(<void**>&w.ranges, &w.ranges_capacity, ranges, sizeof(int32_t)))


cdef void _match_ranges(const int32_t* key_a, const int32_t* order_a, int64_t start_a, int64_t n_a,
                        const int32_t* key_b, const int32_t* order_b, int64_t start_b, int64_t n_b,
                        int32_t* ranges) noexcept nogil:
    # For each local node x of tree a: ranges[2x], ranges[2x+1] delimit the positions in tree
    # b's order list whose nodes have key == key(x); found by one merge of the sorted lists.
    cdef int64_t ia = 0, ib = 0, jb, x
    cdef int32_t k
    while ia < n_a:
        x = order_a[start_a + ia]
        k = key_a[x]
        while ib < n_b and key_b[order_b[start_b + ib]] < k:
            ib += 1
        jb = ib
        while jb < n_b and key_b[order_b[start_b + jb]] == k:
            jb += 1
        while ia < n_a and key_a[order_a[start_a + ia]] == k:
            x = order_a[start_a + ia] - start_a
            ranges[2 * x] = <int32_t>ib
            ranges[2 * x + 1] = <int32_t>jb
            ia += 1
        ib = jb


cdef double _subset_tree(const ForestView* a, int64_t sa, int64_t na,
                         const ForestView* b, int64_t sb, int64_t nb,
                         double lam, double sigma, Workspace* w) noexcept nogil:
    # SST (sigma 1) and ST (sigma 0): Delta bottom-up over equal-production pairs.
    cdef double* delta = w.delta
    cdef int32_t* ranges = w.ranges
    cdef int64_t x, y, r, k, c1, c2, nc
    cdef double total = 0.0, prod
    _match_ranges(a.production, a.production_order, sa, na,
                  b.production, b.production_order, sb, nb, ranges)
    for x in range(na - 1, -1, -1):
        if a.production[sa + x] == 0:
            continue
        for r in range(ranges[2 * x], ranges[2 * x + 1]):
            y = b.production_order[sb + r] - sb
            prod = lam
            nc = a.child_ptr[sa + x + 1] - a.child_ptr[sa + x]
            for k in range(nc):
                c1 = a.children[a.child_ptr[sa + x] + k]
                c2 = b.children[b.child_ptr[sb + y] + k]
                if a.production[c1] == 0 and b.production[c2] == 0:
                    continue
                if a.production[c1] == b.production[c2]:
                    prod *= sigma + delta[(c1 - sa) * nb + (c2 - sb)]
                else:
                    prod *= sigma
            delta[x * nb + y] = prod
            total += prod
    return total


cdef double _partial_tree_children(const ForestView* a, int64_t sa, int64_t x,
                                   const ForestView* b, int64_t sb, int64_t y, int64_t nb,
                                   double lam, const double* delta, double* dps,
                                   double* dp) noexcept nogil:
    # PT's sum over the child subsequences of x and y, their Deltas from the delta table.
    cdef ForestDeltas deltas = ForestDeltas(delta, sa, sb, nb)
    return child_subsequence_sum(
        a.label, a.children + a.child_ptr[sa + x], a.child_ptr[sa + x + 1] - a.child_ptr[sa + x],
        b.label, b.children + b.child_ptr[sb + y], b.child_ptr[sb + y + 1] - b.child_ptr[sb + y],
        &deltas, lam, dps, dp)


cdef double _elastic_tree(const ForestView* a, int64_t sa, int64_t na,
                          const ForestView* b, int64_t sb, int64_t nb,
                          double lam, Workspace* w) noexcept nogil:
    # Kashima & Koyanagi (2002) elastic structure matching, C bottom-up in reverse pre-order.
    cdef double* delta = w.delta
    cdef double* f = w.scratch
    cdef int64_t x, y, p, q, e1, e2, rows, cols, stride, pe, qe
    cdef double total = 0.0, value
    for x in range(na - 1, -1, -1):
        e1 = a.subtree_end[sa + x] - sa
        for y in range(nb - 1, -1, -1):
            if a.label[sa + x] != b.label[sb + y]:
                delta[x * nb + y] = 0.0
                continue
            e2 = b.subtree_end[sb + y] - sb
            # f[(p - x) * stride + (q - y)] = F(p, q) for p in (x, e1], q in (y, e2]
            rows = e1 - x
            cols = e2 - y
            stride = cols + 1
            for q in range(cols + 1):
                f[rows * stride + q] = 1.0
            for p in range(rows + 1):
                f[p * stride + cols] = 1.0
            for p in range(e1 - 1, x, -1):
                for q in range(e2 - 1, y, -1):
                    value = (f[(p + 1 - x) * stride + (q - y)] + f[(p - x) * stride + (q + 1 - y)]
                             - f[(p + 1 - x) * stride + (q + 1 - y)])
                    if a.label[sa + p] == b.label[sb + q]:
                        pe = a.subtree_end[sa + p] - sa
                        qe = b.subtree_end[sb + q] - sb
                        value += delta[p * nb + q] * f[(pe - x) * stride + (qe - y)]
                    f[(p - x) * stride + (q - y)] = value
            value = lam * f[1 * stride + 1]
            delta[x * nb + y] = value
            total += value
    return total


cdef double pair_kernel(const ForestView* a, int64_t i, const ForestView* b, int64_t j,
                        const KernelParams* params, Workspace* w) noexcept nogil:
    cdef int64_t sa = a.tree_ptr[i], na = a.tree_ptr[i + 1] - sa
    cdef int64_t sb = b.tree_ptr[j], nb = b.tree_ptr[j + 1] - sb
    cdef size_t scratch = 0
    cdef int64_t ca = 0, cb = 0
    if na == 0 or nb == 0:
        return 0.0
    if params.kind == KIND_PT:
        ca = max_children(a, sa, na) + 1
        cb = max_children(b, sb, nb) + 1
        scratch = <size_t>(2 * ca * cb)
    elif params.kind == KIND_ET:
        scratch = <size_t>((na + 1) * (nb + 1))
    if not _reserve(w, <size_t>(na * nb), scratch, <size_t>(2 * na)):
        return NAN
    if params.kind == KIND_SST:
        return _subset_tree(a, sa, na, b, sb, nb, params.lam, 1.0, w)
    if params.kind == KIND_ST:
        return _subset_tree(a, sa, na, b, sb, nb, params.lam, 0.0, w)
    if params.kind == KIND_PT:
        # the two DP tables (DPS, DP) share the scratch
        return _partial_tree(a, sa, na, b, sb, nb, params.lam, params.mu, w,
                                   <size_t>(ca * cb))
    return _elastic_tree(a, sa, na, b, sb, nb, params.lam, w)


cdef double single_pair_kernel(const ForestView* a, int64_t i, const ForestView* b, int64_t j,
                               const KernelParams* params) noexcept nogil:
    cdef Workspace w
    cdef double k
    workspace_init(&w)
    k = pair_kernel(a, i, b, j, params, &w)
    workspace_free(&w)
    return k


cdef double _partial_tree(const ForestView* a, int64_t sa, int64_t na,
                          const ForestView* b, int64_t sb, int64_t nb,
                          double lam, double mu, Workspace* w, size_t table) noexcept nogil:
    cdef double* delta = w.delta
    cdef int32_t* ranges = w.ranges
    cdef int64_t x, y, r
    cdef double total = 0.0, value, lam2 = lam * lam
    _match_ranges(a.label, a.label_order, sa, na, b.label, b.label_order, sb, nb, ranges)
    for x in range(na - 1, -1, -1):
        for r in range(ranges[2 * x], ranges[2 * x + 1]):
            y = b.label_order[sb + r] - sb
            if (a.child_ptr[sa + x + 1] == a.child_ptr[sa + x]
                    or b.child_ptr[sb + y + 1] == b.child_ptr[sb + y]):
                value = mu * lam2
            else:
                value = mu * (lam2 + _partial_tree_children(
                    a, sa, x, b, sb, y, nb, lam, delta, w.scratch, w.scratch + table))
            delta[x * nb + y] = value
            total += value
    return total


cdef inline double _normalized(double k, double kaa, double kbb) noexcept nogil:
    if kaa <= 0.0 or kbb <= 0.0:
        return 0.0
    return k / sqrt(kaa * kbb)


def tree_kernel(forest_a, int64_t i, forest_b, int64_t j, str kind="sst",
                double lam=0.4, double mu=0.4) -> float:
    """K(tree i of forest_a, tree j of forest_b) for kind sst, st, pt or et."""
    cdef ForestView a = forest_view(forest_a)
    cdef ForestView b = forest_view(forest_b)
    cdef KernelParams p = kernel_params(kind, lam, mu)
    cdef double k
    _check_index(a, i, "i")
    _check_index(b, j, "j")
    with nogil:
        k = single_pair_kernel(&a, i, &b, j, &p)
    if isnan(k):
        raise MemoryError("out of memory in the tree kernel")
    return k


def normalized_tree_kernel(forest_a, int64_t i, forest_b, int64_t j, str kind="sst",
                           double lam=0.4, double mu=0.4) -> float:
    """K(a, b) / sqrt(K(a, a) K(b, b)) (0 when a tree is empty), as SVM-light-TK's -N 1/3."""
    kab = tree_kernel(forest_a, i, forest_b, j, kind, lam, mu)
    kaa = tree_kernel(forest_a, i, forest_a, i, kind, lam, mu)
    kbb = tree_kernel(forest_b, j, forest_b, j, kind, lam, mu)
    return _normalized(kab, kaa, kbb)


def self_kernels(forest, str kind="sst", double lam=0.4, double mu=0.4,
                 rows=None) -> np.ndarray:
    """K(t, t) for the trees `rows` of forest (all by default), the normalisation factors."""
    index = tree_rows(forest, rows)
    cdef const int64_t[::1] idx = index
    cdef ForestView v = forest_view(forest)
    cdef KernelParams p = kernel_params(kind, lam, mu)
    out = np.empty(index.size, dtype=np.float64)
    cdef double[::1] o = out
    cdef Workspace w
    cdef Py_ssize_t r
    cdef int64_t steps_left = CHECK_STEPS
    workspace_init(&w)
    try:
        with nogil:
            for r in range(idx.shape[0]):
                count_steps(&steps_left, 1)
                o[r] = pair_kernel(&v, idx[r], &v, idx[r], &p, &w)
    finally:
        workspace_free(&w)
    if np.isnan(out).any():
        raise MemoryError("out of memory in the tree kernel")
    return out


def gram_matrix(forest_a, forest_b, str kind="sst", double lam=0.4, double mu=0.4,
                bint normalize=True, rows_a=None, rows_b=None) -> np.ndarray:
    """K[r, c] between trees rows_a[r] of forest_a and rows_b[c] of forest_b (all by default);
    normalised K(a, b) / sqrt(K(a, a) K(b, b)) unless normalize is False."""
    ia = tree_rows(forest_a, rows_a)
    ib = tree_rows(forest_b, rows_b)
    cdef const int64_t[::1] ra = ia
    cdef const int64_t[::1] rb = ib
    cdef ForestView a = forest_view(forest_a)
    cdef ForestView b = forest_view(forest_b)
    cdef KernelParams p = kernel_params(kind, lam, mu)
    out = np.empty((ia.size, ib.size), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef const double[::1] na, nb
    cdef Workspace w
    cdef Py_ssize_t r, c
    cdef int64_t steps_left = CHECK_STEPS
    workspace_init(&w)
    try:
        with nogil:
            for r in range(ra.shape[0]):
                for c in range(rb.shape[0]):
                    count_steps(&steps_left, 1)
                    o[r, c] = pair_kernel(&a, ra[r], &b, rb[c], &p, &w)
    finally:
        workspace_free(&w)
    if np.isnan(out).any():
        raise MemoryError("out of memory in the tree kernel")
    if normalize:
        na = self_kernels(forest_a, kind, lam, mu, ia)
        nb = self_kernels(forest_b, kind, lam, mu, ib)
        with nogil:
            for r in range(ra.shape[0]):
                for c in range(rb.shape[0]):
                    o[r, c] = _normalized(o[r, c], na[r], nb[c])
    return out


def kernel_expansion(forest_x, forest_model, coefficients, str kind="sst",
                     double lam=0.4, double mu=0.4, bint normalize=True,
                     rows_x=None) -> np.ndarray:
    """sum_m coefficients[m] K(x, model tree m) for each tree x of rows_x (all by default):
    the decision value of a kernel model without its bias."""
    ix = tree_rows(forest_x, rows_x)
    coef = np.ascontiguousarray(coefficients, dtype=np.float64)
    if coef.shape != (len(forest_model),):
        raise ValueError(f"{coef.shape[0]} coefficients for {len(forest_model)} model trees")
    cdef const int64_t[::1] rx = ix
    cdef const double[::1] alpha = coef
    cdef ForestView a = forest_view(forest_x)
    cdef ForestView b = forest_view(forest_model)
    cdef KernelParams p = kernel_params(kind, lam, mu)
    norms_model = self_kernels(forest_model, kind, lam, mu) if normalize else np.ones(coef.size)
    norms_x = self_kernels(forest_x, kind, lam, mu, ix) if normalize else np.ones(ix.size)
    cdef const double[::1] nm = norms_model
    cdef const double[::1] nx = norms_x
    out = np.zeros(ix.size, dtype=np.float64)
    cdef double[::1] o = out
    cdef Workspace w
    cdef Py_ssize_t r, m
    cdef double k, s
    cdef int64_t steps_left = CHECK_STEPS
    workspace_init(&w)
    try:
        with nogil:
            for r in range(rx.shape[0]):
                s = 0.0
                for m in range(alpha.shape[0]):
                    if alpha[m] != 0.0:
                        count_steps(&steps_left, 1)
                        k = pair_kernel(&a, rx[r], &b, m, &p, &w)
                        if normalize:
                            k = _normalized(k, nx[r], nm[m])
                        s += alpha[m] * k
                o[r] = s
    finally:
        workspace_free(&w)
    if np.isnan(out).any():
        raise MemoryError("out of memory in the tree kernel")
    return out


def tree_rows(forest, rows) -> np.ndarray:
    """The tree indices `rows` of forest as int64 (all trees when None); IndexError when one
    lies outside the forest."""
    n = len(forest)
    if rows is None:
        return np.arange(n, dtype=np.int64)
    index = np.ascontiguousarray(rows, dtype=np.int64)
    if index.ndim != 1 or (index.size and (index.min() < 0 or index.max() >= n)):
        raise IndexError(f"tree indices must lie in 0 .. {n - 1}")
    return index


cdef void _check_index(ForestView v, int64_t i, str name) except *:
    if i < 0 or i >= v.n_trees:
        raise IndexError(f"tree {name}={i} is outside the forest ({v.n_trees} trees)")
