"""The command line (python -m chunkers): cut, kernels, bench; errors and exit codes."""

import hashlib
import json
import os
import subprocess
import sys

import pytest

import chunkers
from chunkers.cli import main
from vectors.generators import sha_ctr
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
    out = capsys.readouterr().out
    assert "scalar" in out
    # the first line names the CPU and its detected features (what a pasted report needs)
    from chunkers.kerneltable import cpu_features
    from chunkers.tune import cpu_model
    first = out.splitlines()[0]
    assert first.startswith(f"CPU: {cpu_model() or 'unknown'} (") and all(f in first for f in cpu_features())


def test_kernels_with_a_bad_kernel_variable_is_a_usage_error(capsys, monkeypatch):
    """The inventory would otherwise look fine while every fastcdc chunker fails to construct."""
    monkeypatch.setenv("CHUNKERS_FASTCDC_KERNEL", "bogus")
    assert main(["kernels"]) == 2
    assert "CHUNKERS_FASTCDC_KERNEL='bogus': not a kernel of this build" in capsys.readouterr().err


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


def test_bench_and_tune_larger_than_memory_are_usage_errors(capsys, monkeypatch, tmp_path):
    """With overcommit a MemoryError never comes: `bench --size 100000000` was killed by the kernel
    (exit 137) after eating the machine's memory. The need is checked against MemAvailable first."""
    from chunkers import cliutil
    assert cliutil.memory_available() is None or cliutil.memory_available() > 0
    monkeypatch.setattr(cliutil, "memory_available", lambda: 100 << 20)
    assert main(["bench", "--size", "60", "--family", "fixed"]) == 2
    assert "bench --size 60 needs about 120 MiB of memory; 100 MiB are available here" in capsys.readouterr().err
    assert main(["tune", "--size", "60", "--out", str(tmp_path / "d.json")]) == 2
    assert "tune --size 60 needs about 120 MiB" in capsys.readouterr().err


@pytest.mark.parametrize("out, why", [("{tmp}", "a directory"), ("{tmp}/none/d.json", "its folder cannot be written")])
def test_tune_out_is_checked_before_measuring(capsys, monkeypatch, tmp_path, out, why):
    from chunkers import tune
    monkeypatch.setattr(tune, "measure", lambda *a, **k: pytest.fail("measured before checking --out"))
    assert main(["tune", "--size", "1", "--out", out.format(tmp=tmp_path)]) == 2
    assert f"({why})" in capsys.readouterr().err


def test_cut_reads_standard_input_once(capsys):
    assert main(["cut", "--params", "fixed,64", "-", "-"]) == 2
    assert "- (standard input) can be named only once" in capsys.readouterr().err


