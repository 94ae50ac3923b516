"""Scan cases aimed at the segment-parallel kernels (``seg4``, issue 13).

The ``seg4`` kernels cut a long span into rounds of 4 segments scanned as
independent chains, each warmed up over the hash window before it. Their
documented geometry (``chunkers/csrc/fastcdc/fastcdc.h``,
``chunkers/csrc/seg_roll.h``) is mirrored here only to *place* inputs: hits
planted at segment starts, at segment ends, inside the warm-up bytes of the
next segment, in several segments at once (the earliest must win, also when
chain 0 hits after a later chain at the same step), and spans just below and
above every threshold (the shortest segmented span, one full round, a full
round plus the shortest last round). Expected results still come from the
family's reference kernel (compared by the engine) and the model; the
geometry only decides where the interesting bytes go, so a drift here makes
cases less pointed, never wrong. All cases are a pure function of the seed.
"""

from __future__ import annotations

import random

from chunkers.families import FAMILIES as TABLE
from chunkers.scanners import scanner
from conformance.cases.kernels import reference_result, suite
from conformance.cases.scan import ScanCase, mask_of

CHAINS = 4
"""Segments per round (the K of every ``seg4`` kernel)."""

FASTCDC_LEN, FASTCDC_MIN, GEAR_WINDOW = 4096, 256, 64
"""Gear families (fastcdc): bytes per segment, fewest bytes per segment of a last round, Gear warm-up bytes."""

ROLL_LEN, ROLL_MIN = 16384, 256
"""Windowed families: least steps per segment (16 windows if more), fewest (2 windows if more)."""

SEG_WINDOWS = (1, 64, 4095, 8191)
"""Windows of the windowed seg groups: tiny, one word, the catalogue's largest, and one past
the point where the segment length grows with the window (16 * w > ROLL_LEN)."""

CASE_BYTES_MAX = (1 << 20) - 64
"""Longest case input (bytes, window included): the emulated tiers' input area (conformance.tools.emulate,
1 MiB) less the alignment offset; longer threshold spans are left out."""

PLANT_WIDTH = 8
"""Mask width of planted cases: a random blob hits a given step with probability 2**-8."""


def _gear(family: str) -> bool:
    """Whether ``family`` rolls the Gear hash (the table's ``hash``): no window, high masks."""
    return TABLE[family].hash == "gear"


def geometry(family: str, window: int = 0) -> tuple[int, int]:
    """(segment length, fewest segment length) of ``family``'s seg4 kernel for ``window``."""
    if _gear(family):
        return FASTCDC_LEN, FASTCDC_MIN
    return max(ROLL_LEN, 16 * window), max(ROLL_MIN, 2 * window)


