# cython: language_level=3, boundscheck=False, wraparound=False
"""The common chunking driver: the chunk stream.

Every content-defined chunker derives from :class:`Chunker`. The cut
decisions are made in C (``csrc/driver.c``, spec 01 §5 and 03 §6); this module
feeds it bytes from memory, binary file objects or raw file descriptors (the
sources and their readers: chunkers.sources) through read buffers
(chunkers.bufpool) and yields :class:`~chunkers.chunk.Chunk` records. Cut
points never depend on how reads are split (spec 01 §7).
"""

import os

from cpython.exc cimport PyErr_CheckSignals

from libc.string cimport memcpy
from libc.stdint cimport uint8_t, uintptr_t
from chunkers._native cimport (ck_params, ck_scanner, ck_cursor, ck_next_cut, ck_all_zero,
                               CK_NEED_MORE, CK_SCAN_FAILED, ck_readahead, ck_readahead_start,
                               ck_readahead_submit, ck_readahead_wait, ck_readahead_owned,
                               ck_readahead_stop)
from chunkers cimport bufpool               # its cpdef functions called as C functions
from chunkers.bufpool cimport ReadBuffer
from chunkers.sources cimport FdReader

from chunkers.chunk import Chunk
from chunkers.sources import byte_view, open_source

READ_SIZE = 1 << 20
"""Bytes requested per read from a stream source, at least (the free buffer space); per read of
the read-ahead thread, at most (see READ_AHEAD_PIECE)."""

READ_AHEAD_PIECE = 256 << 10
"""Bytes per read of the read-ahead thread, at most (and at most READ_SIZE): it fills the free
buffer space in reads of this size, and the scan goes on as soon as one has landed. On a 64 MiB
page-cached file (fastcdc 19,23,21,2, seg4, Intel Xeon family 6 model 167, 2 vCPUs) 128-512 KiB
chunked at ~4650 MB/s, 1 MiB at 4240, 4 MiB at 3650: a smaller piece lets the scan follow the
reads more closely, one much smaller costs a system call and a wake-up per piece."""

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

DEF SIGNAL_CHECK_BYTES = 4 << 20
# In-memory scans run in C without the interpreter loop: pending signals (Ctrl-C) are checked
# whenever this many bytes have been cut since the last check (a few ms at the slowest kernel).

HALVES_MIN = 2 << 20
"""A block of at least this many bytes from a regular file is read in two halves at once
(:class:`HalvesReader`); smaller ones in one thread (measured: 4 MiB blocks, docs/read-path.md)."""


