"""``python -m fuzz campaign`` (fuzz/campaign_all.py) and the corpus merge (campaign.merge): every
target runs and is merged, the report and the running totals are written; Ctrl-C keeps the corpus
and writes the report; a merge that fails (a full disk) leaves the corpus as it was; bad input
(an unknown target, an --impl that cannot be loaded, unreadable or corrupt files to replay) is one
line. The real campaigns need atheris and the ``asan`` build (skipped with that reason)."""

import errno
import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from fuzz import __main__ as cli
from fuzz import build as fbuild
from fuzz import campaign, campaign_all

ASAN = fbuild.build_dir("asan")


def instrumented(test):
    """Skip ``test`` without atheris or a current ``asan`` build (it runs libFuzzer)."""
    test = pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed")(test)
    return pytest.mark.skipif(not (ASAN / "BUILD_INFO.json").exists() or fbuild.stale(ASAN) is not None,
                              reason="no current instrumented build (run: python -m fuzz build)")(test)


@pytest.fixture
def roots(monkeypatch, tmp_path):
    """Corpus, artifacts, regressions and the report of the campaigns here go to tmp_path."""
    for attr in ("CORPUS_ROOT", "CARRIED_ROOT", "ARTIFACT_ROOT", "REGRESSION_ROOT"):
        monkeypatch.setattr(campaign, attr, tmp_path / attr)
    monkeypatch.setattr(campaign_all, "REPORT_DIR", tmp_path / "report")
    return tmp_path


