# cython: language_level=3
"""Training data of kernel slicing in frequency-rank form (Yoshinaga & Kitsuregawa 2010,
section 3): features ranked by frequency (0 = most frequent), every vector's ranks ascending so
that its first j features x_j are a frequency-ordered prefix, identical rows merged into one
vector, and the prefixes numbered as the nodes of a prefix tree (the partial-margin table's
keys of section 3.2)."""
from libc.stdint cimport int32_t, int64_t

import numpy as np

from polyparse.classifiers.evaluators.pke cimport MAX_RANK, sort_ranks

cdef extern from *:
    """
    #include <algorithm>
    #include <cstdint>
    static void polyparse_sort_rows(int64_t* order, int64_t n, const int64_t* indptr,
                                    const int32_t* ranks) {
        std::sort(order, order + n, [=](int64_t a, int64_t b) {
            return std::lexicographical_compare(ranks + indptr[a], ranks + indptr[a + 1],
                                                ranks + indptr[b], ranks + indptr[b + 1]);
        });
    }
    """
    void sort_rows "polyparse_sort_rows"(int64_t* order, int64_t n, const int64_t* indptr,
                                         const int32_t* ranks) noexcept nogil


cdef bint _same_row(const int64_t* indptr, const int32_t* ranks, int64_t a, int64_t b) noexcept nogil:
    cdef int64_t n = indptr[a + 1] - indptr[a], i
    if indptr[b + 1] - indptr[b] != n:
        return False
    for i in range(n):
        if ranks[indptr[a] + i] != ranks[indptr[b] + i]:
            return False
    return True


def rank_rows(const int64_t[::1] indptr, const int32_t[::1] indices, const int32_t[::1] rank_of):
    """(ranks, row_vector, vector_rows, sorted_vectors), with rank_of[f] the rank of the feature
    numbered f in indices: the rank of every entry, ascending
    within each row; the vector of each row (identical rows share one, numbered in order of
    first appearance); the first row of each vector; the vectors in lexicographic order of
    their rank sequences (a prefix tree's order)."""
    cdef int64_t n_rows = indptr.shape[0] - 1, i, p, row, n_vectors = 0, group_first
    ranks_array = np.empty(indices.shape[0], dtype=np.int32)
    cdef int32_t[::1] ranks = ranks_array
    order_array = np.arange(n_rows, dtype=np.int64)
    cdef int64_t[::1] order = order_array
    first_array = np.empty(n_rows, dtype=np.int64)
    cdef int64_t[::1] first = first_array
    group_array = np.empty(n_rows, dtype=np.int64)
    cdef int64_t[::1] group = group_array
    cdef const int64_t* ptr = &indptr[0]
    cdef int32_t* rk = &ranks[0] if indices.shape[0] else NULL
    with nogil:
        for p in range(indices.shape[0]):
            ranks[p] = rank_of[indices[p]]
        for row in range(n_rows):
            sort_ranks(rk + ptr[row], ptr[row + 1] - ptr[row])
        if n_rows:
            sort_rows(&order[0], n_rows, ptr, rk)
        # Groups of identical rows are runs of the sorted order; first[g] = their first row.
        for i in range(n_rows):
            row = order[i]
            if i == 0 or not _same_row(ptr, rk, order[i - 1], row):
                first[n_vectors] = row
                n_vectors += 1
            elif row < first[n_vectors - 1]:
                first[n_vectors - 1] = row
            group[row] = n_vectors - 1
    # Vectors numbered by first appearance.
    by_appearance = np.argsort(first_array[:n_vectors], kind="stable")
    number = np.empty(n_vectors, dtype=np.int64)
    number[by_appearance] = np.arange(n_vectors, dtype=np.int64)
    row_vector = number[group_array].astype(np.int32)
    # Groups are numbered in lexicographic order, so `number` lists the vectors in that order.
    return ranks_array, row_vector, first_array[by_appearance], number


def gather_rows(const int64_t[::1] indptr, const int32_t[::1] values, const int64_t[::1] rows,
                const int32_t[::1] mapping=None):
    """(out_indptr, out_values) of the chosen rows in order; values are mapped through
    `mapping` (when given) and then sorted within each row."""
    cdef int64_t n = rows.shape[0], i, p, q = 0, total = 0
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] optr = out_ptr
    for i in range(n):
        total += indptr[rows[i] + 1] - indptr[rows[i]]
        optr[i + 1] = total
    out_array = np.empty(total, dtype=np.int32)
    cdef int32_t[::1] out = out_array
    cdef bint mapped = mapping is not None
    with nogil:
        for i in range(n):
            for p in range(indptr[rows[i]], indptr[rows[i] + 1]):
                out[q] = mapping[values[p]] if mapped else values[p]
                q += 1
            if mapped:
                sort_ranks(&out[0] + optr[i], optr[i + 1] - optr[i])
    return out_ptr, out_array


