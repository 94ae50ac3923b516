"""`python -m chunkers tune` defaults files (chunkers.registry, chunkers.tune) and the arithmetic of
`bench --against borg` (chunkers.bench_borg). No timings are asserted: tune runs on a
tiny input only to check the file it writes, and the ratio tables get fixed rows."""

import json
import os
import sys

import pytest

import chunkers
from chunkers import bench_borg, cli, registry
from chunkers.registry import resolve

pytestmark = pytest.mark.ours_only


def _runnable(family):
    return [k.kernel for k in chunkers.kernels() if k.family == family and k.runs]


def test_defaults_file_is_honoured_only_when_named(tmp_path, monkeypatch):
    monkeypatch.delenv(registry.DEFAULTS_ENV, raising=False)
    monkeypatch.delenv("CHUNKERS_AES_KERNEL", raising=False)
    plain = resolve("aes")
    other = next(k for k in _runnable("aes") if k != plain)    # evp always runs, so there is another
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"format": registry.FORMAT, "defaults": {"aes": other}}))
    assert resolve("aes") == plain                              # a file nobody named changes nothing
    monkeypatch.setenv(registry.DEFAULTS_ENV, str(path))
    assert resolve("aes") == other
    assert resolve("aes", plain) == plain                       # a named kernel still wins
    monkeypatch.setenv("CHUNKERS_AES_KERNEL", plain)
    assert resolve("aes") == plain


def test_defaults_file_is_read_once_and_again_when_changed(tmp_path, monkeypatch):
    """A chunker made per file must not reread the file; an edited file is checked anew."""
    monkeypatch.delenv("CHUNKERS_AES_KERNEL", raising=False)
    monkeypatch.delenv(registry.DEFAULTS_ENV, raising=False)
    plain = resolve("aes")
    other = next(k for k in _runnable("aes") if k != plain)
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"format": registry.FORMAT, "defaults": {"aes": other}}))
    monkeypatch.setenv(registry.DEFAULTS_ENV, str(path))
    loads = []
    real_load = registry.load
    monkeypatch.setattr(registry, "load", lambda *a: loads.append(a) or real_load(*a))
    assert [resolve("aes") for _ in range(3)] == [other] * 3 and len(loads) == 1
    path.write_text(json.dumps({"format": registry.FORMAT, "defaults": {"aes": other + "-x"}}))   # size changes
    with pytest.raises(ValueError, match=f"aes default '{other}-x'"):
        resolve("aes")
    path.unlink()
    with pytest.raises(ValueError, match="cannot read the defaults file"):
        resolve("aes")


def test_defaults_file_is_checked_again_when_a_feature_is_hidden(tmp_path, monkeypatch):
    """A file loaded while its kernel could run names a kernel that cannot once CHUNKERS_CPU_HIDE
    hides the feature it needs: an error, not the hidden kernel."""
    from chunkers.registry import HIDE_ENV
    monkeypatch.delenv("CHUNKERS_AES_KERNEL", raising=False)
    monkeypatch.delenv(HIDE_ENV, raising=False)
    if "aes-ni" not in _runnable("aes"):
        pytest.skip("aes-ni does not run here")
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"format": registry.FORMAT, "defaults": {"aes": "aes-ni"}}))
    monkeypatch.setenv(registry.DEFAULTS_ENV, str(path))
    assert resolve("aes") == "aes-ni"
    monkeypatch.setenv(HIDE_ENV, "aes")
    with pytest.raises(ValueError, match="aes default 'aes-ni'.*lacks aes"):
        resolve("aes")


@pytest.mark.parametrize("content, message", [
    ("not json", "cannot read the defaults file"),
    (json.dumps({"format": "other", "defaults": {}}), "not a chunkers-defaults/1 file"),
    (json.dumps({"format": registry.FORMAT, "defaults": {"aes": 3}}), "not a chunkers-defaults/1 file"),
    (json.dumps({"format": registry.FORMAT, "defaults": {"aes": "no-such-kernel"}}), "not a kernel"),
    (json.dumps({"format": registry.FORMAT, "defaults": {"fastcdx": "scalar"}}), "'fastcdx' is not a family"),
    (json.dumps({"format": registry.FORMAT, "defaults": {"fastcdc": "bogus"}}),     # checked for every family
     "fastcdc default 'bogus': not a kernel"),
    ("[" * 100000, "cannot read the defaults file"),                                 # nested too deep
    (" " * (registry.MAX_FILE + 1), "not a regular file of at most"),                # too large to be one
])
def test_bad_defaults_file_is_an_error_not_ignored(tmp_path, monkeypatch, content, message):
    path = tmp_path / "d.json"
    path.write_text(content)
    monkeypatch.setenv(registry.DEFAULTS_ENV, str(path))
    monkeypatch.delenv("CHUNKERS_AES_KERNEL", raising=False)
    with pytest.raises(ValueError, match=message):
        resolve("aes")


@pytest.mark.parametrize("path", ["/dev/zero", "fifo"])
def test_defaults_file_that_is_not_a_regular_file_is_refused_unread(tmp_path, monkeypatch, path):
    """/dev/zero never ends and a FIFO blocks: refused from its stat, before any read."""
    if path == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    monkeypatch.setenv(registry.DEFAULTS_ENV, path)
    with pytest.raises(ValueError, match="not a regular file"):
        resolve("fastcdc")


