"""fastcdc's side of the suite's scan adapter (conformance.cases.kernels): what a case's key names,
the window before its span and the model's run of it (spec 02 §4)."""

from __future__ import annotations

import functools

from chunkers.scanners import scanner
from conformance.cases.scan import ScanCase, key_bytes

FAMILY = "fastcdc"
BITS = 64
"""Bits of the scan state (the Gear fingerprint)."""


@functools.lru_cache(maxsize=None)
def table(key: str) -> object:
    """The extension's Gear table (its scan adapter's) for the key called ``key``, cached."""
    return scanner(FAMILY).table(key_bytes(key))


@functools.lru_cache(maxsize=None)
def model_table(key: str) -> list:
    """The model's Gear table (spec 02 §2) for the key called ``key``, cached."""
    from vectors.model import fastcdc
    return fastcdc.gear_table(key_bytes(key))


def window(case: ScanCase) -> int:
    """No bytes before the first position scanned: the Gear hash has no window to warm up."""
    return 0


def model(case: ScanCase) -> tuple:
    from vectors.model import fastcdc
    return fastcdc.scan(model_table(case.key), case.data, case.state, case.mask)
