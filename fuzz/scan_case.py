"""What the differential scan targets share: the family entry, and how a
fuzzer input becomes a mask, a planted cut and a guarded data span.

A family module (fuzz/scan_<family>.py: scan_fastcdc.py, scan_buzhash64.py,
scan_buzhash.py, scan_aes.py for the AES chunkers) builds its :class:`ScanFamily`
entries from these pieces; fuzz/scan_diff.py turns every entry into a
target.
"""

from __future__ import annotations

import functools
import hashlib
from array import array
from typing import Callable, NamedTuple

from chunkers.params import mask as make_mask
from chunkers.scanners import scanner
from conformance.cases.guard import GuardedArena
from fuzz import long_span
from fuzz.input import Input

U64 = (1 << 64) - 1
MAX_SPAN = 1 << 16          # bytes; longer data is truncated
MODEL_MAX = 256             # spans up to this length are also checked against the model
# Scan positions per case (fastcdc, buzhash64). The kernels have no structure above their 8..64-byte
# blocks and the tail: 1024 positions are 16..128 blocks plus every tail, and keep a case's cost
# under the sanitizers (linear in its length) small enough for a high exec/s.
MAX_POSITIONS = 1024
SPAN_KINDS = ("short", "long")
"""A case's span: short (the input's tail, up to MAX_POSITIONS) or long (fuzz/long_span.py: the
segment-parallel kernels' rounds, blocks and their edges)."""
KEYS = (bytes(32), bytes(range(32)), b"\xff" * 32, hashlib.sha256(b"fuzz").digest())
WINDOWS = (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4095)
"""Window sizes a windowed family's case picks among (the block and rotation boundaries)."""

_arena = GuardedArena(MAX_SPAN + 64)


class ScanFamily(NamedTuple):
    """One kernel family's scan target.

    ``decode(inp) -> case``; ``run(case, kernel) -> result`` (any comparable
    value); ``model(m, case) -> result`` with ``m`` = model (only
    called for spans of at most MODEL_MAX bytes; None: no model check for this
    case); ``span(case)`` the scanned length; ``seeds() -> list of field
    dicts`` (see fuzz.input.Script); ``kernels``: the family's name in the
    kernel registry (chunkers.registry; default: ``name``); ``reference``:
    the portable kernel every other kernel is compared with (the family's
    reference row); ``model_max``:
    the longest span (positions) also checked against the model.
    """

    name: str
    decode: Callable
    run: Callable
    model: Callable
    span: Callable
    seeds: Callable
    kernels: str = ""
    model_max: int = MODEL_MAX

    @property
    def registry_family(self) -> str:
        return self.kernels or self.name

    @property
    def reference(self) -> str:
        from chunkers.registry import reference
        return reference(self.registry_family)


def mask(inp: Input) -> int:
    """A high or low mask of 0..64 bits (spec 01 §3.1), or any u64."""
    kind = inp.choice("mask_kind", ("high", "low", "any"))
    if kind == "any":
        return inp.int("mask", 0, U64)
    return make_mask(inp.int("mask_bits", 0, 64), kind == "high")


def plant_at(inp: Input, far: int = 0):
    """Where to plant a cut: None, or ``(from_end, k)``: position k counted
    from the last (or first) scan position, 0..31 (two blocks and a tail), or
    with ``far`` sometimes 0..far (kept apart so that the near positions stay
    likely). Drawn before the data (see :func:`plant`)."""
    if not inp.bool("plant"):
        return None
    from_end = inp.bool("plant_from_end")
    if far and inp.bool("plant_far"):
        return from_end, inp.int("plant_far_pos", 0, far)
    return from_end, inp.int("plant_pos", 0, 31)


def plant(m: int, where, n: int, state_at: Callable) -> int:
    """The mask ``m`` minus the bits set in ``state_at(q)`` at the planted
    position q, so that position passes the cut test: a hit in a chosen block
    lane or tail byte however unlikely the data makes it. ``n`` positions
    (0..n-1); ``state_at(q)`` is the value the cut test masks there (the
    reference kernel's state, or the AES cut value)."""
    if where is None or n <= 0:
        return m
    from_end, k = where
    return plant_steps(m, [max(0, n - 1 - k) if from_end else min(n - 1, k)], state_at)


def plant_steps(m: int, steps, state_at: Callable) -> int:
    """The mask ``m`` minus the bits set in ``state_at(q)`` for every step q of ``steps``: a hit at
    each (a long span's plants, fuzz/long_span.py; see :func:`plant`)."""
    for q in steps:
        m &= ~state_at(q) & U64
    return m


