"""``python -m conformance.run.cross --impl NAME`` (the qemu route's checks of another implementation)
and ci/borg-cross.sh's usage and set-up errors: exit 2 with one line, never a silent skip. Nothing
here needs qemu or a cross compiler; the qemu runs themselves are ci/borg-cross.sh's (.ci/run)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conformance.run import cross, engine

from conformance.tools import tiers

from vectors import impls
from conformance.tests.test_impls import ROOT, stub_borg  # noqa: F401  (the fixture)

pytestmark = pytest.mark.ours_only
SCRIPT = os.path.join(ROOT, "ci", "borg-cross.sh")


class Missing(impls.Implementation):
    """An adapter that cannot run here."""

    name = "missing"

    def unavailable(self):
        return "not installed on this machine"

    def kernels(self, family):
        return []

    def chunks(self, params, source, **kw):
        raise AssertionError("never called")


@pytest.mark.parametrize("name, says", [
    ("no-such-impl", "unknown implementation 'no-such-impl'"),
    ("conformance.tests.test_cross_impl:NoSuchAttribute", "NoSuchAttribute"),
    ("conformance.no_such_module:X", "no_such_module"),
    ("conformance.tests.test_cross_impl:Missing", "not installed on this machine"),
])
def test_bad_impl_is_exit_2_with_one_line(name, says, capsys, tmp_path):
    report = tmp_path / "report.json"
    assert cross.main(["--impl", name, "--report", str(report)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"error: --impl {name}: ") and says in err
    assert not report.exists()
    assert engine.implementation().name == "ours"       # left as it was


def test_borg_absent_is_exit_2_in_a_fresh_interpreter(tmp_path):
    # what ci/borg-cross.sh sees when the borg it runs cannot be imported: a module named borg
    # without chunkers shadows any installed one
    (tmp_path / "borg").mkdir()
    (tmp_path / "borg" / "__init__.py").write_text("")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    p = subprocess.run([sys.executable, "-m", "conformance.run.cross", "--impl", "borg"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("error: --impl borg: borg is not installed here")


def test_impl_rows_name_it_and_fit_the_tier_rows(stub_borg, capsys, tmp_path):  # noqa: F811
    report = tmp_path / "report.json"
    assert cross.main(["--impl", "borg", "--family", "fixed", "--quick", "--report", str(report)]) == 0
    assert engine.implementation().name == "ours"
    data = json.loads(report.read_text())
    assert data["implementation"] == "borg" and data["calls"] > 0 and data["emulator"] == "native"
    (row,) = data["kernels"]
    assert (row["family"], row["kernel"], row["implementation"], row["result"]) == ("fixed", "single", "borg", "passed")
    assert row["cases"] == 0 and row["chunk_runs"] > 0 and row["vectors"] > 0        # no scan API
    assert row["levels"]["scan"].startswith("not available")
    out = capsys.readouterr().out
    assert "borg  fixed" in out and "no scan API" in out and "calls reached it" in out
    (tier,) = tiers._cross_rows("s390x", report, 0)       # the report format tiers reads
    assert tier.result == "passed" and "chunk runs" in tier.detail


def test_a_cell_no_call_reaches_fails(stub_borg, monkeypatch, tmp_path):  # noqa: F811
    # the calls are counted (conformance.run.audit.Counting): with the count kept at 0, every cell fails
    monkeypatch.setattr("conformance.run.audit.Counting.chunk_sizes",
                        lambda self, p, s, **kw: self.inner.chunk_sizes(p, s, **kw))
    monkeypatch.setattr("conformance.run.audit.Counting.chunks", lambda self, p, s, **kw: self.inner.chunks(p, s, **kw))
    report = tmp_path / "report.json"
    assert cross.main(["--impl", "borg", "--family", "fixed", "--quick", "--report", str(report)]) == 1
    (row,) = json.loads(report.read_text())["kernels"]
    assert row["result"] == "failed" and "no call reached borg" in row["mismatches"][0]


def _script(*args, env=None):
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, **(env or {})))


@pytest.mark.parametrize("args, env", [
    ((), None),
    (("x86_64",), None),
    (("aarch64", "s390x"), None),
    (("--help",), None),
    (("aarch64",), {"BORG_CROSS_STUB": "yes"}),
])
def test_borg_cross_usage_errors_are_exit_2_with_one_line(args, env):
    p = _script(*args, env=env)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, (p.stdout, p.stderr)
    assert "usage: ci/borg-cross.sh aarch64|s390x|all" in p.stderr or "BORG_CROSS_STUB" in p.stderr


def test_borg_cross_without_its_tools_is_exit_2_with_one_line(tmp_path):
    # only bash and dirname on PATH: every tool of the route is missing; CHUNKERS_NO_APT makes
    # ci/packages.sh name the packages instead of installing them
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("bash", "dirname"):
        os.symlink(shutil.which(tool), bindir / tool)
    p = subprocess.run([str(bindir / "bash"), SCRIPT, "s390x"], capture_output=True, text=True, timeout=60,
                       env={"PATH": str(bindir), "CHUNKERS_NO_APT": "1"})
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, (p.stdout, p.stderr)
    # the headers (libc6-dev-s390x-cross) are looked for by path, whatever PATH is
    assert p.stderr.startswith("ci/packages.sh: missing gcc-s390x-linux-gnu "), p.stderr
    assert {"qemu-user", "debootstrap", "cross-s390x;"} <= set(p.stderr.split()), p.stderr
