"""Instrumented builds of the extensions, outside the source tree.

``python -m fuzz build [--variant asan|coverage] [--out DIR]`` compiles the
extensions with clang into ``fuzz/build/<variant>/`` (a complete, importable
``chunkers`` package: the built modules plus copies of the Python files), so
the normal in-place build is never touched. A target runs against it with
that directory first on PYTHONPATH (see :func:`run_env`).

* ``asan``: ASan + UBSan (no recovery: the first report aborts) +
  libFuzzer coverage (``-fsanitize=fuzzer-no-link``: inline 8-bit counters,
  PC tables, comparison tracing). Run with atheris's ``asan_with_fuzzer.so``
  preloaded, which also provides the UBSan handlers.
* ``coverage``: clang source-based coverage (``-fprofile-instr-generate
  -fcoverage-mapping``) for line/branch reports with llvm-cov.

Under OSS-Fuzz / ClusterFuzzLite (``$SANITIZER`` is set) the sanitizer flags
come from ``$CFLAGS``, which distutils adds to every compile and link.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_ROOT = ROOT / "fuzz" / "build"

SANITIZE = "-fsanitize=address,undefined,fuzzer-no-link"
VARIANTS = {
    "asan": (f"-g -O1 -fno-omit-frame-pointer {SANITIZE} -fno-sanitize-recover=undefined", SANITIZE),
    "coverage": ("-g -O0 -fprofile-instr-generate -fcoverage-mapping",
                 "-fprofile-instr-generate -fcoverage-mapping"),
}


def build_dir(variant: str = "asan") -> Path:
    return BUILD_ROOT / variant


def build(variant: str = "asan", out: Path | None = None, jobs: int = 2) -> Path:
    """Compile every extension for ``variant`` into ``out`` (default
    fuzz/build/<variant>) with clang and return it. Raises LookupError when
    Cython or the compiler is missing, CalledProcessError when the compiler
    fails (its output is on stderr)."""
    out = Path(out or build_dir(variant)).resolve()
    cflags, ldflags = VARIANTS[variant]
    cc = "clang"
    if os.environ.get("SANITIZER"):           # OSS-Fuzz: $CC and $CFLAGS carry compiler and sanitizers
        cflags, ldflags, cc = "-g -O1", "", os.environ.get("CC", cc)
    if importlib.util.find_spec("Cython") is None:
        raise LookupError("the instrumented build needs Cython in this interpreter: "
                          "pip install 'Cython>=3.0' 'setuptools>=68'")
    if shutil.which(cc.split()[0]) is None:
        raise LookupError(f"the instrumented build needs {cc}: apt-get install clang llvm")
    env = dict(os.environ, CC=cc, LDSHARED=f"{cc} -shared")
    env["CHUNKERS_CFLAGS"] = cflags
    env["LDFLAGS"] = f"{os.environ.get('LDFLAGS', '')} {ldflags}".strip()
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--force", "-j", str(jobs),
                    "-b", str(out), "-t", str(out / "tmp")], cwd=ROOT, env=env, check=True)
    for f in glob.glob(str(ROOT / "chunkers" / "*.py")):
        shutil.copy(f, out / "chunkers")
    (out / "BUILD_INFO.json").write_text(json.dumps(
        {"variant": variant, "sanitizer": os.environ.get("SANITIZER", ""), "cc": cc, "cflags": cflags,
         "ldflags": ldflags, "env_cflags": os.environ.get("CFLAGS", "")}, indent=1))
    return out


# The atheris runtime a build's modules need preloaded (their sanitizer and
# coverage hooks are resolved from it), by OSS-Fuzz $SANITIZER or variant.
_RUNTIMES = {"address": "asan_with_fuzzer.so", "undefined": "ubsan_with_fuzzer.so", "asan": "asan_with_fuzzer.so"}


def atheris_runtime(name: str = "asan_with_fuzzer.so") -> Path:
    """Path of atheris's sanitizer + libFuzzer runtime to preload (LookupError without atheris)."""
    spec = importlib.util.find_spec("atheris")
    if spec is None or spec.origin is None:
        raise LookupError("atheris is not installed: pip install atheris==3.0.0")
    path = Path(spec.origin).parent.parent / name
    if not path.exists():
        raise LookupError(f"atheris has no {name} at {path}")
    return path


def run_env(variant_dir: Path) -> dict:
    """Environment for a process that imports ``chunkers`` from the build in
    ``variant_dir`` (and ``fuzz`` / ``conformance`` from the repo), with the
    atheris sanitizer + libFuzzer runtime the build needs preloaded, as
    atheris's docs prescribe. Run Python with -P or a script path, so the
    current directory does not shadow the build."""
    info = json.loads((Path(variant_dir) / "BUILD_INFO.json").read_text())
    runtime = _RUNTIMES.get(info.get("sanitizer") or info["variant"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(variant_dir), str(ROOT)]))
    if runtime:
        env.update(
            LD_PRELOAD=str(atheris_runtime(runtime)),
            # Python's allocator would hide overflows of its objects from ASan.
            PYTHONMALLOC="malloc",
            ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:quarantine_size_mb=64:"
                         "symbolize=1:handle_segv=1:handle_sigill=1",
            UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
        )
    return env
