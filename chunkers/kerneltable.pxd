from libc.stdint cimport uint64_t
from chunkers._native cimport ck_kernel

cdef tuple kernel_table(const ck_kernel *kernels, size_t count)
cdef size_t kernel_index(const ck_kernel *kernels, size_t count, str name) except? 0
cdef int copy_table(table, uint64_t *out, str what) except -1