def rounds(family: str, n: int, window: int = 0) -> list[tuple[int, int]]:
    """The rounds of a span of ``n`` steps: (first step, segment length) each, as the kernel cuts it."""
    seg_len, seg_min = geometry(family, window)
    out, done = [], 0
    while n - done >= CHAINS * seg_min:
        length = min((n - done) // CHAINS, seg_len)
        out.append((done, length))
        done += CHAINS * length
    return out


def threshold_spans(family: str, window: int = 0) -> list[int]:
    """Span lengths just below, at and above each threshold of the segmentation."""
    seg_len, seg_min = geometry(family, window)
    edges = (CHAINS * seg_min, CHAINS * seg_len, CHAINS * seg_len + CHAINS * seg_min,
             2 * CHAINS * seg_len + CHAINS - 1)
    return sorted({e + d for e in edges for d in (-1, 0, 1)})


def _window_state(family: str, key: str, window: bytes) -> int:
    """The true hash of ``window`` (so planted spans start with an exact state), by the family's
    scan adapter."""
    return scanner(family).state(suite(family).table(key), window)


class _Planter:
    """A span of a short repeated filler that never hits the mask, into which blobs of random bytes
    are planted so that the reference kernel's first hit lands on a chosen step."""

    def __init__(self, family: str, rng: random.Random, key: str, n: int, window: int):
        self.family, self.rng = family, rng
        self.key, self.n, self.window = key, n, window
        self.mask = mask_of(PLANT_WIDTH, _gear(family))
        self.state = rng.getrandbits(64)
        for attempt in range(64):
            # one byte, or three where a one-byte window hash cancels (legacy buzhash, w = 64:
            # every rotation occurs twice)
            unit = rng.randbytes(1 if attempt < 16 else 3)
            self.buf = bytearray((unit * ((n + window) // len(unit) + 1))[:n + window])
            if self.first_hit() == n:
                return
        raise RuntimeError(f"{family}: no filler byte avoids the mask")  # pragma: no cover

    def case(self, group: str):
        data = bytes(self.buf)
        if not self.window:
            return ScanCase(self.family, group, self.key, data, 0, self.state, self.mask)
        state = _window_state(self.family, self.key, data[:self.window])
        return ScanCase(self.family, group, self.key, data, 0, state, self.mask, self.window)

    def first_hit(self) -> int:
        """The reference's first hit step (n: none)."""
        pos = reference_result(self.case("plant"))[0]
        return self.n if pos < 0 else pos

    def plant(self, step: int, tries: int = 2000) -> bool:
        """Randomize the 8 bytes that enter the hash last at ``step`` until the reference hits
        at ``step`` and at none of the 7 steps before it that they also reach (plant later
        steps first); False, bytes restored, if none does."""
        end = step + (self.window or 1)       # past the newest byte of the hash at step
        lo = max(0, end - 8)
        saved = bytes(self.buf[lo:end])
        for _ in range(tries):
            self.buf[lo:end] = self.rng.randbytes(end - lo)
            if self._hits_first_at(step):
                return True
        self.buf[lo:end] = saved
        return False

    def _hits_first_at(self, step: int) -> bool:
        """Is ``step`` the reference's first hit among steps step-7 .. step (from exact states)?"""
        first = max(0, step - 7)
        if not self.window:   # the exact Gear state before ``first``: 64 bytes fed from any state
            warm = max(0, first - 64)
            state = self.state if warm == 0 else 0
            pre = ScanCase(self.family, "plant", self.key, bytes(self.buf[warm:first]), 0, state, (1 << 64) - 1)
            hit, state = reference_result(pre)
            if hit >= 0:                          # the state was exactly 0: try other bytes
                return False
            case = ScanCase(self.family, "plant", self.key, bytes(self.buf[first:step + 1]), 0, state, self.mask)
            return reference_result(case)[0] == step - first
        data = bytes(self.buf[first:step + 1 + self.window])
        state = _window_state(self.family, self.key, data[:self.window])
        case = ScanCase(self.family, "plant", self.key, data, 0, state, self.mask, self.window)
        return reference_result(case)[0] == step - first


def _planted(family: str, rng: random.Random, key: str, window: int, full: bool) -> list:
    """Cases with hits planted at segment edges, in warm-up bytes and in several segments."""
    seg_len, seg_min = geometry(family, window)
    n = 2 * CHAINS * seg_len + CHAINS * seg_min + 5      # two full rounds and a short last one
    reach = window or GEAR_WINDOW                        # steps whose hash reads a warm-up byte
    out = []
    targets = []
    for base, length in rounds(family, n, window)[::1 if full else 2]:
        for k in range(1, CHAINS):
            edge = base + k * length
            targets.append(("seg-start", [edge]))
            if full:
                targets.append(("seg-end", [edge - 1]))
                targets.append(("seg-warmup", [edge - 1 - rng.randrange(min(reach, length - 1))]))
        targets.append(("seg-round-end", [base + CHAINS * length - 1]))
    gap = reach + 16
    i = rng.randrange(seg_len - gap - 1)
    targets.append(("seg-multi", [k * seg_len + i for k in range(1, CHAINS)]))
    targets.append(("seg-multi-chain0-later", [k * seg_len + i for k in range(1, CHAINS)] + [i + gap]))
    targets.append(("seg-multi-chain1-later", [2 * seg_len + i, seg_len + i + gap]))
    for group, steps in targets:
        planter = _Planter(family, rng, key, n, window)
        if all(planter.plant(s) for s in sorted(steps, reverse=True)) and planter.first_hit() == min(steps):
            out.append(planter.case(group))
    return out


def cases(family: str, seed: int) -> list:
    """The seg groups of ``family``'s scan catalogue (fastcdc, buzhash64, buzhash) for ``seed``."""
    rng = random.Random(seed + 13)
    keys = ["Z", "KS", f"R{seed}"]
    bits, gear = suite(family).bits, _gear(family)
    out = []
    for window in (0,) if gear else SEG_WINDOWS:
        for n in (n for n in threshold_spans(family, window) if n + window <= CASE_BYTES_MAX):
            # sparse hits, and none (the exit state counts); one of each for the longest spans
            for width in (PLANT_WIDTH + 8, 40)[window >= 4095:]:
                mask = mask_of(width, gear) & ((1 << bits) - 1) or (1 << bits) - 1
                out.append(ScanCase(family, "seg-threshold", rng.choice(keys), rng.randbytes(n + window),
                                    rng.randrange(64), rng.getrandbits(bits), mask, window))
        if window <= 4095:       # planting scans whole spans: fewer plants where they are long
            out += _planted(family, rng, rng.choice(keys), window, full=window < 4095)
    return out
