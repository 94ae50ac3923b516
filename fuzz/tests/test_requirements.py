"""``python -m fuzz build`` says exactly what is missing (fuzz.build.missing_requirements)."""

import importlib.util
import json

from fuzz import build
from fuzz.__main__ import main


def test_each_missing_module_and_the_compiler_get_a_line(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in ("Cython", "atheris") else real(name, *a))
    lines = build.missing_requirements(cc="no-such-compiler-here")
    assert len(lines) == 3, lines
    assert "Cython" in lines[0] and "pip install 'Cython>=3.0'" in lines[0]
    assert "atheris" in lines[1] and "atheris==3.0.0" in lines[1]
    assert "no-such-compiler-here" in lines[2] and "apt-get install" in lines[2]


def test_build_reports_them_with_exit_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(build, "missing_requirements", lambda cc, cflags: ["Python module Cython in X: pip install"])
    assert main(["build", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the instrumented build cannot run here; missing:") and "Cython" in err
    assert not (tmp_path / "out").exists()


def test_a_build_of_other_sources_is_refused(tmp_path):
    """fuzz.build.stale: no build, a build whose recorded sources differ from the tree's (or that
    records none) each give the one line naming the fix; a build of these sources none."""
    assert "no instrumented build" in build.stale(tmp_path)
    info = tmp_path / "BUILD_INFO.json"
    info.write_text(json.dumps({"variant": "asan"}))
    assert "other sources" in build.stale(tmp_path) and "python -m fuzz build" in build.stale(tmp_path)
    info.write_text(json.dumps({"variant": "asan", "sources": "0" * 64}))
    assert "other sources" in build.stale(tmp_path)
    info.write_text(json.dumps({"variant": "asan", "sources": build.source_digest()}))
    assert build.stale(tmp_path) is None
