"""``python -m fuzz reach`` (fuzz/reach.py): bad input is one line and exit 2, unreadable and
corrupt corpus files are skipped and listed, the kernel files are those that run here with the
headers they include, and the report has one line per file in the documented form. The end to
end test replays the fastcdc seeds under the coverage build (skipped without it)."""

import re

import pytest

from fuzz import __main__ as cli
from fuzz import build as fbuild
from fuzz import reach, targets
from fuzz.harness import kernel_inventory

LINE = re.compile(r"^(chunkers/csrc/\S+) (\d+)/(\d+) branches \((\d+\.\d) %\)( below 90 %)?$")


def _main(capsys, *argv):
    rc = cli.main(["reach", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_unknown_target_is_one_line_and_exit_2(capsys, tmp_path):
    rc, _, err = _main(capsys, "scan_diff_nope", "--corpus", tmp_path)
    assert rc == 2 and err.count("\n") == 1 and "unknown target 'scan_diff_nope'" in err


def test_missing_corpus_dir_is_one_line_and_exit_2(capsys, tmp_path):
    rc, _, err = _main(capsys, "scan_diff_fastcdc", "--corpus", tmp_path / "absent")
    assert rc == 2 and err.count("\n") == 1 and "no such directory" in err


def test_no_coverage_build_says_how_to_make_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(fbuild, "build_dir", lambda variant="asan": tmp_path / variant)
    rc, _, err = _main(capsys, "scan_diff_fastcdc", "--corpus", tmp_path)
    assert rc == 2 and err.count("\n") == 1 and "python -m fuzz build --variant coverage" in err


def test_unreadable_and_corrupt_files_are_skipped_and_listed(tmp_path):
    good = tmp_path / "good"
    good.write_bytes(targets.load("scan_diff_fastcdc").seeds()[5])
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{not json")
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    failed, skipped = reach.replay_files("scan_diff_fastcdc", [good, corrupt, dangling])
    assert failed == 0
    assert [(p, why.split(" ")[0]) for p, why in skipped] == [(str(corrupt), "corrupt"), (str(dangling), "unreadable")]


@pytest.mark.parametrize("family", ["fastcdc", "buzhash64", "buzhash", "aes"])
def test_kernel_files_are_the_runnable_kernels_and_their_headers(family):
    from chunkers.registry import rows
    files = reach.kernel_files([family])
    runs = set(kernel_inventory(family)[0])
    for k in rows(family):
        if k.source:
            assert (f"chunkers/csrc/{k.source}" in files) == (k.name in runs), k.name
    if family in ("buzhash64", "buzhash"):
        assert "chunkers/csrc/seg_roll.h" in files          # seg4's code is the shared template
    if family == "aes" and "vaes-seg" in runs:
        assert "chunkers/csrc/aes/segments.h" in files


def test_text_has_one_line_per_file_and_names_those_below_90():
    rep = {"lines": [], "skipped": [("x", "corrupt (ValueError: bad)")],
           "files": {"chunkers/csrc/a.c": [(10, 5, 3, 0), (12, 1, 1, 1)],
                     "chunkers/csrc/b.c": [(1, 1, 1, 1)] * 10, "chunkers/csrc/c.c": []}}
    lines = reach.text(rep, verbose=True).splitlines()
    assert lines[0] == "chunkers/csrc/a.c 3/4 branches (75.0 %) below 90 %"
    assert lines[1] == "  chunkers/csrc/a.c:10 (false never)"
    assert lines[2] == "chunkers/csrc/b.c 20/20 branches (100.0 %)"
    assert lines[3] == "chunkers/csrc/c.c 0/0 branches (no branches of its own)"
    assert lines[4] == "skipped x: corrupt (ValueError: bad)"


@pytest.mark.skipif(fbuild.stale(fbuild.build_dir("coverage")) is not None,
                    reason="no current coverage build (python -m fuzz build --variant coverage)")
def test_reach_of_the_fastcdc_seeds(capsys, tmp_path):
    """The seeds alone reach seg4's rounds: its file is in the report, in the documented form."""
    for i, data in enumerate(targets.load("scan_diff_fastcdc").seeds()):
        (tmp_path / str(i)).write_bytes(data)
    rc, out, _ = _main(capsys, "scan_diff_fastcdc", "--corpus", tmp_path)
    assert rc == 0
    rows = {m.group(1): m for m in map(LINE.match, out.splitlines()) if m}
    assert set(rows) >= {"chunkers/csrc/fastcdc/seg4.c", "chunkers/csrc/fastcdc/scalar.c"}
    seg4 = rows["chunkers/csrc/fastcdc/seg4.c"]
    assert int(seg4.group(2)) > 0.9 * int(seg4.group(3))
