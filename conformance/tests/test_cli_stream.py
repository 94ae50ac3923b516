"""The command line under a demanding user (issue 11): cut streams one line per chunk in three
formats over several files, a closed pipe ends quietly, --help is complete plain text, bench
takes large sizes, vectors regenerate --out and the stored / computed drift lines, ci/setup.sh
returns at once when nothing changed. Sizes are checked against the pure-Python model, digests
against hashlib over the input's slices."""

import hashlib
import json
import os
import random
import subprocess
import sys

import pytest

from chunkers import bench, cli
from vectors.impls import Model

pytestmark = pytest.mark.ours_only
PARAMS = "fastcdc,6,12,8,2"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _expected(data: bytes):
    """(offset, size, all_zero, sha256) per chunk, from the model's sizes."""
    sizes = Model().chunk_sizes(("fastcdc", 6, 12, 8, 2), data, key=bytes(32), seed=0)
    out, off = [], 0
    for s in sizes:
        piece = data[off:off + s]
        out.append((off, s, piece == bytes(s), hashlib.sha256(piece).hexdigest()))
        off += s
    return out


@pytest.fixture
def files(tmp_path):
    rng = random.Random(5)
    a = rng.randbytes(20000) + bytes(9000) + rng.randbytes(3000)    # a zero run gives all-zero chunks
    b = rng.randbytes(7000)
    (tmp_path / "a").write_bytes(a)
    (tmp_path / "b").write_bytes(b)
    return {str(tmp_path / "a"): a, str(tmp_path / "b"): b}


