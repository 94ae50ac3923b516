"""The CPU-ceiling probe (conformance.tools.ceilings): its C source builds warning-free at every
optimisation level, a run reports every ceiling it names, the table's arithmetic, the JSON
document, and every way it can fail is one line and exit 2 (141 for a lost output). Timings
are printed by the tool, never asserted here."""

import json
import os
import platform
import shutil
import subprocess
import sys

import pytest

from conformance.tools import ceilings, failure_line

needs_cc = pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) on PATH")


@needs_cc
@pytest.mark.parametrize("opt", ["-O0", "-O1", "-O2", "-O3", "-Os"])
def test_the_probe_source_is_warning_free(opt, tmp_path):
    """ceilings.c is held to the kernels' standard: C11, -Wall -Wextra clean (as an error)."""
    subprocess.run(["cc", "-std=c11", opt, "-Wall", "-Wextra", "-Werror", "-o", str(tmp_path / "p"),
                    str(ceilings.SOURCE)], check=True, capture_output=True)


@needs_cc
def test_a_run_reports_every_ceiling():
    """Both clocks, both families' sequential and segment-chain rates and the lookup rate, all
    positive; on x86-64 the AES rate where the CPU has AES and the gather where it has AVX2."""
    found = ceilings.probe(["cc"])
    for name in ("clock_before", "clock_after", "gear1", "gear4", "roll1", "roll4", "lookups"):
        assert found[name] > 0, name
    if platform.machine() in ("x86_64", "AMD64"):
        from chunkers.kerneltable import cpu_features
        features = cpu_features()
        if "aes" in features:
            assert found["aes"] > 0 and found["aes_width"] in ("xmm", "ymm", "zmm")
            assert found["aes_xmm"] > 0 and found["aes"] == found[f"aes_{found['aes_width']}"]
        if {"vaes", "avx512f"} <= set(features):
            assert found["aes_zmm"] > 0 and found["aes_ymm"] > 0
        if "avx2" in features:
            assert found["gather"] > 0 and found["gather_width"] in ("ymm", "zmm")


FOUND = {"clock_before": 1.9e9, "clock_after": 2.1e9, "gear1": 2.0e9, "gear4": 3.0e9, "roll1": 1.0e9,
         "roll4": 1.5e9, "lookups": 2.5e9}


def test_the_table_converts_at_the_mean_clock():
    """Per cycle = rate / the mean of the two clocks; MB/s = rate / 1e6; the segment rows carry
    their ratio to the sequential loop; AES, gather and read rows appear only when measured."""
    table = {r["key"]: r for r in ceilings.rows(FOUND, None)}
    assert table["clock"]["value"] == 2.0 and table["clock"]["range"] == [1.9, 2.1]
    assert (table["fastcdc_sequential"]["value"], table["fastcdc_sequential"]["mb_s"]) == (1.0, 2000)
    assert (table["fastcdc_segments"]["value"], table["fastcdc_segments"]["ratio"]) == (1.5, 1.5)
    assert table["buzhash64_segments"]["ratio"] == 1.5 and table["lookups"]["value"] == 1.25
    assert set(table) == {"clock", "fastcdc_sequential", "fastcdc_segments", "buzhash64_sequential",
                          "buzhash64_segments", "lookups"}
    more = FOUND | {"aes": 1e9, "aes_width": "ymm", "gather": 4e8, "gather_width": "ymm"}
    table = {r["key"]: r for r in ceilings.rows(more, 7000.0)}
    assert (table["aes"]["value"], table["aes"]["mb_s"], table["aes"]["width"]) == (0.5, 1000, "ymm")
    assert table["gather"]["value"] == 5.0 and table["read"]["mb_s"] == 7000
    table = {r["key"]: r for r in ceilings.rows(FOUND, "not measured: no room")}
    assert table["read"]["value"] is None and table["read"]["not_measured"] == "not measured: no room"


def _row(family, name):
    from chunkers import registry
    return next(k for k in registry.rows(family) if k.name == name)