def _cli(capsys, *argv):
    rc = cli.main([*map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_unknown_target_is_one_line(capsys, roots):
    rc, _, err = _cli(capsys, "campaign", "--runs", "10", "scan_diff_nope")
    assert rc == 2 and err.count("\n") == 1 and "unknown target 'scan_diff_nope'" in err


def test_impl_on_a_target_of_ours_only_is_one_line(capsys, roots):
    rc, _, err = _cli(capsys, "campaign", "--runs", "10", "--impl", "borg", "params_parse")
    assert rc == 2 and err.count("\n") == 1 and "checks this project's code only" in err


def test_impl_that_cannot_load_is_one_line(capsys, roots):
    rc, _, err = _cli(capsys, "campaign", "--runs", "10", "--impl", "no_such_module_xyz:Impl")
    assert rc == 2 and err.count("\n") == 1 and "no_such_module_xyz" in err, err


def test_a_campaign_needs_a_bound(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["campaign", "--time", "0"])
    assert e.value.code == 2 and "not both 0" in capsys.readouterr().err


def test_replay_names_unreadable_and_corrupt_files_and_replays_the_rest(capsys, tmp_path):
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{not json")
    directory = tmp_path / "a-directory"
    directory.mkdir()
    good = tmp_path / "good"
    good.write_bytes(b"fastcdc,16,20,24,8")
    rc, out, err = _cli(capsys, "replay", "params_parse", directory, corrupt, good)
    assert rc == 2, (out, err)
    assert [line.endswith("; not replayed") for line in err.splitlines()] == [True, True], err
    assert f"{directory}: unreadable" in err and f"{corrupt}: corrupt" in err
    seeds = len(campaign.targets.load("params_parse").seeds())
    regressions = campaign.REGRESSION_ROOT / "params_parse"
    known = len(list(regressions.iterdir())) if regressions.is_dir() else 0
    assert f"{seeds + known + 1} inputs replayed, 0 failed, 2 files unreadable" in out


def _fake_merge(write_files: int, error: OSError | None = None, rc: int = 0):
    """campaign._libfuzzer for a -merge=1 run: writes ``write_files`` files into the merge
    directory, then raises ``error`` or returns ``rc``."""
    def run(name, args, env, cwd, log, timeout, *python):
        assert "-merge=1" in args
        merged = next(a for a in args if a.endswith(".merging"))
        for i in range(write_files):
            (campaign.Path(merged) / f"m{i}").write_bytes(b"x")
        log.write_text("MERGE-OUTER: writing\n")
        if error:
            raise error
        return rc
    return run


@pytest.mark.parametrize("how", ["disk-full", "libfuzzer-failed", "nothing-kept"])
def test_a_failed_merge_keeps_the_corpus(monkeypatch, roots, how):
    corpus = roots / "corpus" / "params_parse"
    corpus.mkdir(parents=True)
    for i in range(5):
        (corpus / f"f{i}").write_bytes(bytes([i]))
    monkeypatch.setattr(campaign, "target_env", lambda *a: (sys.executable, {}))
    fake = {"disk-full": _fake_merge(2, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))),
            "libfuzzer-failed": _fake_merge(2, rc=1), "nothing-kept": _fake_merge(0)}[how]
    monkeypatch.setattr(campaign, "_libfuzzer", fake)
    with pytest.raises(campaign.MergeError) as e:
        campaign.merge("params_parse", corpus)
    assert "the corpus is kept as it was" in str(e.value)
    if how == "disk-full":
        assert os.strerror(errno.ENOSPC) in str(e.value)
    assert sorted(p.name for p in corpus.iterdir()) == [f"f{i}" for i in range(5)]
    assert sorted(p.name for p in corpus.parent.iterdir()) == ["params_parse"]     # no partial merge left


def test_a_merge_swaps_in_the_merged_set(monkeypatch, roots):
    corpus = roots / "corpus" / "params_parse"
    corpus.mkdir(parents=True)
    for i in range(5):
        (corpus / f"f{i}").write_bytes(bytes([i]))
    monkeypatch.setattr(campaign, "target_env", lambda *a: (sys.executable, {}))
    monkeypatch.setattr(campaign, "_libfuzzer", _fake_merge(2))
    assert campaign.merge("params_parse", corpus) == (5, 2)
    assert sorted(p.name for p in corpus.iterdir()) == ["m0", "m1"]
    assert sorted(p.name for p in corpus.parent.iterdir()) == ["params_parse"]


def test_a_merge_stopped_between_its_renames_is_recovered(monkeypatch, roots):
    corpus = roots / "corpus" / "params_parse"
    old = corpus.with_name("params_parse.premerge")
    old.mkdir(parents=True)
    (old / "f0").write_bytes(b"a")
    monkeypatch.setattr(campaign, "target_env", lambda *a: (sys.executable, {}))
    monkeypatch.setattr(campaign, "_libfuzzer", _fake_merge(1))
    assert campaign.merge("params_parse", corpus) == (1, 1)      # the corpus before the merge was put back first


@instrumented
def test_campaign_runs_merges_and_reports(capsys, roots):
    rc, out, _ = _cli(capsys, "campaign", "--runs", "300", "--time", "0", "params_parse", "vectors_load")
    assert rc == 0, out
    report = json.loads((roots / "report" / "report.json").read_text())
    assert [r["target"] for r in report["targets"]] == ["params_parse", "vectors_load"]
    for r in report["targets"]:
        assert r["execs"] >= 300 and r["edges"] > 0 and 0 < r["corpus_merged"] <= r["corpus"], r
        assert r["total_execs"] == r["execs"] and not r["findings"] and not r["errors"]
        merged = sorted(p.name for p in (roots / "CORPUS_ROOT" / r["target"]).iterdir())
        assert len(merged) == r["corpus_merged"]
        assert sorted(p.name for p in (roots / "CARRIED_ROOT" / r["target"]).iterdir()) == merged   # carried
    assert set(json.loads((roots / "CARRIED_ROOT" / "campaign-totals.json").read_text())) == {"params_parse",
                                                                                            "vectors_load"}
    assert "[1/2] params_parse" in out and "| params_parse |" in out
    assert (roots / "report" / "report.md").read_text().startswith("Campaign of ")
    first = report["targets"][0]["execs"]
    _cli(capsys, "campaign", "--runs", "300", "--time", "0", "--no-reach", "params_parse")   # the totals carry over
    again = json.loads((roots / "report" / "report.json").read_text())["targets"][0]
    assert again["total_execs"] == first + again["execs"]


_INTERRUPTED = textwrap.dedent("""
    import signal
    import sys
    # Ctrl-C as from a terminal: a job started in the background (a CI runner's ``cmd &``) starts with
    # SIGINT ignored, which Python then keeps, and the campaign would never see it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from pathlib import Path
    from fuzz import campaign, campaign_all
    from fuzz.__main__ import main
    root = Path(sys.argv[1])
    campaign.CORPUS_ROOT, campaign.ARTIFACT_ROOT = root / "corpus", root / "artifacts"
    campaign.CARRIED_ROOT = root / "corpora"
    campaign.REGRESSION_ROOT, campaign_all.REPORT_DIR = root / "regressions", root / "report"
    sys.exit(main(["campaign", "--time", "600", "--no-reach", "params_parse", "vectors_load"]))
""")


@instrumented
@pytest.mark.timeout(900)       # the caps below: 300 s to start, 300 s to stop
def test_ctrl_c_keeps_the_corpus_and_writes_the_report(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", _INTERRUPTED, str(tmp_path)], cwd=fbuild.ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = tmp_path / "artifacts" / "params_parse" / "fuzz.log"
    try:
        for _ in range(600):        # until libFuzzer fuzzes (a cap, not a timed assertion)
            if log.exists() and "INITED" in log.read_text(errors="replace"):
                break
            if proc.poll() is not None:
                pytest.fail(f"the campaign ended (exit {proc.returncode}) before libFuzzer fuzzed:\n{proc.stdout.read()}")
            time.sleep(0.5)
        else:
            pytest.fail("libFuzzer did not start fuzzing in 300 s; its log: "
                        f"{log.read_text(errors='replace')[-2000:] if log.exists() else 'none'}")
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=300)
    finally:        # a failed test leaves no campaign running (its libFuzzer is in a session of its own)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    assert proc.returncode == 130, out
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["interrupted"] and [r["target"] for r in report["targets"]] == ["params_parse"], report
    row = report["targets"][0]
    assert row["interrupted"] and row["execs"] > 0, row
    corpus = tmp_path / "corpus" / "params_parse"
    assert len(list(corpus.iterdir())) == row["corpus"] > 0         # kept, not merged
    assert "interrupted" in (tmp_path / "report" / "report.md").read_text()


def _corpus(root, files):
    root.mkdir(parents=True)
    for name in files:
        (root / name).write_bytes(name.encode())
    return root


def test_carry_replaces_the_carried_corpus(roots):
    _corpus(roots / "CARRIED_ROOT" / "params_parse", ["old0", "old1"])
    merged = _corpus(roots / "merged", ["m0", "m1", "m2"])
    assert campaign.carry(merged, "params_parse") == 3
    assert sorted(p.name for p in (roots / "CARRIED_ROOT").iterdir()) == ["params_parse"]
    assert sorted(p.name for p in (roots / "CARRIED_ROOT" / "params_parse").iterdir()) == ["m0", "m1", "m2"]


def test_a_carry_that_fails_keeps_the_carried_corpus(monkeypatch, roots):
    _corpus(roots / "CARRIED_ROOT" / "params_parse", ["old0", "old1"])
    merged = _corpus(roots / "merged", ["m0", "m1", "m2"])
    real, calls = campaign.shutil.copyfile, []

    def copy_until_the_disk_fills(src, dst):
        calls.append(src)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
        return real(src, dst)
    monkeypatch.setattr(campaign.shutil, "copyfile", copy_until_the_disk_fills)
    with pytest.raises(OSError):
        campaign.carry(merged, "params_parse")
    assert sorted(p.name for p in (roots / "CARRIED_ROOT").iterdir()) == ["params_parse"]    # no partial copy
    assert sorted(p.name for p in (roots / "CARRIED_ROOT" / "params_parse").iterdir()) == ["old0", "old1"]


def test_the_carried_corpus_seeds_the_working_one(roots):
    _corpus(roots / "CARRIED_ROOT" / "params_parse", ["carried0"])
    corpus = campaign.seed_corpus("params_parse")
    names = {p.name for p in corpus.iterdir()}
    assert "carried0" in names and len(names) == 1 + len(campaign.targets.load("params_parse").seeds())


def test_seeds_zip_holds_the_seeds_and_the_carried_corpus(capsys, roots, tmp_path):
    import zipfile
    _corpus(roots / "CARRIED_ROOT" / "params_parse", ["carried0", "carried1"])
    rc, out, _ = _cli(capsys, "seeds", "params_parse", tmp_path / "p_seed_corpus.zip")
    seeds = campaign.targets.load("params_parse").seeds()
    names = zipfile.ZipFile(tmp_path / "p_seed_corpus.zip").namelist()
    assert rc == 0 and len(names) == len(seeds) + 2 and {"carried0", "carried1"} <= set(names), out
