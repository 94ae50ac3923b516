"""Hypothesis properties: for arbitrary data, start state, mask and alignment,
every kernel agrees with the reference kernel and the model (spec 02 §5.6,
03 §7.4)."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conformance.cases.families import FAMILIES
from conformance.cases.scan import ScanCase
from chunkers.params import mask
from conformance.tests.params import kernel_params

pytestmark = pytest.mark.ours_only

u64 = st.integers(0, (1 << 64) - 1)
masks = st.one_of(
    st.builds(mask, st.integers(1, 48), st.booleans()),  # contiguous masks, high and low
    u64,                                                   # any mask at all
)
data = st.one_of(st.binary(max_size=300), st.builds(lambda b, n: b * n, st.binary(min_size=1, max_size=3),
                                                    st.integers(1, 120)))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check(family, kernel, case):
    fam = FAMILIES[family]
    want = fam.model(case)
    assert fam.run(case, fam.reference) == want, case.describe()
    assert fam.run(case, kernel) == want, case.describe()


@pytest.mark.parametrize("family_kernel", kernel_params(["fastcdc"]))
def test_fastcdc_property(family_kernel):
    family, kernel = family_kernel

    @SETTINGS
    @given(data, u64, masks, st.integers(0, 63), st.sampled_from(["Z", "KS"]))
    def prop(d, state, m, align, key):
        _check(family, kernel, ScanCase(family, "hypothesis", key, d, align, state, m))
    prop()


@pytest.mark.parametrize("family_kernel", kernel_params(["buzhash64"]))
def test_buzhash64_property(family_kernel):
    family, kernel = family_kernel

    @SETTINGS
    @given(data, st.sampled_from([1, 2, 3, 8, 63, 64, 65, 129]), u64, masks, st.integers(0, 63),
           st.sampled_from(["Z", "KS"]))
    def prop(d, w, state, m, align, key):
        d = d + bytes(max(0, w - len(d)))     # the window in front of the span must exist
        _check(family, kernel, ScanCase(family, "hypothesis", key, d, align, state, m, w))
    prop()
