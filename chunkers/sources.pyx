# cython: language_level=3, boundscheck=False, wraparound=False
"""The sources of a chunk stream and their read path (spec 01 §8): bytes-like objects (a byte view,
scanned in place), file descriptors and binary file objects (readers filling a view), sparse files
read with their holes as zeros, and the checks shared by the chunkers (check_sparse, all_zero)."""

import errno
import io
import os
import stat

from libc.string cimport memset
from libc.stdint cimport uint8_t
from chunkers._native cimport ck_all_zero
from posix.stat cimport struct_stat, fstat, S_ISREG
from posix.unistd cimport lseek, SEEK_CUR

_DATA_FORMATS = frozenset("cbB?hHiIlLqQnNefd")
"""Buffer formats whose items are plain data, read as their bytes in memory order. Object
references ('O'), pointers ('P'), structs and the rest are refused: their bytes are not content."""


def check_sparse(sparse):
    """``sparse`` must be a bool (a string such as "no" would otherwise mean True): TypeError."""
    if not isinstance(sparse, bool):
        raise TypeError(f"sparse must be a bool, not {type(sparse).__name__}")
    return sparse


def byte_view(view):
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
    cdef const uint8_t[::1] d = byte_view(memoryview(data))
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
        return (sparse and _sparse_reader(source)) or FdReader(source)
    try:
        view = memoryview(source)
    except TypeError:
        view = None
    if view is not None:
        return byte_view(view)
    reader = sparse and _sparse_reader(source)
    if reader:
        return reader
    if type(source) is io.FileIO and source.readable():     # unbuffered: its reads are the descriptor's
        return FdReader(source.fileno(), source)
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


cdef class FdReader:
    def __init__(self, fd, owner=None):
        self.fd, self.owner = fd, owner
        _advise_sequential(fd)

    def __call__(self, view):
        return os.readv(self.fd, [view])

    cdef bint worth_read_ahead(self, long long threshold):
        """True for a regular file with more than ``threshold`` bytes (the driver's READ_AHEAD_MIN)
        after its position."""
        cdef struct_stat st
        if fstat(self.fd, &st) != 0 or not S_ISREG(st.st_mode) or st.st_size <= threshold:
            return False        # one system call for a small file (most files of a tree)
        cdef long long pos = lseek(self.fd, 0, SEEK_CUR)
        return pos >= 0 and st.st_size - pos > threshold


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
