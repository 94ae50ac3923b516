# cython: language_level=3, boundscheck=False, wraparound=False
"""The common chunking driver: sources, buffering and the chunk stream.

Every content-defined chunker derives from :class:`Chunker`. The cut
decisions are made in C (``csrc/driver.c``, spec 01 §5 and 03 §6); this module
feeds it bytes from memory, binary file objects or raw file descriptors and
yields :class:`Chunk` records. Cut points never depend on how reads are split
(spec 01 §7).
"""

import errno
import io
import os
import stat
from typing import NamedTuple

from array import array

from cpython.buffer cimport PyBuffer_FillInfo
from cpython.exc cimport PyErr_CheckSignals

from libc.string cimport memcpy, memset
from chunkers.bufview cimport byte_buffer, PyBuffer_Release
from libc.stdint cimport uint8_t, uint64_t, uintptr_t
from chunkers._native cimport (ck_params, ck_scanner, ck_cursor, ck_kernel, ck_next_cut, ck_all_zero,
                               ck_cpu_features, ck_cpu_feature_name, CK_CPU_FEATURE_COUNT,
                               CK_NEED_MORE, CK_SCAN_FAILED, ck_readahead, ck_readahead_start,
                               ck_readahead_submit, ck_readahead_wait, ck_readahead_owned,
                               ck_readahead_stop, ck_readbuf_alloc, ck_readbuf_free)
from posix.stat cimport struct_stat, fstat, S_ISREG
from posix.unistd cimport lseek, SEEK_CUR

READ_SIZE = 1 << 20
"""Bytes requested per read from a stream source, at least (the free buffer space); per read of
the read-ahead thread, exactly (at most the free space)."""

READ_AHEAD_MIN = 4 << 20
"""A file descriptor of a regular file with more than this many bytes left is read by a read-ahead
thread while the bytes before are scanned (csrc/readahead.c); smaller files are read in the
stream's thread (starting a thread costs more than it saves there)."""

DEF COPY_PHASE = 4096
# The uncut bytes move into the spare buffer at the same offset within a 4 KiB page as they had, so
# the next reads land as the earlier ones did relative to the file's pages (the first read is into
# a page-aligned buffer): read(2) into a destination 1 to 31 bytes past the source's offset within
# a page runs at ~2 GB/s instead of 7-8 (4K aliasing in the kernel's copy; AMD EPYC Zen 4 VM). At
# offset 0 a move's (end - start) % 4096 fell in that band about once in 130 moves. Only where at
# least half a read fits after them (always, with READ_SIZE >= 8 KiB), else at offset 0, where a
# full read fits (the uncut bytes are fewer than max_size, or the scan would have cut): a move
# must leave room to read, or an empty read would be taken for the end of the stream (the fuzz
# harness sets READ_SIZE far below 4096).

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


cpdef _ReadBuffer take_buffer(list kept, Py_ssize_t size):
    """A read buffer of ``size`` bytes that no chunk refers to: from ``kept`` (a chunker's own
    list, the buffer removed from it), else from the pool of collected chunkers, else new."""
    cdef _ReadBuffer b
    for pool in (kept, _orphan_buffers):
        for i in range(len(pool)):
            b = <_ReadBuffer?>pool[i]
            if not b.exports and b.size == size:
                del pool[i]
                return b
    return _ReadBuffer(size)


cpdef keep_buffers(list kept, tuple buffers):
    """Append ``buffers`` (read buffers, None skipped) to a chunker's ``kept`` list for its next
    stream; beyond KEPT_BUFFERS, let go of those a chunk still refers to first, then the oldest."""
    cdef Py_ssize_t i
    for x in buffers:
        if x is not None:
            kept.append(<_ReadBuffer?>x)
    while len(kept) > KEPT_BUFFERS:
        i = 0
        while i < len(kept) and not (<_ReadBuffer?>kept[i]).exports:
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
    moved = [<_ReadBuffer?>b for b in kept]
    del kept[:]
    _orphan_buffers.extend(moved)
    cdef dict per_size = {}
    cdef Py_ssize_t total = 0, n
    drop = []
    for b in reversed(_orphan_buffers[:]):
        n = per_size.get((<_ReadBuffer>b).size, 0)
        if n < KEPT_BUFFERS and total + (<_ReadBuffer>b).size <= ORPHAN_BYTES:
            per_size[(<_ReadBuffer>b).size] = n + 1
            total += (<_ReadBuffer>b).size
        else:
            drop.append(b)
    for b in drop:
        for i in range(len(_orphan_buffers)):
            if _orphan_buffers[i] is b:
                del _orphan_buffers[i]
                break


