"""argv[0] for libFuzzer's helper processes: this interpreter, not ``python3`` on PATH.

libFuzzer starts its helpers (``-minimize_crash``, ``-jobs`` / ``-workers``,
``-fork``, ``-merge``) by running its own ``argv[0]`` again through the shell.
For a target run as ``/path/python fuzz/TARGET.py`` that argv[0] is the
script, whose ``#!/usr/bin/env python3`` line picks whatever ``python3`` is
first on PATH, usually one without atheris or the instrumented build: every
helper dies at import, which libFuzzer takes for a crash (issue 10).

:func:`libfuzzer_argv` therefore hands libFuzzer a launcher instead: a small
shell script that execs the script with ``sys.executable`` (the interpreter
that has atheris). The environment (PYTHONPATH, LD_PRELOAD, sanitizer options)
is inherited by the helpers unchanged. A frozen target (PyInstaller, as
OSS-Fuzz builds them) is its own interpreter and keeps its argv.
``CHUNKERS_FUZZ_LAUNCHER=PATH`` names another helper command (tests use it
to plant helpers that cannot start).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile
from pathlib import Path


def launcher(script: str, python: str = sys.executable, directory: str | None = None) -> Path:
    """A shell script that runs ``python script "$@"`` (absolute paths), created
    once per (python, script) pair under ``directory`` (default: the temporary
    directory) and reused; written atomically, so parallel jobs may race."""
    script, python = os.path.abspath(script), os.path.abspath(python)
    tag = hashlib.sha1(f"{python}\0{script}".encode()).hexdigest()[:16]
    home = Path(directory or tempfile.gettempdir()) / f"chunkers-fuzz-{os.getuid()}"
    path = home / f"{Path(script).stem}-{tag}"
    text = f"#!/bin/sh\n# libFuzzer helper launcher (fuzz/launcher.py)\nexec {shlex.quote(python)} {shlex.quote(script)} \"$@\"\n"
    if not path.exists() or path.read_text() != text:
        home.mkdir(parents=True, exist_ok=True)
        tmp = home / f".{path.name}.{os.getpid()}"
        tmp.write_text(text)
        tmp.chmod(0o755)
        os.replace(tmp, path)
    return path


def libfuzzer_argv(argv: list[str]) -> list[str]:
    """``argv`` with argv[0] replaced by a :func:`launcher` of the running
    script (unchanged for a frozen target or when argv[0] is no file), or
    by $CHUNKERS_FUZZ_LAUNCHER when set."""
    if os.environ.get("CHUNKERS_FUZZ_LAUNCHER"):
        return [os.environ["CHUNKERS_FUZZ_LAUNCHER"], *argv[1:]]
    if getattr(sys, "frozen", False) or not argv or not os.path.isfile(argv[0]):
        return list(argv)
    return [str(launcher(argv[0])), *argv[1:]]
