"""Scan-kernel identity: any kernel against its family's scalar kernel (spec 02 §5.6, 03 §7.4).

A *runner* is a callable taking the arguments of ``chunkers.<family>.scan``
without ``kernel`` and returning what it returns: the extension's own kernel
(on this CPU, or on another architecture under qemu-user, see
conformance.cross) or an emulated one (conformance.emulate). :func:`check`
runs a case list through the runner and through the extension's ``scalar``
kernel and reports every difference in return value or exit state.

The cases follow the specs' test recommendations: every span length 0..80
(all residues mod 8 and 16, below and above 16, so a first hit can fall on
every lane and in every tail), masks of 1..48 bits in the family's position
and in the other one (the NEON comparison test is exact only for high masks),
the zero mask and masks with holes, entry states that already match, zero and
constant runs, the keyed tables of spec 05 plus a random table, and some
longer spans.
"""

from __future__ import annotations

import importlib
import random
from typing import NamedTuple

KEYS = (bytes(32), bytes(range(32)))
"""The spec's keys Z0 and KS (05 §1)."""

SPANS = range(81)
LONG_SPANS = (100, 127, 128, 129, 255, 256, 1000, 4099)
WINDOWS = (1, 2, 7, 8, 63, 64, 65)
"""buzhash64 windows: the spec's 1, 2, 63, 64, 65 (rotation 0 at 64) and both sides of a block."""

M64 = (1 << 64) - 1


def _mask(bits: int, high: bool) -> int:
    low = (1 << bits) - 1
    return (low << (64 - bits)) & M64 if high else low


def _masks(rng: random.Random, high: bool) -> list:
    """Widths 1..48 in the family's position, 1..20 in the other, zero, all ones, two with holes."""
    return ([_mask(b, high) for b in range(1, 49)] + [_mask(b, not high) for b in range(1, 21)]
            + [0, M64] + [rng.getrandbits(64) & rng.getrandbits(64) for _ in range(2)])


def _data(rng: random.Random, n: int) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:
        return bytes(n)
    if kind == 1:
        return bytes([rng.randrange(256)]) * n
    if kind == 2:   # runs of random length
        out = bytearray()
        while len(out) < n:
            out += bytes([rng.randrange(256)]) * rng.randrange(1, 20)
        return bytes(out[:n])
    return rng.randbytes(n)


def _grid(rng: random.Random, high: bool):
    """(span length, mask index, mask): every mask for spans 0..80, a sample for the long ones."""
    masks = _masks(rng, high)
    for n in (*SPANS, *LONG_SPANS):
        for i, mask in enumerate(masks if n in SPANS else masks[:24:3]):
            yield n, i, mask


def _tables(rng: random.Random, keyed) -> list:
    """The keyed tables of KEYS and one random table."""
    return [keyed(k) for k in KEYS] + [[rng.getrandbits(64) for _ in range(256)]]


def fastcdc_cases(seed: int = 1) -> list:
    """Argument tuples ``(gear, data, state, mask)`` for ``chunkers.fastcdc.scan``."""
    from chunkers.fastcdc import gear_table
    rng = random.Random(seed)
    gears = _tables(rng, gear_table)
    return [(rng.choice(gears), _data(rng, n), 0 if rng.randrange(3) == 0 else rng.getrandbits(64), mask)
            for n, _, mask in _grid(rng, high=True)]


def buzhash64_cases(seed: int = 1) -> list:
    """Argument tuples ``(table, window, data, state, mask)`` for ``chunkers.buzhash64.scan``;
    one in eight entry states already matches (no step at all)."""
    from chunkers.buzhash64 import table
    rng = random.Random(seed)
    tables = _tables(rng, table)
    cases = []
    for n, i, mask in _grid(rng, high=False):
        window = WINDOWS[(n + i) % len(WINDOWS)]
        state = rng.getrandbits(64)
        cases.append((rng.choice(tables), window, _data(rng, n + window),
                      state & ~mask if rng.randrange(8) == 0 else state, mask))
    return cases


CASES = {"fastcdc": fastcdc_cases, "buzhash64": buzhash64_cases}
"""family -> case generator (argument tuples of ``chunkers.<family>.scan`` without ``kernel``)."""


class Report(NamedTuple):
    """Outcome of :func:`check`: ``mismatches`` holds one line per differing case (empty: identical)."""

    family: str
    kernel: str
    cases: int
    mismatches: list
    hit_lanes: frozenset    # (index of the scalar hit) mod 16 over all hitting cases: shows the cases reach every lane


def native(family: str, kernel: str):
    """The extension's ``kernel`` of ``family`` as a runner."""
    scan = importlib.import_module(f"chunkers.{family}").scan
    return lambda *args: scan(*args, kernel)


def _describe(args) -> str:
    *_, data, state, mask = args
    extra = f"window={args[1]} " if len(args) == 5 else ""
    return f"{extra}len={len(data)} state={state:#x} mask={mask:#x} data={bytes(data[:24]).hex()}"


def check(family: str, kernel: str, runner, cases=None) -> Report:
    """Run ``cases`` (default: the family's full list) through ``runner`` and the scalar kernel.

    A case whose (return value, exit state) differs, or whose runner raises
    (for example an emulator fault on a read past the input), is a mismatch.
    """
    cases = CASES[family]() if cases is None else cases
    scalar = native(family, "scalar")
    mismatches, lanes = [], set()
    for args in cases:
        want = scalar(*args)
        try:
            got = runner(*args)
        except Exception as e:  # noqa: BLE001 - a trapping kernel is a finding, not a crash of the check
            got = f"{type(e).__name__}: {e}"
        if got != want:
            mismatches.append(f"{_describe(args)}: got {got}, scalar {want}")
        hit = want[0] if family == "fastcdc" else (want[0] if want[0] < len(args[2]) - args[1] else -1)
        if hit >= 0:
            lanes.add(hit % 16)
    return Report(family, kernel, len(cases), mismatches, frozenset(lanes))