cdef class HalvesReader:
    """Reads the blocks of a regular file with two threads: the first half of each with pread(2)
    in the caller's thread, the second half at the same time by a read-ahead thread
    (csrc/readahead.c) from the file offset moved past the first half, so the page cache is copied
    out by two cores (the fixed chunker's large blocks: issue 33; one core copies 4-6 GB/s on the
    Zen 4 VM).

    ``reader``: an FdReader of a regular file. :meth:`read` fills a writable byte view exactly as
    reading until it is full or a read returns 0 would, and leaves the file offset after the bytes
    it returns, as those reads would; a first half that ends short is the end of the file (bytes
    the second half read past it, from a file that grew meanwhile, are not returned). Views under
    HALVES_MIN bytes, no thread to be had, or a forked child (the thread is the parent's) read in
    this thread. Raises OSError when a read fails (both halves have ended then)."""
    cdef ck_readahead *ra
    cdef int fd
    cdef object reader

    def __cinit__(self, FdReader reader):
        self.reader, self.fd = reader, reader.fd
        self.ra = ck_readahead_start(self.fd)     # NULL (no thread to be had): reads in this thread

    def __dealloc__(self):
        self.close()

    def close(self):
        """Stop the read-ahead thread (idle between reads); later reads run in this thread."""
        if self.ra != NULL:
            with nogil:
                ck_readahead_stop(self.ra)
            self.ra = NULL

    def read(self, view) -> int:
        """Fill ``view`` (writable, C-contiguous bytes) from the file; returns the bytes read,
        fewer than ``len(view)`` only at the end of the file."""
        cdef uint8_t[::1] dst = byte_view(view)
        cdef size_t n = dst.shape[0], half = (n // 2) & ~(<size_t>4095), got = 0
        cdef ptrdiff_t res = 0
        cdef int ended = 0
        if self.ra == NULL or n < HALVES_MIN or not ck_readahead_owned(self.ra):
            return fill_view(self.reader, view, 0, n)
        pos = os.lseek(self.fd, 0, os.SEEK_CUR)
        os.lseek(self.fd, pos + half, os.SEEK_SET)
        ck_readahead_submit(self.ra, &dst[half], n - half, n - half)
        try:
            while got < half:
                r = os.preadv(self.fd, [view[got:half]], pos + got)
                if r == 0:
                    break
                got += r
        finally:
            with nogil:         # the second half is written into view until its fill has ended
                res = ck_readahead_wait(self.ra, n - half, &ended)
        if res < 0:
            raise OSError(-res, os.strerror(-res))
        if got < half:          # the end of the file: where sequential reads would have left it
            os.lseek(self.fd, pos + got, os.SEEK_SET)
            return got
        return half + res


def halves_reader(reader, size_t block):
    """A :class:`HalvesReader` for blocks of ``block`` bytes from ``reader`` (a reader of
    chunkers.sources.open_source) where it pays: an FdReader of a regular file with more than
    READ_AHEAD_MIN bytes left, blocks of at least HALVES_MIN bytes; else None."""
    if block < HALVES_MIN or not isinstance(reader, FdReader) or not (<FdReader>reader).worth_read_ahead(READ_AHEAD_MIN):
        return None
    return HalvesReader(reader)


def fill_view(reader, view, size_t got, size_t n):
    """Fill ``view[got:n]`` with ``reader``'s reads until it is full or a read returns 0; the bytes
    in ``view`` then."""
    while got < n:
        r = reader(view[got:n])
        if r == 0:
            break
        got += r
    return got


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
        bufpool.give_back(self.buffers)

    cdef size_t next_cut(self, ck_cursor *cur, const uint8_t *p, size_t avail, int eof) except *:
        """ck_next_cut without the GIL (the buffers stay exported while it runs); a
        failed AES backend raises RuntimeError and abandons the chunk (spec 06 §9.3)."""
        cdef size_t r
        cdef const char *ran = NULL
        cdef const char *ran_source = NULL
        with nogil:
            if self.scanner.provenance != NULL:
                self.scanner.provenance()       # forget what ran before in this thread
            r = ck_next_cut(&self.params, &self.scanner, cur, p, avail, eof)
            if self.scanner.provenance != NULL:
                ran = self.scanner.provenance()
                ran_source = self.scanner.provenance_source()
        if ran != NULL:             # the name and its file together: a later run of another chunker
            self.ran = ran          # in this thread rewrites the thread's slot, not this chunker's
            self.ran_source = ran_source
        if r == CK_SCAN_FAILED:
            raise RuntimeError(f"{self.name}: OpenSSL EVP encryption failed")
        return r

    @property
    def ran_kernel(self):
        """Registry name of the kernel whose own code made this chunker's last scan, as the kernel
        function recorded it (csrc/kernel.h, CK_PROVENANCE); None before any scan and for chunkers
        without scan kernels. Equals ``kernel`` unless dispatch is broken."""
        return self.ran.decode() if self.ran != NULL else None

    @property
    def ran_kernel_source(self):
        """Source file (``chunkers/csrc/<family>/<kernel>.c``, as given to the compiler) of the code
        that recorded :attr:`ran_kernel`, recorded with it; None when ran_kernel is None."""
        return self.ran_source.decode() if self.ran_source != NULL else None

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
            view = byte_view(memoryview(source))
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
        # With read-ahead (ra), a fill of the free part [fill, cap) is in progress while the bytes
        # before `end` are scanned and yielded: the thread reads it READ_SIZE bytes at a time and
        # `end` follows what it reported; [end, cap) is the thread's until the fill has ended, so
        # the uncut bytes move only with no fill in progress.
        cdef ReadBuffer buf = bufpool.take_buffer(self.buffers, self.params.max_size + READ_SIZE), spare = None
        cdef size_t cap = buf.size
        cdef uint8_t *base = buf.data
        cdef size_t start = 0, end = 0, r, got, fill = 0, phase
        cdef int eof = 0, filling = 0, ended
        cdef ck_cursor cur
        cdef ck_readahead *ra = NULL
        cdef ptrdiff_t res
        cur.started = 0
        if isinstance(reader, FdReader) and (<FdReader>reader).worth_read_ahead(READ_AHEAD_MIN):
            ra = ck_readahead_start((<FdReader>reader).fd)   # NULL (no thread to be had): plain reads
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
                if not filling:
                    if cap - end < READ_SIZE and start > 0:
                        if spare is None or spare.exports:
                            spare = bufpool.take_buffer(self.buffers, self.params.max_size + READ_SIZE)
                        phase = <size_t>(<uintptr_t>(base + start) & (COPY_PHASE - 1))
                        if phase + (end - start) + (<size_t>READ_SIZE + 1) // 2 > cap:
                            phase = 0       # less than half a read would fit after them
                        memcpy(spare.data + phase, base + start, end - start)
                        buf, spare = spare, buf
                        base = buf.data
                        end = phase + end - start
                        start = phase
                    if ra != NULL:
                        fill = end
                        ck_readahead_submit(ra, base + fill, cap - fill, min(cap - fill, <size_t>min(READ_SIZE, READ_AHEAD_PIECE)))
                        filling = 1
                if ra == NULL:
                    got = reader(memoryview(buf)[end:cap])
                    if got == 0:
                        eof = 1
                    end += got
                else:
                    with nogil:
                        res = ck_readahead_wait(ra, end - fill, &ended)
                    if ended:
                        filling = 0
                    if res < 0:
                        raise OSError(-res, os.strerror(-res))
                    if ended and <size_t>res < cap - fill:
                        eof = 1     # a read returned 0
                    end = fill + res
        finally:
            if ra != NULL:
                with nogil:
                    ck_readahead_stop(ra)           # a fill in progress writes into buf: let it end first
            bufpool.keep_buffers(self.buffers, (buf, spare))


def _rebuild(cls, args, kernel, sparse):
    return cls(*args, kernel=kernel, sparse=sparse)
