"""buzhash64's cases (conformance.cases.families): its scan catalogue and its chunk-level params."""

from __future__ import annotations

from conformance.cases import segments, strides
from conformance.cases.common import windowed_cases

FAMILY = "buzhash64"

WINDOWS = (1, 2, 63, 64, 65, 4095)
"""Windows of the scan catalogue; the last one only in the 'windows' group."""

CHUNK_PARAMS = ["buzhash64,6,12,8,64,0", "buzhash64,6,12,8,63,1", "buzhash64,6,12,8,63,2",
                "buzhash64,6,12,8,65,3", "buzhash64,10,16,12,4095,2", "buzhash64,19,23,21,4095,2"]
"""Params of the chunk-level checks: every NC level at small sizes and windows, then larger ones."""


def cases(seed: int) -> list:
    """The scan catalogue: the shared one with 64-bit states and windows, the seg4 and the stride4 groups."""
    return windowed_cases(FAMILY, seed, WINDOWS, 64) + segments.cases(FAMILY, seed) + strides.cases(FAMILY, seed)
