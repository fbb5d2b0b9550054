# cython: language_level=3
"""The exact voted perceptron's scores through postings of DAG nodes and vector features.

Voted perceptron (Freund & Schapire 1999, section 2; over trees Collins & Duffy 2002): with
mistakes m = 1..M (instances x_m, update weights u_m = y_m, or c y_m with a positive weight c)
and survival counts c_m of the perceptron v_{m+1} = v_m + u_m phi(x_m),
    voted(x) = sum_m c_m sign(v_{m+1} . x),    v_{m+1} . x = sum_{j <= m} u_j K(x_j, x),
which needs every K(x_j, x), not their weighted sum, so one DAG score does not give it.
Each K(x_j, x) is, by the DAG's decomposition (dag.pyx; Aiolli et al. 2007) and the explicit
polynomial mapping (poly2_table.pyx; Chang et al. 2010),
    K(x_j, x) = T / sqrt(TK(t_j, t_j) TK(t, t)) * sum_d cnt_j(d) D_x(d)
              + (r^d + c1 sum_{f in v_j & v} 1 + 2 s^2 sum_{f<g in v_j & v} 1) / sqrt(P(v_j) P(v)),
D_x(d) = sum_{n in t} Delta(d, n) the DAG node's matches in x, cnt_j(d) the occurrences of the
subtree d in t_j (c1 = 2 r s + s^2 for d = 2, s for d = 1). So each DAG node d keeps the
postings (j, cnt_j(d) / sqrt(TK(t_j, t_j))), each feature and feature pair the postings
(j, 1 / sqrt(P(v_j))): a query adds the postings of the DAG nodes it matches and of its own
features and pairs into g[j] = K(x_j, x), then one pass over j gives the prefix sums and the
vote. Exact (the same sums as the per-mistake kernels), and the cost is the postings met plus
M per query instead of M tree kernels. A prefix sum within 1e-10 of the sum of its terms'
magnitudes counts as 0, here and in tree_perceptron's per-mistake path.
"""
from cython.operator cimport dereference as deref
from libc.math cimport fabs, isnan, pow, sqrt
from libc.stdint cimport int32_t, int64_t
from libcpp.unordered_map cimport unordered_map
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
    single_pair_kernel,
    workspace_free,
    workspace_init,
)
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps


# A prefix sum within TIE * (sum of |terms|) of zero is a tie (sign 0): rounding alone cannot
# then decide the sign of a sum that is zero in exact arithmetic (an update undone by another).
cdef double TIE = 1e-10


cdef struct Posting:
    int32_t mistake
    double value


