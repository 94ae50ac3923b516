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
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from fuzz.launcher import MUTATOR_LIB_ENV

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


# What `pip install -e '.[fuzz]'` brings (pyproject.toml), by import name.
FUZZ_EXTRA = {"Cython": "Cython>=3.0", "setuptools": "setuptools>=68", "atheris": "atheris==3.0.0"}


def missing_requirements(cc: str = "clang", cflags: str = VARIANTS["asan"][0]) -> list[str]:
    """Every piece the instrumented build (and a campaign) needs but this
    machine lacks, one line each with how to get it: the ``[fuzz]`` extra's
    modules in this interpreter, the compiler, and the compiler's sanitizer
    support (clang without libclang-rt-*-dev cannot compile with
    -fsanitize=address: its ignore lists are missing). Empty when complete."""
    out = [f"Python module {mod} in {sys.executable}: pip install '{req}' (or: pip install -e '.[fuzz]')"
           for mod, req in FUZZ_EXTRA.items() if importlib.util.find_spec(mod) is None]
    if shutil.which(cc.split()[0]) is None:
        return out + [f"the C compiler {cc}: apt-get install clang llvm libclang-rt-14-dev"]
    probe = subprocess.run([*cc.split(), *cflags.split(), "-x", "c", "-c", "-o", os.devnull, "-"],
                           input="int main(void) { return 0; }\n", capture_output=True, text=True)
    if probe.returncode:
        why = (probe.stderr.strip().splitlines() or ["(no output)"])[0]
        out.append(f"{cc} cannot compile with {cflags!r} ({why}): apt-get install libclang-rt-14-dev "
                   "(clang's sanitizer runtimes and ignore lists)")
    return out


def source_digest() -> str:
    """SHA-256 over what a build is compiled and copied from: chunkers' Python and Cython files,
    its C sources (chunkers/csrc) and setup.py (not the .c files Cython writes next to the .pyx)."""
    pkg = ROOT / "chunkers"
    files = [p for p in pkg.iterdir() if p.suffix in (".py", ".pyx", ".pxd", ".pxi")]
    files += [p for p in (pkg / "csrc").rglob("*") if p.suffix in (".c", ".h", ".def")]
    h = hashlib.sha256()
    for p in sorted(files + [ROOT / "setup.py"]):
        h.update(f"{p.relative_to(ROOT)}\0".encode() + p.read_bytes() + b"\0")
    return h.hexdigest()


def stale(variant_dir: Path) -> str | None:
    """Why the build in ``variant_dir`` cannot be used (one line: none there, or built from other
    sources than the tree's now), or None."""
    info = Path(variant_dir) / "BUILD_INFO.json"
    if not info.exists():
        return f"no instrumented build in {variant_dir}: run python -m fuzz build"
    if json.loads(info.read_text()).get("sources") != source_digest():
        return f"the build in {variant_dir} was made from other sources than chunkers/ now: run python -m fuzz build"
    return None


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
    missing = missing_requirements(cc, cflags)
    if missing:
        raise LookupError("the instrumented build cannot run here; missing:\n  " + "\n  ".join(missing))
    env = dict(os.environ, CC=cc, LDSHARED=f"{cc} -shared")
    env["CHUNKERS_CFLAGS"] = cflags
    env["LDFLAGS"] = f"{os.environ.get('LDFLAGS', '')} {ldflags}".strip()
    shutil.rmtree(out, ignore_errors=True)
    sources = source_digest()
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--force", "-j", str(jobs),
                    "-b", str(out), "-t", str(out / "tmp")], cwd=ROOT, env=env, check=True)
    for f in glob.glob(str(ROOT / "chunkers" / "*.py")):
        shutil.copy(f, out / "chunkers")
    (out / "BUILD_INFO.json").write_text(json.dumps(
        {"variant": variant, "sanitizer": os.environ.get("SANITIZER", ""), "cc": cc, "cflags": cflags,
         "ldflags": ldflags, "env_cflags": os.environ.get("CFLAGS", ""), "sources": sources}, indent=1))
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


def run_env(variant_dir: Path, pymalloc: bool = False) -> dict:
    """Environment for a process that imports ``chunkers`` from the build in
    ``variant_dir`` (and ``fuzz`` / ``conformance`` from the repo), with the
    atheris sanitizer + libFuzzer runtime the build needs preloaded, as
    atheris's docs prescribe. Run Python with -P or a script path, so the
    current directory does not shadow the build. ``pymalloc``: leave Python's
    small-object allocator on (see fuzz.targets.Target)."""
    info = json.loads((Path(variant_dir) / "BUILD_INFO.json").read_text())
    runtime = _RUNTIMES.get(info.get("sanitizer") or info["variant"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(variant_dir), str(ROOT)]))
    return _sanitized(env, atheris_runtime(runtime), pymalloc) if runtime else env


