"""Chunk-level input classes that the corpus runs never reach (issue 12), shared by
the pytest suite (conformance/tests/test_input_classes.py) and the main job.

* **nc levels**: every ``nc_level`` the rules allow (spec 01 §4.1: ``hash_mask_bits -
  nc >= 1`` and ``hash_mask_bits + nc <= 48``) for mask widths 8, 12, 24 and 40, with
  the automatic normal size and an explicit one, for every chunker that has ``nc_level``
  (fastcdc, buzhash64, rabin-aes, goldilocks-aes, toeplitz-aes). Expected sizes come
  from the pure-Python model (the model package), never from a kernel.
* **all-zero classification** (spec 01 §8): a single non-zero byte at every offset of
  short inputs, and periodic inputs with one non-zero byte per period, cut by every
  family; each chunk's "all zero" flag (data None) is checked against the bytes
  themselves, and each non-zero chunk's data against the input slice.

Every case is a pure function of the family and a seed; a mismatch names the
params, key, normal size, kernel and input (see :class:`ClassCase`).
"""

from __future__ import annotations

import functools
import io
import random
from typing import NamedTuple

from chunkers.families import CHUNKERS as TABLE_CHUNKERS, FAMILIES as TABLE, chunkers_of
from conformance.run import engine
from conformance.cases import aes_family, keystream
from conformance.cases.families import FAMILIES
from conformance.cases.scan import aligned
from conformance.run.engine import Mismatch
from vectors.grid import NC_LENGTH, NC_MASK_BITS, NORMAL_SIZES, max_nc

_ZERO_FIELDS = ({"chunk_min": 12, "chunk_max": 14, "chunk_mask": 13, "window_size": 63, "nc_level": 0,
                 "block_size": 4096, "header_size": 0},
                {"chunk_min": 6, "chunk_max": 12, "chunk_mask": 8, "window_size": 63, "nc_level": 2,
                 "block_size": 100, "header_size": 7})

_OWN_ZERO_PARAMS = {aes_family.FAMILY: aes_family.ZERO_PARAMS}
"""Families whose own case module chooses their zero params (one per chunker)."""


def zero_params(family: str) -> list:
    """The zero params of ``family``: its own module's (_OWN_ZERO_PARAMS), else the two shapes of
    _ZERO_FIELDS for its first chunker's params fields (chunkers.families)."""
    if family in _OWN_ZERO_PARAMS:
        return _OWN_ZERO_PARAMS[family]
    chunker = TABLE_CHUNKERS[chunkers_of(family)[0]]
    return [(chunker.name, *(values[f] for f in chunker.fields)) for values in _ZERO_FIELDS]


ZERO_PARAMS = {family: zero_params(family) for family in TABLE}
"""Per family: params whose min size (4096) keeps every short input one chunk, then params that cut
the periodic inputs into many short chunks."""


SHORT_LENGTHS = tuple(range(1, 81)) + (127, 128, 129, 255, 256, 257, 1023, 1024, 1025)
"""Lengths of the short inputs; each one is tried with its non-zero byte at every offset."""

PERIODS = (1, 2, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 20000)
"""Periods (bytes) of the one-non-zero-byte-per-period inputs."""

PERIODIC_LENGTH = 1 << 16


class ClassCase(NamedTuple):
    """One chunk-level run: ``params`` (tuple), key name (families.key_bytes), explicit normal size
    (0 = automatic), input bytes placed ``align`` bytes past a 64-byte boundary, read from memory
    or as a stream (``stream``)."""

    group: str
    params: tuple
    key: str
    normal_size: int
    data: bytes
    align: int = 0
    stream: bool = False

    def describe(self) -> str:
        """A reproducer: everything needed to rebuild the run (the input's non-zero bytes when sparse)."""
        nz = [i for i, b in enumerate(self.data) if b] if self.data.count(0) * 2 > len(self.data) else None
        what = (f"zeros({len(self.data)}) with non-zero bytes at {nz[:8]}{'...' if len(nz) > 8 else ''}"
                if nz is not None else f"{len(self.data)} bytes {self.data[:24].hex()}...")
        return (f"[{self.group}] params={self.params} key={self.key} normal_size={self.normal_size} "
                f"align={self.align} {'stream' if self.stream else 'memory'} input={what}")


def _nc_params(chunker: str, bits: int, nc: int) -> tuple:
    values = {"chunk_min": 6, "chunk_max": 12, "chunk_mask": bits, "window_size": 63, "nc_level": nc}
    return (chunker, *(values[f] for f in TABLE_CHUNKERS[chunker].fields))


def nc_chunkers(family: str) -> tuple:
    """The chunkers of ``family`` that take nc_level (the table's params fields; none for the legacy
    buzhash and fixed)."""
    return tuple(c for c in FAMILIES[family].chunkers if "nc_level" in TABLE_CHUNKERS[c].fields)


