"""The chunk record the chunkers yield (spec 01 §8)."""

from typing import NamedTuple


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