def place(buf: bytes) -> memoryview:
    """``buf`` copied so that it ends right before the guard page (conformance/cases/guard.py)."""
    return _arena.place(buf)


def data(inp: Input, limit: int = MAX_SPAN) -> memoryview:
    """The scanned bytes (the input's tail, repeated up to 64 times, at most
    ``limit`` <= MAX_SPAN bytes) minus a 0..63-byte prefix, ending at the guard page."""
    offset = inp.int("offset", 0, 63)
    repeat = inp.int("repeat", 1, 64)
    body = inp.rest("data")
    return place((body * repeat)[:limit])[offset:]


def table(inp: Input, keyed) -> array:
    """A 256-entry u64 table as ``array('Q')`` (the scans copy it at once, no
    per-entry conversion): the family's keyed table for one of KEYS (cached),
    or, for a fuzzer key, the cheap fastcdc Gear derivation (kernels must be
    exact for any table; buzhash64's balanced derivation costs ~16k CSPRNG
    draws); then up to 4 entries overwritten by fuzzer values (in a copy:
    the cached arrays are never written)."""
    t = gear_of(inp.bytes("key", 32)) if inp.bool("custom_key") else keyed(inp.choice("key_index", KEYS))
    n = inp.int("overrides", 0, 4)
    if n:
        t = array("Q", t)
        for _ in range(n):
            t[inp.int("override_index", 0, 255)] = inp.int("override_value", 0, U64)
    return t


@functools.lru_cache(maxsize=64)
def gear_of(key: bytes) -> array:
    """fastcdc's Gear table of ``key`` (spec 02 §3), :func:`table`'s cheap table for a fuzzer key."""
    from chunkers.fastcdc import gear_table
    return array("Q", gear_table(key))


def windowed_decode(family: str, bits: int, table_of):
    """``decode(inp) -> (table, w, span, state, mask)`` of a windowed family (buzhash64 with 64-bit
    states, spec 03; the legacy buzhash with 32-bit ones, spec 04 A.3), through its scan adapter
    (chunkers.scanners): window w, the span holds pr[0 .. n+w-1]; state = hash of the window at pr[0].
    ``table_of(inp)``: the adapter's table from the input. A 64-bit mask is cut to ``bits`` bits
    as the suite's catalogue does (its low bits, or its high bits moved down when those are 0)."""
    adapter = scanner(family)
    word = (1 << bits) - 1

    def state_at(t, w, span, state, q) -> int:
        """The state at step q: the hash of the window at pr[q] xor the start state's offset from
        the true hash at pr[0], rotated left by q (the rolls carry it along, chunkers/csrc/seg_roll.h),
        in O(w) rather than a scan of q steps."""
        e, r = state ^ adapter.state(t, span[:w]), q % bits
        return adapter.state(t, span[q:q + w]) ^ ((e << r | e >> (bits - r)) & word)

    def decode(inp: Input):
        t = table_of(inp)
        m = mask(inp)
        m = m if bits == 64 else (m & word) or m >> (64 - bits)
        w = inp.choice("window", WINDOWS) if inp.bool("special_window") else inp.int("window_any", 1, 300)
        state_kind = inp.choice("state_kind", ("window", "any", "match"))
        state = inp.int("state", 0, word)
        long = inp.choice("span_kind", SPAN_KINDS) == "long"
        if long:        # the window at step q ends at pr[q + w - 1]
            span, _, steps = long_span.decode(inp, long_span.rolling(family, w), w, w - 1)
        else:
            where = plant_at(inp)
            span = data(inp, MAX_POSITIONS + w - 1)
            if len(span) < w:                       # the scan needs a whole first window
                w = max(1, len(span))
                span = span if len(span) else place(b"\0")
        if state_kind == "window":
            state = adapter.state(t, span[:w])
        elif state_kind == "match":
            state &= ~m & word                      # matches on entry: zero steps
        if long:
            return t, w, span, state, plant_steps(m, steps, lambda q: state_at(t, w, span, state, q))
        m = plant(m, where, len(span) - w + 1, lambda q: state_at(t, w, span, state, q))
        return t, w, span, state, m

    return decode


def windowed_run(family: str):
    """``run(case, kernel) -> (position, state)``: a :func:`windowed_decode` case on ``kernel``."""
    scan = scanner(family).scan

    def run(case, kernel):
        t, w, span, state, m = case
        return scan(t, w, span, state, m, kernel)
    return run
