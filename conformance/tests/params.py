"""Kernel parametrization shared by the test modules."""

import pytest

from vectors import impls
from conformance.cases.families import FAMILIES


def kernel_params(families=None, impl=None):
    """pytest params (family, kernel) for every kernel of ``families`` (default: all families) of the
    implementation ``impl`` (default: ours). Kernels that cannot run here, families the implementation
    lacks and an unavailable implementation show up as skipped params with the reason."""
    impl = impl or impls.Ours()
    families = list(FAMILIES) if families is None else families
    reason = impl.unavailable()
    if reason:
        return [pytest.param(None, id=f"{impl.name}-unavailable", marks=pytest.mark.skip(reason=reason))]
    out = []
    for family in families:
        rows = impl.kernels(family)
        if not rows:
            out.append(pytest.param((family, None), id=f"{family}-absent",
                                    marks=pytest.mark.skip(reason=f"{impl.name} has no {family} chunker")))
        for kernel, why in rows:
            marks = () if why is None else (pytest.mark.skip(reason=f"{family}/{kernel}: {why}"),)
            out.append(pytest.param((family, kernel), id=f"{family}-{kernel}", marks=marks))
    return out