cdef class VotedDag:
    """Voted perceptron scores of a mistake sequence (module notes): `add` each mistake in
    order, then `scores`. degree None: tree kernel only."""

    cdef TreeDag dag
    cdef KernelParams params
    cdef int degree
    cdef double s, r, tree_constant
    cdef vector[vector[Posting]] node_postings
    cdef vector[vector[Posting]] feature_postings
    cdef unordered_map[int64_t, vector[Posting]] pair_postings
    cdef vector[double] update
    cdef vector[double] constant
    cdef object forest
    cdef object vectors

    def __cinit__(self, str kind="sst", double lam=0.4, double mu=0.4, degree=None,
                  double s=1.0, double r=1.0, double tree_constant=1.0):
        if degree is not None and degree not in (1, 2):
            raise ValueError(f"the voted DAG's vector part holds degree 1 or 2, not {degree}")
        self.dag = TreeDag(kind, lam, mu, True)
        self.params = kernel_params(kind, lam, mu)
        self.degree = 0 if degree is None else degree
        self.s = s
        self.r = r
        self.tree_constant = tree_constant if degree is not None else 1.0

    @property
    def n_mistakes(self) -> int:
        return self.update.size()

    @property
    def n_dag_nodes(self) -> int:
        return self.dag.n_nodes

    def add(self, forest, int64_t t, double update, vectors=None) -> None:
        """Mistake number n_mistakes: tree t of forest (and row t of vectors) with weight
        update (y_m, or c y_m)."""
        cdef int32_t j = <int32_t>self.update.size()
        cdef Posting p
        cdef int64_t i, k, n
        cdef double norm
        ids = self.dag.add_tree(forest, t, 1.0)
        self.update.push_back(update)
        if ids is not None:
            counts: dict[int, int] = {}
            for d in ids:
                counts[d] = counts.get(d, 0) + 1
            own = float(forest_kernel(forest, t, self.params))
            if self.node_postings.size() < <size_t>self.dag.n_nodes:
                self.node_postings.resize(self.dag.n_nodes)
            for d, count in counts.items():
                p.mistake = j
                p.value = count / sqrt(own)
                self.node_postings[d].push_back(p)
        if self.degree == 0:
            self.constant.push_back(0.0)
            return
        row = vectors.row(t).tolist()
        n = len(row)
        norm = pow(self.s * n + self.r, self.degree)
        if norm == 0.0:
            norm = 1.0
        self.constant.push_back(pow(self.r, self.degree) / sqrt(norm))
        p.mistake = j
        p.value = 1.0 / sqrt(norm)
        for i in range(n):
            if <size_t>row[i] >= self.feature_postings.size():
                self.feature_postings.resize(row[i] + 1)
            self.feature_postings[row[i]].push_back(p)
            if self.degree == 2:
                for k in range(i + 1, n):
                    self.pair_postings[((<int64_t>row[i]) << 32) | <int64_t>row[k]].push_back(p)

    def scores(self, forest, survival_counts, vectors=None) -> np.ndarray:
        """sum_m c_m sign(v_{m+1} . x) for every tree x of forest (and row of vectors), with
        c_m = survival_counts[m]; forest shares the interners of the added trees."""
        cdef const double[::1] counts = np.ascontiguousarray(survival_counts, dtype=np.float64)
        cdef int64_t m_count = self.update.size()
        if counts.shape[0] != m_count:
            raise ValueError(f"{counts.shape[0]} survival counts for {m_count} mistakes")
        if self.degree and (vectors is None or len(vectors) != len(forest)):
            raise ValueError("the vector part needs one binary vector per tree")
        if self.dag.labels is not None and (forest.labels is not self.dag.labels
                                            or forest.productions is not self.dag.productions):
            raise ValueError("the forest does not share the label and production interners "
                             "of the mistake trees")
        cdef ForestView v = forest_view(forest)
        cdef const int64_t[::1] indptr = vectors.indptr if self.degree else np.zeros(
            v.n_trees + 1, dtype=np.int64)
        cdef const int32_t[::1] indices = vectors.indices if self.degree else np.zeros(
            1, dtype=np.int32)
        out = np.zeros(v.n_trees, dtype=np.float64)
        cdef double[::1] o = out
        cdef vector[double] g, node_sums
        cdef vector[int32_t] touched
        cdef DagWorkspace w
        cdef Workspace kw
        cdef int64_t x, j, a, i, k, start, n
        cdef size_t q
        cdef int32_t d, f
        cdef double tree_scale, vector_scale, kxx, prefix, scale, total, norm, value, c1
        cdef bint failed = False
        cdef int64_t steps_left = CHECK_STEPS
        cdef const vector[Posting]* postings
        cdef unordered_map[int64_t, vector[Posting]].iterator found
        dag_workspace_init(&w)
        workspace_init(&kw)
        c1 = self.s if self.degree == 1 else 2.0 * self.r * self.s + self.s * self.s
        g.resize(m_count)
        node_sums.resize(self.dag.n_nodes, 0.0)
        try:
            with nogil:
                for x in range(v.n_trees):
                    # A tree adds into every mistake's sum: a step per thousand mistakes.
                    count_steps(&steps_left, 1 + (m_count >> 10))
                    for j in range(m_count):
                        g[j] = 0.0
                    touched.clear()
                    self.dag.match_view(&v, x, &w, node_sums.data(), &touched)
                    kxx = pair_kernel(&v, x, &v, x, &self.params, &kw)
                    if isnan(kxx):
                        failed = True
                        break
                    tree_scale = self.tree_constant / sqrt(kxx) if kxx > 0.0 else 0.0
                    for q in range(touched.size()):
                        d = touched[q]
                        value = tree_scale * node_sums[d]
                        node_sums[d] = 0.0
                        postings = &self.node_postings[d]
                        for k in range(<int64_t>postings.size()):
                            g[deref(postings)[k].mistake] += value * deref(postings)[k].value
                    if self.degree:
                        start = indptr[x]
                        n = indptr[x + 1] - start
                        norm = pow(self.s * n + self.r, self.degree)
                        vector_scale = 1.0 / sqrt(norm if norm != 0.0 else 1.0)
                        for j in range(m_count):
                            g[j] += vector_scale * self.constant[j]
                        for i in range(n):
                            f = indices[start + i]
                            if <size_t>f >= self.feature_postings.size():
                                continue
                            postings = &self.feature_postings[f]
                            for k in range(<int64_t>postings.size()):
                                g[deref(postings)[k].mistake] += (
                                    c1 * vector_scale * deref(postings)[k].value)
                            if self.degree == 2:
                                for a in range(i + 1, n):
                                    found = self.pair_postings.find(
                                        ((<int64_t>f) << 32) | <int64_t>indices[start + a])
                                    if found == self.pair_postings.end():
                                        continue
                                    postings = &deref(found).second
                                    for k in range(<int64_t>postings.size()):
                                        g[deref(postings)[k].mistake] += (
                                            2.0 * self.s * self.s * vector_scale
                                            * deref(postings)[k].value)
                    prefix = 0.0
                    scale = 0.0
                    total = 0.0
                    for j in range(m_count):
                        value = self.update[j] * g[j]
                        prefix = prefix + value
                        scale = scale + fabs(value)
                        if prefix > TIE * scale:
                            total = total + counts[j]
                        elif prefix < -TIE * scale:
                            total = total - counts[j]
                    o[x] = total
        finally:
            dag_workspace_free(&w)
            workspace_free(&kw)
        if failed:
            raise MemoryError("out of memory in the tree kernel")
        return out


cdef double forest_kernel(forest, int64_t t, KernelParams params) except? -1.0:
    cdef ForestView v = forest_view(forest)
    return single_pair_kernel(&v, t, &v, t, &params)
