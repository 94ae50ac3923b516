"""The input classes of issue 12 (conformance.cases.classes, conformance.cases.keystream,
conformance.cases.mask_shapes), the same checks the main job runs:

* every nc_level the rules allow, automatic and explicit normal sizes, every kernel
  against the pure-Python model (spec 01 §3.2, §4.1);
* all-zero classification at every offset of short inputs and of periodic inputs with
  one non-zero byte per period, against the bytes themselves (spec 01 §8);
* scan masks of arbitrary shape with bits 31 and 63 set, planted hits for wide masks;
* key-derivation boundaries (stored keys found by a seeded search, injected streams) and
  the AES rolling steps roll / roll2 against the model.
"""

import pytest

from conformance.run import engine
from conformance.cases import aes_keys, buzhash64_keys, classes, keystream, mask_shapes
from conformance.cases.families import FAMILIES, scan_families
from conformance.tests.params import kernel_params

SEED = 20261201
NC_FAMILIES = ["fastcdc", "buzhash64", "aes"]


def _report(mismatches) -> str:
    return f"{len(mismatches)} mismatches, first:\n" + "\n".join(map(str, mismatches[:3]))


def test_nc_grid_reaches_every_allowed_level():
    """The grid holds nc 0..max for each mask width, both normal-size modes, and the overall
    largest level (23 at mask 24); levels past the rules are rejected by the constructor."""
    assert classes.max_nc(24) == 23 and classes.max_nc(8) == 7 and classes.max_nc(40) == 8
    for family in NC_FAMILIES:
        cases = classes.nc_cases(family, SEED)
        for chunker in classes.nc_chunkers(family):
            levels = {(c.params[3], c.params[-1], bool(c.normal_size)) for c in cases if c.params[0] == chunker}
            want = {(b, nc, ns) for b in classes.NC_MASK_BITS for nc in range(classes.max_nc(b) + 1)
                    for ns in (False, True)}
            assert levels == want, chunker
    import chunkers
    with pytest.raises(ValueError):
        chunkers.FastCDC(bytes(32), 6, 12, 24, 24)


@pytest.mark.parametrize("name", ["fastcdc", "buzhash64", "rabin-aes", "goldilocks-aes", "toeplitz-aes"])
def test_vectors_hold_the_nc_grid(name):
    """The golden vectors carry the same grid (flag NcLevelRange), run on every kernel by test_vectors."""
    import vectors
    got = {(g["params"][3], g["params"][-1], bool(g["normalSize"])) for g in vectors.load(name)["testGroups"]
           for t in g["tests"] if "NcLevelRange" in t["flags"]}
    assert got == {(b, nc, ns) for b in classes.NC_MASK_BITS for nc in range(classes.max_nc(b) + 1)
                   for ns in (False, True)}


@pytest.mark.parametrize("family_kernel", kernel_params(NC_FAMILIES, impl=engine.implementation()))
def test_nc_levels_against_the_model(family_kernel):
    family, kernel = family_kernel
    mismatches = classes.nc_mismatches(family, kernel, SEED)
    assert not mismatches, _report(mismatches)


def test_zero_cases_cover_every_offset():
    for family in classes.ZERO_PARAMS:
        cases = classes.zero_cases(family, SEED)
        offsets = {(len(c.data), next(i for i, b in enumerate(c.data) if b))
                   for c in cases if c.group == "zero-offset"}
        assert offsets == {(n, j) for n in classes.SHORT_LENGTHS for j in range(n)}, family
        assert {c.group for c in cases} >= {"zero-short"} | {f"zero-period-{p}" for p in classes.PERIODS}


def test_zero_classifier_catches_a_misclassified_chunk():
    """The check is not vacuous: an implementation that drops one non-zero byte's chunk data fails."""
    from vectors import impls

    class Lossy(impls.Ours):
        def chunks(self, params, source, **kw):
            for size, data in super().chunks(params, source, **kw):
                yield size, None if data is not None and bytes(data).count(0) == size - 1 else data

    case = next(c for c in classes.zero_cases("fastcdc", SEED) if c.group == "zero-offset" and len(c.data) == 77)
    previous = engine.implementation()
    engine.set_implementation(Lossy())
    try:
        m = classes.zero_mismatch(case, None)
    finally:
        engine.set_implementation(previous)
    assert m is not None and "chunk 0 at offset 0" in m.reproducer