def test_defaults_file_names_are_normalised_like_kernel_names(tmp_path, monkeypatch):
    """' SEG4 ' selects seg4 as kernel= and CHUNKERS_*_KERNEL do; the legacy buzhash has a choice too."""
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"format": registry.FORMAT, "defaults": {"buzhash": " SEG4 "}}))
    monkeypatch.setenv(registry.DEFAULTS_ENV, str(path))
    monkeypatch.delenv("CHUNKERS_BUZHASH_KERNEL", raising=False)
    assert resolve("buzhash") == "seg4" and chunkers.make_chunker("buzhash,10,16,12,4095").kernel == "seg4"


def test_missing_defaults_file_exits_2(tmp_path, capsys):
    """The message names what named the file: the --defaults option here, not the variable."""
    assert cli.main(["--defaults", str(tmp_path / "none.json"), "kernels"]) == 2
    assert f"error: --defaults='{tmp_path / 'none.json'}': cannot read the defaults file" in capsys.readouterr().err


@pytest.mark.parametrize("out, why", [("", "an empty name"), ("{tmp}", "a directory"),
                                      ("{tmp}/no/such/dir/t.json", "its folder cannot be written")])
def test_tune_out_that_cannot_be_written_exits_2_before_measuring(tmp_path, capsys, out, why):
    assert cli.main(["tune", "--out", out.format(tmp=tmp_path), "--size", "1", "--rounds", "1"]) == 2
    assert capsys.readouterr().err == f"error: --out: cannot write {out.format(tmp=tmp_path)!r} ({why})\n"


def test_tune_writes_a_file_that_selection_uses(tmp_path, monkeypatch):
    out = tmp_path / "tuned.json"
    assert cli.main(["tune", "--out", str(out), "--size", "1", "--rounds", "1", "--json"]) == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == registry.FORMAT and set(doc["defaults"]) == set(registry.TUNE_PARAMS)
    for family, kernel in doc["defaults"].items():
        assert kernel in _runnable(family) and set(doc["mb_s"][family]) == set(_runnable(family))
        monkeypatch.setenv(registry.DEFAULTS_ENV, str(out))
        monkeypatch.delenv(f"CHUNKERS_{family.upper()}_KERNEL", raising=False)
        assert resolve(family) == kernel


def test_ratios_per_kernel_and_best_against_best():
    rows = [{"chunker": "fastcdc", "impl": i, "kernel": k, "feed": f, "mb_s": v}
            for i, k, v in (("ours", "scalar", 300.0), ("ours", "seg", 900.0), ("borg", "scalar", 200.0),
                            ("borg", "avx2", 450.0)) for f in bench_borg.FEEDS]
    got = {(r["feed"], r["ours"], r["borg"]): r["ratio"] for r in bench_borg.ratios(rows)}
    assert got == {(f, o, b): v for f in bench_borg.FEEDS
                   for o, b, v in (("scalar", "scalar", 1.5), ("best: seg", "best: avx2", 2.0))}


def test_scan_ratios_against_the_sequential_chain():
    rows = [{"family": f, "kernel": k, "mode": "scan", "params": "", "mb_s": v}
            for f, k, v in (("fastcdc", "scalar", 100.0), ("fastcdc", "avx2", 250.0),
                            ("aes", "vaes256", 400.0), ("aes", "vaes256-seg", 600.0), ("aes", "evp", 50.0))]
    got = {(r["family"], r["kernel"], r["sequential"]): r["ratio"] for r in bench_borg.scan_vs_sequential(rows)}
    assert got == {("fastcdc", "avx2", "scalar"): 2.5, ("aes", "vaes256-seg", "vaes256"): 1.5}


def test_against_borg_without_borg_is_a_usage_error(monkeypatch, capsys):
    def missing():
        raise ImportError("--against borg needs borg importable here")
    monkeypatch.setattr(bench_borg, "borg_module", missing)
    assert cli.main(["bench", "--against", "borg", "--size", "1"]) == 2
    assert "needs borg" in capsys.readouterr().err


def test_against_borg_in_a_python_without_our_requirements(monkeypatch, capsys):
    """`bench --against borg` run by a Python that lacks rich (a borg venv's, without the PYTHONPATH
    the README gives): exit 2 and one line naming the module and the way out, no traceback."""
    monkeypatch.setattr(bench_borg, "borg_module", lambda: None)
    monkeypatch.setitem(sys.modules, "rich.table", None)
    assert cli.main(["bench", "--against", "borg", "--size", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rich.table" in err and "PYTHONPATH" in err, err


def test_against_borg_runs_only_the_chosen_families(monkeypatch, capsys):
    """`bench --against borg --family aes --family fixed`: the three AES chunkers and fixed on
    both sides, and the scan mode of those families only (it ran every chunker before)."""
    from chunkers import bench
    seen = {}

    def borg_measure(size, rounds, seed, names=None, progress=None):
        seen["names"] = names
        return []

    def scan_measure(size, seed, repeat, families=None, scan=True, progress=None):
        seen["families"] = families
        return []
    monkeypatch.setattr(bench_borg, "borg_module", lambda: None)
    monkeypatch.setattr(bench_borg, "measure", borg_measure)
    monkeypatch.setattr(bench, "measure", scan_measure)
    assert cli.main(["bench", "--against", "borg", "--size", "1", "--family", "aes", "--family", "fixed"]) == 0
    assert seen == {"names": ["rabin-aes", "goldilocks-aes", "toeplitz-aes", "fixed"], "families": ["aes", "fixed"]}
    assert bench_borg.chunkers_of(None) is None
