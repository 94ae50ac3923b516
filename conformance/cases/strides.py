"""Scan cases aimed at the strided kernels (``stride4``, issue 33).

The ``stride4`` kernels of the windowed families (buzhash64, the legacy buzhash) roll four steps per
dependent rotate and test the three steps between with the mask rotated (``chunkers/csrc/
stride_roll.h``): spans shorter than STRIDE_MIN steps and the last n mod 4 steps take the
sequential loop. That geometry is mirrored here only to *place* inputs: spans one below, at and
just above STRIDE_MIN with every tail length, and first hits planted at every step of a group of
four (its first step, tested before the rotate, and the three tested through rotated masks), in
the first groups, the middle, the last full group and the tail; each also as a near miss, where
the state shares exactly one bit with the mask. A hit is planted by its mask: the bits where the
reference's state at that step is 0, so that state is the first to miss every mask bit (an earlier
state would have to lie within its bits; then another random span is drawn). Expected results come
from the reference kernel and the model; the geometry only decides where the interesting steps go. A
pure function of the seed.
"""

from __future__ import annotations

import random

from conformance.cases.kernels import reference_result, suite
from conformance.cases.scan import ScanCase

STRIDE, STRIDE_MIN = 4, 2048
"""Steps per dependent rotate; fewest steps the strided loop takes (csrc/stride_roll.h)."""

STRIDE_WINDOWS = (1, 64, 4095)
"""Windows of the stride groups: tiny, one word, the catalogue's largest."""


def threshold_spans() -> list[int]:
    """Span lengths one below and at STRIDE_MIN, and above it with every tail length (n mod 4)."""
    return [STRIDE_MIN - 1, *range(STRIDE_MIN, STRIDE_MIN + 2 * STRIDE)]


def planted_steps(n: int) -> list[int]:
    """The steps a first hit is planted at in a span of ``n`` steps: every step of the first two
    groups, of a group in the middle and of the last full group, and the tail's steps."""
    body = n - n % STRIDE
    middle = (n // 2) - (n // 2) % STRIDE
    return sorted({*range(2 * STRIDE), *range(middle, middle + STRIDE), *range(body - STRIDE, n)})


def _state_at(case: ScanCase, step: int) -> int | None:
    """The reference's state at ``step`` of ``case`` (None where a state before it is exactly 0,
    which no mask of this kind plants around)."""
    data = case.data[:case.window + step]
    pos, state = reference_result(case._replace(data=data, mask=(1 << suite(case.family).bits) - 1))
    return None if 0 <= pos < step else state


PLANT_TRIES = 32
"""Random spans tried per planted step before it is left out (none has been, with these seeds)."""


def _planted(family: str, rng: random.Random, key: str, n: int, window: int, step: int) -> tuple | None:
    """(case, its state at ``step``): a random span of ``n`` steps whose mask is the bits where the
    reference's state at ``step`` is 0, if that makes ``step`` its first hit (else None: an earlier
    state lay within those bits)."""
    bits = suite(family).bits
    full = (1 << bits) - 1
    base = ScanCase(family, "stride-hit", key, rng.randbytes(n + window), rng.randrange(64), rng.getrandbits(bits),
                    full, window)
    state = _state_at(base, step)
    if state is None or state == full:
        return None
    hit = base._replace(mask=full & ~state)
    return (hit, state) if reference_result(hit)[0] == step else None


def cases(family: str, seed: int) -> list:
    """The stride groups of ``family``'s scan catalogue (buzhash64, buzhash) for ``seed``."""
    rng = random.Random(seed + 17)
    bits = suite(family).bits
    full = (1 << bits) - 1
    keys = ["Z", "KS", f"R{seed}"]
    out = []
    for window in STRIDE_WINDOWS:
        for n in threshold_spans():
            for mask in (full, rng.getrandbits(bits) & rng.getrandbits(bits) & rng.getrandbits(bits)):
                out.append(ScanCase(family, "stride-threshold", rng.choice(keys), rng.randbytes(n + window),
                                    rng.randrange(64), rng.getrandbits(bits), mask, window))
        n = STRIDE_MIN + STRIDE * rng.randrange(64) + rng.randrange(STRIDE)
        for step in planted_steps(n):
            for _ in range(PLANT_TRIES):
                planted = _planted(family, rng, rng.choice(keys), n, window, step)
                if planted is not None:
                    hit, state = planted
                    out += [hit, hit._replace(group="stride-near-miss", mask=hit.mask | (state & -state))]
                    break
    return out
