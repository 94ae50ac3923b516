"""The command line (python -m chunkers): cut, kernels, bench; errors and exit codes."""

import json
import subprocess
import sys

import pytest

import chunkers
from chunkers.cli import main
from conformance.inputs import sha_ctr
from conformance.spec_values import SPEC_05_FASTCDC, cuts_of, ints, md_rows


@pytest.fixture
def sc_file(tmp_path):
    p = tmp_path / "sc.bin"
    p.write_bytes(sha_ctr(1 << 20))
    return p


def test_cut_prints_spec_sizes(sc_file, capsys):
    """fastcdc Z (6,12,8,0) on SC: the spec's first cuts (05 §5.1)."""
    assert main(["cut", "--params", "fastcdc,6,12,8,0", str(sc_file)]) == 0
    sizes = [int(x) for x in capsys.readouterr().out.split()]
    row = md_rows(SPEC_05_FASTCDC)[0]
    assert cuts_of(sizes)[:12] == ints(row[3]) and len(sizes) == int(row[4])


def test_cut_json_and_key(sc_file, capsys):
    assert main(["cut", "--json", "--params", "buzhash64,6,12,8,64,0", "--key", bytes(range(32)).hex(),
                 "--kernel", "blockwise", str(sc_file)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["chunker"] == "buzhash64" and out["kernel"] == "blockwise"
    assert out["params"] == ["buzhash64", 6, 12, 8, 64, 0]
    assert cuts_of(out["sizes"])[:3] == [288, 683, 1008]       # spec 05 §5.2, key KS


def test_cut_stdin():
    data = sha_ctr(300000)
    r = subprocess.run([sys.executable, "-m", "chunkers", "cut", "--params", "fastcdc,10,16,14,2", "-"],
                       input=data, capture_output=True, check=True)
    assert [int(x) for x in r.stdout.split()] == chunkers.chunk_sizes("fastcdc,10,16,14,2", data)


@pytest.mark.parametrize("args, msg", [
    (["--params", "fastcdc,19,23,21"], "fastcdc,chunk_min"),
    (["--params", "fastcdc,19,23,21,2", "--key", "zz"], "hex"),
    (["--params", "fastcdc,19,23,21,2", "--key", "00" * 31], "32 bytes"),
    (["--params", "fastcdc,19,23,21,2", "--kernel", "neon9"], "not a kernel of this build"),
    (["--params", "fixed,4096", "--key", "00" * 32], "--key: fixed takes no key"),
    (["--params", "buzhash,19,23,21,4095", "--key", "00" * 32], "buzhash takes no key (it takes --seed)"),
    (["--params", "fastcdc,19,23,21,2", "--seed", "5"], "--seed: only the legacy buzhash takes a seed"),
    (["--params", "buzhash64,19,23,21,0,2"], "buzhash64: hash_window_size=0 is out of range"),
])
def test_cut_usage_errors(sc_file, capsys, args, msg):
    assert main(["cut", *args, str(sc_file)]) == 2
    assert msg in capsys.readouterr().err


def test_cut_missing_file(tmp_path, capsys):
    assert main(["cut", "--params", "fastcdc,19,23,21,2", str(tmp_path / "nope")]) == 1
    assert "No such file" in capsys.readouterr().err


def test_kernels_inventory(capsys):
    assert main(["kernels", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["family"], r["kernel"], r["runs"]) for r in rows] == \
        [(r.family, r.kernel, r.runs) for r in chunkers.kernels()]
    assert main(["kernels"]) == 0
    assert "scalar" in capsys.readouterr().out


def test_bench_small(capsys):
    assert main(["bench", "--size", "1", "--repeat", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    runnable = {(r.family, r.kernel) for r in chunkers.kernels() if r.runs}
    assert {(r["family"], r["kernel"]) for r in rows} == runnable
    assert {r["mode"] for r in rows} == {"chunk", "scan"}
    assert all(r["mb_s"] > 0 for r in rows)


def test_cut_closed_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)     # what Python sets when file descriptor 0 is closed
    assert main(["cut", "--params", "fastcdc,19,23,21,2", "-"]) == 2
    assert capsys.readouterr().err == "error: standard input is closed\n"


def test_bench_unknown_family(capsys):
    with pytest.raises(SystemExit) as e:
        main(["bench", "--family", "rabin-aes"])
    assert e.value.code == 2 and "invalid choice: 'rabin-aes'" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--size", "-1"], ["--size", "0"], ["--size", "1", "--repeat", "0"]])
def test_bench_usage_errors(capsys, args):
    """Found by fuzz/params_parse: a negative size was a ValueError traceback."""
    assert main(["bench", *args]) == 2
    assert capsys.readouterr().err.startswith("error: bench needs --size >= 1")
