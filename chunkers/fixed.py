"""fixed: fixed-size blocks after an optional header (spec 04 Part B).

Cut points depend only on the stream length, never on content or read
sizes: each chunk is filled by reading until it has the wanted bytes or the
stream ends. A single implementation (``kernel`` is ``"single"``). Input
handling (sources, sparse files, all-zero chunks) is the common driver's.
"""

from __future__ import annotations

import io
import os

from chunkers.bufpool import give_back, keep_buffers, take_buffer
from chunkers.chunk import Chunk
from chunkers.driver import READ_SIZE, fill_view, halves_reader
from chunkers.sources import all_zero, check_sparse, open_source
from chunkers.registry import reference, register_single, resolve
from chunkers.params import check_fixed

register_single("fixed")


class Fixed:
    """The fixed chunker (spec 04 Part B), compatible with borg 2.0.0b25's ChunkerFixed.

    ``block_size``: bytes per chunk, 1 .. 20,971,479. ``header_size``: bytes
    of a first chunk of its own (zero or negative: no header, spec 04 B), at
    most 20,971,479. ``kernel``: None or ``"single"`` (anything else raises
    ValueError). ``sparse``: read file holes as zeros without reading them
    (spec 01 §8). Raises TypeError for non-int sizes and ParamsError
    (ValueError) outside those bounds (borg checks nothing; the parameter
    string is validated by parse_params).
    """

    name = "fixed"
    kernel = reference("fixed")

    def __init__(self, block_size: int, header_size: int = 0, *, kernel: str | None = None, sparse: bool = False):
        check_fixed(block_size, header_size)
        resolve("fixed", kernel)
        self.block_size, self.header_size, self.sparse = block_size, header_size, check_sparse(sparse)
        self.params_tuple = ("fixed", block_size, header_size)
        self._buffers = []      # read buffers kept for the next stream (_stream)

    def __del__(self, _give_back=give_back):    # bound now: at interpreter exit the module may be gone
        _give_back(self.__dict__.get("_buffers"))   # moves them: a Fixed resurrected keeps none

    def __getstate__(self):
        """Pickle and copy: the parameters, not the read buffers (each copy keeps its own)."""
        return {k: v for k, v in self.__dict__.items() if k != "_buffers"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._buffers = []

    def __repr__(self):
        return f"<Fixed {self.params_tuple!r} kernel={self.kernel!r}>"

    def _wanted(self):
        if self.header_size > 0:
            yield self.header_size
        while True:
            yield self.block_size

    def chunkify(self, source):
        """Cut ``source`` into chunks; yields :class:`chunkers.Chunk` in stream order.

        ``source`` as for the content-defined chunkers (bytes-like, binary
        file object or fd, see chunkers.sources.open_source). Empty input
        yields nothing. Raises TypeError for other sources and OSError /
        ValueError when a read fails or a reader misbehaves.
        """
        src = open_source(source, self.sparse)
        if isinstance(src, memoryview):
            return self._memory(src)
        small = max(self.block_size, self.header_size) < READ_SIZE    # larger: views, as the CDC driver's
        read = _direct_read(source) if small and not self.sparse else None
        return self._stream(src) if read is None else self._read_stream(read)

    def chunk_sizes(self, source) -> list[int]:
        """The chunk sizes in bytes, in stream order, of ``source`` (as for chunkify)."""
        return [c.size for c in self.chunkify(source)]

    def _memory(self, view):
        pos, n = 0, len(view)
        for want in self._wanted():
            if pos >= n:
                return
            piece = view[pos:pos + want]
            yield Chunk(None, len(piece), True) if all_zero(piece) else Chunk(piece, len(piece), False)
            pos += len(piece)

    def _read_stream(self, read):
        """The stream of small blocks of an OS file or BytesIO read as fresh bytes per chunk (no
        copy out of a staging buffer)."""
        for want in self._wanted():
            data = _read_full(read, want)
            if data:
                yield Chunk(None, len(data), True) if all_zero(data) else Chunk(data, len(data), False)
            if len(data) < want:
                return

    def _stream(self, reader):
        """The stream of a reader. A block or header of at least READ_SIZE is read straight into a
        page-aligned read buffer of its size (csrc/readbuf.h) and yielded as a read-only view of
        it, no copy; a buffer is read into again only once no chunk refers to it
        (bufpool.take_buffer: this chunker's two kept buffers, else the pool of collected
        chunkers'), so a kept chunk never changes. From a large regular file, blocks of at least
        HALVES_MIN are read by two threads (driver.HalvesReader). Smaller ones go through one
        staging buffer and are copied out (a kept chunk then holds its own bytes, not a buffer)."""
        small = [w for w in (self.block_size, self.header_size) if 0 < w < READ_SIZE]
        staging = bytearray(max(small)) if small else None
        halves = halves_reader(reader, max(self.block_size, self.header_size))
        try:
            for want in self._wanted():
                views = want >= READ_SIZE
                buf = take_buffer(self._buffers, want) if views else staging
                with memoryview(buf) as view:
                    got = halves.read(view[:want]) if halves is not None else fill_view(reader, view, 0, want)
                    piece = view[:got].toreadonly()
                if got:
                    yield Chunk(None, got, True) if all_zero(piece) else \
                        Chunk(piece if views else bytes(piece), got, False)
                del piece               # this frame's view would keep buf in use at the next take_buffer
                if views:
                    keep_buffers(self._buffers, (buf,))
                if got < want:
                    return
        finally:
            if halves is not None:
                halves.close()


def _read_full(read, want: int) -> bytes:
    """``want`` bytes from ``read``, fewer only at the end of the stream; a short read (pipes,
    signals) is topped up, which costs the one join it needs."""
    parts, got = [], 0
    while got < want:
        data = read(want - got)
        if data is None:
            raise BlockingIOError("source has no data ready (non-blocking reader returned None)")
        if not data:
            break
        parts.append(data)
        got += len(data)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _direct_read(source):
    """``read(n) -> bytes`` reading straight into a new bytes object, for an int fd (os.read), an
    unbuffered / buffered OS file object or an ``io.BytesIO`` (their C read: one copy, where
    readinto a staging buffer and a chunk copied out of it are two); None for any other source."""
    if isinstance(source, int) and not isinstance(source, bool):
        return lambda n: os.read(source, n)
    if type(source) in (io.FileIO, io.BufferedReader, io.BytesIO):
        return source.read
    return None
