# C declarations shared by the Cython modules (see csrc/*.h).
from libc.stddef cimport ptrdiff_t
from libc.stdint cimport uint8_t, uint64_t, int64_t

cdef extern from "csrc/cpu.h":
    unsigned ck_cpu_features()
    const char *ck_cpu_feature_name(unsigned i)
    enum: CK_CPU_FEATURE_COUNT

cdef extern from "csrc/kernel.h":
    ctypedef void (*ck_fn)()
    ctypedef struct ck_kernel:
        const char *name
        ck_fn fn
        unsigned cpu
        int here
        const char *symbol
        const char *source
        const char *target
        const char *freestanding
        unsigned char rank[3]
        int reference
    const char *ck_provenance_take() nogil
    const char *ck_provenance_source() nogil

cdef extern from "csrc/driver.h":
    ctypedef struct ck_params:
        size_t min_size, max_size, normal_size
        uint64_t mask_s, mask_l
        int nc
        size_t window
    ctypedef struct ck_scanner:
        const void *ctx
        const char *(*provenance)() nogil
        const char *(*provenance_source)() nogil
    ctypedef struct ck_cursor:
        size_t off
        uint64_t st
        int started
    size_t CK_NEED_MORE
    size_t CK_SCAN_FAILED
    size_t ck_next_cut(const ck_params *prm, const ck_scanner *sc, ck_cursor *cur, const uint8_t *p,
                       size_t avail, int eof) nogil
    int ck_all_zero(const uint8_t *p, size_t n) nogil

cdef extern from "csrc/readahead.h":
    ctypedef struct ck_readahead:
        pass
    ck_readahead *ck_readahead_start(int fd) nogil
    void ck_readahead_submit(ck_readahead *ra, uint8_t *dst, size_t n, size_t piece) nogil
    ptrdiff_t ck_readahead_wait(ck_readahead *ra, size_t seen, int *ended) nogil
    int ck_readahead_owned(const ck_readahead *ra) nogil
    void ck_readahead_stop(ck_readahead *ra) nogil


cdef extern from "csrc/readbuf.h":
    uint8_t *ck_readbuf_alloc(size_t size) nogil
    void ck_readbuf_free(uint8_t *data, size_t size) nogil
