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
to plant helpers that cannot start). ``$CHUNKERS_FUZZ_MUTATOR_LIB`` (atheris's custom-mutator
library, fuzz.build.with_custom_mutator) is preloaded by the launcher for the interpreter only.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile
from pathlib import Path


MUTATOR_LIB_ENV = "CHUNKERS_FUZZ_MUTATOR_LIB"     # set by fuzz.build.with_custom_mutator


def without_mutator_lib() -> None:
    """Take ``$CHUNKERS_FUZZ_MUTATOR_LIB`` out of this process's LD_PRELOAD (it is loaded already):
    libFuzzer starts its helpers through ``sh``, which cannot load a library that needs Python's
    symbols; the launcher adds it again for the interpreter."""
    lib = os.environ.get(MUTATOR_LIB_ENV)
    if lib and lib in os.environ.get("LD_PRELOAD", "").split():
        os.environ["LD_PRELOAD"] = " ".join(p for p in os.environ["LD_PRELOAD"].split() if p != lib)


def launcher(script: str, python: str = sys.executable, directory: str | None = None) -> Path:
    """A shell script that runs ``python script "$@"`` (absolute paths), created
    once per (python, script) pair under ``directory`` (default: the temporary
    directory) and reused; written atomically, so parallel jobs may race."""
    script, python = os.path.abspath(script), os.path.abspath(python)
    tag = hashlib.sha1(f"{python}\0{script}".encode()).hexdigest()[:16]
    home = Path(directory or tempfile.gettempdir()) / f"chunkers-fuzz-{os.getuid()}"
    path = home / f"{Path(script).stem}-{tag}"
    text = ("#!/bin/sh\n# libFuzzer helper launcher (fuzz/launcher.py)\n"
            # atheris's custom-mutator library, for the interpreter only (fuzz.build.with_custom_mutator)
            f'if [ -n "${MUTATOR_LIB_ENV}" ]; then LD_PRELOAD="${{LD_PRELOAD:+$LD_PRELOAD }}${MUTATOR_LIB_ENV}"; '
            "export LD_PRELOAD; fi\n"
            f"exec {shlex.quote(python)} {shlex.quote(script)} \"$@\"\n")
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
