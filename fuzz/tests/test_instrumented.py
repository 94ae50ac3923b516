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


@pytest.fixture(autouse=True)
def current_build():
    """An instrumented build made from other sources fails these tests with that one line (its
    chunkers would be checked, not the tree's)."""
    why = fbuild.stale(ASAN)
    if why:
        pytest.fail(why, pytrace=False)


def _fuzz(target_path, args, tmp_path):
    return subprocess.run([sys.executable, str(target_path), *args], env=fbuild.run_env(ASAN), cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def _scan_function(family, kernel):
    """The C function of a kernel (the AES paths inline their core into aes_scan_<path>)."""
    if family == "aes":
        return "aes_scan_" + kernel.replace("aes-ni", "aesni").replace("aes-arm64", "arm64").replace("-", "_")
    return f"{family}_scan_{kernel}"


@pytest.mark.parametrize("name,family", [("scan_diff_fastcdc", "fastcdc"), ("scan_diff_buzhash64", "buzhash64"),
                                         ("scan_diff_buzhash", "buzhash"),
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
        # the segment-parallel kernels (seg4, *-seg) take their segment loops only on spans longer
        # than most of these targets' inputs (max_len, fuzz/targets.py): their entry and serial
        # fallback must be seen at least
        least = 1 if "seg" in kernel else 4
        assert edges.get(_scan_function(family, kernel), 0) >= least, (kernel, edges)


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


@pytest.fixture
def planted(monkeypatch, scratch_roots):
    """The test-only target fuzz/tests/data/planted_crash.py registered as ``planted_crash``."""
    planted = targets.FUZZ_DIR / "tests" / "data" / "planted_crash.py"
    spec = importlib.util.spec_from_file_location("planted_crash", planted)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setitem(targets.TARGETS, "planted_crash", targets.Target(max_len=64))
    monkeypatch.setattr(targets, "path", lambda name: planted)
    monkeypatch.setattr(targets, "load", lambda name: mod)
    return scratch_roots / "REGRESSION_ROOT" / "planted_crash"


@pytest.fixture
def path_without_atheris(monkeypatch, tmp_path):
    """PATH whose first ``python3`` cannot import atheris (as on a fresh CI machine
    where the venv is not on PATH): libFuzzer's helpers must not depend on it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text("#!/bin/sh\necho 'python3 from PATH: no atheris here' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")


# Bounded by runs (campaign and each minimization step), never by wall time: a loaded machine only
# makes it slower.
def test_campaign_minimizes_a_finding_into_a_regression(planted, path_without_atheris):
    s = campaign.run("planted_crash", seconds=0, runs=500, minimize_runs=20000)
    assert len(s.findings) == 1 and not s.errors, s.text()
    found = list(planted.iterdir())
    assert len(found) == 1 and campaign.regression_input("planted_crash", found[0]) == b"FUZ"  # from 12 bytes


def test_a_minimization_that_cannot_start_its_helpers_is_an_error(planted, monkeypatch):
    # every helper libFuzzer starts runs this launcher, which cannot run the target
    monkeypatch.setattr(campaign, "_libfuzzer", _broken_helpers(campaign._libfuzzer))
    s = campaign.run("planted_crash", seconds=0, runs=500, minimize_runs=2000)
    assert not s.ok and len(s.findings) == 1 and len(s.errors) == 1, s.text()
    assert "minimizing crash-" in s.errors[0], s.errors
    found = list(planted.iterdir())           # the finding is kept, unminimized
    assert len(found) == 1 and campaign.regression_input("planted_crash", found[0]) == b"xxxxFUZZxxxx"


def _broken_helpers(libfuzzer):
    """campaign._libfuzzer whose minimization helpers are a launcher that exits 1 at start."""
    def run(name, args, env, cwd, log, timeout, *python):
        if "-minimize_crash=1" in args:
            bad = cwd / "broken-launcher"
            bad.write_text("#!/bin/sh\necho 'cannot start the target' >&2\nexit 1\n")
            bad.chmod(0o755)
            env = dict(env, CHUNKERS_FUZZ_LAUNCHER=str(bad))
        return libfuzzer(name, args, env, cwd, log, timeout, *python)
    return run


def test_jobs_run_their_helpers_with_this_interpreter(scratch_roots, path_without_atheris):
    s = campaign.run("params_parse", seconds=0, runs=300, jobs=2)
    assert s.ok and s.execs >= 600, s.text()     # both workers fuzzed (300 runs each)


def test_short_campaign_summary(scratch_roots):
    s = campaign.run("params_parse", seconds=0, runs=300)
    assert s.ok, s.text()
    # execs_per_s is not checked: libFuzzer divides by whole seconds and reports 0 for a run under one
    assert s.execs > 100 and s.coverage_edges > 100 and s.corpus_entries > 0


def test_impl_chunks_campaign_runs_its_custom_mutator_and_its_helpers_start(scratch_roots, path_without_atheris):
    """libFuzzer finds the target's custom mutator (fuzz.build.with_custom_mutator: without it the
    preloaded runtime never calls it), the -jobs helpers, started through sh, still run, and so
    does the sanitizers' symbolizer (-print_coverage names the covered functions through it; with
    the mutator library in LD_PRELOAD, a borg campaign's died of a symbol lookup error, which
    ci/borg-fuzz.sh now fails on)."""
    s = campaign.run("impl_chunks", seconds=0, runs=200, jobs=2, extra=("-print_coverage=1",))
    assert s.ok and s.execs >= 400, s.text()
    logs = "".join(p.read_text() for p in (scratch_roots / "ARTIFACT_ROOT" / "impl_chunks").glob("fuzz-*.log"))
    assert logs.count("found LLVMFuzzerCustomMutator") == 2, logs[-3000:]
    assert "symbol lookup error" not in logs and re.search(r"COVERED_FUNC: hits: \d+ edges: \d+/\d+ \w+ \S+\.[ch]:\d+", logs), logs[-3000:]
