# The polynomial kernel on binary rows as libsvm computes it: shared ids and powers.
from libc.stdint cimport int32_t


cdef inline int shared_count(const int32_t* a, int n, const int32_t* b, int m) noexcept nogil:
    # |a & b| of two ascending id lists, by a branch-free merge.
    cdef int p = 0, q = 0, count = 0
    cdef int32_t u, v
    while p < n and q < m:
        u = a[p]
        v = b[q]
        count += u == v
        p += u <= v
        q += v <= u
    return count


cdef inline double powi(double base, int times) noexcept nogil:
    # base^times by squaring (libsvm's powi, so kernel values match it bit for bit).
    cdef double tmp = base, ret = 1.0
    cdef int t = times
    while t > 0:
        if t % 2 == 1:
            ret *= tmp
        tmp = tmp * tmp
        t //= 2
    return ret
