# The Cython-level contract of the tree kernels: a forest seen through raw pointers, the kernel
# parameters and a reusable scratch workspace, and one kernel evaluation on two trees that needs
# neither the GIL nor Python objects (for batch evaluation, DAG models and perceptrons).
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport realloc
from libc.string cimport memset


cdef enum TreeKernelKind:
    KIND_SST = 0
    KIND_ST = 1
    KIND_PT = 2
    KIND_ET = 3


# The arrays of a features.trees.TreeForest (see that module); node indices are global.
cdef struct ForestView:
    const int64_t* tree_ptr
    const int32_t* label
    const int32_t* production
    const int64_t* child_ptr
    const int32_t* children
    const int32_t* subtree_end
    const int32_t* production_order
    const int32_t* label_order
    int64_t n_trees


cdef struct KernelParams:
    int kind
    double lam    # decay lambda (SVM-light-TK -L)
    double mu     # PT vertical decay mu (SVM-light-TK -M)


# Scratch memory one thread reuses across evaluations; start with workspace_init, free with
# workspace_free.
cdef struct Workspace:
    double* delta
    size_t delta_capacity
    double* scratch
    size_t scratch_capacity
    int32_t* ranges
    size_t ranges_capacity


cdef inline void workspace_init(Workspace* w) noexcept nogil:
    memset(w, 0, sizeof(Workspace))


cdef void workspace_free(Workspace* w) noexcept nogil


cdef inline bint grow(void** buffer, size_t* capacity, size_t needed, size_t item) noexcept nogil:
    # Make buffer hold at least `needed` items of `item` bytes; False when out of memory.
    cdef void* grown
    if needed <= capacity[0]:
        return True
    grown = realloc(buffer[0], needed * item)
    if grown == NULL:
        return False
    buffer[0] = grown
    capacity[0] = needed
    return True


cdef inline int64_t max_children(const ForestView* v, int64_t s, int64_t n) noexcept nogil:
    # The most children of a node among the nodes s .. s+n-1 of v.
    cdef int64_t x, c, best = 0
    for x in range(s, s + n):
        c = v.child_ptr[x + 1] - v.child_ptr[x]
        if c > best:
            best = c
    return best


# Where PT's child-subsequence sum reads the Delta of two children x', y': a forest's delta
# table, Delta(x', y') = delta[(x' - sa) * nb + y' - sb] ...
cdef struct ForestDeltas:
    const double* delta
    int64_t sa
    int64_t sb
    int64_t nb


# ... or a DAG's memo, Delta(x', y') = memo[offset[y' - sb] + rank_x[x']].
cdef struct DagDeltas:
    const double* memo
    const int64_t* offset
    const int32_t* rank_x
    int64_t sb


ctypedef fused ChildDeltas:
    ForestDeltas
    DagDeltas


cdef inline double child_delta(const ChildDeltas* d, int32_t x, int32_t y) noexcept nogil:
    if ChildDeltas is ForestDeltas:
        return d.delta[(x - d.sa) * d.nb + (y - d.sb)]
    else:
        return d.memo[d.offset[y - d.sb] + d.rank_x[x]]


cdef inline double child_subsequence_sum(const int32_t* label_x, const int32_t* cx, int64_t n,
                                         const int32_t* label_y, const int32_t* cy, int64_t m,
                                         const ChildDeltas* deltas, double lam, double* dps,
                                         double* dp) noexcept nogil:
    # Sum over equal-length subsequences of the children cx[0..n) of x and cy[0..m) of y
    # (Moschitti 2006, ECML): kernel_mat of SVM-light-TK's Delta_SK, with DPS/DP as
    # (n+1) x (m+1) row-major tables.
    cdef int64_t i, j, l, p = n if n < m else m, stride = m + 1
    cdef double total = 0.0, lam2 = lam * lam
    for i in range((n + 1) * stride):
        dps[i] = 0.0
        dp[i] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if label_x[cx[i - 1]] == label_y[cy[j - 1]]:
                dps[i * stride + j] = child_delta(deltas, cx[i - 1], cy[j - 1])
                total += dps[i * stride + j]
    for l in range(1, p):
        for j in range(m + 1):
            dp[(l - 1) * stride + j] = 0.0
        for i in range(n + 1):
            dp[i * stride + l - 1] = 0.0
        for i in range(l, n + 1):
            for j in range(l, m + 1):
                dp[i * stride + j] = (dps[i * stride + j] + lam * dp[(i - 1) * stride + j]
                                      + lam * dp[i * stride + j - 1]
                                      - lam2 * dp[(i - 1) * stride + j - 1])
                if label_x[cx[i - 1]] == label_y[cy[j - 1]]:
                    dps[i * stride + j] = (child_delta(deltas, cx[i - 1], cy[j - 1])
                                           * dp[(i - 1) * stride + j - 1])
                    total += dps[i * stride + j]
    return total


# The kernel of tree i of a and tree j of b (0 for an empty tree); NaN when out of memory.
cdef double pair_kernel(const ForestView* a, int64_t i, const ForestView* b, int64_t j,
                        const KernelParams* params, Workspace* w) noexcept nogil
# The same with a workspace of its own, for a single evaluation.
cdef double single_pair_kernel(const ForestView* a, int64_t i, const ForestView* b, int64_t j,
                               const KernelParams* params) noexcept nogil

cdef ForestView forest_view(object forest) except *
cdef KernelParams kernel_params(str kind, double lam, double mu) except *
