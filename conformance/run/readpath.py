"""The main job's read-path rows (issue 35): the implementation under test reads files, by
descriptor and by file object, and its chunks (sizes and each chunk's bytes) are compared with
those it cuts from the same bytes in memory. Cut points never depend on how the bytes arrive
(spec 01 §8: holes of a sparse file read as zeros, chunk sizes unchanged).

Rows of family ``read path`` (:func:`rows`), all on small files in a fresh tmp directory:

* ``sparse files``: holes at the start, in the middle, at the end, data after holes, a file that
  is all hole; read with ``sparse=True`` and ``False``, by descriptor and by file object. A file
  system that reports no holes (SEEK_HOLE) and an implementation without a sparse option are said
  in the row (skipped; what could run is still compared). A file that changed or vanished during
  the check is named in the row and not compared.
* ``hostile reads``: file objects whose reads return short counts (1 byte, odd sizes) and a pipe
  (a descriptor) fed in odd pieces.
* ``kept chunks``: chunk data kept across buffer refills, later streams and ``Fixed`` blocks,
  compared byte for byte after the later streams ran (a read buffer handed to the next stream
  while a kept chunk refers to it shows here; docs/read-path.md). Only for an implementation
  whose chunk data stays valid (``kept_chunks``); borg's is valid until its next chunk only.
* ``large files``: a file of 7 MiB with a zero gap, by descriptor and by unbuffered file object,
  for the keyed driver-run chunker and Fixed with blocks of 2 MiB and of 4 MiB + 4097 bytes: over
  our driver's read-ahead threshold (4 MiB left), and Fixed's blocks of 2 MiB and more read in
  two halves by two threads (docs/read-path.md), a last block ending inside either half included.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import os
import random
import tempfile
import threading
from typing import NamedTuple

from chunkers.families import CHUNKERS, FAMILIES as TABLE
from conformance.cases.scan import key_bytes, seed_of
from conformance.run.engine import Mismatch

FAMILY = "read path"
UNIT = 64 << 10
"""Hole and data extents are laid out in 64 KiB units: a multiple of every common file system block."""


def _params(chunker, **values) -> tuple:
    """The params tuple of ``chunker`` (a chunkers.families.Chunker) with its fields from ``values``."""
    return (chunker.name, *(values[f] for f in chunker.fields))


_KEYED, _SEEDED = (next(c for c in CHUNKERS.values() if c.credential == kind) for kind in ("key", "seed"))
_BLOCKS = next(c for c in CHUNKERS.values() if TABLE[c.family].streamed)
"""The table's first keyed and first seeded chunker (driver-run: fastcdc, the legacy buzhash) and its
streamed one (Fixed)."""
_CDC = dict(chunk_min=12, chunk_max=16, chunk_mask=14, nc_level=2, window_size=4095)

PARAMS = (_params(_KEYED, **_CDC), _params(_SEEDED, **_CDC), _params(_BLOCKS, block_size=4096, header_size=0))
"""A driver-run chunker of each kind and Fixed: 4-64 KiB chunks, several per small file."""

LAYOUTS = {     # name -> (data extents (offset, length), file size in bytes)
    "hole at the start": (((2 * UNIT, 2 * UNIT),), 4 * UNIT),
    "hole in the middle": (((0, UNIT), (3 * UNIT, UNIT)), 4 * UNIT),
    "hole at the end": (((0, UNIT + 1000),), 4 * UNIT),
    "data after holes": (((UNIT, 5000), (3 * UNIT + 123, 4000)), 5 * UNIT + 777),
    "all hole": ((), 4 * UNIT),
}

SCHEDULES = {"1-byte reads": (1,), "odd short reads": (7, 1, 4093, 65537, 3, 333331)}
"""Byte counts a hostile file object's reads return in turn (never more than asked)."""


class Row(NamedTuple):
    """One read-path row of the matrix."""

    check: str
    status: str             # passed / failed / skipped
    note: str
    problems: list          # engine.Mismatch
    runs: int = 0
    bytes: int = 0


