"""The scan catalogue every scan family shares: spans, alignments, masks, patterns, planted lanes.

A family passes ``make_case(group, key, data, align, state, mask)``, which
turns the shared bytes into its own ScanCase (a window or a history in front,
a chunker in the key).
"""

from __future__ import annotations

import random

from chunkers.families import FAMILIES as TABLE
from conformance.cases import catalogue, mask_shapes
from conformance.cases.catalogue import ALIGNMENTS, MASK_WIDTHS, SPAN_LENGTHS
from conformance.cases.kernels import reference_result
from conformance.cases.scan import ScanCase, mask_of


def plant(rng: random.Random, keys: list, make, accept, tries: int = 4000):
    """A case from ``make(rng, key)`` whose reference result satisfies ``accept``, or None."""
    for _ in range(tries):
        case = make(rng, rng.choice(keys))
        if accept(case, reference_result(case)):
            return case
    return None


def common_cases(family: str, seed: int, make_case) -> list:
    """The catalogue shared by the scan families; ``make_case(group, key, data, align, state, mask)``."""
    rng = random.Random(seed)
    keys = ["Z", "KS", f"R{seed}"]
    widths = MASK_WIDTHS
    out = []
    for i, n in enumerate(SPAN_LENGTHS):
        for high in (True, False):
            width = widths[(i + high) % len(widths)]
            state = (0, rng.getrandbits(64))[i % 2]
            out.append(make_case("span", keys[i % 3], rng.randbytes(n), 0, state, mask_of(width, high)))
    for align in ALIGNMENTS:
        for n in (7, 8, 9, 15, 16, 17, 31, 33, 100):
            out.append(make_case("align", keys[align % 3], rng.randbytes(n), align, rng.getrandbits(64),
                                 mask_of(rng.choice((5, 6, 7, 8, 9, 12)), TABLE[family].hash == "gear")))
    for width in widths:
        for high in (True, False):
            out.append(make_case("mask", rng.choice(keys), rng.randbytes(rng.randrange(200, 400)), 0,
                                 rng.getrandbits(64), mask_of(width, high)))
    for kind in catalogue.PATTERNS:
        for n in (100, 1000, 10000):
            for width in (4, 6, 8, 12, 20):
                out.append(make_case(kind, rng.choice(keys), catalogue.pattern(rng, kind, n), rng.randrange(64),
                                     rng.getrandbits(64), mask_of(width, TABLE[family].hash == "gear")))
    return out + mask_shapes.cases(family, seed, make_case)


def lane_cases(family: str, seed: int, make_case) -> list:
    """Cuts planted in each lane 0..7 of a block (past the first 16 bytes, inside the
    vector loop) and at the last byte of a span, for several mask widths."""
    rng = random.Random(seed + 1)
    keys = ["Z", "KS", f"R{seed}"]
    high = TABLE[family].hash == "gear"       # high masks (spec 02 §3)
    out = []
    for width in (3, 5, 6, 7, 8, 9):
        for lane in range(8):
            c = plant(rng, keys,
                      lambda r, k: make_case(f"lane-{lane}", k, r.randbytes(r.randrange(40, 90)), r.randrange(64),
                                             r.getrandbits(64), mask_of(width, high)),
                      lambda case, res: res[0] >= 16 and res[0] % 8 == lane)
            if c:
                out.append(c)
        for n in (17, 24, 31, 32, 33, 40):
            c = plant(rng, keys,
                      lambda r, k: make_case("last-byte", k, r.randbytes(n), r.randrange(64), r.getrandbits(64),
                                             mask_of(width, high)),
                      lambda case, res: res[0] == n - 1)
            if c:
                out.append(c)
    return out


def windowed_cases(family: str, seed: int, windows: tuple, bits: int) -> list:
    """The catalogue of a windowed family with ``bits``-bit states: 64-bit high masks are moved to the
    top of ``bits`` bits; the window in front of each span repeats the span's pattern."""
    rng = random.Random(seed + {64: 2, 32: 3}[bits])
    word = (1 << bits) - 1

    def make(group, key, data, align, state, mask):
        w = rng.choice(windows[:-1])
        prefix = (data * (w // len(data) + 1))[:w] if data else rng.randbytes(w)
        return ScanCase(family, group, key, prefix + data, align, state & word, (mask & word) or mask >> bits, w)

    out = common_cases(family, seed, make) + lane_cases(family, seed, make)
    for w in windows:
        for n in (0, 1, 7, 8, 9, 15, 16, 17, 100, 1000):
            for state in (0, rng.getrandbits(bits)):     # state 0 matches every mask on entry
                out.append(ScanCase(family, "windows", rng.choice(["Z", "KS"]), rng.randbytes(w + n),
                                    rng.randrange(64), state, mask_of(rng.choice((4, 6, 8, 10)), False), w))
    return out