def test_cut_csv(files, capsys):
    path, data = next(iter(files.items()))
    assert cli.main(["cut", "--params", PARAMS, "--format", "csv", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "file,offset,size,all_zero,sha256"
    rows = [line.split(",") for line in lines[1:]]
    assert [(int(o), int(s), z == "1", h) for _f, o, s, z, h in rows] == _expected(data)
    assert {f for f, *_ in rows} == {path}
    assert any(z == "1" for *_, z, _h in rows)


def test_cut_jsonl_over_several_files(files, capsys):
    assert cli.main(["cut", "--params", PARAMS, "--format", "jsonl", *files]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for path, data in files.items():
        got = [(r["offset"], r["size"], r["all_zero"], r["sha256"]) for r in rows if r["file"] == path]
        assert got == _expected(data)


def test_cut_sizes_over_several_files_are_prefixed(files, capsys):
    assert cli.main(["cut", "--params", PARAMS, *files]) == 0
    lines = capsys.readouterr().out.splitlines()
    want = [f"{path}: {s}" for path, data in files.items() for _o, s, _z, _h in _expected(data)]
    assert lines == want


def test_cut_sizes_escape_names_that_would_break_lines(tmp_path, capsys):
    """A name with a line break or backslash is written as sha256sum writes it, one line per chunk."""
    data = random.Random(6).randbytes(5000)
    odd = {"a\nb": "\\a\\nb", "c\\d": "\\c\\\\d", "e\rf": "\\e\\rf", "plain": "plain"}
    for name in odd:
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / name) for name in odd]
    assert cli.main(["cut", "--params", PARAMS, *paths]) == 0
    lines = capsys.readouterr().out.split("\n")[:-1]
    sizes = [s for _o, s, _z, _h in _expected(data)]
    prefix = str(tmp_path) + "/"
    want = [(f"\\{prefix}{esc[1:]}" if esc.startswith("\\") else prefix + esc) + f": {s}"
            for esc in odd.values() for s in sizes]
    assert lines == want


def test_cut_json_and_format_are_alternatives(files, capsys):
    assert cli.main(["cut", "--params", PARAMS, "--json", "--format", "csv", *files]) == 2
    assert "alternatives" in capsys.readouterr().err


def _run_to(stdout, module_args):
    """Run ``python -m MODULE ARGS`` with stdout: "closed" (``>&-``), "pipe" (a pipe whose reader is
    gone) or "full" (/dev/full); (status, stderr)."""
    cmd = [sys.executable, "-m", *module_args]
    if stdout == "closed":
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              preexec_fn=lambda: os.close(1))
        return proc.returncode, proc.stderr
    if stdout == "full":
        with open("/dev/full", "w") as full:
            proc = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        return proc.returncode, proc.stderr
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run(cmd, stdout=w, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    finally:
        os.close(w)
    return proc.returncode, proc.stderr


STDOUTS = ["closed", "pipe"] + (["full"] if os.path.exists("/dev/full") else [])


@pytest.mark.parametrize("args", [["kernels", "--json"], ["kernels"],
                                  ["cut", "--params", "fixed,4096", "--format", "csv", "/dev/zero"],
                                  ["bench", "--size", "1", "--repeat", "1", "--family", "fixed", "--no-scan"],
                                  ["tune", "--size", "1", "--rounds", "1", "--out", os.devnull]])
def test_a_closed_pipe_ends_quietly(args):
    """`| head -1` closing early: exit 141, nothing on stderr (no 'Broken pipe', no traceback).
    /dev/zero never ends, so cut must stream to notice the closed pipe at all."""
    status, err = _run_to("pipe", ["chunkers", *args])
    assert (status, err) == (141, "")


def test_the_main_job_with_a_closed_pipe_still_gives_its_verdict_and_report(tmp_path):
    """The conformance job's tables go nowhere, but its exit status is still the verdict (0 here, not
    rich's SystemExit(1), which reads as a mismatch) and the report is written."""
    report = tmp_path / "r.json"
    status, err = _run_to("pipe", ["conformance", "--family", "fixed", "--corpus-size", "4096",
                                   "--report", str(report)])
    assert status == 0 and "Traceback" not in err, err
    assert json.loads(report.read_text())["cells"]


@pytest.mark.parametrize("stdout", STDOUTS)
@pytest.mark.parametrize("module_args", [["chunkers", "--help"], ["chunkers", "cut", "--help"],
                                         ["conformance", "--help"], ["vectors", "check", "--help"]])
def test_help_to_a_lost_output_is_exit_141(stdout, module_args):
    """--help with standard output closed, a closed pipe or a full disk: exit 141 and nothing on
    stderr (argparse's own ignores the write's error, prints the help to stderr when stdout is
    closed, and its final flush failing was a traceback)."""
    assert _run_to(stdout, module_args) == (141, "")


@pytest.mark.parametrize("stdout", [s for s in STDOUTS if s != "pipe"])     # the pipe: tests above
def test_a_lost_standard_output_keeps_the_report_and_the_tune_file(tmp_path, stdout):
    """Standard output closed or on a full disk: the main job still writes its report and exits
    with its verdict; tune still writes its file (exit 141: its output lost). On a full disk both
    were an OSError (ENOSPC) before the file was written."""
    report, out = tmp_path / "r.json", tmp_path / "tune.json"
    status, err = _run_to(stdout, ["conformance", "--family", "fixed", "--corpus-size", "4096",
                                   "--report", str(report)])
    assert status == 0 and "Traceback" not in err, err
    assert json.loads(report.read_text())["cells"]
    status, err = _run_to(stdout, ["chunkers", "tune", "--size", "1", "--rounds", "1", "--out", str(out)])
    assert (status, err) == (141, "")
    assert json.loads(out.read_text())["defaults"]


def test_cut_streams_before_the_input_ends():
    """The first line of an endless input arrives (it could not without streaming)."""
    proc = subprocess.Popen([sys.executable, "-m", "chunkers", "cut", "--params", "fixed,4096",
                             "--sparse", "/dev/zero"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        first = proc.stdout.readline()
    finally:
        proc.stdout.close()
        status = proc.wait()
    assert first == b"4096\n"             # a device is read, not taken for a hole-only empty file
    assert status == 141 and proc.stderr.read() == b""


def test_help_is_complete_plain_text(capsys):
    for argv in (["--help"], ["cut", "--help"]):
        with pytest.raises(SystemExit):
            cli.main(argv)
        text = capsys.readouterr().out
        for needle in ("fastcdc,MIN,MAX,MASK,NC", "buzhash64,MIN,MAX,MASK,WINDOW,NC", "fixed,BLOCK[,HEADER]",
                       "rabin-aes,", "scalar", "blockwise", "vaes256", "aes-ni", "CHUNKERS_FASTCDC_KERNEL",
                       "CHUNKERS_AES_KERNEL", "CHUNKERS_CPU_HIDE", "CHUNKERS_DEFAULTS", "exit status", "141", "130"):
            assert needle in text, (argv, needle)
        assert argv != ["--help"] or "{cut,kernels,bench,tune}" in text
        assert "``" not in text and "[bold" not in text and "[/" not in text


def test_bench_data_is_drawn_in_pieces(monkeypatch):
    """Random data of 256 MiB and more cannot come from one randbytes call (OverflowError):
    it is drawn PIECE bytes at a time; below PIECE it is the single call's bytes."""
    monkeypatch.setattr(bench, "PIECE", 1000)
    got = bench.seeded_bytes(2500, 3)
    rng = random.Random(3)
    assert got == rng.randbytes(1000) + rng.randbytes(1000) + rng.randbytes(500)
    monkeypatch.undo()
    assert bench.seeded_bytes(5000, 3) == random.Random(3).randbytes(5000)


@pytest.mark.slow
def test_bench_256_mib(capsys):
    assert cli.main(["bench", "--size", "256", "--family", "fixed", "--repeat", "1", "--no-scan", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["params"] == "fixed,4194304 (stream)" and row["mb_s"] > 0


def test_bench_fixed_runs_on_a_stream(capsys):
    assert cli.main(["bench", "--size", "1", "--family", "fixed", "--repeat", "1", "--no-scan", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["params"] == "fixed,4194304 (stream)"


def test_vectors_regenerate_out_dir(tmp_path):
    from vectors.__main__ import main as vectors_main
    assert vectors_main(["regenerate", "--chunker", "fixed", "--out", str(tmp_path)]) == 0
    with open(os.path.join(ROOT, "vectors", "fixed.json")) as f:
        assert (tmp_path / "fixed.json").read_text() == f.read()


def test_vectors_regenerate_out_must_be_a_directory(tmp_path, capsys):
    from vectors.__main__ import main as vectors_main
    with pytest.raises(SystemExit) as e:
        vectors_main(["regenerate", "--out", str(tmp_path / "nope")])
    assert e.value.code == 2 and "--out: not a directory" in capsys.readouterr().err


def test_drift_lines_name_stored_and_computed():
    import vectors
    from vectors.generate import drift
    stored = vectors.load("fixed")
    computed = json.loads(json.dumps(stored))
    test = computed["testGroups"][0]["tests"][0]
    test["comment"] = "changed"
    lines = drift(stored, computed)
    assert len(lines) == 1 and "stored" in lines[0] and "computed" in lines[0] and "changed" in lines[0]
    assert lines[0].index("stored") < lines[0].index("computed")


def test_setup_is_fast_when_nothing_changed():
    """After a successful ci/setup.sh the stamp matches: a second run returns at once."""
    if not os.path.exists(os.path.join(ROOT, ".venv", ".chunkers-setup-stamp")):
        pytest.skip("ci/setup.sh has not completed in this checkout (no stamp)")
    # a checkout edited since its last set-up would rebuild the extensions under the other workers
    if subprocess.run(["bash", "ci/setup.sh", "--check"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("sources changed since the last ci/setup.sh (run it again)")
    proc = subprocess.run(["bash", "ci/setup.sh"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "up to date" in proc.stderr, proc.stderr
