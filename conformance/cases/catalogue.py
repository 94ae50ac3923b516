"""The adversarial catalogue: deterministic inputs for chunk-level checks, and
the span lengths, alignments and mask widths for scan-level checks.

Everything here is a pure function of a seed, so a reported mismatch can be
reproduced from its description alone.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from vectors.generators import lcg, sha_ctr
from vectors.grid import PATTERNS, PERIODS

SPAN_LENGTHS = sorted(
    set(range(0, 81))
    | {8 * k + d for k in range(1, 17) for d in (-1, 0, 1)}
    | {16 * k + d for k in range(1, 17) for d in (-1, 0, 1)}
    | {32 * k + d for k in range(1, 9) for d in (-1, 0, 1)}
    | {8191, 8192, 8193, 16383, 16384, 16385}
)
"""Scan span lengths in bytes: every length 0..80, around multiples of 8, 16 and 32 (±1), and 8k/16k ±1."""

ALIGNMENTS = range(64)
"""Start offsets of a span relative to a 64-byte aligned buffer."""

MASK_WIDTHS = list(range(1, 49)) + [6, 7, 8, 9] * 3
"""Mask widths in bits: 1..48, with extra weight on 6..9 (frequent lane candidates and rechecks)."""

class Input(NamedTuple):
    """A named deterministic input for chunk-level checks."""

    name: str
    data: bytes


def _periodic(rng: random.Random, period: int, n: int) -> bytes:
    unit = rng.randbytes(period)
    return (unit * (n // period + 1))[:n]


def _zero_islands(rng: random.Random, n: int) -> bytes:
    buf = bytearray(rng.randbytes(n))
    pos = 0
    while pos < n:
        pos += rng.randrange(1, 20000)
        length = rng.choice((1, 7, 63, 64, 65, 4096, 70000))
        buf[pos:pos + length] = bytes(len(buf[pos:pos + length]))
        pos += length
    return bytes(buf)


def pattern(rng: random.Random, kind: str, n: int) -> bytes:
    """``n`` bytes of the catalogue pattern ``kind``.

    Kinds: ``random``, ``const-00``, ``const-41``, ``const-ff``, ``periodic-P``
    (P in PERIODS), ``high-bytes`` (every byte >= 0x80), ``zero-islands``
    (random data with runs of zeros), ``lcg`` and ``sha-ctr`` (spec 05 §1).
    """
    if kind == "random":
        return rng.randbytes(n)
    if kind.startswith("const-"):
        return bytes([int(kind[6:], 16)]) * n
    if kind.startswith("periodic-"):
        return _periodic(rng, int(kind[9:]), n)
    if kind == "high-bytes":
        return bytes(b | 0x80 for b in rng.randbytes(n))
    if kind == "zero-islands":
        return _zero_islands(rng, n)
    if kind == "lcg":
        return lcg(n)
    if kind == "sha-ctr":
        return sha_ctr(n)
    raise ValueError(f"unknown pattern {kind!r}")


def corpus(seed: int, size: int = 1 << 20) -> list[Input]:
    """The built-in chunk-level corpus: one ``size``-byte input per pattern, plus short inputs."""
    rng = random.Random(seed)
    items = [Input(f"{kind}({size})", pattern(rng, kind, size)) for kind in PATTERNS]
    items += [Input(f"random({n})", rng.randbytes(n)) for n in (0, 1, 63, 64, 65, 129, 130, 4097)]
    return items