class _Tally:
    def __init__(self):
        self.problems, self.notes, self.runs, self.bytes = [], [], 0, 0

    def row(self, check: str, skipped: str = "") -> Row:
        status = "failed" if self.problems else "skipped" if skipped else "passed"
        return Row(check, status, "; ".join(filter(None, [skipped, *self.notes])), self.problems, self.runs,
                   self.bytes)


def rows(impl, seed: int, tmp: str | None = None) -> list[Row]:
    """The read-path rows of ``impl`` (an impls.Implementation); files under a new directory in
    ``tmp`` (default: the tmp directory), removed afterwards. ``seed``: the file contents."""
    try:
        with tempfile.TemporaryDirectory(prefix="conformance-readpath-", dir=tmp) as d:
            return [guarded("sparse files", lambda: sparse_row(impl, seed, d)),
                    guarded("hostile reads", lambda: hostile_row(impl, seed)),
                    guarded("kept chunks", lambda: kept_row(impl, seed, d)),
                    guarded("large files", lambda: large_row(impl, seed, d))]
    except OSError as e:        # no room or no permission there: said, never a silent pass
        return [Row("files", "skipped", f"no files could be made in the tmp directory ({e}): the read path "
                                        "not checked", [])]


def guarded(check: str, row) -> Row:
    """``row()``, or a failed row naming what it raised (an adapter that raises where no single run
    is to blame, e.g. on the bytes in memory): one line in the matrix, never a traceback."""
    try:
        return row()
    except Exception as e:      # noqa: BLE001
        return Row(check, "failed", "", [Mismatch(check, f"{type(e).__name__}: {e}", "a result", "an exception")])


def _run(impl, params, source, sparse: bool = False) -> list:
    """(size, SHA-256 of the bytes) per chunk; an all-zero chunk given as None counts as its zeros."""
    kw = dict(key=key_bytes("Z"), seed=seed_of("Z"), kernel=None)
    if sparse:
        kw["sparse"] = True
    return [(size, hashlib.sha256(bytes(size) if data is None else bytes(data)).hexdigest()[:16])
            for size, data in impl.chunks(params, source, **kw)]


def _outcome(read):
    """``read()`` (-> chunk list), or the exception it raised (an implementation that raises on a
    file fails its row)."""
    try:
        return read()
    except Exception as e:      # noqa: BLE001
        return e


def _compare(t: _Tally, impl, params, what: str, want: list, got) -> None:
    """Record ``got`` (a chunk list or an exception, see _outcome) against ``want``."""
    where = f"{impl.name} {','.join(map(str, params))}: {what}"
    if isinstance(got, Exception):
        t.problems.append(Mismatch("read path", where, "chunks", f"{type(got).__name__}: {got}"))
        return
    t.runs += 1
    t.bytes += sum(s for s, _ in got)
    if got != want:
        first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        t.problems.append(Mismatch("read path", f"{where}, first difference at chunk {first}",
                                   f"{len(want)} chunks, {sum(s for s, _ in want)} bytes as in memory",
                                   f"{len(got)} chunks, {sum(s for s, _ in got)} bytes"))


def _content(seed: int, extents, size: int) -> bytes:
    rng = random.Random(seed)
    data = bytearray(size)
    for off, n in extents:
        data[off:off + n] = bytes(b | 1 for b in rng.randbytes(n))     # no zero byte: data never reads as a hole
    return bytes(data)


def write_sparse(path: str, extents, size: int, data: bytes) -> None:
    """Write ``data``'s extents only (seek past the holes) and set the size with truncate."""
    with open(path, "wb") as f:
        for off, n in extents:
            f.seek(off)
            f.write(data[off:off + n])
        f.truncate(size)