def test_cut_csv_quotes_file_names(tmp_path, capsys):
    """A comma or newline in a file name must not add fields or rows (it did: the name was pasted in)."""
    import csv
    import io
    path = tmp_path / 'a,b\n"c'
    path.write_bytes(b"x" * 100)
    assert main(["cut", "--params", "fixed,64", "--format", "csv", str(path)]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[1:] == [[str(path), "0", "64", "0", hashlib.sha256(b"x" * 64).hexdigest()],
                        [str(path), "64", "36", "0", hashlib.sha256(b"x" * 36).hexdigest()]]


def test_cut_of_a_file_that_shrinks_while_read_is_an_error(tmp_path):
    """The file is cut to 1000 bytes once the first line is out; the CLI blocks on the full pipe
    long before it reaches the end, so it meets the early end: exit 1 with one line, never exit 0
    with the cuts of a file that is neither the old one nor the new one."""
    path = tmp_path / "big"
    with open(path, "wb") as f:
        f.truncate(256 << 20)
    proc = subprocess.Popen([sys.executable, "-m", "chunkers", "cut", "--params", "fixed,4096", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    os.truncate(path, 1000)
    proc.stdout.read()
    err = proc.stderr.read().decode()
    assert first == b"4096\n" and proc.wait() == 1, err
    assert err.count("\n") == 1 and "changed size while it was read (268435456 bytes when opened, 1000 at the end" in err


def test_cut_of_a_file_written_in_place_while_read_is_an_error(tmp_path):
    """Same size, other bytes: 1 MiB near the end of a 64 MiB file is overwritten once the first
    line is out (the CLI blocks on the full pipe long before it gets there): exit 1, one line."""
    path = tmp_path / "f"
    path.write_bytes(sha_ctr(64 << 20))
    before = os.stat(path).st_mtime_ns
    proc = subprocess.Popen([sys.executable, "-m", "chunkers", "cut", "--params", "fixed,4096", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    while os.stat(path).st_mtime_ns == before:      # a timestamp that moves (coarse clocks: a later tick)
        with open(path, "r+b") as f:
            f.seek(60 << 20)
            f.write(b"\xff" * (1 << 20))
    proc.stdout.read()
    err = proc.stderr.read().decode()
    assert first == b"4096\n" and proc.wait() == 1, err
    assert err.count("\n") == 1 and "written while it was read (67108864 bytes when opened, 67108864 at" in err


def test_cut_reports_each_bad_file_and_cuts_the_others(tmp_path, capsys):
    """As sha256sum: a missing file and one that fails to read are named on stderr; the files after
    them are still cut; exit 1."""
    good = tmp_path / "good"
    good.write_bytes(b"x" * 200)
    assert main(["cut", "--params", "fixed,64", str(good), str(tmp_path / "missing"), "/proc/self/mem",
                 str(good)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"{good}: {n}" for n in (64, 64, 64, 8)] * 2
    assert err.splitlines() == [f"error: [Errno 2] No such file or directory: '{tmp_path / 'missing'}'",
                                "error: /proc/self/mem: [Errno 5] Input/output error"]


def test_cut_with_standard_output_closed_exits_141():
    """`>&-` (sys.stdout is None): no traceback; the work is done and its output lost, as with a
    closed pipe."""
    r = subprocess.run(f"'{sys.executable}' -m chunkers cut --params fixed,64 /proc/self/status >&-", shell=True,
                       capture_output=False, stderr=subprocess.PIPE, text=True)
    assert (r.returncode, r.stderr) == (141, "")


def test_cut_of_a_pseudo_file_that_reports_a_larger_size():
    """sysfs files report 4096 bytes and hold fewer, and no block on disk: the bytes read are the
    file, not a file that shrank."""
    def held(p):
        with open(p, "rb") as f:
            return len(f.read())
    path = next((p for p in ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/profiling")
                 if os.path.isfile(p) and 0 < held(p) < os.stat(p).st_size), None)
    if path is None:
        pytest.skip("no sysfs file reporting a larger size than it holds on this machine")
    size = held(path)
    r = subprocess.run([sys.executable, "-m", "chunkers", "cut", "--params", "fixed,4096", path],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"{size}\n", "")


def test_cut_of_a_standard_input_without_a_descriptor(monkeypatch, capsys):
    """A replaced sys.stdin (no fileno, as embedding programs and the fuzz harness set it) is read
    to its end like a pipe."""
    import io
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x" * 200)))
    assert main(["cut", "--params", "fixed,64", "-"]) == 0
    assert capsys.readouterr().out.split() == ["64", "64", "64", "8"]


def test_cut_of_standard_input_from_the_middle_of_a_file(tmp_path):
    """`cut -` on a file whose offset is not 0: the bytes from there on, and no size change."""
    path = tmp_path / "f"
    path.write_bytes(sha_ctr(5000))
    with open(path, "rb") as f:
        f.seek(1000)
        r = subprocess.run([sys.executable, "-m", "chunkers", "cut", "--params", "fixed,1024", "-"], stdin=f,
                           capture_output=True, text=True)
    assert (r.returncode, r.stdout.split(), r.stderr) == (0, ["1024"] * 3 + ["928"], "")


def test_cut_of_a_proc_file_is_no_size_change(capsys):
    """/proc files report size 0 and still hold bytes: that is not a change of size."""
    assert main(["cut", "--params", "fixed,64", "/proc/self/status"]) == 0
    assert capsys.readouterr().out


def test_cut_json_reports_what_default_stands_for(tmp_path, capsys):
    path = tmp_path / "f"
    path.write_bytes(b"")
    assert main(["cut", "--params", "default", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["params"] == ["fastcdc", 19, 23, 21, 2]
