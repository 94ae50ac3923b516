"""A stand-in for ``borg.chunkers`` with borg 2.0.0b25's interface, wrapping this project's chunkers.

Tests put its parent directory on ``sys.path`` (or PYTHONPATH) to exercise
the borg adapter end to end: constructor signatures, kernel selection by
environment variable (borg's kernel names only: a name borg lacks is a
ValueError ending in ``Valid values: ...``, as borg's is) and the ``kernel``
attribute, ``chunkify(fileobj)`` yielding chunks with ``.data`` (None when all
zero) and ``.meta["size"]``.

``BORG_STUB_FAULT`` plants one deliberate fault (see FAULTS): the suite's
routes must each find every fault they can reach (the golden vectors, the
qemu route of ci/borg-cross.sh, ``python -m fuzz run impl_chunks --impl borg``).
Some are reachable only on one kind of machine or by some inputs: ``endian``
only on a big-endian host (qemu-s390x), ``neon`` only on aarch64
(qemu-aarch64), ``tail`` only where AVX2 runs, ``key`` only for keys whose
first two bytes are 5a a5 (no fixed key of the vectors or corpus is).
"""

import os
import platform
import sys

import chunkers as ours

CH_DATA, CH_ALLOC = 0, 1

FAULTS = {
    "seed": "buzhash uses seed + 1",
    "header": "fixed ignores the header size",
    "merge": "fastcdc merges the last two chunks of a stream",
    "bytes": "buzhash64 flips a byte of every third data chunk (sizes unchanged)",
    "kernel": "fastcdc reports a kernel other than the one in use",
    "lane": "fastcdc and buzhash64 blockwise drop lane 5: a cut at a stream offset = 5 (mod 8) is skipped "
            "(its chunk merged with the next where that fits in max_size)",
    "tail": "fastcdc and buzhash64 avx2: the last chunk of a stream is one byte short (the byte is lost)",
    "mask": "buzhash64 scalar tests one mask bit too many (hash_mask_bits + 1)",
    "endian": "fastcdc on a big-endian host loads the key's first 8 bytes byte-reversed (another gear table)",
    "neon": "fastcdc neon (aarch64 only) merges the second and third chunk of a stream",
    "key": "rabin-aes with a key starting 5a a5: the last cut of a stream one byte early",
}

KERNELS = {"BORG_FASTCDC_KERNEL": ("avx512", "avx2", "neon", "blockwise", "scalar"),
           "BORG_BUZHASH64_KERNEL": ("avx512", "avx2", "neon", "blockwise", "scalar"),
           "BORG_AES_CHUNKER_KERNEL": ("vaes", "aes-ni", "aes-arm64", "evp")}
"""borg 2.0.0b25's kernel names per selector (spec 01 §11.2, 06 §8.4)."""


DEFAULTS = {"BORG_FASTCDC_KERNEL": {"x86_64": ("scalar",), "aarch64": ("neon", "blockwise"), "*": ("blockwise",)},
            "BORG_BUZHASH64_KERNEL": {"x86_64": ("scalar",), "aarch64": ("blockwise",), "*": ("blockwise",)},
            "BORG_AES_CHUNKER_KERNEL": {"x86_64": ("vaes", "aes-ni", "evp"), "aarch64": ("aes-arm64", "evp"),
                                        "*": ("evp",)}}
"""borg 2.0.0b25's default per selector and machine, the first that runs (spec 01 §11.3)."""
FAMILY = {"BORG_FASTCDC_KERNEL": "fastcdc", "BORG_BUZHASH64_KERNEL": "buzhash64", "BORG_AES_CHUNKER_KERNEL": "aes"}


def _fault(name):
    return os.environ.get("BORG_STUB_FAULT", "") == name


class Chunk:
    def __init__(self, data, **meta):
        self.data, self.meta = data, meta


def _kernel(var):
    name = os.environ.get(var, "").strip().lower() or None
    if name is not None and name not in KERNELS[var]:
        raise ValueError(f"{var}={name!r}: not a kernel of this build. Valid values: {','.join(KERNELS[var])}")
    if name is None:
        machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
        order = DEFAULTS[var].get(machine, DEFAULTS[var]["*"])
        return next(k for k in order if ours.registry.why_not(FAMILY[var], k) is None)
    return name


