"""Which kernels the scan targets exercise here. A kernel this machine cannot
run is reported as a skip with its reason (pytest -rs), never left out."""

import pytest

from chunkers.registry import kernels
from fuzz.harness import kernel_inventory


TARGETS = {"fastcdc": "scan_diff_fastcdc", "buzhash64": "scan_diff_buzhash64", "buzhash": "scan_diff_buzhash",
           "aes": "scan_diff_{rabin,goldilocks,toeplitz}_aes"}


@pytest.mark.parametrize("row", [r for r in kernels() if r.family in TARGETS], ids=lambda r: f"{r.family}-{r.kernel}")
def test_kernel_is_fuzzed_here(row):
    runs, not_run = kernel_inventory(row.family)
    if not row.runs:
        assert (row.kernel, row.reason) in not_run
        pytest.skip(f"{TARGETS[row.family]} cannot exercise kernel {row.kernel!r} here: {row.reason}")
    assert row.kernel in runs


@pytest.mark.parametrize("family,portable", [("fastcdc", "scalar"), ("buzhash64", "scalar"), ("aes", "evp")])
def test_portable_kernels_always_run(family, portable):
    runs, _ = kernel_inventory(family)
    assert runs[0] == portable and (family == "aes" or "blockwise" in runs)


def test_a_kernel_the_cpu_lacks_is_reported(monkeypatch, capsys):
    from chunkers import registry as ck
    from fuzz.harness import report_not_run
    features = ck._cpu_features()
    monkeypatch.setattr(ck, "_cpu_features", lambda: features - {"avx512f", "avx2"})
    kernel_inventory.cache_clear()
    try:
        runs, not_run = kernel_inventory("fastcdc")
        lines = report_not_run("scan_diff_fastcdc", "fastcdc")
    finally:
        kernel_inventory.cache_clear()
    assert runs == ("scalar", "seg4", "blockwise")   # the portable kernels, the reference first
    names = [k for k, _ in not_run]
    assert ("avx512" in names) == any(r.kernel == "avx512" for r in kernels())   # x86-64 builds list it
    assert all("NOT exercised" in line and "lacks" in line for line in lines) and len(lines) == len(names)
    assert capsys.readouterr().err.count("NOT exercised") == len(names)


def test_every_family_with_a_scan_kernel_has_its_scan_target():
    """Each family of the family table with a scan kernel (chunkers.families) has a scan fuzz
    target of its own (one per chunker for the AES family), listed in fuzz/targets.py with its script."""
    from chunkers.families import CHUNKERS, scan_families
    from fuzz import scan_diff, targets
    for family in scan_families():
        names = [n for n in scan_diff.FAMILIES if scan_diff.FAMILIES[n].registry_family == family]
        assert names, f"{family}: no scan fuzz target"
        for name in names:
            assert f"scan_diff_{name}" in targets.TARGETS and targets.path(f"scan_diff_{name}").is_file()
    assert {n for n, f in scan_diff.FAMILIES.items() if f.registry_family == "aes"} == \
        {c.replace("-", "_") for c, row in CHUNKERS.items() if row.family == "aes"}