def test_all_zero_classification(family_kernel):       # every family (conftest parametrizes)
    family, kernel = family_kernel
    mismatches = classes.zero_mismatches(family, kernel, SEED)
    assert not mismatches, _report(mismatches)


@pytest.mark.ours_only
@pytest.mark.parametrize("family", scan_families())
def test_mask_shapes_in_the_catalogue(family):
    """Sparse masks with bit 31 (and 63 for 64-bit states), planted wide-mask hits and, for the
    families with lane kernels, masks below bit 63 hit at every lane are in the scan catalogue
    that test_scan_identity and the main job run; each planted hit lands where planted."""
    fam = FAMILIES[family]
    cases = fam.cases(SEED)
    top = 31 if family == "buzhash" else 63
    sparse = [c for c in cases if c.group == "mask-sparse"]
    planted = [c for c in cases if c.group == "mask-planted"]
    wide = [c for c in cases if c.group == "mask-wide-planted"]
    assert len(sparse) == 4 * len(mask_shapes.SPARSE_BITS)
    assert all(c.mask >> top & 1 and c.mask >> 31 & 1 for c in sparse + planted)
    want_bits = mask_shapes.PLANTED_BITS[top + 1]
    assert len(planted) >= len(want_bits) * len(mask_shapes.PLANTED_POSITIONS) * 9 // 10
    assert {bin(c.mask).count("1") for c in planted} == set(want_bits)
    if family != "aes":
        assert {bin(c.mask).count("1") for c in wide} == ({32} if family == "buzhash" else set(mask_shapes.WIDE_BITS))
    limits = [c for c in cases if c.group == "mask-lane-limits"]
    if family in ("fastcdc", "buzhash64"):      # the families with lane kernels
        drops = {63 - c.mask.bit_length() + 1 for c in limits}
        assert drops == set(mask_shapes.LIMIT_DROPS) and len(limits) >= 2 * 16 * len(drops) * 9 // 10
        hits = {fam.run(c, fam.reference)[0] for c in limits}
        assert {j % 8 for j in hits} == set(range(8)) and min(hits) >= 8
    for c in planted + wide + limits:
        assert fam.run(c, fam.reference)[0] >= 0 and fam.model(c) == fam.run(c, fam.reference), c.describe()


@pytest.mark.ours_only
def test_stored_boundary_keys_hit_their_boundaries():
    assert keystream.boundary_problems() == []


@pytest.mark.slow
@pytest.mark.ours_only
@pytest.mark.parametrize("name", sorted(keystream.TARGETS))
def test_boundary_key_search_reproduces_the_store(name):
    assert keystream.search(name) == keystream.BOUNDARY_SEEDS[name]


@pytest.mark.ours_only
def test_key_derivations_against_the_model():
    mismatches = buzhash64_keys.table_mismatches(SEED) + aes_keys.context_mismatches(SEED)
    assert not mismatches, _report(mismatches)


@pytest.mark.ours_only
def test_rolling_steps_against_the_model():
    mismatches = aes_keys.step_mismatches(SEED)
    assert not mismatches, _report(mismatches)


def test_main_job_runs_the_class_cases(monkeypatch):
    """The main job (conformance.run.job) runs the class cases on every kernel and fails a cell on a mismatch."""
    from conformance.run import job
    from conformance.run.engine import Mismatch
    (cell,) = job.matrix(SEED, 4096, [], ["fixed"], patterns=["random"])
    assert cell.status == "passed" and cell.chunk_runs > len(classes.zero_cases("fixed", SEED))
    monkeypatch.setattr(classes, "zero_mismatch", lambda case, kernel, where="": Mismatch("planted", "repro", 1, 2)
                        if case.group == "zero-period-64" else None)
    cell = job.Cell("fixed", "single")
    classes.check_cell(cell, SEED, reference=False)
    assert cell.status == "failed" and [m.what for m in cell.mismatches] == ["planted", "planted"]
