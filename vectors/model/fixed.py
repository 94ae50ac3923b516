"""Fixed-size chunker reference model (spec 04 Part B)."""

from __future__ import annotations

__all__ = ["chunk_sizes"]


def chunk_sizes(block_size: int, header_size: int, data_length: int) -> list:
    """Chunk sizes of the ``fixed`` chunker for a stream of ``data_length`` bytes.

    Spec 04 B.2: if ``header_size > 0`` the first chunk is
    ``min(header_size, N)`` bytes (zero or negative = no header); then chunks
    of ``block_size`` bytes, the last one shorter if the stream ends inside
    it; ``N == 0`` -> no chunk.  Raises ValueError for ``block_size < 1`` or
    ``data_length < 0`` (the borg constructor validates nothing, but a
    non-positive block size cannot make progress).
    """
    if block_size < 1:
        raise ValueError("block_size must be >= 1")
    if data_length < 0:
        raise ValueError("data_length must be >= 0")
    sizes = []
    pos = 0
    if header_size > 0 and data_length > 0:
        h = min(header_size, data_length)
        sizes.append(h)
        pos = h
    while pos < data_length:
        n = min(block_size, data_length - pos)
        sizes.append(n)
        pos += n
    return sizes
