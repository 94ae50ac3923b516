"""fuzz/launcher.py: libFuzzer's helpers run the target with this interpreter, and atheris's
custom-mutator library (``$CHUNKERS_FUZZ_MUTATOR_LIB``) is preloaded into the interpreter alone,
never into the processes it starts (the shells of libFuzzer's helpers, the sanitizers'
symbolizer: a library that needs Python's symbols stops them)."""

import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from fuzz import launcher

PYTHON_LIB = next(Path(launcher.__file__).resolve().parent.parent.glob(f"chunkers/*{EXTENSION_SUFFIXES[0]}"), None)
"""A shared object that needs Python's symbols, as atheris's custom-mutator library does: one of our
extension modules built in place for this interpreter by the README's set-up (not one cross-built
for another architecture, which no process here loads)."""


def _fake_python(tmp_path):
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho "LD_PRELOAD=$LD_PRELOAD args=$*"\n')
    fake.chmod(0o755)
    return fake


def _run(path, env):
    return subprocess.run([str(path), "-runs=1"], env={"PATH": "/usr/bin:/bin", **env}, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_the_launcher_passes_the_environment_through(tmp_path):
    path = launcher.launcher(str(tmp_path / "target.py"), str(_fake_python(tmp_path)), str(tmp_path))
    assert _run(path, {"LD_PRELOAD": "/rt.so", launcher.MUTATOR_LIB_ENV: "/cm.so"}) == \
        f"LD_PRELOAD=/rt.so args={tmp_path / 'target.py'} -runs=1"
    assert _run(path, {launcher.MUTATOR_LIB_ENV: "/cm.so"}) == f"LD_PRELOAD= args={tmp_path / 'target.py'} -runs=1"


def _no_exec(monkeypatch):
    calls = []
    monkeypatch.setattr(os, "execv", lambda path, argv: calls.append((path, argv)))
    return calls


def test_preload_does_nothing_without_a_library_or_when_it_is_mapped(monkeypatch):
    calls = _no_exec(monkeypatch)
    monkeypatch.delenv(launcher.MUTATOR_LIB_ENV, raising=False)
    launcher.preload_mutator_lib()
    mapped = next(path for path in (line.split()[-1] for line in open("/proc/self/maps")) if ".so" in path)
    monkeypatch.setenv(launcher.MUTATOR_LIB_ENV, mapped)
    launcher.preload_mutator_lib()
    assert calls == []


def test_preload_runs_the_interpreter_again_through_the_loader(monkeypatch, tmp_path):
    calls = _no_exec(monkeypatch)
    lib = tmp_path / "libnotloaded.so"
    monkeypatch.setenv(launcher.MUTATOR_LIB_ENV, str(lib))
    monkeypatch.delenv(launcher.PRELOAD_PID_ENV, raising=False)
    launcher.preload_mutator_lib()
    loader = launcher.interpreter_of(sys.executable)
    assert calls == [(loader, [loader, "--preload", str(lib), sys.executable, *sys.orig_argv[1:]])]
    assert os.environ[launcher.PRELOAD_PID_ENV] == str(os.getpid())
    with pytest.raises(RuntimeError, match="not loaded after running"):      # the same process again: no loop
        launcher.preload_mutator_lib()
    assert len(calls) == 1


def test_interpreter_of():
    loader = launcher.interpreter_of(sys.executable)
    assert os.path.isabs(loader) and os.path.exists(loader) and "ld" in os.path.basename(loader)
    with pytest.raises(OSError, match="not an ELF file"):
        launcher.interpreter_of(__file__)


@pytest.mark.skipif(PYTHON_LIB is None, reason="no extension module built in place (run the README's set-up)")
def test_the_preloaded_library_reaches_the_interpreter_and_no_child(tmp_path):
    """End to end: the library is mapped in the interpreter, and a shell it starts runs (with the
    library in its LD_PRELOAD, as before, the shell died of a symbol lookup error)."""
    assert subprocess.run(["/bin/sh", "-c", "true"], env={"LD_PRELOAD": str(PYTHON_LIB)},
                          capture_output=True).returncode != 0          # the hazard is real
    code = ("from fuzz.launcher import preload_mutator_lib, mapped; preload_mutator_lib(); import os, subprocess; "
            "print(mapped(os.environ['CHUNKERS_FUZZ_MUTATOR_LIB']), os.environ.get('LD_PRELOAD', ''), "
            "subprocess.run(['/bin/sh', '-c', 'echo ran'], capture_output=True, text=True).stdout.strip())")
    env = dict(os.environ, **{launcher.MUTATOR_LIB_ENV: str(PYTHON_LIB)}, PYTHONPATH=str(Path(launcher.__file__).parent.parent))
    env.pop("LD_PRELOAD", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "ran"], out.stderr
