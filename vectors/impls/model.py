"""``model``: the independent pure-Python model (the model package) as an implementation."""

from __future__ import annotations

import functools

from vectors import model

from vectors.impls.base import Implementation, as_file
from vectors.impls.families import FAMILY_CHUNKERS


class Model(Implementation):
    """The independent pure-Python model (the model package): sizes only, chunks are slices."""

    name = "model"
    reads_whole = True

    def kernels(self, family):
        return [("model", None)] if family in FAMILY_CHUNKERS else []

    def chunk_sizes(self, params, source, *, key, seed, kernel=None, normal_size=0):
        data = _data(source)
        if params[0] in model.aes.NAMES and len(params) == 5:     # reuse the (slow) AES key expansion
            ctx = _aes_key(params[0], model.ZERO_KEY if key is None else key)
            return model.aes.chunk_sizes(params[0], None, *params[1:], normal_size, data, ctx=ctx)
        return model.chunk_sizes(tuple(params), data, key=key, seed=seed, normal_size=normal_size)

    def chunks(self, params, source, *, key, seed, kernel=None, normal_size=0):
        data = _data(source)
        pos = 0
        for size in self.chunk_sizes(params, data, key=key, seed=seed, normal_size=normal_size):
            piece = data[pos:pos + size]
            yield size, None if piece.count(0) == size else piece
            pos += size


def _data(source) -> bytes:
    """All bytes of ``source`` (bytes-like, binary file object or descriptor)."""
    return as_file(source).read() if isinstance(source, int) or hasattr(source, "read") else bytes(source)


@functools.lru_cache(maxsize=16)
def _aes_key(name: str, key: bytes):
    return model.aes.expand_key(name, key)