def test_each_kernel_is_held_to_the_ceiling_of_its_shape():
    """The reference loop to the sequential probe (chain latency, or loads when it reaches LOAD_BOUND
    of the lookups the hash needs), a segment form to the 4 chains
    (loads when they reach LOAD_BOUND of the lookups the hash needs, else ALU), another form to the
    lookup rate over the hash's lookups a byte, an AES kernel to the AES unit at its width (evp:
    xmm), none where that width was not probed."""
    found = FOUND | {"aes_xmm": 1e9, "aes_ymm": 2e9, "aes_zmm": 3e9}
    kc = ceilings.kernel_ceiling
    assert kc(found, "fastcdc", _row("fastcdc", "scalar")) == ("gear: the sequential loop", 2.0e9, "chain latency")
    # a sequential loop at LOAD_BOUND of its lookups is bound by them (2.125e9 = 0.85 * 2.5e9 / 1)
    assert kc(found | {"gear1": 2.125e9}, "fastcdc", _row("fastcdc", "scalar"))[1:] == (2.125e9, "loads")
    assert kc(found | {"gear1": 2.12e9}, "fastcdc", _row("fastcdc", "scalar"))[2] == "chain latency"
    assert kc(found | {"roll1": 1.0625e9}, "buzhash64", _row("buzhash64", "scalar"))[2] == "loads"   # 0.85 * 2.5 / 2
    assert kc(found, "fastcdc", _row("fastcdc", "seg4")) == ("gear: 4 segment chains", 3.0e9, "loads")
    assert kc(found, "fastcdc", _row("fastcdc", "blockwise")) == ("gear: table lookups, 1 a byte", 2.5e9, "loads")
    assert kc(found, "buzhash64", _row("buzhash64", "seg4"))[1:] == (1.5e9, "loads")      # 1.5 >= 0.85 * 2.5 / 2
    assert kc(found | {"roll4": 1.0e9}, "buzhash64", _row("buzhash64", "seg4"))[1:] == (1.0e9, "ALU")
    assert kc(found, "buzhash64", _row("buzhash64", "avx2"))[1:] == (1.25e9, "loads")
    assert kc(found, "buzhash", _row("buzhash", "single"))[2] == "chain latency"
    aes = {name: kc(found, "aes", _row("aes", name)) for name in ("vaes-seg", "vaes256", "aes-ni-seg", "evp")}
    assert {n: (c[1], c[2]) for n, c in aes.items()} == {
        "vaes-seg": (3e9, "AES unit (zmm)"), "vaes256": (2e9, "AES unit (ymm)"),
        "aes-ni-seg": (1e9, "AES unit (xmm)"), "evp": (1e9, "AES unit (xmm)")}
    assert kc(FOUND, "aes", _row("aes", "evp")) is None


