"""Expected results of a vector test: computing them from chunks, comparing them.

A result object (schema ``result``) has ``chunkCount``; the chunk sizes as
``sizes`` (up to SIZES_MAX chunks) or ``sizesSha256``, the SHA-256 of the
sizes as ASCII decimals joined by commas (spec 05 §1's "sizes digest", in
full); and the SHA-256 of each chunk's bytes as ``chunkSha256`` (up to
DIGESTS_MAX chunks) or ``chunksSha256``, the SHA-256 of those 32-byte
digests concatenated in chunk order (spec 05 §7's "run value").
"""

from __future__ import annotations

import hashlib
import itertools
from typing import NamedTuple


SIZES_MAX = 64
DIGESTS_MAX = 8


class Run(NamedTuple):
    """What one implementation produced for one test: every chunk's size and SHA-256 (32 bytes)."""

    sizes: list
    digests: list

    def result(self) -> dict:
        """The result object of this run, as stored in a vector file."""
        out = {"chunkCount": len(self.sizes)}
        if len(self.sizes) <= SIZES_MAX:
            out["sizes"] = list(self.sizes)
        else:
            out["sizesSha256"] = sizes_sha256(self.sizes)
        if len(self.digests) <= DIGESTS_MAX:
            out["chunkSha256"] = [d.hex() for d in self.digests]
        else:
            out["chunksSha256"] = hashlib.sha256(b"".join(self.digests)).hexdigest()
        return out


def sizes_sha256(sizes) -> str:
    """SHA-256 (hex) of the sizes written as ASCII decimals joined by single commas."""
    return hashlib.sha256(",".join(map(str, sizes)).encode()).hexdigest()


def run_of(chunks) -> Run:
    """The Run of an iterable of ``(size, data)`` pairs (data None: ``size`` zero bytes)."""
    sizes, digests = [], []
    for size, data in chunks:
        if data is not None and len(data) != size:
            raise ValueError(f"chunk {len(sizes)} reports size {size} but has {len(data)} bytes")
        sizes.append(size)
        digests.append(hashlib.sha256(bytes(size) if data is None else data).digest())
    return Run(sizes, digests)


def differences(expected: dict, run: Run) -> list[str]:
    """Readable lines saying how ``run`` departs from the result object ``expected`` (empty: it matches)."""
    got = run.result()
    out = []
    if got["chunkCount"] != expected["chunkCount"]:
        out.append(f"chunkCount: expected {expected['chunkCount']}, got {got['chunkCount']}")
    if "sizes" in expected:
        if expected["sizes"] != run.sizes:
            out.append(f"sizes: {first_cut_difference(expected['sizes'], run.sizes)}")
    elif expected["sizesSha256"] != got.get("sizesSha256", sizes_sha256(run.sizes)):
        out.append(f"sizesSha256: expected {expected['sizesSha256'][:16]}..., got "
                   f"{sizes_sha256(run.sizes)[:16]}... (first sizes got: {run.sizes[:6]})")
    if "chunkSha256" in expected:       # may list more than DIGESTS_MAX digests: compare them all
        want = expected["chunkSha256"]
        bad = [i for i, (a, b) in enumerate(zip(want, run.digests)) if a != b.hex()]
        if bad or len(want) != len(run.digests):
            where = f"first at chunk {bad[0]}" if bad else "count differs"
            out.append(f"chunkSha256: {where}")
    elif expected["chunksSha256"] != hashlib.sha256(b"".join(run.digests)).hexdigest():
        out.append("chunksSha256 differs (chunk contents)")
    return out


def first_cut_difference(want: list[int], got: list[int]) -> str:
    """Where two size lists first part: chunk index and byte offset of the cut."""
    a, b = list(itertools.accumulate(want)), list(itertools.accumulate(got))
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"chunk {i}: cut at offset {x} expected, {y} got"
    return f"chunk {min(len(a), len(b))}: {len(a)} cuts expected, {len(b)} got"
