"""buzhash64's side of the suite's scan adapter (conformance.cases.kernels): what a case's key names,
the window before its span and the model's run of it (spec 03 §5)."""

from __future__ import annotations

import functools

from chunkers.scanners import scanner
from conformance.cases.scan import ScanCase, key_bytes

FAMILY = "buzhash64"
BITS = 64
"""Bits of the scan state (the cyclic polynomial's sum)."""


@functools.lru_cache(maxsize=None)
def table(key: str) -> object:
    """The extension's table (its scan adapter's) for the key called ``key``, cached."""
    return scanner(FAMILY).table(key_bytes(key))


@functools.lru_cache(maxsize=None)
def model_table(key: str) -> list:
    """The model's table (spec 03 §2) for the key called ``key``, cached."""
    from vectors.model import buzhash64
    return buzhash64.table(key_bytes(key))


def window(case: ScanCase) -> int:
    """The hash window in front of the span."""
    return case.window


def model(case: ScanCase) -> tuple:
    from vectors.model import buzhash64
    t = model_table(case.key)
    return buzhash64.scan(t, buzhash64.rotated(t, case.window), case.data, case.window, case.state, case.mask)
