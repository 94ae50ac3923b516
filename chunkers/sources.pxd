cdef class FdReader:
    cdef int fd
    cdef object owner       # the file object whose descriptor this is (it closes it when collected)

    cdef bint worth_read_ahead(self, long long threshold)
