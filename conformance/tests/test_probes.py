"""The suite checked against deliberately wrong adapters (conformance/tests/probes.py), run as a
user would, in a subprocess with ``--impl module:attribute``: an adapter that raises on every call
gets 0 passed from pytest and the main job; an adapter that moves one cut of one kernel by one byte
fails both, naming that kernel and no other. Also: an implementation that cannot load is an error
(exit 2, one line) unless --allow-missing."""

import json
import os
import re
import subprocess
import sys

import pytest

from conformance.tests import probes

pytestmark = pytest.mark.ours_only
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RAISING = "conformance.tests.probes:Raising"
ONE_CUT = "conformance.tests.probes:OneCutMoved"
BAD_KERNEL = f"{probes.FAMILY}-{probes.KERNEL}"


def _run(*args, timeout=900):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BORG_", "CHUNKERS_"))}
    env["PYTHONPATH"] = ROOT
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _pytest(impl, *args):
    return _run("-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf", "-n", "2", "--impl", impl, *args)


def _count(word, text):
    """The count pytest's final line gives for ``word`` (passed, failed, ...); 0 when absent."""
    last = text.strip().splitlines()[-1]
    m = re.search(rf"(\d+) {word}", last)
    return int(m.group(1)) if m else 0


def test_raising_adapter_gets_zero_passed(tmp_path):
    """Every test of the default tier (no path given: the whole suite) under an adapter whose
    every chunking call raises: nothing passes, and the main job fails every cell it runs."""
    r = _pytest(RAISING)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out[-3000:]
    assert _count("passed", out) == 0 and _count("failed", out) > 0, out[-3000:]
    assert re.search(r"(\d+) tests ran against probe-raising \(\1 failed\)", out), out[-3000:]
    report = tmp_path / "report.json"
    r = _run("-m", "conformance", "--impl", RAISING, "--corpus-size", "4096", "--report", str(report))
    assert r.returncode == 1, r.stdout + r.stderr
    cells = json.loads(report.read_text())["cells"]
    assert cells and not [c for c in cells if c["status"] == "passed"], cells


def test_one_moved_cut_fails_naming_the_kernel():
    """The vectors and the chunk-level tests fail on the corrupted kernel only; so does the main job."""
    r = _pytest(ONE_CUT, "conformance/tests/test_vectors.py::test_vectors", "conformance/tests/test_chunks.py",
                "-k", probes.FAMILY)
    out = r.stdout + r.stderr
    failed = re.findall(r"^FAILED (\S+)", out, re.M)
    assert r.returncode == 1 and failed, out[-3000:]
    assert all(f"[{BAD_KERNEL}" in f for f in failed), failed
    assert "test_vectors.py::test_vectors" in " ".join(failed), failed
    assert _count("passed", out) > 0, out[-3000:]            # the other kernels still pass
    r = _run("-m", "conformance", "--impl", ONE_CUT, "--family", probes.FAMILY, "--corpus-size", "65536")
    out = r.stdout + r.stderr
    assert r.returncode == 1, out[-3000:]
    assert re.findall(r"^FAILED (\S+):", out, re.M) == [f"{probes.FAMILY}/{probes.KERNEL}"], out[-3000:]


def test_missing_implementation_is_an_error():
    """--impl naming something that cannot load: one line on stderr, exit 2, from pytest and the main
    job alike; --allow-missing turns it into an explicit skip."""
    for args in (["-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", "--impl", "nosuchmodule:Impl",
                  "conformance/tests/test_vectors.py::test_vectors"],
                 ["-m", "conformance", "--impl", "nosuchmodule:Impl", "--family", "fixed"]):
        r = _run(*args)
        assert r.returncode == 2, r.stdout + r.stderr
        assert r.stderr.strip().count("\n") == 0 and "nosuchmodule" in r.stderr, r.stderr
