"""A scan case (one call of a family's scan kernel, spec 02 §4, 03 §5), its keys and its placement."""

from __future__ import annotations

import ctypes
import random
from typing import NamedTuple

from chunkers.params import mask
from conformance.cases.guard import GuardedArena

KEYS = {"Z": bytes(32), "KS": bytes(range(32))}
"""Named chunker keys (spec 05 §1); a seeded random key is added as ``R<seed>``."""

SEEDS = {"Z": 0, "KS": 1849058162}
"""The legacy buzhash seed used where a key is named (spec 05 §1 seeds); ``R<seed>`` is random."""

M32 = 0xFFFFFFFF

MODEL_MAX_SPAN = 600
"""Cases up to this many bytes are also run on the pure-Python model."""

GUARD = -1
"""``ScanCase.align`` of a span that ends right before a no-access page (conformance/cases/guard.py):
a kernel that reads past its span faults (SIGSEGV) instead of reading heap bytes unnoticed."""


class ScanCase(NamedTuple):
    """One scan call. ``data`` holds the span's bytes (windowed families: the
    window at the span start plus the n bytes that enter), placed at
    ``align`` bytes past a 64-byte boundary of the kernel's input buffer."""

    family: str
    group: str
    key: str
    data: bytes
    align: int
    state: int
    mask: int
    window: int = 0

    def describe(self) -> str:
        """A reproducer: everything needed to rebuild the call."""
        w = f", window={self.window}" if self.window else ""
        align = "guard" if self.align == GUARD else self.align
        return (f"{self.family} scan [{self.group}] key={self.key} len={len(self.data)} align={align} "
                f"state={self.state:#018x} mask={self.mask:#018x}{w} data={self.data.hex()[:96]}"
                f"{'...' if len(self.data) > 48 else ''}")


def key_bytes(name: str) -> bytes:
    """The 32-byte key called ``name``: ``Z``, ``KS`` or ``R<seed>`` (seeded random)."""
    if name in KEYS:
        return KEYS[name]
    return random.Random(int(name[1:])).randbytes(32)


def seed_of(name: str) -> int:
    """The legacy buzhash seed (a C int) for the key called ``name`` (see key_bytes)."""
    if name in SEEDS:
        return SEEDS[name]
    return random.Random(int(name[1:])).getrandbits(32) - (1 << 31)


_ARENA: list = []       # the one GuardedArena of this process, grown on demand


def aligned(data: bytes, align: int) -> memoryview:
    """A view of ``data`` starting ``align`` bytes past a 64-byte boundary, or (``align`` = GUARD)
    ending right before a no-access page; the guarded view is valid until the next guarded call."""
    if align == GUARD:
        if not _ARENA or _ARENA[0].size < len(data):
            _ARENA[:] = [GuardedArena(max(len(data), 1 << 16))]
        return _ARENA[0].place(data)
    buf = bytearray(64 + align + len(data))
    base = (-_address(buf)) % 64
    buf[base + align:base + align + len(data)] = data
    return memoryview(buf)[base + align:base + align + len(data)]


def _address(buf: bytearray) -> int:
    return ctypes.addressof((ctypes.c_char * max(len(buf), 1)).from_buffer(buf))


def mask_of(width: int, high: bool) -> int:
    return mask(width, high)
