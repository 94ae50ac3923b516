"""fastcdc's cases (conformance.cases.families): its scan catalogue and its chunk-level params."""

from __future__ import annotations

from conformance.cases import fastcdc_limits, segments
from conformance.cases.common import common_cases, lane_cases
from conformance.cases.scan import ScanCase

FAMILY = "fastcdc"

CHUNK_PARAMS = ["fastcdc,6,12,8,0", "fastcdc,6,12,8,1", "fastcdc,6,12,8,2", "fastcdc,6,12,8,3",
                "fastcdc,10,16,12,2", "fastcdc,19,23,21,2"]
"""Params of the chunk-level checks: every NC level at small sizes, then larger ones."""


def cases(seed: int) -> list:
    """The scan catalogue: the shared one, the seg4 groups and the limit-boundary cases."""
    def make(group, key, data, align, state, mask):
        return ScanCase(FAMILY, group, key, data, align, state, mask)
    return (common_cases(FAMILY, seed, make) + lane_cases(FAMILY, seed, make) + segments.cases(FAMILY, seed)
            + fastcdc_limits.cases(seed))
