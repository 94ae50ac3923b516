"""The implementation's cells on every target (conformance.run.impl_cells): per chunker x kernel, how
each was covered (native, emulated by qemu through ci/borg-cross.sh, not covered and why), the
24 cells of borg 2.0.0b25's interface, and a cross route that cannot be set up (exit 2)."""

import json
import os
import subprocess
import sys

import pytest

from chunkers.registry import NATIVE, NOT_COVERED
from conformance.run import impl_cells
from vectors import impls
from conformance.run.job import Cell
from conformance.tests.test_impls import ROOT, STUB, stub_borg  # noqa: F401  (the fixture)
from conformance.tools.tiers import BIG_ENDIAN

pytestmark = pytest.mark.ours_only


def _host_cells(impl):
    """Every kernel the implementation runs here, passed."""
    from conformance.cases.families import FAMILIES
    return [Cell(f, k, "passed", chunk_runs=1, vectors=1) for f in FAMILIES for k, why in impl.kernels(f)
            if why is None]


def test_borg_has_24_cells_and_the_arm_ones_need_qemu(stub_borg):
    rows = impl_cells.rows(stub_borg, _host_cells(stub_borg))
    main = impl_cells.main_rows(rows)
    assert len(main) == 24 and len({(r.chunker, r.kernel) for r in main}) == 24
    arm = {(r.chunker, r.kernel) for r in main if r.target == "aarch64"}
    assert arm == {("fastcdc", "neon"), ("buzhash64", "neon"), ("rabin-aes", "aes-arm64"),
                   ("goldilocks-aes", "aes-arm64"), ("toeplitz-aes", "aes-arm64")}
    assert all(r.coverage == NOT_COVERED and "ci/borg-cross.sh aarch64" in r.detail for r in main
               if r.target == "aarch64")
    be = [r for r in rows if r.target == BIG_ENDIAN]
    assert {r.kernel for r in be} == {"blockwise", "scalar", "evp", "single"} and len(be) == 9
    assert "19/24 chunker x kernel cells covered (19 native)" in impl_cells.summary("borg", rows)


def test_emulated_rows_come_from_the_cross_reports(stub_borg):
    def report(arch, failed=None):
        kernels = []
        for family, kernel in (("fastcdc", "neon"), ("buzhash64", "neon"), ("aes", "aes-arm64"),
                               ("fastcdc", "scalar"), ("fastcdc", "blockwise"), ("buzhash64", "scalar"),
                               ("buzhash64", "blockwise"), ("aes", "evp"), ("buzhash", "single"), ("fixed", "single")):
            bad = (family, kernel) == failed
            kernels.append(dict(family=family, kernel=kernel, result="failed" if bad else "passed",
                                chunk_runs=3, vectors=2,
                                mismatches=["golden vector: goldilocks-aes tcId 3 ..."] if bad else []))
        return {"machine": arch, "kernels": kernels}
    reports = {"aarch64": report("aarch64", failed=("aes", "aes-arm64")), "s390x": report("s390x")}
    rows = impl_cells.rows(stub_borg, _host_cells(stub_borg), reports)
    got = {(r.chunker, r.kernel, r.target): (r.coverage, r.result) for r in rows}
    assert got["fastcdc", "neon", "aarch64"] == ("emulated (qemu-aarch64)", "passed")
    # an AES cell's failure belongs to the chunker its mismatch names
    assert got["goldilocks-aes", "aes-arm64", "aarch64"] == ("emulated (qemu-aarch64)", "failed")
    assert got["rabin-aes", "aes-arm64", "aarch64"] == ("emulated (qemu-aarch64)", "passed")
    assert got["fixed", "single", BIG_ENDIAN] == ("emulated (qemu-s390x)", "passed")
    assert got["fastcdc", "scalar", "x86-64"] == (NATIVE, "passed")       # the host run wins
    line = impl_cells.summary("borg", rows)
    assert "24/24 chunker x kernel cells covered (19 native, 5 emulated (qemu-aarch64)), 1 failed" in line
    assert "big-endian: 9/9" in line
    # a route that reported nothing is a failed row, never a pass
    rows = impl_cells.rows(stub_borg, _host_cells(stub_borg), {"aarch64": "ci/borg-cross.sh aarch64 exited 1"})
    assert {r.result for r in rows if r.target == "aarch64"} == {"failed"}


def test_a_kernel_that_cannot_run_here_says_why(stub_borg):
    cells = [c for c in _host_cells(stub_borg) if c.kernel != "avx512"]
    cells.append(Cell("fastcdc", "avx512", "skipped", NOT_COVERED, "this CPU does not support it (lacks avx512f)"))
    row = next(r for r in impl_cells.rows(stub_borg, cells) if (r.chunker, r.kernel) == ("fastcdc", "avx512"))
    assert row.coverage == NOT_COVERED and "avx512f" in row.detail


def _fake_script(tmp_path, monkeypatch, body):
    script = tmp_path / "borg-cross.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    monkeypatch.setattr(impl_cells, "SCRIPT", script)
    monkeypatch.setattr(impl_cells, "REPO", tmp_path)


def test_a_route_that_cannot_be_set_up_is_an_error(tmp_path, monkeypatch, capsys):
    _fake_script(tmp_path, monkeypatch, 'echo "building..."; echo "borg-cross: no aarch64-linux-gnu-gcc" >&2; exit 2\n')
    reports, errors = impl_cells.finish_cross(impl_cells.start_cross(("aarch64",)))
    assert reports == {} and errors == ["ci/borg-cross.sh aarch64: borg-cross: no aarch64-linux-gnu-gcc"]


def test_a_report_is_read_and_a_stale_one_never(tmp_path, monkeypatch, capsys):
    report = tmp_path / "ci" / "cross" / "borg-report-s390x.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps({"kernels": []}))     # left by an earlier run
    _fake_script(tmp_path, monkeypatch, "exit 1\n")
    reports, errors = impl_cells.finish_cross(impl_cells.start_cross(("s390x",)))
    assert errors == [] and "exited 1 before reporting" in reports["s390x"]
    _fake_script(tmp_path, monkeypatch, f"echo '{json.dumps({'kernels': [dict(family='fixed', kernel='single', result='passed')]})}' > {report}\n")
    reports, errors = impl_cells.finish_cross(impl_cells.start_cross(("s390x",)))
    assert reports["s390x"]["kernels"][0]["result"] == "passed"


def test_tiers_all_with_an_implementation_without_a_cross_route():
    r = subprocess.run([sys.executable, "-m", "conformance", "--impl", "model", "--tiers", "all"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join([STUB, ROOT])))
    assert r.returncode == 2 and "has no such route" in r.stderr and r.stdout == "", r.stderr
