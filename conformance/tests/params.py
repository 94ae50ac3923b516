"""Kernel parametrization shared by the test modules."""

import pytest

import chunkers
from conformance.families import FAMILIES


def kernel_params(families=None):
    """pytest params (family, kernel) for every kernel of ``families`` (default: all scan families)."""
    families = list(FAMILIES) if families is None else families
    out = []
    for row in chunkers.kernels():
        if row.family in families:
            marks = () if row.runs else (pytest.mark.skip(reason=f"{row.family}/{row.kernel}: {row.reason}"),)
            out.append(pytest.param((row.family, row.kernel), id=f"{row.family}-{row.kernel}", marks=marks))
    return out
