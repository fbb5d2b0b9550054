# The Cython-level face of the SMO solver (classifiers/kernel_svm/smo.pyx): a pluggable source
# of kernel columns, so that one solver trains on binary vectors, trees or any other kernel.
from libc.stdint cimport int8_t


cdef class ColumnSource:
    # The kernel of a problem of n_rows rows. fill writes Q_row[t] = y_row y[t] K(row, rows[t])
    # as float into data[t] for t in [start, length), where rows[t] is the original index of the
    # row at solver position t and y[t] its label (both permuted by the solver's shrinking);
    # row is the column's original index and y_row its label. The solver reads the diagonal
    # K(t, t) from the Python-level attribute `diagonal` (by original index) once.
    cdef readonly int n_rows
    cdef readonly object diagonal

    cdef void fill(self, int row, double y_row, const int* rows, const int8_t* y, float* data,
                   int start, int length) noexcept nogil