def _sanitized(env: dict, runtime: Path, pymalloc: bool) -> dict:
    env.update(
        LD_PRELOAD=str(runtime),
        # Python's allocator would hide overflows of its objects from ASan.
        PYTHONMALLOC="pymalloc" if pymalloc else "malloc",
        ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:quarantine_size_mb=64:"
                     "symbolize=1:handle_segv=1:handle_sigill=1",
        # unsigned wrap-around is defined C and the rolling hashes' arithmetic (mod 2^64, spec
        # 02/03); OSS-Fuzz's undefined build reports it unless silenced, as its runner does
        UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1",
    )
    return env


def with_custom_mutator(env: dict) -> dict:
    """``env`` (of run_env / impl_env) naming atheris's custom-mutator library in
    ``$CHUNKERS_FUZZ_MUTATOR_LIB``, which the target preloads into its interpreter
    (fuzz.launcher.preload_mutator_lib). libFuzzer looks up ``LLVMFuzzerCustomMutator`` once, as a
    weak symbol, when the preloaded runtime is loaded; atheris's ``custom_mutator`` module that
    defines it is imported later, and without the preload libFuzzer never calls the target's mutator
    (its log then lacks "found LLVMFuzzerCustomMutator"). LookupError when that atheris has no such
    library."""
    runtime = Path(env["LD_PRELOAD"].split()[0])
    found = sorted((runtime.parent / "atheris").glob("custom_mutator*.so"))
    if not found:
        raise LookupError(f"atheris at {runtime.parent} has no custom_mutator library: pip install atheris==3.0.0")
    return dict(env, **{MUTATOR_LIB_ENV: str(found[0])})


# --impl (fuzz targets with Target.impl): which interpreter runs the target and with what.

BORG_FUZZ_VENV = ROOT / ".borg-fuzz-venv"
"""The instrumented borg (``BORG_SANITIZE=1 ci/borg-reference.sh``); ``$BORG_FUZZ_VENV`` overrides."""


def borg_fuzz_venv() -> Path:
    return Path(os.environ.get("BORG_FUZZ_VENV") or BORG_FUZZ_VENV).absolute()


def impl_python(impl: str) -> Path:
    """The interpreter a campaign of ``--impl impl`` runs in: the instrumented borg venv's for
    ``borg`` (LookupError, one line, when it is missing or not instrumented), else this one."""
    if impl != "borg":
        return Path(sys.executable)
    venv = borg_fuzz_venv()
    python, stamp = venv / "bin" / "python", venv / ".borg-build"
    build = "BORG_SANITIZE=1 ci/borg-reference.sh (or set BORG_FUZZ_VENV)"
    if not python.exists():
        raise LookupError(f"--impl borg: no instrumented borg in {venv}: build it with {build}")
    if "fuzzer-no-link" not in (stamp.read_text() if stamp.exists() else ""):
        raise LookupError(f"--impl borg: {venv} holds no borg built with the sanitizers and libFuzzer "
                          f"coverage ({stamp} missing or plain): build it with {build}")
    return python


def _python_atheris_runtime(python: Path, name: str = "asan_with_fuzzer.so") -> Path:
    if Path(python) == Path(sys.executable):
        return atheris_runtime(name)
    out = subprocess.run([str(python), "-P", "-c", "import atheris; print(atheris.path())"],
                         capture_output=True, text=True)
    path = Path(out.stdout.strip()) / name
    if out.returncode or not path.exists():
        raise LookupError(f"atheris (with {name}) is not installed in {python}: "
                          f"{python} -m pip install atheris==3.0.0")
    return path


def impl_env(impl: str, python: Path, variant_dir: Path | None, pymalloc: bool = False) -> dict:
    """Environment of a campaign of a Target.impl target against ``impl``: ``$CHUNKERS_FUZZ_IMPL``
    names it; ours: run_env of the instrumented build (required); any other: our chunkers from
    ``variant_dir`` when given, else from the checkout (plain), then the checkout, then the
    caller's PYTHONPATH (made absolute: a stand-in ``borg`` or an adapter's module lives there),
    with atheris's ASan + libFuzzer runtime of ``python`` preloaded (an instrumented borg's
    extensions need it; the adapter's Python code is instrumented by atheris)."""
    if impl == "ours":
        env = run_env(variant_dir or build_dir("asan"), pymalloc)
    else:
        caller = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        path = ([str(variant_dir)] if variant_dir else []) + [str(ROOT)] + caller
        env = _sanitized(dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys(path))),
                         _python_atheris_runtime(python), pymalloc)
    env["CHUNKERS_FUZZ_IMPL"] = impl
    return env
