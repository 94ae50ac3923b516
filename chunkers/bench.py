"""Throughput benchmark of every runnable kernel (``python -m chunkers bench``).

Chunking mode: the whole driver on ``size`` bytes of seeded random data in
memory, each family's default-sized params, best of ``repeat`` runs.
The fixed chunker is run on a stream over the same data (it must produce
each chunk's bytes; in memory it would only slice). Scan-every-byte mode: the family's scan kernel alone over every byte of the
same data (after a hit, the scan continues at the next byte), so the min_size
skip does not flatter the numbers. Results are MB/s (10**6 bytes per second).
"""

from __future__ import annotations

import json
import random
import time

import chunkers
from chunkers.families import CHUNKERS, FAMILIES, scan_families
from chunkers.scanners import scanner

BENCH_PARAMS = {f: [c.bench for c in CHUNKERS.values() if c.family == f] for f in FAMILIES}
"""Family -> chunker params strings benchmarked in chunking mode (chunkers.families: Chunker.bench)."""


STREAMED = tuple(f.name for f in FAMILIES.values() if f.streamed)
"""Families benchmarked reading a stream over the data (see _Stream): in memory, fixed cuts slices
without touching a byte, a meaningless figure; from a stream it must produce each chunk's bytes."""


class _Stream:
    """A binary reader over a memoryview: each readinto copies, as a read from a cached file does."""

    def __init__(self, view: memoryview):
        self.view, self.pos = view, 0

    def readinto(self, buf) -> int:
        n = min(len(buf), len(self.view) - self.pos)
        buf[:n] = self.view[self.pos:self.pos + n]
        self.pos += n
        return n

PIECE = 1 << 26
"""Bytes of random data drawn per call (one randbytes call of 256 MiB or more overflows)."""


def seeded_bytes(size: int, seed: int) -> bytearray:
    """``size`` pseudo-random bytes from ``random.Random(seed)``, drawn PIECE bytes at a time (the
    same bytes as one randbytes call up to PIECE). MemoryError if they do not fit."""
    rng, out = random.Random(seed), bytearray()
    while len(out) < size:
        out += rng.randbytes(min(PIECE, size - len(out)))
    return out


SCANNERS = scan_families()
"""The families with a scan mode: each one's scan adapter (chunkers.scanners) scans every byte once."""


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def measure(size: int = 64 << 20, seed: int = 0, repeat: int = 3, families=None, scan: bool = True,
            progress=None, chunk: bool = True) -> list[dict]:
    """Rows ``{family, kernel, mode, params, mb_s}`` for every runnable kernel.

    ``families``: family names to include (None = all). ``scan`` / ``chunk``:
    include the scan-every-byte / chunking mode. ``progress``: an optional
    callable(str) told what runs next.
    """
    data = memoryview(seeded_bytes(size, seed))
    rows = []
    for k in chunkers.kernels():
        if not k.runs or (families and k.family not in families):
            continue
        for params in BENCH_PARAMS.get(k.family, []) if chunk else ():
            if progress:
                progress(f"{k.family}/{k.kernel} chunk {params}")
            chunker = chunkers.make_chunker(params, kernel=k.kernel)
            if k.family in STREAMED:
                secs = _best(lambda: sum(1 for _ in chunker.chunkify(_Stream(data))), repeat)
            else:
                secs = _best(lambda: sum(1 for _ in chunker.chunkify(data)), repeat)
            rows.append({"family": k.family, "kernel": k.kernel, "mode": "chunk",
                         "params": f"{params} (stream)" if k.family in STREAMED else params,
                         "mb_s": size / secs / 1e6})
        if scan and k.family in SCANNERS:
            if progress:
                progress(f"{k.family}/{k.kernel} scan every byte")
            every_byte = scanner(k.family).every_byte
            secs = _best(lambda: every_byte(k.kernel, data), repeat)
            rows.append({"family": k.family, "kernel": k.kernel, "mode": "scan", "params": "", "mb_s": size / secs / 1e6})
    return rows


def run(size: int, seed: int, repeat: int, families, scan: bool, as_json: bool) -> list[dict]:
    """Measure with a progress display and print the table (or JSON)."""
    from rich.table import Table

    from chunkers.console import PipeConsole
    console = PipeConsole(stderr=as_json)
    with console.status("benchmark") as status:
        rows = measure(size, seed, repeat, families, scan, progress=lambda s: status.update(f"running {s}"))
    if as_json:
        print(json.dumps(rows, indent=2))
        return rows
    table = Table(title=f"MB/s, {size >> 20} MiB seeded random data in memory, best of {repeat}")
    for col in ("family", "kernel", "mode", "params", "MB/s"):
        table.add_column(col, justify="right" if col == "MB/s" else "left")
    for r in rows:
        table.add_row(r["family"], r["kernel"], r["mode"], r["params"], f"{r['mb_s']:.0f}")
    console.print(table)
    return rows