def _joined(a, b):
    (da, m), (db, n) = a, b
    data = None if da is None and db is None else \
        (bytes(m) if da is None else bytes(da)) + (bytes(n) if db is None else bytes(db))
    return data, m + n


class _Wrapped:
    key = None

    def chunkify(self, fd=None, fh=-1):
        impl = self._impl
        chunks = []
        for i, c in enumerate(impl.chunkify(fd)):
            data = c.data
            if data is not None and _fault("bytes") and impl.name == "buzhash64" and i % 3 == 2:
                data = bytes([data[0] ^ 1]) + bytes(data[1:])
            chunks.append((None if data is None else bytes(data), c.size))
        family, kernel = impl.name, getattr(impl, "kernel", None)
        if _fault("merge") and family == "fastcdc" and len(chunks) >= 2:
            chunks[-2:] = [_joined(*chunks[-2:])]
        if _fault("lane") and family in ("fastcdc", "buzhash64") and kernel == "blockwise":
            chunks = self._drop_lane(chunks, 5)
        if _fault("tail") and family in ("fastcdc", "buzhash64") and kernel == "avx2" and chunks \
                and chunks[-1][1] >= 2:
            data, size = chunks[-1]
            chunks[-1] = (None if data is None else data[:-1], size - 1)
        if _fault("neon") and family == "fastcdc" and kernel == "neon" and len(chunks) >= 3 \
                and chunks[1][1] + chunks[2][1] <= impl.max_size:
            chunks[1:3] = [_joined(chunks[1], chunks[2])]
        if _fault("key") and family == "rabin-aes" and bytes(self.key or b"")[:2] == b"\x5a\xa5" \
                and len(chunks) >= 2 and chunks[-2][1] > impl.min_size + 1:
            data, size = _joined(*chunks[-2:])
            cut = chunks[-2][1] - 1
            data = bytes(size) if data is None else data
            chunks[-2:] = [(data[:cut], cut), (data[cut:], size - cut)]
        for data, size in chunks:
            if data is not None and data.count(0) == len(data):
                data = None
            yield Chunk(data, size=size, allocation=CH_ALLOC if data is None else CH_DATA)

    def _drop_lane(self, chunks, lane):
        out, offset = [], 0
        for chunk in chunks:
            if out and (offset % 8) == lane and out[-1][1] + chunk[1] <= self._impl.max_size:
                offset += chunk[1]
                out[-1] = _joined(out[-1], chunk)
                continue
            offset += chunk[1]
            out.append(chunk)
        return out


class ChunkerFastCDC(_Wrapped):
    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level=0, *, normal_size=0,
                 sparse=False):
        if _fault("endian") and sys.byteorder == "big" and key is not None and len(key) == 32:
            key = bytes(key[7::-1]) + bytes(key[8:])
        self._impl = ours.FastCDC(key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size,
                                  kernel=_kernel("BORG_FASTCDC_KERNEL"), sparse=sparse)
        self.kernel = "scalar" if _fault("kernel") and self._impl.kernel != "scalar" else self._impl.kernel


class ChunkerBuzHash64(_Wrapped):
    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, nc_level=0, *,
                 normal_size=0, sparse=False):
        args = [key, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, nc_level, normal_size]
        kernel = _kernel("BORG_BUZHASH64_KERNEL")
        self._impl = ours.BuzHash64(*args, kernel=kernel, sparse=sparse)
        if _fault("mask") and self._impl.kernel == "scalar" and hash_mask_bits < 64:
            args[3] += 1
            self._impl = ours.BuzHash64(*args, kernel=kernel, sparse=sparse)
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
        self.key = key
        self.kernel = self._impl.kernel


class ChunkerRabinAES(_AES):
    CLASS = ours.RabinAES


class ChunkerGoldilocksAES(_AES):
    CLASS = ours.GoldilocksAES


class ChunkerToeplitzAES(_AES):
    CLASS = ours.ToeplitzAES
