"""The main job's command line (``python -m conformance``): usage errors exit 2 before any work,
real input files are chunked, an unreadable one is skipped and reported, not fatal."""

import json

import pytest

from conformance.run import job, realfiles
from conformance.__main__ import main

QUICK = ["--family", "fixed", "--corpus-size", "4096"]


@pytest.mark.parametrize("args, message", [
    (["--family", "nope"], "invalid choice: 'nope'"),
    (["--family", "rabin-aes"], "invalid choice: 'rabin-aes'"),
    (["--corpus-size", "-5"], "must be at least 1"),
    (["--report", "/nonexistent/dir/r.json"], "--report: cannot write"),
    (["--report", ""], "--report: cannot write '' (an empty name)"),
    (["/nonexistent/input"], "no such file or directory: /nonexistent/input"),
])
def test_usage_errors(capsys, args, message):
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_real_files_and_an_unreadable_one(tmp_path, monkeypatch, capsys):
    (tmp_path / "a").write_bytes(bytes(range(256)) * 40)
    (tmp_path / "b").write_bytes(b"x" * 5000)
    (tmp_path / "empty").write_bytes(b"")
    real_load = realfiles.FilePiece.load

    def deny_b(piece):      # root reads any file: the denial is simulated where the file is read
        if piece.snap.path.endswith("/b"):
            raise realfiles.FileChanged("unreadable: Permission denied")
        return real_load(piece)

    monkeypatch.setattr(realfiles.FilePiece, "load", deny_b)
    report = tmp_path / "report.json"
    assert main([*QUICK, "--report", str(report), str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "skipped files" in out and "/b: unreadable: Permission denied" in out
    doc = json.loads(report.read_text())
    assert doc["unreadable"] == [f"{tmp_path}/b: unreadable: Permission denied"]
    (cell,) = doc["cells"]
    assert cell["status"] == "passed"
    # the two readable real files are chunked on top of the built-in corpus
    corpus_only = job.matrix(1, 4096, [], ["fixed"])[0]
    assert cell["bytes"] - corpus_only.bytes > 0
    assert (cell["bytes"] - corpus_only.bytes) % 10240 == 0   # 10240 bytes (a) per chunk run


@pytest.mark.ours_only
def test_a_catalogue_that_cannot_be_built_fails_the_reference_cell_and_fail_fast_stops_there(monkeypatch):
    """The scan catalogue plants its hits on the reference kernel; when a broken reference makes
    that raise, the job reports the reference's cell failed (the other kernels still run)
    instead of dying with a traceback."""
    import dataclasses

    from conformance.cases.families import FAMILIES

    def cannot_plant(seed):
        raise RuntimeError("could not plant [0] in 8292 positions")

    monkeypatch.setitem(FAMILIES, "buzhash", dataclasses.replace(FAMILIES["buzhash"], cases=cannot_plant))
    cells = job.matrix(1, 4096, [], ["buzhash", "fixed"])
    by_kernel = {c.kernel: c for c in cells if c.family == "buzhash"}
    ref = by_kernel[FAMILIES["buzhash"].reference]
    assert ref.status == "failed"
    assert "building the scan catalogue on single failed: RuntimeError: could not plant" in ref.mismatches[0].reproducer
    assert all(c.status == "passed" for c in cells if c is not ref) and len(by_kernel) > 1
    # --fail-fast: nothing runs after the first failed cell, which is the reference's (it runs first)
    stopped = job.matrix(1, 4096, [], ["buzhash", "fixed"], fail_fast=True)
    assert [(c.family, c.kernel, c.status) for c in stopped] == [("buzhash", ref.kernel, "failed")]
