"""The AES segment cases (conformance.cases.aes_segments) are what they claim: planted first hits
sit where their group says, per the independent pure-Python model; the -seg kernels
themselves are compared with the reference on these cases by test_scan_identity and,
emulated, by test_tiers."""

import pytest

from conformance.cases.aes_kernels import model
from conformance.cases.aes_segments import VECTOR_CHAINS, geometry
from conformance.cases.families import FAMILIES

pytestmark = pytest.mark.ours_only
SEED = 20261201


@pytest.fixture(scope="module")
def seg_cases():
    return [c for c in FAMILIES["aes"].cases(SEED) if c.group.startswith("seg-")]


def test_every_segment_group_is_there(seg_cases):
    K, _ = geometry()
    groups = {c.group for c in seg_cases}
    assert {f"seg-edge-{k}" for k in range(K)} | {f"seg-warmup-{k}" for k in range(1, K)} <= groups
    assert {"seg-several", "seg-span", "seg-untrue-state", "seg-half-several"} <= groups
    assert {f"seg-half-{k}" for k in range(K)} <= groups


def test_planted_hits_are_where_the_group_says(seg_cases):
    """seg-edge-k: first hit at segment k's first, second or last position (either block);
    seg-warmup-k: inside the 64 warm-up bytes of segment k; seg-half-k: at the last position of
    segment k's first half or the first two of its second half; seg-span: no hit (exit digest)."""
    K, L = geometry()
    for case in seg_cases:
        pos = model(case)[0]
        if case.group.startswith("seg-edge-"):
            assert (pos // L) % K == int(case.group[9:]) and pos % L in (0, 1, L - 1), case.describe()
        elif case.group.startswith("seg-warmup-"):
            k = int(case.group[11:])
            assert k * L - 64 <= pos < k * L, case.describe()
        elif case.group.startswith("seg-half-") and case.group != "seg-half-several":
            k, off = int(case.group[9:]), pos % L
            assert (pos // L) % K == k and off in (L // 2 - 1, L // 2, L // 2 + 1), case.describe()
            assert case.key.split("/")[0] in VECTOR_CHAINS, case.describe()
        elif case.group == "seg-span":
            assert pos == -1 and len(case.data) - 64 >= K * L - 1, case.describe()
