"""The CPU-ceiling probe (conformance.tools.ceilings): its C source builds warning-free at every
optimisation level, a run reports every ceiling it names, the table's arithmetic, and a missing
compiler is one line and exit 2. Timings are printed by the tool, never asserted here."""

import os
import shutil
import subprocess
import sys

import pytest

from conformance.tools import ceilings

needs_cc = pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) on PATH")


@needs_cc
@pytest.mark.parametrize("opt", ["-O0", "-O1", "-O2", "-O3"])
def test_the_probe_source_is_warning_free(opt, tmp_path):
    """ceilings.c is held to the kernels' standard: C11, -Wall -Wextra clean (as an error)."""
    subprocess.run(["cc", "-std=c11", opt, "-Wall", "-Wextra", "-Werror", "-o", str(tmp_path / "p"),
                    str(ceilings.SOURCE)], check=True, capture_output=True)


@needs_cc
def test_a_run_reports_every_ceiling():
    """The clock, both families' sequential and segment-chain figures and the lookup rate, all
    positive; on x86-64 with AES the AES figure and its width."""
    found = ceilings.probe("cc")
    for name in ("ghz", "gear1", "gear4", "roll1", "roll4", "lookups"):
        assert found[name] > 0, name
    if "aes" in found:
        assert found["aes"] > 0 and found["aes_width"] in ("xmm", "ymm", "zmm")


def test_the_table_converts_at_the_measured_clock():
    """MB/s = bytes per cycle x GHz x 1000; the segment rows carry their ratio to the sequential
    loop; AES, gather and read rows appear only when measured."""
    found = {"ghz": 2.0, "gear1": 1.0, "gear4": 1.5, "roll1": 0.5, "roll4": 0.75, "lookups": 1.25}
    table = {r["what"]: r for r in ceilings.rows(found, None)}
    assert table["fastcdc: the sequential loop"]["mb_s"] == 2000
    assert table["fastcdc: 4 segment chains, no cut test"]["mb_s"] == 3000
    assert table["fastcdc: 4 segment chains, no cut test"]["ratio"] == 1.5
    assert table["buzhash64: 4 segment chains, no cut test"]["ratio"] == 1.5
    assert not any("AES" in w or "gather" in w or "read" in w for w in table)
    found.update(aes=0.25, aes_width="ymm", gather=5.0, gather_width="ymm")
    table = {r["what"]: r for r in ceilings.rows(found, 7000.0)}
    assert table["AES-128 blocks (ymm), one per position"]["mb_s"] == 500
    assert table["read(2) of a page-cached file, 4 MiB reads"]["mb_s"] == 7000


def test_a_missing_compiler_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setenv("CC", "no-such-compiler-here")
    assert ceilings.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["ceilings: no C compiler: no-such-compiler-here is not on PATH (set CC)"]


def test_a_failed_build_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path):
    """A compiler that fails (here: one that cannot build anything) is named with the file and the
    first line it wrote."""
    fake = tmp_path / "badcc"
    fake.write_text("#!/bin/sh\necho 'badcc: cannot compile' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    assert ceilings.main([]) == 2
    assert capsys.readouterr().err.strip().splitlines() == ["ceilings: badcc failed on ceilings.c: badcc: cannot compile"]


def test_the_probe_source_ships_with_the_package():
    """`pip install .` carries ceilings.c (package data), so the tool runs from an installed suite."""
    import tomllib
    from pathlib import Path
    root = Path(ceilings.__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file():
        pytest.skip("not a source checkout")
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(Path(ceilings.SOURCE.name).match(pat) for pat in data.get("conformance.tools", []))


@needs_cc
@pytest.mark.parametrize("redirect", [">&-", "| true"])
def test_a_lost_output_is_exit_141(redirect):
    """A closed standard output (`>&-`) or a reader gone before the figures are printed (`| true`,
    gone while the probes run): exit 141 and nothing on standard error (no "Broken pipe", no
    traceback), as the chunkers command line."""
    cmd = f"'{sys.executable}' -m conformance.tools.ceilings {redirect}; echo ${{PIPESTATUS[0]}} >&2"
    r = subprocess.run(cmd, shell=True, executable="/bin/bash", stderr=subprocess.PIPE, text=True,
                       env={**os.environ, "PYTHONPATH": str(ceilings.SOURCE.parents[2])})
    assert r.stderr.split() == ["141"]
