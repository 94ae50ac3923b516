"""The seg groups of the scan catalogue (conformance.cases.segments): their planted hits
land where their names say, per the reference kernel; and the legacy buzhash's
new kernel selector behaves like the others. Identity of every kernel on these
cases is checked with the rest of the catalogue (test_scan_identity)."""

import random

import pytest

import chunkers
from conformance.cases import segments
from conformance.cases.families import FAMILIES

pytestmark = pytest.mark.ours_only
SEED = 20261201
FAMILIES_SEG = ("fastcdc", "buzhash64", "buzhash")


@pytest.fixture(scope="module", params=FAMILIES_SEG)
def seg_cases(request):
    return request.param, segments.cases(request.param, SEED)


def _hit(family, case):
    fam = FAMILIES[family]
    pos = fam.run(case, fam.reference)[0]
    n = len(case.data) - case.window
    return None if pos < 0 or pos >= n else pos


def test_every_seg_group_is_there(seg_cases):
    family, cases = seg_cases
    groups = {c.group for c in cases}
    assert {"seg-threshold", "seg-start", "seg-end", "seg-warmup", "seg-round-end", "seg-multi",
            "seg-multi-chain0-later", "seg-multi-chain1-later"} <= groups, family
    if family != "fastcdc":
        assert max(c.window for c in cases) == max(segments.SEG_WINDOWS)


def test_threshold_spans_straddle_every_threshold(seg_cases):
    """Each threshold of the geometry has a span one below, at and one above it."""
    family, cases = seg_cases
    for window in {c.window for c in cases if c.group == "seg-threshold"}:
        seg_len, seg_min = segments.geometry(family, window)
        lengths = {len(c.data) - c.window for c in cases if c.group == "seg-threshold" and c.window == window}
        for edge in (4 * seg_min, 4 * seg_len, 4 * seg_len + 4 * seg_min):
            assert {edge - 1, edge, edge + 1} <= lengths, (family, window, edge)
        assert len(segments.rounds(family, 4 * seg_min - 1, window)) == 0
        assert len(segments.rounds(family, 4 * seg_min, window)) == 1


def test_planted_hits_land_where_named(seg_cases):
    """Per the reference kernel, every planted case's first hit is at the step its group names."""
    family, cases = seg_cases
    for case in cases:
        if case.group == "seg-threshold":
            continue
        n = len(case.data) - case.window
        seg_len = segments.geometry(family, case.window)[0]
        rounds = segments.rounds(family, n, case.window)
        pos = _hit(family, case)
        starts = {b + k * length for b, length in rounds for k in range(1, 4)}
        reach = case.window or segments.GEAR_WINDOW
        expect = {
            "seg-start": lambda p: p in starts,
            "seg-end": lambda p: p + 1 in starts,
            "seg-warmup": lambda p: any(0 < s - p <= reach for s in starts),
            "seg-round-end": lambda p: any(p == b + 4 * length - 1 for b, length in rounds),
            "seg-multi": lambda p: seg_len <= p < 2 * seg_len,
            "seg-multi-chain0-later": lambda p: p < seg_len,
            "seg-multi-chain1-later": lambda p: seg_len <= p < 2 * seg_len,
        }[case.group]
        assert pos is not None and expect(pos), (case.group, pos, case.describe())


def test_buzhash_kernel_selector(monkeypatch):
    """CHUNKERS_BUZHASH_KERNEL picks the legacy buzhash kernel; the argument wins; both cut alike."""
    data = random.Random(13).randbytes(1 << 20)
    monkeypatch.setenv("CHUNKERS_BUZHASH_KERNEL", "seg4")
    assert chunkers.make_chunker("buzhash,10,16,12,4095").kernel == "seg4"
    assert chunkers.make_chunker("buzhash,10,16,12,4095", kernel="single").kernel == "single"
    seg = chunkers.chunk_sizes("buzhash,10,16,12,63", data)
    monkeypatch.setenv("CHUNKERS_BUZHASH_KERNEL", "nope")
    with pytest.raises(ValueError, match="CHUNKERS_BUZHASH_KERNEL='nope'.*seg4, stride4, single"):
        chunkers.make_chunker("buzhash,10,16,12,4095")
    monkeypatch.delenv("CHUNKERS_BUZHASH_KERNEL")
    assert chunkers.chunk_sizes("buzhash,10,16,12,63", data) == seg