def holes_reported(path: str) -> bool:
    """Whether the file system at ``path`` (a file that is all hole) reports its hole (SEEK_HOLE at 0
    finds one before the end); False where the OS has no SEEK_HOLE."""
    if not hasattr(os, "SEEK_HOLE"):
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_HOLE) < os.fstat(fd).st_size
    finally:
        os.close(fd)


def _identity(path: str):
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def read_file(impl, params, path: str, how: str, sparse: bool) -> list:
    """Chunks of ``path`` read by ``how`` (``descriptor`` or ``file object``)."""
    if how == "descriptor":
        fd = os.open(path, os.O_RDONLY)
        try:
            return _run(impl, params, fd, sparse)
        finally:
            os.close(fd)
    with open(path, "rb") as f:
        return _run(impl, params, f, sparse)


def sparse_row(impl, seed: int, d: str) -> Row:
    t = _Tally()
    skipped = []
    if not impl.sparse:
        skipped.append(f"{impl.name} has no sparse option: sparse=True not checked")
    files = []
    for i, (name, (extents, size)) in enumerate(LAYOUTS.items()):
        data = _content(seed + i, extents, size)
        path = os.path.join(d, f"sparse-{i}")
        write_sparse(path, extents, size, data)
        files.append((name, path, data))
    if not holes_reported(files[-1][1]):
        skipped.append(f"the tmp file system at {d} reports no holes (SEEK_HOLE): sparse reads ran on dense files")
    changed = set()         # files that changed or vanished: named once, not compared from then on
    for params in PARAMS:
        for name, path, data in files:
            want = _run(impl, params, data)
            for sparse in (False, True)[:1 + impl.sparse]:
                for how in ("descriptor", "file object"):
                    if path in changed:
                        continue
                    try:
                        before = _identity(path)
                        got = _outcome(lambda: read_file(impl, params, path, how, sparse))
                        after = _identity(path)
                    except OSError:
                        after = None
                    if after != before:
                        changed.add(path)
                        t.notes.append(f"{path} ({name}) vanished during the check: not compared" if after is None
                                       else f"{path} ({name}) changed during the check ({before[0]} -> {after[0]} "
                                            "bytes): not compared")
                        continue
                    _compare(t, impl, params, f"{name} ({len(data)} bytes), sparse={sparse}, by {how}", want, got)
    return t.row("sparse files", "; ".join(skipped))


class HostileFile(io.RawIOBase):
    """A binary file object over ``data`` whose reads return the counts of ``schedule`` in turn (at
    most what was asked): the short reads a pipe, a socket or a FUSE file may give."""

    def __init__(self, data: bytes, schedule):
        self.data, self.pos, self.counts = memoryview(data), 0, itertools.cycle(schedule)

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), next(self.counts), len(self.data) - self.pos)
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


def _pipe_chunks(impl, params, data: bytes) -> list:
    """Chunks of ``data`` read from a pipe's descriptor, written into it in odd pieces by a thread."""
    r, w = os.pipe()

    def feed():
        try:
            pos = 0
            for n in itertools.cycle((1, 4093, 7, 65536 + 5)):
                if pos >= len(data):
                    break
                pos += os.write(w, data[pos:pos + n])
        except OSError:         # the reader stopped (an implementation that raised)
            pass
        finally:
            os.close(w)
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        return _run(impl, params, r)
    finally:
        os.close(r)             # a writer still blocked gets EPIPE
        writer.join()