def prefix_nodes(const int64_t[::1] indptr, const int32_t[::1] ranks, const int64_t[::1] sorted_vectors):
    """(node_of, n_nodes): a number for every distinct prefix (f_0 .. f_j) of the vectors, the
    nodes of a prefix tree. sorted_vectors lists the vectors in lexicographic order of their
    rank sequences, so vectors sharing a prefix are adjacent; node_of[indptr[v] + j] is the
    node of the first j + 1 ranks of vector v."""
    cdef Py_ssize_t n_vectors = indptr.shape[0] - 1, p, j, common
    node_array = np.empty(ranks.shape[0], dtype=np.int32)
    cdef int32_t[::1] node_of = node_array
    cdef int64_t n_nodes = 0, v, u = -1, a, b, length
    with nogil:
        for p in range(sorted_vectors.shape[0]):
            v = sorted_vectors[p]
            a = indptr[v]
            length = indptr[v + 1] - a
            common = 0
            if u >= 0:
                b = indptr[u]
                while (common < length and common < indptr[u + 1] - b
                       and ranks[a + common] == ranks[b + common]):
                    node_of[a + common] = node_of[b + common]
                    common += 1
            for j in range(common, length):
                node_of[a + j] = <int32_t>n_nodes
                n_nodes += 1
            u = v
    return node_array, n_nodes


cdef class SlicingData:
    """Training vectors in frequency-rank form, shared (read only) by the binary learners.

    rank_ids[r] is the feature id of rank r (0 = most frequent in the training rows, ties:
    smaller id); the distinct vectors (identical rows merged, in order of first appearance)
    hold their ranks ascending in vector_ranks[vector_indptr[v]:vector_indptr[v + 1]];
    row_vector[i] is the vector of training row i; document_frequency[r] counts the vectors
    holding rank r; node_of (built on demand) numbers the prefixes."""

    def __init__(self, X):
        """Rank the features of a BinaryMatrix and merge its identical rows. The ids are
        numbered by their distinct values (np.unique), so the memory taken grows with the
        entries and the distinct features, not with the largest id."""
        indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
        n_rows = indptr.size - 1
        present, numbers, counts = np.unique(X.indices, return_inverse=True,
                                             return_counts=True)
        numbers = np.ascontiguousarray(numbers.reshape(-1), dtype=np.int32)
        by_rank = np.lexsort((present, -counts))
        rank_ids = present[by_rank].astype(np.int32)
        if rank_ids.size > MAX_RANK + 1:
            raise ValueError(f"at most {MAX_RANK + 1} distinct features can be ranked")
        rank_of = np.empty(rank_ids.size, dtype=np.int32)
        rank_of[by_rank] = np.arange(rank_ids.size, dtype=np.int32)
        del counts, present
        ranks, row_vector, vector_rows, sorted_vectors = rank_rows(indptr, numbers, rank_of)
        del rank_of, numbers
        if vector_rows.size > np.iinfo(np.int32).max // 2:
            raise ValueError("too many distinct training vectors")
        vector_indptr, vector_ranks = gather_rows(indptr, ranks, vector_rows)
        del ranks
        lengths = np.diff(vector_indptr)
        self.rank_ids = rank_ids
        self.vector_indptr = vector_indptr
        self.vector_ranks = vector_ranks
        self.row_vector = row_vector
        self.sorted_vectors = sorted_vectors
        self.document_frequency = np.bincount(vector_ranks, minlength=rank_ids.size).astype(
            np.int32)
        self.node_of = None
        self.n_rows = n_rows
        self.n_vectors = vector_rows.size
        self.n_nodes = 0
        self.n_ranked = rank_ids.size
        self.max_length = int(lengths.max()) if lengths.size else 0
        self.vptr = <const int64_t*><size_t>vector_indptr.ctypes.data
        self.vranks = <const int32_t*><size_t>vector_ranks.ctypes.data if vector_ranks.size else NULL
        self.rows = <const int32_t*><size_t>row_vector.ctypes.data if n_rows else NULL
        self.df = (<const int32_t*><size_t>self.document_frequency.ctypes.data
                   if rank_ids.size else NULL)
        self.nodes = NULL

    def build_prefix_nodes(self) -> None:
        """Number the prefixes of the vectors (the partial-margin table's keys), once."""
        if self.node_of is not None:
            return
        node_of, n_nodes = prefix_nodes(self.vector_indptr, self.vector_ranks,
                                        self.sorted_vectors)
        if n_nodes > np.iinfo(np.int32).max:
            raise ValueError("too many distinct prefixes")
        self.node_of = node_of
        self.n_nodes = n_nodes
        self.nodes = <const int32_t*><size_t>node_of.ctypes.data if node_of.size else NULL

    def vector_ids(self, int64_t v) -> np.ndarray:
        """Feature ids (ascending) of vector v."""
        ranks = self.vector_ranks[self.vector_indptr[v]:self.vector_indptr[v + 1]]
        return np.sort(self.rank_ids[ranks])

    def vectors(self, chosen) -> tuple[np.ndarray, np.ndarray]:
        """(indptr, indices) of the vectors `chosen` as feature ids, ascending per row."""
        return gather_rows(self.vector_indptr, self.vector_ranks,
                           np.ascontiguousarray(chosen, dtype=np.int64), self.rank_ids)

