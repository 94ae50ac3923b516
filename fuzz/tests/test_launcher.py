"""fuzz/launcher.py: libFuzzer's helpers run the target with this interpreter, and atheris's
custom-mutator library (``$CHUNKERS_FUZZ_MUTATOR_LIB``) is preloaded for the interpreter only,
never for the shells in between (it needs Python's symbols)."""

import os
import subprocess

from fuzz import launcher


def _fake_python(tmp_path):
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho "LD_PRELOAD=$LD_PRELOAD args=$*"\n')
    fake.chmod(0o755)
    return fake


def _run(path, env):
    return subprocess.run([str(path), "-runs=1"], env={"PATH": "/usr/bin:/bin", **env}, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_the_launcher_adds_the_mutator_library_for_the_interpreter(tmp_path):
    path = launcher.launcher(str(tmp_path / "target.py"), str(_fake_python(tmp_path)), str(tmp_path))
    assert _run(path, {"LD_PRELOAD": "/rt.so", launcher.MUTATOR_LIB_ENV: "/cm.so"}) == \
        f"LD_PRELOAD=/rt.so /cm.so args={tmp_path / 'target.py'} -runs=1"
    assert _run(path, {launcher.MUTATOR_LIB_ENV: "/cm.so"}) == f"LD_PRELOAD=/cm.so args={tmp_path / 'target.py'} -runs=1"
    assert _run(path, {"LD_PRELOAD": "/rt.so"}) == f"LD_PRELOAD=/rt.so args={tmp_path / 'target.py'} -runs=1"


def test_the_target_takes_the_mutator_library_out_of_its_environment(monkeypatch):
    monkeypatch.setenv("LD_PRELOAD", "/rt.so /cm.so")
    monkeypatch.setenv(launcher.MUTATOR_LIB_ENV, "/cm.so")
    launcher.without_mutator_lib()
    assert os.environ["LD_PRELOAD"] == "/rt.so"
    launcher.without_mutator_lib()          # twice: unchanged
    assert os.environ["LD_PRELOAD"] == "/rt.so"