DEF SIGNAL_CHECK_BYTES = 4 << 20
# In-memory scans run in C without the interpreter loop: pending signals (Ctrl-C) are checked
# whenever this many bytes have been cut since the last check (a few ms at the slowest kernel).

_DATA_FORMATS = frozenset("cbB?hHiIlLqQnNefd")
"""Buffer formats whose items are plain data, read as their bytes in memory order. Object
references ('O'), pointers ('P'), structs and the rest are refused: their bytes are not content."""


class Chunk(NamedTuple):
    """One chunk of the input stream (spec 01 §8).

    ``data``: the chunk's bytes, zero copy as borg's: a ``memoryview`` into
    the caller's buffer for in-memory sources, a read-only ``memoryview``
    into the driver's read buffer for streams (valid as long as it is held;
    holding it keeps that buffer, max_size + 1 MiB, alive; fixed: a buffer of
    the chunk's own size for a block or header of 1 MiB and more, ``bytes``
    for smaller ones); or ``None`` when every byte is zero (borg's CH_ALLOC:
    only the size is delivered). ``size``: length in
    bytes, always > 0. ``all_zero``: True iff every byte of the chunk is zero.
    """

    data: object
    size: int
    all_zero: bool

    def tobytes(self) -> bytes:
        """The chunk's bytes, zeros included (``size`` bytes)."""
        return bytes(self.size) if self.data is None else bytes(self.data)

    def __repr__(self):     # a chunk can be megabytes: show the size and the first bytes only
        if self.data is None:
            return f"Chunk(data=None, size={self.size}, all_zero={self.all_zero})"
        head = bytes(self.data[:16])
        return f"Chunk(data={head!r}{'...' if self.size > 16 else ''}, size={self.size}, all_zero={self.all_zero})"


def cpu_features(known=False):
    """The CPU features usable here (and saved by the OS), as a frozenset of names; with
    ``known``, every feature name the kernels can require, present or not."""
    cdef unsigned f = ck_cpu_features()
    return frozenset(ck_cpu_feature_name(i).decode() for i in range(CK_CPU_FEATURE_COUNT)
                     if known or f & (1u << i))


cdef tuple kernel_table(const ck_kernel *kernels, size_t count):
    """Every row of a family's C registry (its kernels.def, every build target) as a
    chunkers.kernelrow.Kernel (chunkers.registry.Kernel), all columns."""
    from chunkers.kernelrow import RANKED, Kernel
    cdef size_t i
    cdef unsigned b
    cdef const ck_kernel *k
    out = []
    for i in range(count):
        k = &kernels[i]
        needs = tuple(ck_cpu_feature_name(b).decode() for b in range(CK_CPU_FEATURE_COUNT) if k.cpu & (1u << b))
        calls = None if k.freestanding == NULL else tuple(k.freestanding.decode().split())
        out.append(Kernel(k.name.decode(), k.symbol.decode(), k.source.decode(), k.target.decode(), bool(k.here),
                          k.fn != NULL, needs, calls, {m: k.rank[j] for j, m in enumerate(RANKED)},
                          k.reference != 0))
    return tuple(out)


cdef size_t kernel_index(const ck_kernel *kernels, size_t count, str name) except? 0:
    """Index of the kernel called ``name`` in a family's C registry (it must be there)."""
    cdef size_t i
    for i in range(count):
        if kernels[i].name.decode() == name:
            return i
    raise KeyError(name)


cdef int copy_table(table, uint64_t *out, str what) except -1:
    """Copy a 256-entry u64 table (a sequence of ints, or an ``array('Q')``,
    copied at once) into ``out``; ValueError naming ``what`` for another length.
    The array form is for callers that scan many times (fuzz/scan_diff.py):
    converting 256 ints costs more than a short scan."""
    if len(table) != 256:
        raise ValueError(f"{what} must have 256 entries, got {len(table)}")
    cdef Py_buffer flat
    if isinstance(table, array) and table.typecode == "Q":
        byte_buffer(table, &flat)                 # not a typed memoryview: see chunkers/bufview.pxd
        memcpy(out, flat.buf, 256 * sizeof(uint64_t))
        PyBuffer_Release(&flat)
        return 0
    for i in range(256):
        out[i] = table[i]
    return 0


