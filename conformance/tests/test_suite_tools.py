"""The suite-strength tools stay usable: every planted fault of the mutant catalogue
still applies to the current sources, build names are checked, the coverage
exclusions parse, runs of the catalogue compare (conformance.tools.mutants, conformance.tools.builds,
conformance.tools.coverage).
No builds here: ci/mutants.sh, ci/builds.sh and ci/coverage.sh run those."""

import json
import subprocess
from pathlib import Path

import pytest

from conformance.tools import builds, coverage
from conformance.tools.buildtree import BuildError, Tree
from conformance.tools.mutants import catalogue, compare
from conformance.tools.mutants.__main__ import main as mutants_main, table
from conformance.tools.mutants.runner import (FIRST, TEST_DIRS, TOOLING, Runner, Verdict, _includers, as_dict,
                                        families_of, main_job_verdict, ordered_test_files, pytest_verdict, same_code,
                                        selection_of)

REPO = Path(__file__).resolve().parents[2]

# Checks of this repository's tooling, about no implementation: ours-only, and they need the
# source checkout (the C sources the faults patch), which an installed package lacks.
pytestmark = [pytest.mark.ours_only,
              pytest.mark.skipif(not (REPO / "setup.py").exists(), reason="needs the source checkout")]


@pytest.mark.parametrize("m", catalogue.CATALOGUE, ids=lambda m: m.id)
def test_fault_applies_exactly_once(m):
    text = (REPO / m.file).read_text()
    assert text.count(m.find) == 1, f"{m.id}: the search text occurs {text.count(m.find)} times in {m.file}"
    assert m.find != m.replace
    assert m.route in ("native", "aarch64", "s390x")


def test_catalogue_spans_every_tier():
    ids = [m.id for m in catalogue.CATALOGUE]
    assert len(ids) == len(set(ids)), "duplicate fault ids"
    assert len(ids) >= 60
    tiers = {m.tier for m in catalogue.CATALOGUE}
    assert {"scalar", "blockwise", "avx2", "avx512", "evp", "aes-ni", "vaes256", "vaes", "driver", "tables",
            "buzhash", "fixed", "neon", "aes-arm64", "aes-arm64-seg", "big-endian", "seg4", "aes-seg", "aes-ni-seg",
            "vaes256-seg", "vaes-seg"} <= tiers
    assert set(catalogue.CI_SAMPLE) <= set(ids)


def test_selected_tests_first():
    assert selection_of("chunkers/csrc/fastcdc/avx2.c") == "fastcdc"
    assert selection_of("chunkers/csrc/buzhash/scan.c") == "buzhash and not buzhash64"
    assert families_of("chunkers/csrc/aes/evp.c") == ["aes"]
    assert families_of("chunkers/csrc/driver.c") == []
    assert selection_of("chunkers/csrc/seg_roll.h") == "buzhash64 or buzhash"
    assert selection_of("chunkers/csrc/stride_roll.h") == "buzhash64 or buzhash"


def test_every_test_file_but_the_tooling_checks_runs_once_scan_level_first():
    files = ordered_test_files(REPO)
    assert files[:len(FIRST)] == list(FIRST) and all((REPO / f).is_file() for f in FIRST)
    assert sorted([*files, TOOLING]) == sorted(str(p.relative_to(REPO)) for d in TEST_DIRS
                                               for p in (REPO / d).glob("test_*.py"))


@pytest.mark.parametrize("rc, out, verdict", [
    (0, "", None), (5, "no tests ran", None),
    (1, "FAILED conformance/tests/test_chunks.py::test_x[a] - AssertionError", "killed"),
    (2, "ERROR conformance/tests/test_y.py - ImportError: undefined symbol", "killed"),
    (-11, "", "killed"),
    (4, "error: unrecognized arguments: -n", "error"),         # an interpreter without pytest-xdist
    (1, "ImportError: No module named conformance", "error"),   # no test named: not the suite's verdict
    (3, "INTERNALERROR> ...", "error")])
def test_only_a_failing_test_kills(rc, out, verdict):
    got = pytest_verdict(rc, out, "selected")
    assert (got and got[0]) == verdict
    if verdict == "killed" and rc > 0:
        assert got[1] == out.split()[1]


@pytest.mark.parametrize("rc, out, verdict", [
    (0, "", None),
    (1, "FAILED fastcdc/avx2: first reproducer:\n...", "killed"),
    (1, "FAILED read path/kept chunks: first reproducer:\n...", "killed"),
    (-6, "", "killed"),
    (1, "Traceback (most recent call last):\nModuleNotFoundError: No module named 'rich'", "error"),
    (2, "error: --impl borg: not installed", "error")])
def test_only_a_failed_cell_kills(rc, out, verdict):
    got = main_job_verdict(rc, out, "python -m conformance")
    assert (got and got[0]) == verdict


@pytest.mark.parametrize("original_rc, verdict", [(0, "killed"), (1, "error")])
def test_a_kill_counts_only_if_the_killer_passes_on_the_original(original_rc, verdict):
    calls = []

    class Tree:         # the original tree: the killing test exits with original_rc there
        def run(self, *args, timeout=None):
            calls.append(args[-1])
            return subprocess.CompletedProcess(args, original_rc, "1 failed" if original_rc else "1 passed", "")

    runner = Runner.__new__(Runner)
    runner.tree, runner.pytest_args, runner.timeout, runner.original_passes = Tree(), [], 60, {}
    for fault in ("a", "b"):
        v = Verdict(fault, "scalar", "native", pytest="killed", pytest_by="conformance/tests/t.py::test_x[k]")
        runner._check_killer(v)
        assert v.pytest == verdict
    assert calls == ["conformance/tests/t.py::test_x[k]"]       # once per test id


