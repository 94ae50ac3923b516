"""The instrumented build really feeds C coverage to libFuzzer, carries the
sanitizers, and a campaign turns a finding into a minimized regression.

Needs atheris and the ``asan`` build (``python -m fuzz build``); skipped with
that reason otherwise (fuzz/ci.sh builds it before running pytest).
"""

import importlib.util
import re
import shutil
import subprocess
import sys

import pytest

from fuzz import build as fbuild
from fuzz import campaign, targets
from fuzz.harness import kernel_inventory

ASAN = fbuild.build_dir("asan")

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed"),
    pytest.mark.skipif(not (ASAN / "BUILD_INFO.json").exists(),
                       reason="no instrumented build (run: python -m fuzz build)"),
]


def _fuzz(target_path, args, tmp_path):
    return subprocess.run([sys.executable, str(target_path), *args], env=fbuild.run_env(ASAN), cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def _scan_function(family, kernel):
    """The C function of a kernel (the AES paths inline their core into aes_scan_<path>)."""
    if family == "aes":
        return "aes_scan_" + {"aes-ni": "aesni", "aes-arm64": "arm64"}.get(kernel, kernel)
    return f"{family}_scan_{kernel}"


@pytest.mark.parametrize("name,family", [("scan_diff_fastcdc", "fastcdc"), ("scan_diff_buzhash64", "buzhash64"),
                                         ("scan_diff_rabin_aes", "aes"), ("scan_diff_goldilocks_aes", "aes"),
                                         ("scan_diff_toeplitz_aes", "aes")])
def test_fuzzer_sees_every_kernels_edges(name, family, tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, data in enumerate(targets.load(name).seeds()):
        (corpus / str(i)).write_bytes(data)
    # a fixed libFuzzer seed: the 200 runs are the same on every run (replayable)
    r = _fuzz(targets.path(name), ["-runs=200", "-seed=12", "-print_coverage=1", str(corpus)], tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    loaded = re.search(r"Loaded (\d+) modules\s+\((\d+) inline 8-bit counters\)", r.stderr)
    assert loaded and int(loaded.group(1)) >= 3 and int(loaded.group(2)) > 1000, r.stderr[:2000]
    # libFuzzer's own account of the C edges it saw, per function
    edges = {f: int(e) for e, f in re.findall(r"COVERED_FUNC: hits: \d+ edges: (\d+)/\d+ (\w+) \S*csrc/", r.stderr)}
    for kernel in kernel_inventory(family)[0]:
        assert edges.get(_scan_function(family, kernel), 0) > 3, edges


def test_extensions_carry_the_sanitizers():
    nm = shutil.which("nm") or pytest.skip("nm (binutils) is not installed")
    for so in sorted((ASAN / "chunkers").glob("*.so")):
        syms = subprocess.run([nm, "-D", str(so)], capture_output=True, text=True, check=True).stdout
        for needed in ("__asan_init", "__sanitizer_cov_8bit_counters_init", "__ubsan_handle_"):
            assert needed in syms, f"{so.name} lacks {needed}"


@pytest.fixture
def scratch_roots(monkeypatch, tmp_path):
    """Corpus, artifacts and regressions of the campaigns in this test go to tmp_path."""
    for attr in ("CORPUS_ROOT", "ARTIFACT_ROOT", "REGRESSION_ROOT"):
        monkeypatch.setattr(campaign, attr, tmp_path / attr)
    return tmp_path


def test_campaign_minimizes_a_finding_into_a_regression(monkeypatch, scratch_roots):
    planted = targets.FUZZ_DIR / "tests" / "data" / "planted_crash.py"
    spec = importlib.util.spec_from_file_location("planted_crash", planted)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setitem(targets.TARGETS, "planted_crash", targets.Target(max_len=64))
    monkeypatch.setattr(targets, "path", lambda name: planted)
    monkeypatch.setattr(targets, "load", lambda name: mod)
    s = campaign.run("planted_crash", seconds=20, minimize_seconds=5)
    assert not s.ok and len(s.findings) == 1, s.text()
    found = list((scratch_roots / "REGRESSION_ROOT" / "planted_crash").iterdir())
    assert len(found) == 1 and campaign.regression_input("planted_crash", found[0]) == b"FUZ"  # from 12 bytes


def test_short_campaign_summary(scratch_roots):
    s = campaign.run("params_parse", seconds=3)
    assert s.ok, s.text()
    assert s.execs > 100 and s.execs_per_s > 0 and s.coverage_edges > 100 and s.corpus_entries > 0
