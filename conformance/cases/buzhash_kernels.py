"""The legacy buzhash's side of the suite's scan adapter (conformance.cases.kernels): what a case's
key names (a seed: its scan table), the window before its span and the model's run of it (spec 04 A)."""

from __future__ import annotations

from conformance.cases.scan import ScanCase, seed_of

FAMILY = "buzhash"
BITS = 32
"""Bits of the scan state (the legacy buzhash's 32-bit sum)."""

table = seed_of
"""The scan adapter's table of the legacy buzhash is its seed."""


def window(case: ScanCase) -> int:
    """The hash window in front of the span."""
    return case.window


def model(case: ScanCase) -> tuple:
    from vectors.model import buzhash
    t = buzhash.table(seed_of(case.key))
    return buzhash.scan(t, buzhash.rotated(t, case.window), case.data, case.window, case.state, case.mask)