cdef class _ReadBuffer:
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


cdef class Chunker:
    """Base of the content-defined chunkers: owns the driver parameters and hooks.

    Subclasses fill ``scanner`` and call ``set_driver`` at the end of their
    constructor; a chunker whose construction did not complete refuses to
    chunk, and a constructed one cannot be re-initialized.
    """

    cdef set_driver(self, str name, tuple params_tuple, size_t min_size, size_t max_size, object masks,
                    int nc_level, size_t window):
        self.params.min_size = min_size
        self.params.max_size = max_size
        self.params.mask_s = masks.strict
        self.params.mask_l = masks.loose
        self.params.normal_size = min(masks.normal_size, <size_t>-1)
        self.params.nc = nc_level > 0
        self.params.window = window
        self.name = name
        self.params_tuple = params_tuple
        self.buffers = []
        self.ready = True

    def __dealloc__(self):
        give_back(self.buffers)

    cdef size_t next_cut(self, ck_cursor *cur, const uint8_t *p, size_t avail, int eof) except *:
        """ck_next_cut without the GIL (the buffers stay exported while it runs); a
        failed AES backend raises RuntimeError and abandons the chunk (spec 06 §9.3)."""
        cdef size_t r
        cdef const char *ran = NULL
        with nogil:
            if self.scanner.provenance != NULL:
                self.scanner.provenance()       # forget what ran before in this thread
            r = ck_next_cut(&self.params, &self.scanner, cur, p, avail, eof)
            if self.scanner.provenance != NULL:
                ran = self.scanner.provenance()
        if ran != NULL:
            self.ran = ran
        if r == CK_SCAN_FAILED:
            raise RuntimeError(f"{self.name}: OpenSSL EVP encryption failed")
        return r

    @property
    def ran_kernel(self):
        """Registry name of the kernel whose own code made this chunker's last scan, as the kernel
        function recorded it (csrc/kernel.h, CK_PROVENANCE); None before any scan and for chunkers
        without scan kernels. Equals ``kernel`` unless dispatch is broken."""
        return self.ran.decode() if self.ran != NULL else None

    def _check_fresh(self):
        if self.ready:
            raise TypeError(f"{type(self).__name__} is already initialized")

    @property
    def min_size(self):
        """Minimum chunk size in bytes, 2**chunk_min_exp."""
        return self.params.min_size

    @property
    def max_size(self):
        """Maximum chunk size in bytes, 2**chunk_max_exp."""
        return self.params.max_size

    @property
    def normal_size(self):
        """Offset in bytes below which the strict mask applies (0 when nc_level is 0)."""
        return self.params.normal_size if self.params.nc else 0

    def __repr__(self):
        return f"<{type(self).__name__} {self.params_tuple!r} kernel={self.kernel!r}>"

    def __reduce__(self):
        """Pickle and copy: rebuilt from the constructor arguments, kernel and sparse flag (a
        chunker holds no stream state between calls)."""
        if not self.ready:
            raise TypeError(f"{type(self).__name__} was not initialized")
        return _rebuild, (type(self), self.init_args, self.kernel, self.sparse)

    def chunkify(self, source):
        """Cut ``source`` into chunks; yields :class:`Chunk` in stream order.

        ``source``: a bytes-like object (scanned in place, zero copy), a binary
        file object with ``readinto`` or ``read``, or an ``int`` file
        descriptor (see :func:`open_source`; ``sparse`` chunkers read holes as
        zeros). Empty input yields nothing. Chunks concatenate to the
        input; each non-final chunk is within the chunker's size bounds.
        Raises TypeError for other sources, OSError / ValueError when a read
        fails or a reader misbehaves (chunks already yielded stay valid), and
        RuntimeError if the AES backend fails during a scan.
        """
        if not self.ready:
            raise TypeError(f"{type(self).__name__} was not initialized")
        src = open_source(source, self.sparse)
        return self._memory(src) if isinstance(src, memoryview) else self._stream(src)

    def chunk_sizes(self, source):
        """The chunk sizes in bytes, in stream order, of ``source`` (as for chunkify).

        Bytes-like sources are cut in one C loop without building Chunk
        records; other sources go through chunkify.
        """
        if not self.ready:
            raise TypeError(f"{type(self).__name__} was not initialized")
        try:
            view = _byte_view(memoryview(source))
        except TypeError:
            return [c.size for c in self.chunkify(source)]
        cdef const uint8_t[::1] data = view
        cdef size_t n = data.shape[0], pos = 0, r, unchecked = 0
        cdef ck_cursor cur
        cur.started = 0
        sizes = []
        while pos < n:
            r = self.next_cut(&cur, &data[pos], n - pos, 1)
            sizes.append(r)
            pos += r
            unchecked += r
            if unchecked >= SIGNAL_CHECK_BYTES:
                unchecked = 0
                PyErr_CheckSignals()
        return sizes

    def _memory(self, view):
        cdef const uint8_t[::1] data = view
        cdef size_t n = data.shape[0], pos = 0, r
        cdef ck_cursor cur
        cur.started = 0
        while pos < n:
            r = self.next_cut(&cur, &data[pos], n - pos, 1)
            if ck_all_zero(&data[pos], r):
                yield Chunk(None, r, True)
            else:
                yield Chunk(view[pos:pos + r], r, False)
            pos += r

    def _stream(self, reader):
        # Chunks are views into the read buffer, so bytes already cut are never overwritten: when
        # the buffer is full, the bytes not yet cut move into a spare buffer, the one used before
        # (the consumer still holds the last chunk of this one), or a new one if a view of the
        # spare is still alive (a consumer that keeps chunks; the views keep their buffer).
        # With read-ahead (ra), the next READ_SIZE bytes after `end` are being read while the
        # bytes before it are scanned and yielded: [end, end + pending) is the thread's until
        # it is waited for, so a move of the uncut bytes happens only with no read in flight.
        cdef _ReadBuffer buf = take_buffer(self.buffers, self.params.max_size + READ_SIZE), spare = None
        cdef size_t cap = buf.size
        cdef uint8_t *base = buf.data
        cdef size_t start = 0, end = 0, r, got, pending = 0, phase
        cdef int eof = 0
        cdef ck_cursor cur
        cdef ck_readahead *ra = NULL
        cdef ptrdiff_t res
        cur.started = 0
        if isinstance(reader, _FdReader) and (<_FdReader>reader).worth_read_ahead():
            ra = ck_readahead_start((<_FdReader>reader).fd)   # NULL (no thread to be had): plain reads
        try:
            while True:
                r = self.next_cut(&cur, base + start, end - start, eof)
                if r != CK_NEED_MORE:
                    if ck_all_zero(base + start, r):
                        yield Chunk(None, r, True)
                    else:
                        yield Chunk(memoryview(buf)[start:start + r].toreadonly(), r, False)
                    start += r
                    continue
                if eof:
                    return
                if ra != NULL and not ck_readahead_owned(ra):
                    raise RuntimeError("a stream read ahead by a thread cannot be continued in a forked child "
                                       "(its reader thread is the parent's)")
                if not pending:
                    if cap - end < READ_SIZE and start > 0:
                        if spare is None or spare.exports:
                            spare = take_buffer(self.buffers, self.params.max_size + READ_SIZE)
                        phase = <size_t>(<uintptr_t>(base + start) & (COPY_PHASE - 1))
                        if phase + (end - start) + (<size_t>READ_SIZE + 1) // 2 > cap:
                            phase = 0       # less than half a read would fit after them
                        memcpy(spare.data + phase, base + start, end - start)
                        buf, spare = spare, buf
                        base = buf.data
                        end = phase + end - start
                        start = phase
                    if ra != NULL:
                        pending = read_ahead(ra, base, end, cap)
                if ra == NULL:
                    got = reader(memoryview(buf)[end:cap])
                else:
                    with nogil:
                        res = ck_readahead_wait(ra)
                    pending = 0
                    if res < 0:
                        raise OSError(-res, os.strerror(-res))
                    got = res
                if got == 0:
                    eof = 1
                end += got
                if ra != NULL and not eof and end < cap:
                    pending = read_ahead(ra, base, end, cap)    # the next bytes, read while these are scanned
        finally:
            if ra != NULL:
                with nogil:
                    ck_readahead_stop(ra)           # a read in flight writes into buf: let it end first
            keep_buffers(self.buffers, (buf, spare))


