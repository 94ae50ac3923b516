# cython: language_level=3, boundscheck=False, wraparound=False
"""The read-buffer pool of the stream drivers (chunkers.driver's Chunker, chunkers.fixed): page-aligned
read buffers that count their exports (so a buffer a chunk still refers to is never refilled), the
buffers a chunker keeps for its next stream and the pool of collected chunkers' buffers."""

from cpython.buffer cimport PyBuffer_FillInfo

from chunkers._native cimport ck_readbuf_alloc, ck_readbuf_free

DEF KEPT_BUFFERS = 2
# Read buffers a chunker keeps for its next stream: allocating (and zeroing) max_size + 1 MiB per
# file cost ~0.3 ms, ten times borg's whole cost of a 10 kB file. Two: a stream uses two, and the
# consumer often still holds the last chunk of the previous stream when the next one starts.

DEF ORPHAN_BYTES = 48 << 20
_orphan_buffers = []
# Read buffers of collected chunkers (newest last; at most KEPT_BUFFERS per size and ORPHAN_BYTES in
# all, two of the largest a chunker has: fixed's 20 MiB blocks), taken by a chunker needing that
# size before new memory once no chunk refers to them: a chunker made per file or per call
# (api.chunk_sizes) otherwise pays the first touch of new buffers, the kernel zeroing each page
# (a new fastcdc 19,23,21,2 chunker per 10 kB file by descriptor: 258 us per file, 38 us with
# these; 11 us reusing one chunker; AMD EPYC Zen 4 VM). So that much outlives the last chunker.


cpdef ReadBuffer take_buffer(list kept, Py_ssize_t size):
    """A read buffer of ``size`` bytes that no chunk refers to: from ``kept`` (a chunker's own
    list, the buffer removed from it), else from the pool of collected chunkers, else new."""
    cdef ReadBuffer b
    for pool in (kept, _orphan_buffers):
        for i in range(len(pool)):
            b = <ReadBuffer?>pool[i]
            if not b.exports and b.size == size:
                del pool[i]
                return b
    return ReadBuffer(size)


cpdef keep_buffers(list kept, tuple buffers):
    """Append ``buffers`` (read buffers, None skipped) to a chunker's ``kept`` list for its next
    stream; beyond KEPT_BUFFERS, let go of those a chunk still refers to first, then the oldest."""
    cdef Py_ssize_t i
    for x in buffers:
        if x is not None:
            kept.append(<ReadBuffer?>x)
    while len(kept) > KEPT_BUFFERS:
        i = 0
        while i < len(kept) and not (<ReadBuffer?>kept[i]).exports:
            i += 1
        del kept[i if i < len(kept) else 0]


cpdef give_back(kept):
    """Move a collected chunker's ``kept`` buffers into the pool (``kept`` is emptied; also those
    a chunk still refers to: taken once it is dropped); the oldest beyond the pool's bounds are
    let go. Does nothing when ``kept`` or the pool is gone: at interpreter exit, or after the
    cycle collector. Any allocation here may run the collector, and with it another chunker's
    give_back or a finalizer's stream: the pool is only appended to and has buffers removed by
    identity, never rewritten from a copy that could hold a buffer taken meanwhile."""
    if type(kept) is not list or type(_orphan_buffers) is not list:
        return
    moved = [<ReadBuffer?>b for b in kept]
    del kept[:]
    _orphan_buffers.extend(moved)
    cdef dict per_size = {}
    cdef Py_ssize_t total = 0, n
    drop = []
    for b in reversed(_orphan_buffers[:]):
        n = per_size.get((<ReadBuffer>b).size, 0)
        if n < KEPT_BUFFERS and total + (<ReadBuffer>b).size <= ORPHAN_BYTES:
            per_size[(<ReadBuffer>b).size] = n + 1
            total += (<ReadBuffer>b).size
        else:
            drop.append(b)
    for b in drop:
        for i in range(len(_orphan_buffers)):
            if _orphan_buffers[i] is b:
                del _orphan_buffers[i]
                break


cdef class ReadBuffer:
    """A stream's read buffer: ``size`` bytes (zero-filled at first, page-aligned: csrc/readbuf.h
    says why), a writable bytes-like object that counts the buffer exports alive (memoryviews of it
    and their slices), so the driver knows whether a chunk it yielded still refers to it.
    MemoryError if it cannot be allocated."""

    def __cinit__(self, Py_ssize_t size):
        global _buffer_bytes, _buffer_peak
        if size <= 0:
            raise ValueError(f"a read buffer needs at least one byte, not {size}")
        self.data = ck_readbuf_alloc(size)
        if self.data == NULL:
            raise MemoryError(f"cannot allocate a {size}-byte read buffer")
        self.size = size
        _buffer_bytes += size
        _buffer_peak = max(_buffer_peak, _buffer_bytes)

    def __dealloc__(self):
        global _buffer_bytes
        if self.data != NULL:
            ck_readbuf_free(self.data, self.size)
            _buffer_bytes -= self.size

    def __getbuffer__(self, Py_buffer *view, int flags):
        PyBuffer_FillInfo(view, self, self.data, self.size, 0, flags)
        self.exports += 1

    def __releasebuffer__(self, Py_buffer *view):
        self.exports -= 1


cdef Py_ssize_t _buffer_bytes = 0, _buffer_peak = 0


def read_buffer_bytes(bint reset_peak=False):
    """``(alive, peak)``: bytes of read buffers alive now (kept by chunkers, pooled, or held by
    chunks) and the most alive at once since the last reset; ``reset_peak`` first sets the peak to
    the bytes alive. Read buffers are mapped outside Python's allocator (csrc/readbuf.c), so
    tracemalloc does not see them."""
    global _buffer_peak
    if reset_peak:
        _buffer_peak = _buffer_bytes
    return _buffer_bytes, _buffer_peak
