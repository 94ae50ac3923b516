"""The main job on real trees (issue 11): bounded reads, files that change mid-run, special files,
bad paths, progress lines, a partial report on SIGTERM, --max-bytes / --sample / --jobs."""

import json
import os
import random
import signal
import socket
import subprocess
import sys

import pytest

from conformance.run import job, progress, realfiles
from conformance.__main__ import main

QUICK = ["--family", "fixed", "--corpus-size", "4096"]


def _rand(n: int, salt: str = "") -> bytes:
    """``n`` seeded pseudo-random bytes (replayable: the seed is the size and ``salt``)."""
    return random.Random(f"{salt}:{n}").randbytes(n)
pytestmark = pytest.mark.ours_only


def _tree(tmp_path, files):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return str(tmp_path)


# --- bad paths: exit 2 before any work ---------------------------------------------------------

def test_a_character_device_or_fifo_as_argument_is_a_usage_error(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in (("/dev/null", "a character device"), (str(fifo), "a FIFO")):
        with pytest.raises(SystemExit) as e:
            main([*QUICK, path])
        assert e.value.code == 2
        assert f"{path} is {kind}, not a regular file or directory" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--max-bytes", "0"], "must be at least 1"),
    (["--max-bytes", "12Q"], "expected a byte count"),
    (["--sample", "0"], "must be at least 1"),
    (["--jobs", "-1"], "must be at least 1"),
])
def test_new_options_are_checked(capsys, args, message):
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--report", "{tmp}"], "(a directory)"),
    (["--report", "{tmp}/file/r.json"], "(its folder cannot be written)"),
    (["--report", "{tmp}/new/"], "(a directory)"),             # a name for a folder, not a file
    (["--builds", "gcc-O2", "--impl", "borg", "--report", "{tmp}/r.json"], "does not take --report, --impl"),
    (["--builds", "gcc-O2", "{tmp}"], "does not take paths"),
    (["--builds", "bogus"], "--builds: bad build name 'bogus'"),
    (["--corpus-size", str(1 << 28)], "at most 134217728 bytes"),       # randbytes' limit, not a traceback
    (["--corpus-size", str(1 << 27), "--jobs", "4096"], "needs about"),  # 7.5 TiB: more than any memory here
    (["--builds", ","], "error: --builds: no build named"),      # once, not '--builds: --builds:'
    (["--builds", ""], "error: --builds: no build named"),       # not the plain job
    (["--allow-missing"], "--allow-missing applies only with --impl"),
    (["--impl", "model", "--tiers", "all"], "model has no such route"),     # only borg has a qemu route
    (["--sample", "3"], "give the paths"),
    (["--max-bytes", "1M"], "give the paths"),
])
def test_options_without_effect_or_target_are_usage_errors(tmp_path, capsys, args, message):
    """Checked before any work (exit 2, one line), never accepted and dropped: --builds ran our job
    with --impl borg ignored, and --report DIR failed with a traceback after the whole run."""
    (tmp_path / "file").write_bytes(b"x")
    with pytest.raises(SystemExit) as e:
        main([*QUICK, *(a.format(tmp=tmp_path) for a in args)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err.strip().splitlines()[-1], err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_report_that_cannot_be_written_at_the_end_is_one_line_and_exit_1(capsys):
    """/dev/full passes the check before the run (it is writable) and fails the write: one line, exit 1
    (the cells passed, the report asked for is missing), not a traceback."""
    assert main([*QUICK, "--report", "/dev/full"]) == 1
    err = capsys.readouterr().err
    assert "error: the report could not be written to /dev/full: [Errno 28]" in err and "Traceback" not in err


def test_abstract_adapter_is_a_usage_error(capsys):
    assert main([*QUICK, "--impl", "vectors.impls:Implementation"]) == 2
    out = capsys.readouterr()
    assert "abstract adapter" in out.out + out.err


# --- the walk: special entries are listed ------------------------------------------------------

def test_walk_lists_fifos_sockets_and_dangling_symlinks(tmp_path):
    (tmp_path / "a").write_bytes(b"a" * 100)
    os.mkfifo(tmp_path / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    os.symlink(tmp_path / "gone", tmp_path / "dangling")
    os.symlink(tmp_path / "a", tmp_path / "link")
    (tmp_path / "d").mkdir()
    os.symlink(tmp_path / "d", tmp_path / "dirlink")
    try:
        files, skipped = realfiles.walk([str(tmp_path)])
    finally:
        sock.close()
    assert [f.path for f in files] == [str(tmp_path / "a"), str(tmp_path / "link")]
    assert skipped == {str(tmp_path / "dangling"): "dangling symlink", str(tmp_path / "fifo"): "a FIFO",
                       str(tmp_path / "sock"): "a socket",
                       str(tmp_path / "dirlink"): "symlink to a directory (not followed)"}


def test_special_files_are_in_the_report(tmp_path, capsys):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a").write_bytes(b"a" * 100)
    os.mkfifo(tree / "fifo")
    report = tmp_path / "r.json"
    assert main([*QUICK, "--report", str(report), str(tree)]) == 0
    assert json.loads(report.read_text())["unreadable"] == [f"{tree}/fifo: a FIFO"]
    assert f"{tree}/fifo: a FIFO" in capsys.readouterr().out


# --- bounded reads and files that change -------------------------------------------------------

def test_files_are_read_in_bounded_pieces(tmp_path):
    data = _rand(2500)
    path = _tree(tmp_path, {"f": data})
    files, _ = realfiles.walk([path])
    pieces = realfiles.pieces(files, piece=1000)
    assert [(p.offset, p.length) for p in pieces] == [(0, 1000), (1000, 1000), (2000, 500)]
    assert b"".join(p.load() for p in pieces) == data
    assert pieces[1].name == f"{path}/f[1000:2000]"


@pytest.mark.parametrize("change, reason", [
    (lambda p: os.truncate(p, 10), "shrank during the run (3000 -> 10 bytes)"),
    (lambda p: open(p, "ab").write(b"more"), "grew during the run (3000 -> 3004 bytes)"),
    (os.unlink, "vanished during the run"),
    (lambda p: (open(p + ".new", "wb").write(_rand(3000, "new")), os.replace(p + ".new", p)), "replaced during the run"),
])
def test_a_file_changed_between_kernels_is_skipped_with_the_reason(tmp_path, change, reason):
    path = _tree(tmp_path, {"f": _rand(3000), "g": _rand(2000)})
    files, _ = realfiles.walk([path])
    sources, skipped, refs = realfiles.pieces(files), {}, {}
    first = job.Cell("fixed", "single")
    job.check_cell(first, sources, [], refs, skipped=skipped)
    change(f"{path}/f")
    second = job.Cell("fixed", "single")
    job.check_cell(second, sources, [], refs, skipped=skipped)
    assert skipped == {f"{path}/f": reason}
    assert first.status == second.status == "passed"
    assert second.bytes == first.bytes - 3000 * 4 * 2       # f left out: 4 params x 2 keys


def test_a_file_modified_in_place_is_skipped(tmp_path):
    path = _tree(tmp_path, {"f": bytes(3000)})
    (snap,), _ = realfiles.walk([path])
    with open(f"{path}/f", "r+b") as f:
        f.write(b"x")
    os.utime(f"{path}/f", ns=(snap.mtime_ns + 10**9, snap.mtime_ns + 10**9))
    with pytest.raises(realfiles.FileChanged, match="modified during the run"):
        realfiles.FilePiece(snap, 0, 3000).load()


def test_truncating_a_file_during_a_run_is_no_crash(tmp_path):
    """The SIGBUS reproducer of issue 11, scaled down: a file truncated while the job runs (here
    when the second kernel starts) is listed, the run completes with exit 0."""
    tree = tmp_path / "tree"
    tree.mkdir()
    big = tree / "big"
    big.write_bytes(_rand(3 << 20))
    report = tmp_path / "r.json"
    code = (f"import os, sys; from conformance.run import job; real = job.check_cell\n"
            f"def hook(cell, *a, **k):\n"
            f"    if cell.kernel != 'scalar': os.truncate({str(big)!r}, 4096)\n"
            f"    return real(cell, *a, **k)\n"
            f"job.check_cell = hook\n"
            f"from conformance.__main__ import main; sys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", code, "--family", "fastcdc", "--corpus-size", "4096",
                           "--report", str(report), str(tree)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(report.read_text())
    assert doc["unreadable"] == [f"{big}: shrank during the run ({3 << 20} -> 4096 bytes)"]
    assert all(c["status"] in ("passed", "skipped") for c in doc["cells"])


# --- selection: --max-bytes, --sample ----------------------------------------------------------

def test_max_bytes_and_sample_select_files(tmp_path):
    path = _tree(tmp_path, {f"f{i}": bytes(1000 * (i + 1)) for i in range(6)})
    files, _ = realfiles.walk([path])
    chosen, left = realfiles.select(files, max_bytes=2500)
    assert [os.path.basename(f.path) for f in chosen] == ["f0", "f1"] and left == 4
    assert sum(p.length for p in realfiles.pieces(chosen, 2500)) == 2500       # f1 cut short
    chosen, left = realfiles.select(files, sample=3, seed=7)
    again, _ = realfiles.select(files, sample=3, seed=7)
    assert len(chosen) == 3 and left == 3 and chosen == again                  # seeded, replayable
    assert chosen == sorted(chosen, key=lambda f: f.path)


def test_max_bytes_bounds_the_bytes_run(tmp_path):
    path = _tree(tmp_path, {"a": _rand(5000), "b": _rand(5000)})
    report = tmp_path / "r.json"
    assert main([*QUICK, "--max-bytes", "6000", "--report", str(report), path]) == 0
    corpus_only = job.matrix(1, 4096, [], ["fixed"])[0]
    (cell,) = json.loads(report.read_text())["cells"]
    assert cell["bytes"] - corpus_only.bytes == 6000 * 4 * 2


# --- --jobs ------------------------------------------------------------------------------------

def test_jobs_give_the_same_matrix(tmp_path):
    (tmp_path / "tree").mkdir()
    path = _tree(tmp_path / "tree", {"a": _rand(20000)})
    reports = []
    for jobs in ("1", "2"):
        report = tmp_path / f"r{jobs}.json"
        assert main(["--family", "fixed", "--family", "buzhash", "--corpus-size", "4096", "--jobs", jobs,
                     "--report", str(report), path]) == 0
        reports.append([(c["family"], c["kernel"], c["status"], c["bytes"], c["cuts"], c["chunk_runs"])
                        for c in json.loads(report.read_text())["cells"]])
    assert reports[0] == reports[1]
    assert [r[:3] for r in reports[0]] == [("buzhash", "single", "passed"), ("buzhash", "seg4", "passed"),
                                           ("buzhash", "stride4", "passed"), ("fixed", "single", "passed")]


# --- progress and interruption -----------------------------------------------------------------

def test_progress_lines_when_piped(tmp_path):
    path = _tree(tmp_path, {"a": _rand(20000)})
    proc = subprocess.run([sys.executable, "-m", "conformance", *QUICK, path], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("ours: fixed/single:")]
    assert lines, proc.stderr
    assert "input 0/" in lines[0] and " of " in lines[0] and "/s, elapsed " in lines[0] and "ETA " in lines[0]


def test_progress_line_counts_work():
    now = [0.0]
    lines = []
    p = progress.Progress(lines.append, interval=5, clock=lambda: now[0])
    p.plan(1000, 4)
    p("k")
    now[0] = 2.0
    p.advance(100)               # within the interval: no line
    now[0] = 10.0
    p.advance(400)
    now[0] = 14.0
    p.tick()                     # within the interval: no line
    p.skip(250)                  # an input left out: its work is off the total
    now[0] = 20.0
    p.advance(0)
    assert lines == ["k: input 0/4, 0 B of 1.0 kB (0%), 0 B/s, elapsed 0m00s, ETA ?",
                     "k: input 2/4, 500 B of 1.0 kB (50%), 50 B/s, elapsed 0m10s, ETA 0m10s",
                     "k: input 3/4, 500 B of 750 B (67%), 25 B/s, elapsed 0m20s, ETA 0m10s"]


def test_sigterm_writes_a_partial_report(tmp_path, monkeypatch, capsys):
    """SIGTERM during the second kernel: the first cell is kept, the second marked interrupted,
    the report written, exit status 128 + 15."""
    real = job.check_cell
    calls = []

    def hook(cell, *args, **kw):
        calls.append(cell.kernel)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(cell, *args, **kw)

    monkeypatch.setattr(job, "check_cell", hook)
    report = tmp_path / "r.json"
    assert main(["--family", "fixed", "--family", "buzhash", "--corpus-size", "4096",
                 "--report", str(report)]) == 128 + signal.SIGTERM
    doc = json.loads(report.read_text())
    assert doc["interrupted"] == "SIGTERM"
    assert [(c["family"], c["kernel"], c["status"]) for c in doc["cells"]] == [("buzhash", "single", "passed"),
                                                                              ("buzhash", "seg4", "interrupted")]
    assert "interrupted by SIGTERM" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL      # the handler is restored


def test_memory_does_not_grow_with_the_tree(tmp_path):
    """The reference cache keeps a digest per run, not the size lists: running 8 files instead of
    1 (fixed,64: 32768 sizes per file and key) peaks at about the same traced memory."""
    import tracemalloc
    data = _rand(2 << 20)
    job.check_cell(job.Cell("fixed", "single"), [], [], {})     # first-use allocations (vectors) out of the way
    peaks = []
    for count in (1, 8):
        tree = tmp_path / str(count)
        tree.mkdir()
        for i in range(count):
            (tree / f"f{i}").write_bytes(data)
        files, _ = realfiles.walk([str(tree)])
        sources, refs = realfiles.pieces(files), {}
        tracemalloc.start()
        job.check_cell(job.Cell("fixed", "single"), sources, [], refs)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] - peaks[0] < 1 << 20, peaks      # size lists kept would add 7 x 2 x 256 KiB and more


def test_the_model_sees_the_first_real_inputs_only(tmp_path, monkeypatch):
    """The pure-Python model takes 0.2-0.5 s per 64 KiB prefix: over a system tree that would be
    hours, so only the first MODEL_REAL_INPUTS real inputs are compared with it."""
    path = _tree(tmp_path, {f"f{i:02d}": _rand(300) for i in range(job.MODEL_REAL_INPUTS + 4)})
    files, _ = realfiles.walk([path])
    calls = []
    real_model = job.model_sizes
    monkeypatch.setattr(job, "model_sizes", lambda params, data, key: calls.append(params) or
                        real_model(params, data, key))
    cell = job.Cell("fixed", "single")
    job.check_cell(cell, realfiles.pieces(files), [], {})
    assert cell.status == "passed"
    assert len(calls) == job.MODEL_REAL_INPUTS * 4 * 2 and cell.chunk_runs == (job.MODEL_REAL_INPUTS + 4) * 4 * 2


def test_emulated_kernels_keep_progress_lines_coming(monkeypatch):
    """An emulated kernel runs scan cases for minutes without input bytes: each case ticks."""
    from conformance.tools import emulate
    ticks = []

    class Tracker(progress.Progress):
        def tick(self):
            ticks.append(1)

    monkeypatch.setattr(emulate, "runner", lambda family, kernel: lambda case: None)
    monkeypatch.setattr(job, "scan_mismatches", lambda family, kernel, cases, run: [run(c) for c in cases] and [])
    monkeypatch.setattr(job.chunkers, "kernels", lambda: [job.chunkers.KernelStatus(
        "buzhash", "single", False, "no CPU", True, "emulated (test)")])
    job.matrix(1, 4096, [], ["buzhash"], progress=Tracker(lambda line: None))
    assert len(ticks) == len(job.FAMILIES["buzhash"].cases(1)) > 0