cdef size_t read_ahead(ck_readahead *ra, uint8_t *base, size_t end, size_t cap):
    """Start the thread's read into base[end : end + n], n = min(cap - end, READ_SIZE) > 0; returns n
    (those bytes are the thread's until ck_readahead_wait)."""
    cdef size_t n = min(cap - end, <size_t>READ_SIZE)
    ck_readahead_submit(ra, base + end, n)
    return n


def _rebuild(cls, args, kernel, sparse):
    return cls(*args, kernel=kernel, sparse=sparse)


def check_sparse(sparse):
    """``sparse`` must be a bool (a string such as "no" would otherwise mean True): TypeError."""
    if not isinstance(sparse, bool):
        raise TypeError(f"sparse must be a bool, not {type(sparse).__name__}")
    return sparse


def _byte_view(view):
    """``view`` as a 1-D unsigned-byte view. ValueError if it is not C-contiguous, TypeError if its
    items are not plain data (see _DATA_FORMATS)."""
    fmt = view.format.lstrip("@=<>!")
    if fmt not in _DATA_FORMATS or len(fmt) != 1:
        raise TypeError(f"cannot chunk a buffer of format {view.format!r}: its items are not plain data "
                        f"(need bytes-like or a numeric array)")
    if not view.c_contiguous:
        raise ValueError("in-memory source must be C-contiguous")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def all_zero(data):
    """True iff every byte of the bytes-like ``data`` is zero (True when empty)."""
    cdef const uint8_t[::1] d = _byte_view(memoryview(data))
    return d.shape[0] == 0 or ck_all_zero(&d[0], d.shape[0]) != 0