def hostile_row(impl, seed: int) -> Row:
    t = _Tally()
    data = _content(seed, ((0, 3 * UNIT + 4321), (5 * UNIT, UNIT)), 6 * UNIT + 99)   # zeros between: zero chunks
    for params in PARAMS:
        want = _run(impl, params, data)
        for name, schedule in SCHEDULES.items():
            part = data[:UNIT // 2] if schedule == (1,) else data      # a call per byte: a short input
            _compare(t, impl, params, f"a file object giving {name} {schedule}",
                     want if part is data else _run(impl, params, part),
                     _outcome(lambda: _run(impl, params, HostileFile(part, schedule))))
        _compare(t, impl, params, "a pipe by descriptor, written in odd pieces", want,
                 _outcome(lambda: _pipe_chunks(impl, params, data)))
    return t.row("hostile reads")


KEPT_PARAMS = (_params(_KEYED, **_CDC), _params(_BLOCKS, block_size=1 << 20, header_size=4096))
"""fastcdc: 1 MiB + 64 KiB read buffers, refilled within a 3 MiB file; Fixed: 1 MiB blocks, read
straight into a read buffer each (docs/read-path.md)."""


def kept_row(impl, seed: int, d: str) -> Row:
    t = _Tally()
    if not impl.kept_chunks:
        return t.row("kept chunks", f"{impl.name} does not keep chunk data valid past its next chunk: not checked")
    kw = dict(key=key_bytes("Z"), seed=seed_of("Z"), kernel=None)
    for params in KEPT_PARAMS:
        streams = []
        for i in range(3):      # the first stream's chunks are kept while the two later ones run
            data = random.Random(seed * 7 + i).randbytes(3 * (1 << 20) + 12345)
            path = os.path.join(d, f"kept-{i}")
            with open(path, "wb") as f:
                f.write(data)
            with open(path, "rb", buffering=0) as f:
                try:
                    kept = list(impl.chunks(params, f, **kw))
                except Exception as e:      # noqa: BLE001
                    t.problems.append(Mismatch("kept chunks", f"{','.join(map(str, params))} stream {i}",
                                               "chunks", f"{type(e).__name__}: {e}"))
                    break
            streams.append((data, kept))
            t.runs += 1
            t.bytes += len(data)
        for i, (data, kept) in enumerate(streams):      # after every later stream ran
            pos = 0
            for j, (size, view) in enumerate(kept):
                if (bytes(size) if view is None else bytes(view)) != data[pos:pos + size]:
                    t.problems.append(Mismatch("kept chunks", f"{','.join(map(str, params))}: chunk {j} of stream "
                                               f"{i} (at {pos}, {size} bytes) compared after {len(streams) - 1 - i} "
                                               "later streams", "its bytes as read", "other bytes"))
                    break
                pos += size
    return t.row("kept chunks")


LARGE_SIZE = (7 << 20) + 12345
LARGE_EXTENTS = ((0, 3 << 20), ((4 << 20) - 1000, LARGE_SIZE - (4 << 20) + 1000))
"""Data, then zeros from 3 MiB to 4 MiB - 1000 (zero chunks), then data to the end."""
LARGE_PARAMS = (_params(_KEYED, **_CDC), _params(_BLOCKS, block_size=2 << 20, header_size=100000),
                _params(_BLOCKS, block_size=(4 << 20) + 4097, header_size=0))
"""The keyed driver-run chunker; Fixed with 2 MiB blocks after a 100,000-byte header (the last block,
960,921 bytes, ends inside its first half of 1 MiB), and with 4 MiB + 4097 blocks (halves rounded
down to 4 KiB: 2 MiB; the second block, 3,153,976 bytes, ends inside its second half)."""


def large_row(impl, seed: int, d: str) -> Row:
    t = _Tally()
    if impl.reads_whole:
        return t.row("large files", f"{impl.name} reads a file whole before chunking it: not checked")
    data = _content(seed, LARGE_EXTENTS, LARGE_SIZE)
    path = os.path.join(d, "large")
    with open(path, "wb") as f:
        f.write(data)
    for params in LARGE_PARAMS:
        want = _run(impl, params, data)
        _compare(t, impl, params, f"{LARGE_SIZE} bytes by descriptor", want,
                 _outcome(lambda: read_file(impl, params, path, "descriptor", False)))
        with open(path, "rb", buffering=0) as f:
            _compare(t, impl, params, f"{LARGE_SIZE} bytes by unbuffered file object", want,
                     _outcome(lambda: _run(impl, params, f)))
    return t.row("large files")
