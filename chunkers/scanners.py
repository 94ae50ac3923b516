"""The scan adapter of each family with a scan kernel (Family.scan in chunkers.families).

One call shape for every family, so that bench's scan mode, the suite's scan
cases (conformance.cases.kernels, which add the model and the emulator binding)
and the fuzz scan targets (fuzz/scan_diff.py) drive any family alike. Each
family's module (chunkers.<family>) defines the three functions:

``scan_table(key)``: what its scan reads, from the chunker's key (32 bytes) or,
for a seeded family (the legacy buzhash), its seed (an int).

``scan_window(table, window, data, state, mask, kernel) -> (position, state)``:
the scan kernel ``kernel`` over ``data``, whose first ``window`` bytes are the
window before the first position scanned (0 for fastcdc; the hash window for
buzhash64 and the legacy buzhash, spec 03 §5, 04 A.3; the 64-byte history for
the AES chunkers, spec 06 §7.2). The result is the family's own scan's.

``scan_state(table, window) -> state``: the state before the first position
scanned after the bytes-like ``window`` (the hash of the window; the AES digest
of the history; 0 for fastcdc).

``scan_every_byte(kernel, data, key, bits)``: the scan over every byte of
``data`` (after a hit it goes on at the next byte) with a ``bits``-bit mask:
bench's scan mode. A windowed family without its own (buzhash64, the legacy
buzhash) gets :func:`windowed_every_byte`.
"""

from __future__ import annotations

import importlib
from typing import Callable, NamedTuple

from chunkers.families import CHUNKERS, FAMILIES

BENCH_KEY = bytes(32)
BENCH_SEED = 0
BENCH_BITS = 21
"""The key (or seed), and the mask bits, of bench's scan of every byte (the chunk-mode params' mask)."""


class Scanner(NamedTuple):
    """A family's scan entry points (see the module docstring)."""

    family: str
    table: Callable        # key (or seed) -> table
    scan: Callable         # (table, window, data, state, mask, kernel) -> (position, state)
    state: Callable        # (table, window bytes) -> the state before the first position
    every_byte: Callable   # (kernel, data) -> None, with BENCH_KEY (or BENCH_SEED) and BENCH_BITS


def scanner(family: str) -> Scanner:
    """The Scanner of ``family`` (a family of the table with a scan kernel); KeyError otherwise."""
    if not FAMILIES[family].scan:
        raise KeyError(f"{family} has no scan kernel")
    mod = importlib.import_module(f"chunkers.{family}")
    seeded = any(c.credential == "seed" for c in CHUNKERS.values() if c.family == family)
    credential = BENCH_SEED if seeded else BENCH_KEY    # the legacy buzhash's table is its seed

    def every_byte(kernel, data):
        if hasattr(mod, "scan_every_byte"):
            mod.scan_every_byte(kernel, data, credential, BENCH_BITS)
        else:
            windowed_every_byte(mod, kernel, data, credential, BENCH_BITS)

    return Scanner(family, mod.scan_table, mod.scan_window, mod.scan_state, every_byte)


def windowed_every_byte(mod, kernel, data, key, bits: int, window: int = 4095) -> None:
    """The scan adapter of family module ``mod`` (a windowed hash) with ``kernel`` over every byte of
    ``data`` (after a hit it goes on at the next byte; the table of ``key``, a low mask of ``bits``
    bits, a ``window``-byte window): bench's scan mode."""
    from chunkers.params import mask as make_mask
    t, m, pos = mod.scan_table(key), make_mask(bits, False), 0
    state = mod.scan_state(t, data[:window])
    while pos + window < len(data):
        j, state = mod.scan_window(t, window, data[pos:], state, m, kernel)
        pos += max(j, 1)
        if j == 0:    # the window at pos matched on entry: step past it
            state = mod.scan_state(t, data[pos:pos + window])
