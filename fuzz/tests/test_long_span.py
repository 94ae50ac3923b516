"""Long spans of the scan targets (fuzz/long_span.py): a decoded case has the length and the
round / segment geometry its fields claim (checked with conformance/cases/segments.py and the
AES K x L blocks), a hit planted at "segment k of round r, offset d" is the reference kernel's
first hit exactly there, and every scan target's seeds reach several rounds, a split last round,
a hit in a later segment and the rescan (chain 0 winning over an earlier step of a later segment).
"""

import random

import pytest

from chunkers.aes import SEGMENTS
from conformance.cases import segments
from fuzz import long_span, scan_diff
from fuzz.input import Input, script

DELTA, NEAR = long_span.DELTA, long_span.NEAR
WINDOWED = [("buzhash64", 64), ("buzhash64", 1), ("buzhash64", 200), ("buzhash", 64)]
# family entry -> (fields that make a case long and its mask all ones, registry family, window)
FAMILIES = {
    "fastcdc": (dict(span_kind="long", mask_kind="high", mask_bits=64), "fastcdc", 0),
    "buzhash64": (dict(span_kind="long", mask_kind="low", mask_bits=64, special_window=True, window=64),
                  "buzhash64", 64),
    "buzhash": (dict(span_kind="long", mask_kind="low", mask_bits=64, special_window=True, window=64),
                "buzhash", 64),
    "goldilocks_aes": (dict(span_kind="long", mask_bits=64), "aes", 0),
    "toeplitz_aes": (dict(span_kind="long", mask_bits=64), "aes", 0),
}


def _decode(entry: str, **fields):
    fam = scan_diff.FAMILIES[entry]
    return fam, fam.decode(Input(script(fam.decode, **FAMILIES[entry][0], **fields)))


def _rounds(entry: str, n: int) -> list:
    """The rounds the kernel cuts n positions into, from the suite's mirror (rolling) or K x L (AES)."""
    _, family, window = FAMILIES[entry]
    if family == "aes":
        k, seg = SEGMENTS
        return [(b * k * seg, seg) for b in range(n // (k * seg))]
    return segments.rounds(family, n, window)


def _chains(entry: str) -> int:
    return SEGMENTS[0] if FAMILIES[entry][1] == "aes" else segments.CHAINS


@pytest.mark.parametrize("entry", FAMILIES)
@pytest.mark.parametrize("rounds,last,delta", [(0, "shortest", 0), (2, "shortest", 3), (1, "full", 1),
                                               (2, "none", -1), (1, "shortest", -1)])
def test_length_has_the_claimed_rounds(entry, rounds, last, delta):
    fam, case = _decode(entry, long_rounds=rounds, long_last=last, long_delta=DELTA + delta)
    _, family, window = FAMILIES[entry]
    if family == "aes":
        k, seg = SEGMENTS
        seg_min = seg
    else:
        seg, seg_min = segments.geometry(family, window)
        k = segments.CHAINS
    want = rounds * k * seg + {"shortest": k * seg_min, "full": k * seg, "none": 0}[last] + delta
    n = fam.span(case)
    assert n == max(0, want)
    got = _rounds(entry, n)
    full = rounds - (last == "none" and delta < 0)                  # "none" less one: the last round is short
    assert [s for _, s in got[:full]] == [seg] * full
    if last == "shortest":
        # at the threshold or past it the last round is split into segments of seg_min (AES: one
        # more block); one position short it is not (the rest goes to the sequential tail)
        assert len(got) == rounds + (delta >= 0)
        if delta >= 0:
            assert got[-1][1] == seg_min


@pytest.mark.parametrize("entry", FAMILIES)
@pytest.mark.parametrize("state_kind", ["window", "any"])
@pytest.mark.parametrize("round_,segment,edge,offset", [(0, 1, "segment", 0), (1, 2, "segment", -1),
                                                        (1, 3, "middle", 5), (1, 0, "segment", 17)])
def test_planted_hit_lands_at_its_edge(entry, state_kind, round_, segment, edge, offset):
    """Also from a start state that is not the window's hash / digest (the plant's state carries
    the difference, rotated: fuzz.scan_case.windowed_decode)."""
    fam, case = _decode(entry, long_rounds=2, long_last="shortest", plants=1, edge=edge, round=round_,
                        segment=segment, offset=NEAR + offset, long_seed=3, state_kind=state_kind,
                        state=0x01234567)
    base, seg = _rounds(entry, fam.span(case))[round_]
    want = base + segment * seg + (seg // 2 if edge == "middle" else 0) + offset
    pos = fam.run(case, fam.reference)[0]
    if FAMILIES[entry][1] == "buzhash":
        # 32-bit states: a plant leaves ~16 mask bits, so a chance hit may come first
        assert pos <= want
    else:
        assert pos == want


def test_edge_positions_stay_inside_the_span():
    """Any input bytes (seeded) give a step inside the span, also for spans without rounds."""
    rng = random.Random(32)
    for g in (long_span.rolling("fastcdc"), long_span.aes()):
        for n in (1, 7, 100, 5000, 3 * 16384 + 5):
            layout = g.rounds(n)
            for _ in range(200):
                assert 0 <= long_span.step(Input(rng.randbytes(12)), g, layout, n) < n


def _long_seed_cases(entry: str):
    fam = scan_diff.FAMILIES[entry]
    for values in fam.seeds():
        if values.get("span_kind") == "long":
            case = fam.decode(Input(script(fam.decode, **values)))
            yield values, fam.span(case), fam.run(case, fam.reference)[0]


@pytest.mark.parametrize("entry", list(scan_diff.FAMILIES))
def test_seeds_reach_rounds_splits_later_segments_and_the_rescan(entry):
    name = entry if entry in FAMILIES else "toeplitz_aes"       # rabin-aes: the AES geometry
    window = FAMILIES[name][2]
    several = split = later = rescan = False
    for values, n, pos in _long_seed_cases(entry):
        if values.get("window", window) != window:
            continue
        got = _rounds(name, n)
        several |= len(got) >= 3
        split |= len(got) >= 2 and got[-1][1] < got[0][1]
        for r, (base, seg) in enumerate(got):
            later |= r >= 1 and base + seg <= pos < base + _chains(name) * seg
        # two plants, segment 2 at step 10 and segment 0 at step 200 of round 0: chain 0's wins
        rescan |= values.get("plants") == 2 and pos == 200
    assert several, "no seed spans three rounds (blocks)"
    assert split or FAMILIES[name][1] == "aes", "no seed has a split last round"
    assert later, "no seed's first hit is in segment >= 1 of a later round"
    if FAMILIES[name][1] != "buzhash":      # 32-bit states: two plants leave ~no mask (fuzzing's job)
        assert rescan, "no seed has chain 0 win over a later segment's earlier step"
