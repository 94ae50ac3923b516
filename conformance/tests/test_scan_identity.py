"""Scan-level identity (spec 02 §5.6, 03 §7.4): every kernel returns the same
position and exit state as its family's reference kernel on the adversarial
catalogue, and the reference agrees with the pure-Python model."""

import pytest

from chunkers.registry import NATIVE
from conformance.tools import tiers
from conformance.run.engine import model_mismatches, scan_mismatches
from conformance.cases.families import FAMILIES, scan_families
from conformance.tests.params import kernel_params

pytestmark = pytest.mark.ours_only
SEED = 20261201


@pytest.fixture(scope="module")
def cases():
    return {name: FAMILIES[name].cases(SEED) for name in scan_families()}


def _report(mismatches):
    return f"{len(mismatches)} mismatches, first:\n" + "\n".join(map(str, mismatches[:3]))


def test_catalogue_covers_every_group(cases):
    """The catalogue really contains every adversarial kind (a generator regression would hide here)."""
    for family, items in cases.items():
        groups = {c.group for c in items}
        assert {"span", "align", "mask", "last-byte", "const-00", "const-41", "const-ff", "periodic-4096",
                "high-bytes", "zero-islands", "random"} <= groups, family
        assert {f"lane-{i}" for i in range(8)} <= groups, family


@pytest.mark.parametrize("family_kernel", kernel_params(scan_families()))
def test_scan_identity(family_kernel, cases, record_tier):
    family, kernel = family_kernel
    mismatches = scan_mismatches(family, kernel, cases[family])
    record_tier(tiers.Tier(family, kernel, tiers.host_target(), NATIVE, "failed" if mismatches else "passed",
                           f"{len(cases[family])} scan cases"))
    assert not mismatches, _report(mismatches)


def test_reference_matches_model(scan_family, cases):
    mismatches = model_mismatches(scan_family, cases[scan_family])
    assert not mismatches, _report(mismatches)


def test_planted_lanes_hit_where_planted(scan_family, cases):
    """Every lane case really cuts in its lane, per the independent model."""
    fam = FAMILIES[scan_family]
    for case in cases[scan_family]:
        if case.group.startswith("lane-"):
            pos = fam.model(case)[0]
            assert pos >= 16 and pos % 8 == int(case.group[5:]), case.describe()