@functools.lru_cache(maxsize=None)
def nc_cases(family: str, seed: int) -> tuple:
    """Every (mask width, nc_level) of NC_MASK_BITS x 0..max_nc for each nc chunker of ``family``,
    with the automatic normal size and one explicit size of NORMAL_SIZES (also at nc 0, where it
    must be ignored). Keys rotate over Z, KS, a seeded one and the key-stream boundary keys."""
    rng = random.Random(f"nc/{family}/{seed}")
    keys = ["Z", "KS", f"R{seed}"] + list(keystream.boundary_keys(family))
    out = []
    for chunker in nc_chunkers(family):
        for bits in NC_MASK_BITS:
            for nc in range(max_nc(bits) + 1):
                for ns in (0, NORMAL_SIZES[(bits + nc) % len(NORMAL_SIZES)]):
                    out.append(ClassCase(f"nc-{bits}-{nc}", _nc_params(chunker, bits, nc), keys[len(out) % len(keys)],
                                         ns, rng.randbytes(NC_LENGTH), rng.randrange(64)))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def zero_cases(family: str, seed: int) -> tuple:
    """A single non-zero byte at every offset of every SHORT_LENGTHS input (one chunk each, the first
    ZERO_PARAMS of the family), the all-zero inputs themselves, and one-non-zero-byte-per-period
    inputs (every PERIODS, the family's other params, from memory and as a stream)."""
    rng = random.Random(f"zero/{family}/{seed}")
    one_chunk, *many = zero_params(family)
    out = []
    for n in SHORT_LENGTHS:
        out.append(ClassCase("zero-short", one_chunk, "Z", 0, bytes(n), rng.randrange(64)))
        for j in range(n):
            data = bytearray(n)
            data[j] = rng.choice((1, 0x80, 0xff, rng.randrange(1, 256)))
            out.append(ClassCase("zero-offset", one_chunk, "KS", 0, bytes(data), rng.randrange(64)))
    for params in many:
        for period in PERIODS:
            data, value = bytearray(PERIODIC_LENGTH), rng.randrange(1, 256)
            for i in range(rng.randrange(period), PERIODIC_LENGTH, period):
                data[i] = value
            for stream in (False, True):
                out.append(ClassCase(f"zero-period-{period}", params, "Z", 0, bytes(data), rng.randrange(64), stream))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def model_sizes(case: ClassCase) -> tuple:
    """The pure-Python model's chunk sizes for a case (cached: every kernel is compared with them)."""
    return tuple(engine.model_sizes(case.params, case.data, case.key, case.normal_size))


def nc_mismatches(family: str, kernel: str | None, seed: int, cases=None) -> list[Mismatch]:
    """nc cases (default: all of nc_cases) where ``kernel`` of the implementation under test cuts
    otherwise than the model (or breaks the size bounds)."""
    out = []
    for i, case in enumerate(nc_cases(family, seed) if cases is None else cases):
        m = engine.chunk_mismatch(case.params, aligned(case.data, case.align), list(model_sizes(case)),
                                  key=case.key, kernel=kernel, normal_size=case.normal_size,
                                  source=f"conformance.cases.classes.nc_cases({family!r}, {seed})[{i}] "
                                         f"{case.describe()}")
        if m:
            out.append(m)
    return out


class ReadintoOnly(io.RawIOBase):
    """A binary stream of ``data`` offering readinto only (neither a BytesIO nor an OS file): the
    chunkers' generic reader path, which a BytesIO does not take everywhere (fixed reads a BytesIO's
    small blocks with its own read)."""

    def __init__(self, data: bytes):
        self._src = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, b):
        return self._src.readinto(b)


def zero_mismatch(case: ClassCase, kernel: str | None, where: str = "") -> Mismatch | None:
    """Where ``kernel``'s chunks of ``case`` are classified all-zero otherwise than their bytes say
    (or carry other bytes than the input's), or None. A stream case is read both from a BytesIO and
    from a ReadintoOnly. ``where`` names the case in the reproducer."""
    feeds = ([("BytesIO", io.BytesIO(case.data)), ("readinto-only", ReadintoOnly(case.data))] if case.stream
             else [("memory", aligned(case.data, case.align))])
    for feed, src in feeds:
        pos = 0
        for i, (size, data) in enumerate(engine.chunks(case.params, src, case.key, kernel, case.normal_size)):
            piece = case.data[pos:pos + size]
            zero = piece.count(0) == len(piece)
            if (data is None) != zero or (data is not None and bytes(data) != piece):
                got = "all-zero (no data)" if data is None else f"data {bytes(data)[:16].hex()}..."
                return Mismatch("all-zero classification", f"kernel={kernel} {where}{case.describe()} ({feed}); "
                                f"chunk {i} at offset {pos} ({size} bytes)",
                                "all-zero" if zero else f"data {piece[:16].hex()}...", got)
            pos += size
        if pos != len(case.data):
            return Mismatch("all-zero classification", f"kernel={kernel} {where}{case.describe()} ({feed})",
                            f"{len(case.data)} bytes", f"chunks covering {pos} bytes")
    return None


def zero_mismatches(family: str, kernel: str | None, seed: int, cases=None) -> list[Mismatch]:
    """Every zero case (default: all of zero_cases) that ``kernel`` classifies wrongly."""
    out = []
    for i, case in enumerate(zero_cases(family, seed) if cases is None else cases):
        m = zero_mismatch(case, kernel, f"conformance.cases.classes.zero_cases({family!r}, {seed})[{i}] ")
        if m:
            out.append(m)
    return out


def mismatches(family: str, kernel: str | None, seed: int) -> tuple[int, list[Mismatch]]:
    """The main job's entry: (runs, mismatches) of every class case of ``family`` on ``kernel``."""
    nc = nc_cases(family, seed) if nc_chunkers(family) else ()
    zero = zero_cases(family, seed)
    return len(nc) + len(zero), nc_mismatches(family, kernel, seed, nc) + zero_mismatches(family, kernel, seed, zero)


def check_cell(cell, seed: int, reference: bool) -> None:
    """Add the class cases to a main-job cell (conformance.run.job.Cell) of a kernel that runs here:
    every case counts as a chunk run; with ``reference`` (our family's reference kernel) also the
    key-derivation and rolling-step checks of conformance.cases.keystream. Mismatches fail the cell."""
    runs, found = mismatches(cell.family, cell.kernel, seed)
    if reference:
        found += keystream.mismatches(cell.family, seed)
    cell.chunk_runs += runs
    if found:
        cell.status = "failed"
        cell.mismatches += found