def test_kernels_mode_rates_every_runnable_scan_kernel(monkeypatch, capsys, tmp_path):
    """--kernels: a line per kernel that runs here, with its fraction of its shape's ceiling (rate
    over ceiling, as printed), and the same rows in the JSON."""
    import chunkers
    from chunkers.families import scan_families
    monkeypatch.setattr(ceilings, "probe", lambda *_: FOUND | {"aes_xmm": 1e9, "aes_ymm": 2e9, "aes_zmm": 3e9})
    monkeypatch.setattr(ceilings, "read_ceiling", lambda: 5000.0)
    out = tmp_path / "k.json"
    assert ceilings.main(["--kernels", "--size", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    kernels = json.loads(out.read_text())["kernels"]
    want = {(k.family, k.kernel) for k in chunkers.kernels() if k.runs and k.family in scan_families()}
    assert {(k["family"], k["kernel"]) for k in kernels} == want
    for k in kernels:
        if k["shape"] is not None:
            # the fraction is rounded to 3 places, the rates to 0.1 MB/s (a slow build's rates are small)
            assert k["fraction"] == pytest.approx(k["mb_s"] / k["ceiling_mb_s"], rel=1e-2, abs=1e-3)
            assert f"{k['fraction']:.2f}  {k['bound']}" in printed


@pytest.mark.parametrize("size", ["0", "1025"])
def test_a_kernel_scan_size_out_of_range_is_refused_before_measuring(monkeypatch, capsys, size):
    monkeypatch.setattr(ceilings, "probe", lambda *_: pytest.fail("measured before checking --size"))
    assert ceilings.main(["--kernels", "--size", size]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"ceilings: --size: {size} MiB is not within 1-1024"]


def test_the_read_file_goes_where_there_is_room(monkeypatch):
    """/dev/shm when it has room for the file twice over, else the temporary directory, else OSError
    (a container's 64 MiB /dev/shm must not end the run in a traceback)."""
    free = {}

    class St:
        def __init__(self, place):
            self.f_bavail, self.f_frsize = free[place], 1

    monkeypatch.setattr(ceilings.os, "statvfs", lambda place: St(place))
    tmp = ceilings.tempfile.gettempdir()
    free.update({"/dev/shm": 1 << 30, tmp: 1 << 30})
    assert ceilings.read_dir(64 << 20) == "/dev/shm"
    free["/dev/shm"] = 64 << 20
    assert ceilings.read_dir(64 << 20) == tmp
    free[tmp] = 100 << 20
    with pytest.raises(OSError, match="128 MiB free"):
        ceilings.read_dir(64 << 20)


@needs_cc
def test_a_run_writes_the_json_and_a_missing_read_ceiling_is_said(monkeypatch, tmp_path, capsys):
    """Exit 0; the table printed; the JSON has the CPU, date, compiler, flags and every row by key;
    a read ceiling that cannot be measured is a row saying why, not a failure."""
    def no_room(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ceilings, "read_ceiling", no_room)
    monkeypatch.setenv("CC", "cc")
    out = tmp_path / "c.json"
    assert ceilings.main(["--json", str(out)]) == 0
    printed = capsys.readouterr()
    assert printed.err == "" and "fastcdc: 4 segment chains, no cut test" in printed.out
    assert "(not measured: No space left on device)" in printed.out
    doc = json.loads(out.read_text())
    assert {"cpu", "date", "compiler", "cflags", "rows"} <= set(doc) and doc["cflags"] == list(ceilings.CFLAGS)
    keys = {r["key"] for r in doc["rows"]}
    assert {"clock", "fastcdc_sequential", "fastcdc_segments", "buzhash64_sequential", "buzhash64_segments",
            "lookups", "read"} <= keys


def test_a_json_path_in_no_directory_is_refused_before_measuring(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(ceilings, "probe", lambda *_: pytest.fail("measured before checking --json"))
    assert ceilings.main(["--json", str(tmp_path / "no" / "such" / "c.json")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"ceilings: --json: no such directory: {tmp_path / 'no' / 'such'}"]


@pytest.mark.parametrize("cc, line", [("no-such-compiler-here", "no-such-compiler-here is not on PATH (set CC)"),
                                      ("   ", "CC is empty")])
def test_a_missing_compiler_is_one_line_and_exit_2(monkeypatch, capsys, cc, line):
    monkeypatch.setenv("CC", cc)
    assert ceilings.main([]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"ceilings: no C compiler: {line}"]


def _fake_cc(tmp_path, body):
    fake = tmp_path / "badcc"
    fake.write_text("#!/bin/sh\n" + body)
    fake.chmod(0o755)
    return str(fake)


def test_a_failed_build_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path):
    """A compiler that fails is named with the file and the first line it wrote."""
    monkeypatch.setenv("CC", _fake_cc(tmp_path, "echo 'badcc: cannot compile' >&2\nexit 1\n"))
    assert ceilings.main([]) == 2
    assert capsys.readouterr().err.strip().splitlines() == ["ceilings: badcc failed on ceilings.c: badcc: cannot compile"]


def test_a_probe_that_cannot_start_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path):
    """A 'compiler' that writes something not executable (as a noexec /tmp would refuse a real
    one): OSError from starting it, one line."""
    body = 'while [ "$1" != -o ]; do shift; done\nprintf "not an ELF" > "$2"\nchmod +x "$2"\n'
    monkeypatch.setenv("CC", _fake_cc(tmp_path, body))
    assert ceilings.main([]) == 2
    assert capsys.readouterr().err.strip().splitlines() == ["ceilings: cannot run the probe: Exec format error"]


def test_a_failure_line_names_the_program_the_file_and_why():
    """First line of standard error, else the signal that ended the command, else its exit status;
    the file only when the command was given one."""
    err = subprocess.CalledProcessError
    assert failure_line("t", err(1, ["/usr/bin/cc", "-O3", "/x/y.c"], stderr="y.c:1: error\nmore\n")) == \
        "t: cc failed on y.c: y.c:1: error"
    assert failure_line("t", err(-4, ["/tmp/d/ceilings"], stderr="")) == "t: ceilings failed: killed by SIGILL"
    assert failure_line("t", err(3, ["prog", "arg"])) == "t: prog failed on arg: exit 3"


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


def test_the_probe_source_ships_with_the_package():
    """`pip install .` carries ceilings.c (package data), so the tool runs from an installed suite."""
    import tomllib
    from pathlib import Path
    root = Path(ceilings.__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file():
        pytest.skip("not a source checkout")
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(Path(ceilings.SOURCE.name).match(pat) for pat in data.get("conformance.tools", []))