def open_source(source, sparse=False):
    """The input stream of ``source`` (spec 01 §8): a 1-D byte memoryview or a reader.

    ``source``: bytes-like (returned as a memoryview, zero copy; ValueError if
    not C-contiguous), an ``int`` file descriptor, or a binary file object
    with ``readinto`` or ``read``. A reader is a callable ``reader(view) ->
    n`` filling ``view[:n]`` with the next ``n`` bytes, ``n == 0`` only at the
    end of the stream. With ``sparse``, a descriptor or an OS file object
    (io.FileIO, or a buffered reader over one) whose file system reports
    holes (SEEK_DATA / SEEK_HOLE) is read from its current position with
    holes supplied as zero bytes, unread; the stream is the same bytes either
    way, and any other source is read normally. Raises TypeError for other
    sources.
    """
    if isinstance(source, int) and not isinstance(source, bool):
        return (sparse and _sparse_reader(source)) or _FdReader(source)
    try:
        view = memoryview(source)
    except TypeError:
        view = None
    if view is not None:
        return _byte_view(view)
    reader = sparse and _sparse_reader(source)
    if reader:
        return reader
    if type(source) is io.FileIO and source.readable():     # unbuffered: its reads are the descriptor's
        return _FdReader(source.fileno(), source)
    if hasattr(source, "readinto"):
        return _ReadintoReader(source)
    if hasattr(source, "read"):
        return _ReadReader(source)
    raise TypeError(f"cannot chunk a {type(source).__name__}: need bytes-like, a binary file or an fd")


def _sparse_reader(source):
    """A _SparseReader for an fd or OS file object at its current position, or None if holes
    cannot be reported for it (another kind of object, not seekable, no SEEK_DATA)."""
    if not hasattr(os, "SEEK_DATA"):
        return None
    if not isinstance(source, int) and not isinstance(getattr(source, "raw", source), io.FileIO):
        return None         # e.g. a decompressing reader: its fileno() is not the stream's bytes
    try:
        if isinstance(source, int):
            fd, pos = source, os.lseek(source, 0, os.SEEK_CUR)
        else:
            fd, pos = source.fileno(), source.tell()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None     # a device or pipe: its size and SEEK_DATA say nothing about its bytes
        os.lseek(fd, pos, os.SEEK_DATA)
    except OSError as e:            # ENXIO: no data after pos, i.e. holes are reported
        if e.errno != errno.ENXIO:
            return None
    except (AttributeError, ValueError):
        return None
    return _SparseReader(fd, pos, source)


