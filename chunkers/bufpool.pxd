from libc.stdint cimport uint8_t


cdef class ReadBuffer:
    cdef uint8_t *data
    cdef Py_ssize_t size
    cdef readonly Py_ssize_t exports     # buffer exports alive (chunks, their slices)


cpdef ReadBuffer take_buffer(list kept, Py_ssize_t size)
cpdef keep_buffers(list kept, tuple buffers)
cpdef give_back(kept)