def test_equivalent_faults_are_not_counted():
    killed = Verdict("a", "seg4", "native", pytest="killed", main="killed")
    argued = Verdict("b", "seg4", "native", pytest="killed", main="survived", equivalent="argued: ...")
    row = next(line for line in table([killed, argued]).splitlines() if line.startswith("seg4"))
    assert row.split() == ["seg4", "2", "1", "1/1", "100%", "1/1", "100%"]


def test_mutants_cli_rejects_unknown_names(capsys):
    with pytest.raises(SystemExit) as e:
        mutants_main(["--id", "no-such-fault", "--list"])
    assert e.value.code == 2
    assert "unknown no-such-fault" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["gcc", "gcc-O9", "no-such-cc-O2", ","])
def test_bad_build_names_are_refused(bad):
    with pytest.raises(ValueError):
        builds.parse_builds(bad)


def test_build_names_parse():
    assert builds.parse_builds("gcc-O0,gcc-O3")[1] == ("gcc-O3", "gcc", "-O3")


def test_coverage_exclusions_parse():
    for file, fragment, reason in coverage.load_exclusions():
        assert (REPO / "chunkers" / "csrc" / file).is_file(), file
        assert fragment in (REPO / "chunkers" / "csrc" / file).read_text(), (file, fragment)


def test_every_subpackage_is_installed():
    """`pip install .` ships every package under chunkers/, vectors/ and
    conformance/: a missing one (conformance.tools.mutants was) breaks `pytest --pyargs
    conformance` at collection."""
    import tomllib
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts)
             for top in ("chunkers", "vectors", "conformance")
             for p in (REPO / top).rglob("__init__.py")
             if "stub_borg" not in p.parts and "build" not in p.relative_to(REPO).parts}
    assert found - listed == set(), "packages missing from pyproject.toml [tool.setuptools] packages"


def _verdict_file(path, overrides=None):
    rows = [as_dict(Verdict(m.id, m.tier, m.route, "killed", "t", "killed", "j")) for m in catalogue.CATALOGUE
            if not m.equivalent]
    for row in rows:
        row.update((overrides or {}).get(row["id"], {}))
    path.write_text(json.dumps(rows))
    return str(path)


def test_compare_needs_two_agreeing_killing_runs_of_every_fault(tmp_path, capsys):
    """--compare: done (exit 0) only with every counted fault killed by both in two runs that agree;
    one run short, a differing verdict or a survivor each fail it and are named."""
    first = _verdict_file(tmp_path / "a.json")
    assert mutants_main(["--compare", first, _verdict_file(tmp_path / "b.json")]) == 0
    assert mutants_main(["--compare", first]) == 1
    one = next(m.id for m in catalogue.CATALOGUE if not m.equivalent)
    assert mutants_main(["--compare", first, _verdict_file(tmp_path / "c.json", {one: {"main": "survived"}})]) == 1
    assert any(line.startswith(one) and "DIFFERENT" in line for line in capsys.readouterr().out.splitlines())
    lines, done = compare.report(compare.load([_verdict_file(tmp_path / "d.json", {one: {"pytest": "survived"}})] * 2))
    assert not done and any(line.startswith(one) and "NOT KILLED" in line for line in lines)


def test_compare_refuses_a_file_that_is_not_a_verdict_list(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text('{"id": 1}')
    with pytest.raises(SystemExit) as e:
        mutants_main(["--compare", str(bad)])
    assert e.value.code == 2 and "not a verdict file" in capsys.readouterr().err


def test_an_object_objcopy_cannot_read_is_a_build_error_not_a_traceback(tmp_path):
    """A cross-built object needs the target's objcopy: a failing one is reported as a BuildError
    (the fault's verdict is then "error"), never an exception out of the run."""
    junk = tmp_path / "x.o"
    junk.write_bytes(b"not an object")
    with pytest.raises(BuildError, match="objcopy"):
        same_code(junk, junk, tmp_path)


def test_a_cross_header_fault_compiles_every_file_that_includes_the_header():
    """be-le64 (csprng.h) changes the Gear and buzhash64 tables in subdirectories: comparing only
    the header's own directory called it equivalent."""
    got = _includers(REPO, "chunkers/csrc/csprng.h")
    assert {"chunkers/csrc/fastcdc/table.c", "chunkers/csrc/buzhash64/table.c", "chunkers/csrc/csprng.c"} <= set(got)
    assert "chunkers/csrc/driver.c" not in got


def test_a_build_tree_copy_drops_what_the_repository_no_longer_has(tmp_path):
    """Tree.sync: a package file or a chunkers source removed from the repository goes from the
    copy (a module the tree no longer has must not be importable there); what compiling writes
    next to the sources (chunkers/*.c) stays."""
    repo = tmp_path / "repo"
    for rel in ("chunkers/a.py", "chunkers/csrc/k.c", "vectors/model/m.py", "vectors/impls/i.py", "vectors/v.py", "setup.py"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(rel)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    tree = Tree(tmp_path / "tree")
    tree.sync(repo)
    (tree.src / "chunkers" / "a.c").write_text("generated")
    for rel in ("chunkers/a.py", "chunkers/csrc/k.c", "vectors/model/m.py", "vectors/impls/i.py", "vectors/v.py"):
        (repo / rel).unlink()
    tree.sync(repo)
    left = sorted(p.relative_to(tree.src).as_posix() for p in tree.src.rglob("*") if p.is_file())
    assert left == ["chunkers/a.c", "setup.py"]
