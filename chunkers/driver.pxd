from libc.stdint cimport uint8_t
from chunkers._native cimport ck_params, ck_scanner, ck_cursor

cdef class Chunker:
    cdef ck_params params
    cdef ck_scanner scanner
    cdef bint ready
    cdef readonly bint sparse
    cdef readonly str name
    cdef readonly str kernel
    cdef readonly tuple params_tuple
    cdef const char *ran          # registry name of the kernel of the last scan (CK_PROVENANCE), or NULL
    cdef const char *ran_source   # the source file of the code that recorded it, or NULL
    cdef readonly tuple init_args      # the constructor's positional arguments (pickling, copies)
    cdef list buffers             # read buffers kept for the next stream (chunkers.bufpool.keep_buffers)

    cdef size_t next_cut(self, ck_cursor *cur, const uint8_t *p, size_t avail, int eof) except *
    cdef set_driver(self, str name, tuple params_tuple, size_t min_size, size_t max_size, object masks,
                    int nc_level, size_t window)
