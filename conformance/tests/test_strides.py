"""The stride groups of the scan catalogue (conformance.cases.strides): their spans straddle the
strided loop's threshold with every tail length, and their planted first hits land on every step
of a group of four, per the reference kernel. Identity of every kernel on these cases is checked
with the rest of the catalogue (test_scan_identity)."""

import pytest

from conformance.cases import strides
from conformance.cases.kernels import reference_result

pytestmark = pytest.mark.ours_only
SEED = 20261207


@pytest.fixture(scope="module", params=("buzhash64", "buzhash"))
def stride_cases(request):
    return request.param, strides.cases(request.param, SEED)


def _n(case):
    return len(case.data) - case.window


def test_threshold_spans_straddle_the_threshold_with_every_tail(stride_cases):
    family, cases = stride_cases
    for window in strides.STRIDE_WINDOWS:
        lengths = {_n(c) for c in cases if c.group == "stride-threshold" and c.window == window}
        assert strides.STRIDE_MIN - 1 in lengths and strides.STRIDE_MIN in lengths, (family, window)
        assert {n % strides.STRIDE for n in lengths if n >= strides.STRIDE_MIN} == set(range(strides.STRIDE))


def test_planted_hits_land_on_every_step_of_a_group(stride_cases):
    """Per the reference, each stride-hit case's first hit is a planted step; every window has
    hits at each step of a group (mod 4), in the tail too where there is one; the near miss
    planted after each (its mask and one bit of the state) does not hit at that step."""
    family, cases = stride_cases
    for window in strides.STRIDE_WINDOWS:
        mine = [c for c in cases if c.window == window and c.group in ("stride-hit", "stride-near-miss")]
        n = _n(mine[0])
        steps = strides.planted_steps(n)
        assert n >= strides.STRIDE_MIN and all(_n(c) == n for c in mine)
        landed = []
        for hit, near in zip(mine[::2], mine[1::2]):
            assert (hit.group, near.group) == ("stride-hit", "stride-near-miss")
            pos = reference_result(hit)[0]
            assert pos in steps, (family, window, pos)
            landed.append(pos)
            assert bin(near.mask ^ hit.mask).count("1") == 1 and near.mask & hit.mask == hit.mask
            assert reference_result(near)[0] != pos
        assert sorted(landed) == steps, (family, window)
        assert {p % strides.STRIDE for p in landed} == set(range(strides.STRIDE))
        assert any(p >= n - n % strides.STRIDE for p in landed) == (n % strides.STRIDE > 0)