cdef class _SparseReader:
    """Reads a file from ``pos`` with pread; ranges the OS reports as holes are
    zero-filled without reading them. At the end the source is left positioned
    at the end of what was read, as with plain reads."""
    cdef int fd
    cdef object pos, data_end, hole_end, owner

    def __init__(self, fd, pos, owner):
        self.fd, self.owner = fd, owner
        _advise_sequential(fd)
        self.pos = self.data_end = self.hole_end = pos

    def __call__(self, view):
        cdef uint8_t[::1] m
        if self.pos >= self.data_end and self.pos >= self.hole_end:
            self._locate()
        n = len(view)
        if self.pos < self.hole_end:
            n = min(n, self.hole_end - self.pos)
            if n:
                m = view
                memset(&m[0], 0, n)
        else:
            n = os.preadv(self.fd, [view[:min(n, self.data_end - self.pos)]], self.pos)
        self.pos += n
        if n == 0:
            if isinstance(self.owner, int):
                os.lseek(self.fd, self.pos, os.SEEK_SET)
            else:
                self.owner.seek(self.pos)
        return n

    def _locate(self):
        """Find the hole or data range that starts at pos (the end of the file is a hole's end)."""
        try:
            start = os.lseek(self.fd, self.pos, os.SEEK_DATA)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            start = max(os.fstat(self.fd).st_size, self.pos)    # no data after pos
        if start > self.pos:
            self.hole_end = start
            return
        try:
            self.data_end = os.lseek(self.fd, self.pos, os.SEEK_HOLE)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            self.data_end = self.pos                             # at the end of the file


def _advise_sequential(fd):
    """Tell the OS the file is read once, front to back (POSIX_FADV_SEQUENTIAL: a larger
    read-ahead window on Linux). Only a hint: pipes, ttys and systems without it are left as they are."""
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
    except (AttributeError, OSError):
        pass


cdef class _FdReader:
    cdef int fd
    cdef object owner       # the file object whose descriptor this is (it closes it when collected)

    def __init__(self, fd, owner=None):
        self.fd, self.owner = fd, owner
        _advise_sequential(fd)

    def __call__(self, view):
        return os.readv(self.fd, [view])

    cdef bint worth_read_ahead(self):
        """True for a regular file with more than READ_AHEAD_MIN bytes after its position."""
        cdef struct_stat st
        if fstat(self.fd, &st) != 0 or not S_ISREG(st.st_mode) or st.st_size <= READ_AHEAD_MIN:
            return False        # one system call for a small file (most files of a tree)
        cdef long long pos = lseek(self.fd, 0, SEEK_CUR)
        return pos >= 0 and st.st_size - pos > READ_AHEAD_MIN


cdef class _ReadintoReader:
    cdef object readinto

    def __init__(self, f):
        self.readinto = f.readinto
        if isinstance(getattr(f, "raw", f), io.FileIO):     # an OS file: the read-ahead hint applies
            _advise_sequential(f.fileno())

    def __call__(self, view):
        got = self.readinto(view)
        if got is None:
            raise BlockingIOError("source has no data ready (non-blocking reader returned None)")
        if isinstance(got, bool) or not isinstance(got, int):
            raise TypeError(f"readinto() returned {type(got).__name__}, expected an int byte count")
        if not 0 <= got <= len(view):
            raise ValueError(f"reader returned {got} for a {len(view)}-byte buffer")
        return got


cdef class _ReadReader:
    cdef object read

    def __init__(self, f):
        self.read = f.read

    def __call__(self, view):
        data = self.read(len(view))
        if data is None:
            raise BlockingIOError("source has no data ready (non-blocking reader returned None)")
        try:
            data = memoryview(data)
        except TypeError:
            raise TypeError(f"reader returned {type(data).__name__}, expected bytes (is the file opened in binary mode?)") from None
        if data.format not in ("B", "b", "c") or not data.c_contiguous:
            raise TypeError(f"reader returned a buffer of format {data.format!r}, expected bytes")
        data = data.cast("B") if data.ndim != 1 or data.format != "B" else data
        got = len(data)
        if got > len(view):
            raise ValueError(f"reader returned {got} bytes for a {len(view)}-byte request")
        view[:got] = data
        return got
