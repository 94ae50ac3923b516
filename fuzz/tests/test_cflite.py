"""The ClusterFuzzLite / OSS-Fuzz layout is complete and consistent (the build itself is
exercised by ci/cflite-simulate.sh, a .ci/run step: it takes minutes)."""

import os
import re
import subprocess
import sys
import tomllib

import pytest

from fuzz.targets import FUZZ_DIR

ROOT = FUZZ_DIR.parent
CFLITE = ROOT / ".clusterfuzzlite"
WORKFLOWS = ROOT / ".github" / "workflows"


def _fuzz_extra() -> dict:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["fuzz"]
    return {re.split(r"[<>=!;\[ ]", req, 1)[0].lower(): req for req in extra}


def test_project_yaml_has_what_oss_fuzz_needs():
    text = (CFLITE / "project.yaml").read_text()
    keys = dict(re.findall(r"^(\w+):\s*(.*)$", text, re.M))
    for key in ("homepage", "main_repo", "primary_contact", "language", "sanitizers", "fuzzing_engines"):
        assert key in keys, f"project.yaml lacks {key}"
    assert keys["language"] == "python"
    sanitizers = re.search(r"^sanitizers:\n((?:\s+- \w+\n)+)", text, re.M).group(1).split()
    assert [s for s in sanitizers if s != "-"] == ["address", "undefined"]


def test_pins_agree_between_the_extra_and_the_builder():
    extra = _fuzz_extra()
    assert extra["atheris"] == "atheris==3.0.0" and {"cython", "setuptools", "pyinstaller"} <= set(extra)
    docker = (CFLITE / "Dockerfile").read_text()
    assert '"atheris==3.0.0"' in docker and "version_info >= (3, 11)" in docker
    build = (CFLITE / "build.sh").read_text()
    assert '("atheris", "3.0.0")' in build and "sys.version_info < (3, 11)" in build


@pytest.mark.parametrize("name,mode", [("cflite_pr.yml", "code-change"), ("cflite_batch.yml", "batch"),
                                       ("cflite_cron.yml", "prune")])
def test_workflows_run_clusterfuzzlite(name, mode):
    text = (WORKFLOWS / name).read_text()
    assert "google/clusterfuzzlite/actions/build_fuzzers@v1" in text
    assert "google/clusterfuzzlite/actions/run_fuzzers@v1" in text
    assert re.search(rf"^\s+mode: {mode}$", text, re.M)
    assert "language: python" in text
    if mode != "prune":
        assert "sanitizer: [address, undefined]" in text


def test_build_sh_needs_the_builder_layout(tmp_path):
    """Outside the builder (no $SRC, $OUT, $WORK, $SANITIZER) it stops at once with the variable's name."""
    r = subprocess.run(["bash", str(CFLITE / "build.sh")], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True)
    assert r.returncode != 0 and "SRC" in r.stderr, r.stderr


@pytest.mark.parametrize("module", ["fuzz", "fuzz.throughput"])
def test_the_fuzz_command_lines_run_without_importing_chunkers(tmp_path, module):
    """The ClusterFuzzLite build runs ``python -m fuzz`` next to sanitizer-instrumented extensions
    that load only under the fuzzer, so its command lines must not import chunkers at the top (a
    chunkers package that cannot be imported stands for them here; ca0d9f8 broke the build so)."""
    (tmp_path / "chunkers").mkdir()
    (tmp_path / "chunkers" / "__init__.py").write_text('raise ImportError("instrumented: loads only under the fuzzer")\n')
    r = subprocess.run([sys.executable, "-m", module, "--help"], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith(f"usage: python -m {module}"), r.stderr
