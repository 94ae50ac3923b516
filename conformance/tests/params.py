"""Kernel parametrization shared by the test modules."""

import pytest

import chunkers
from chunkers.registry import NOT_COVERED
from conformance.families import FAMILIES


def kernel_params(families=None):
    """pytest params (family, kernel) for every kernel of ``families`` (default: all scan families)."""
    families = list(FAMILIES) if families is None else families
    out = []
    for row in chunkers.kernels():
        if row.family in families:
            how = "not covered" if row.coverage == NOT_COVERED else f"{row.coverage} in test_tiers.py"
            marks = () if row.runs else (pytest.mark.skip(reason=f"{row.family}/{row.kernel}: {row.reason}; {how}"),)
            out.append(pytest.param((row.family, row.kernel), id=f"{row.family}-{row.kernel}", marks=marks))
    return out
