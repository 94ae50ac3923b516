"""The legacy buzhash's cases (conformance.cases.families): its scan catalogue and its chunk-level params."""

from __future__ import annotations

from conformance.cases import segments, strides
from conformance.cases.common import windowed_cases

FAMILY = "buzhash"

WINDOWS = (1, 2, 31, 32, 33, 63, 64, 65, 4095)
"""Windows around the 32-bit rotation wrap (w mod 32 = 31, 0, 1); the last one only in the 'windows' group."""

CHUNK_PARAMS = ["buzhash,6,12,8,65", "buzhash,6,12,8,63", ("buzhash", 6, 12, 4, 1), "buzhash,10,16,12,4095",
                "buzhash,19,23,21,4095"]
"""Params of the chunk-level checks (strings and a tuple)."""


def cases(seed: int) -> list:
    """The scan catalogue: the shared one with 32-bit states and windows, the seg4 and the stride4 groups."""
    return windowed_cases(FAMILY, seed, WINDOWS, 32) + segments.cases(FAMILY, seed) + strides.cases(FAMILY, seed)
