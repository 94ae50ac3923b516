"""What the differential scan targets share: the family entry, and how a
fuzzer input becomes a mask, a planted cut and a guarded data span.

A family module (fuzz/scan_diff.py for fastcdc and buzhash64,
fuzz/scan_aes.py for the AES chunkers) builds its :class:`ScanFamily`
entries from these pieces; fuzz/scan_diff.py turns every entry into a
target.
"""

from __future__ import annotations

import hashlib
from typing import Callable, NamedTuple

from chunkers.params import mask as make_mask
from conformance.cases.guard import GuardedArena
from fuzz.input import Input

U64 = (1 << 64) - 1
MAX_SPAN = 1 << 16          # bytes; longer data is truncated
MODEL_MAX = 256             # spans up to this length are also checked against the model
# Scan positions per case (fastcdc, buzhash64). The kernels have no structure above their 8..64-byte
# blocks and the tail: 1024 positions are 16..128 blocks plus every tail, and keep a case's cost
# under the sanitizers (linear in its length) small enough for a high exec/s.
MAX_POSITIONS = 1024
KEYS = (bytes(32), bytes(range(32)), b"\xff" * 32, hashlib.sha256(b"fuzz").digest())

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
    q = max(0, n - 1 - k) if from_end else min(n - 1, k)
    return m & ~state_at(q) & U64


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
