"""Which kernels the scan targets exercise here. A kernel this machine cannot
run is reported as a skip with its reason (pytest -rs), never left out."""

import pytest

from chunkers.kernels import kernels
from fuzz.harness import kernel_inventory


@pytest.mark.parametrize("row", [r for r in kernels() if r.family in ("fastcdc", "buzhash64")],
                         ids=lambda r: f"{r.family}-{r.kernel}")
def test_kernel_is_fuzzed_here(row):
    runs, not_run = kernel_inventory(row.family)
    if not row.runs:
        assert (row.kernel, row.reason) in not_run
        pytest.skip(f"scan_diff_{row.family} cannot exercise kernel {row.kernel!r} here: {row.reason}")
    assert row.kernel in runs


@pytest.mark.parametrize("family", ["fastcdc", "buzhash64"])
def test_portable_kernels_always_run(family):
    runs, _ = kernel_inventory(family)
    assert runs[0] == "scalar" and "blockwise" in runs
