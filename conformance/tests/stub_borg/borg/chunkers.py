"""A stand-in for ``borg.chunkers`` with borg 2.0.0b25's interface, wrapping this project's chunkers.

Tests put its parent directory on ``sys.path`` (or PYTHONPATH) to exercise
the borg adapter end to end: constructor signatures, kernel selection by
environment variable and the ``kernel`` attribute, ``chunkify(fileobj)``
yielding chunks with ``.data`` (None when all zero) and ``.meta["size"]``.
``BORG_STUB_FAULT`` plants one deliberate fault (see FAULTS) that the
vectors must catch.
"""

import os

import chunkers as ours

CH_DATA, CH_ALLOC = 0, 1

FAULTS = {
    "seed": "buzhash uses seed + 1",
    "header": "fixed ignores the header size",
    "merge": "fastcdc merges the last two chunks of a stream",
    "bytes": "buzhash64 flips a byte of every third data chunk (sizes unchanged)",
    "kernel": "fastcdc reports a kernel other than the one in use",
}


def _fault(name):
    return os.environ.get("BORG_STUB_FAULT", "") == name


class Chunk:
    def __init__(self, data, **meta):
        self.data, self.meta = data, meta


def _kernel(var):
    return os.environ.get(var, "").strip().lower() or None


class _Wrapped:
    def chunkify(self, fd=None, fh=-1):
        sizes = []
        for i, c in enumerate(self._impl.chunkify(fd)):
            data = c.data
            if data is not None and _fault("bytes") and self._impl.name == "buzhash64" and i % 3 == 2:
                data = bytes([data[0] ^ 1]) + bytes(data[1:])
            sizes.append((data, c.size))
        if _fault("merge") and self._impl.name == "fastcdc" and len(sizes) >= 2:
            (a, m), (b, n) = sizes[-2:]
            a = bytes(m) if a is None else bytes(a)
            b = bytes(n) if b is None else bytes(b)
            sizes[-2:] = [(a + b, m + n)]
        for data, size in sizes:
            yield Chunk(data, size=size, allocation=CH_ALLOC if data is None else CH_DATA)


class ChunkerFastCDC(_Wrapped):
    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level=0, *, normal_size=0,
                 sparse=False):
        self._impl = ours.FastCDC(key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size,
                                  kernel=_kernel("BORG_FASTCDC_KERNEL"), sparse=sparse)
        self.kernel = "scalar" if _fault("kernel") and self._impl.kernel != "scalar" else self._impl.kernel


class ChunkerBuzHash64(_Wrapped):
    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, nc_level=0, *,
                 normal_size=0, sparse=False):
        self._impl = ours.BuzHash64(key, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, nc_level,
                                    normal_size, kernel=_kernel("BORG_BUZHASH64_KERNEL"), sparse=sparse)
        self.kernel = self._impl.kernel


class Chunker(_Wrapped):
    def __init__(self, seed, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, sparse=False):
        seed = seed + 1 if _fault("seed") and seed < (1 << 31) - 1 else seed
        self._impl = ours.BuzHash(seed, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size,
                                  sparse=sparse)


class ChunkerFixed(_Wrapped):
    def __init__(self, block_size, header_size=0, sparse=False):
        self._impl = ours.Fixed(block_size, 0 if _fault("header") else header_size, sparse=sparse)


class _AES(_Wrapped):
    CLASS = None

    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level=0, *, normal_size=0,
                 sparse=False):
        self._impl = self.CLASS(key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size,
                                kernel=_kernel("BORG_AES_CHUNKER_KERNEL"), sparse=sparse)
        self.kernel = self._impl.kernel


class ChunkerRabinAES(_AES):
    CLASS = ours.RabinAES


class ChunkerGoldilocksAES(_AES):
    CLASS = ours.GoldilocksAES


class ChunkerToeplitzAES(_AES):
    CLASS = ours.ToeplitzAES
