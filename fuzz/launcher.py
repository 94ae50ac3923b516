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

``$CHUNKERS_FUZZ_MUTATOR_LIB`` (atheris's custom-mutator library, fuzz.build.with_custom_mutator)
is preloaded into the interpreter alone: :func:`preload_mutator_lib` runs it again through the
dynamic loader's ``--preload``. In LD_PRELOAD it would reach every process the target starts
(the shells of libFuzzer's helpers, the sanitizers' ``llvm-symbolizer``), and none of those can
load a library that needs Python's symbols. Taking it out of ``os.environ`` once the target ran
was not enough: in a borg campaign the sanitizers' symbolizer still started with it and died of a
symbol lookup error, so every stack of a report went unsymbolized.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import struct
import sys
import tempfile
from pathlib import Path


MUTATOR_LIB_ENV = "CHUNKERS_FUZZ_MUTATOR_LIB"     # set by fuzz.build.with_custom_mutator


PRELOAD_PID_ENV = "CHUNKERS_FUZZ_PRELOADED_PID"    # the process preload_mutator_lib ran again


def preload_mutator_lib() -> None:
    """Make sure ``$CHUNKERS_FUZZ_MUTATOR_LIB`` is loaded with the interpreter, before libFuzzer's
    runtime looks for ``LLVMFuzzerCustomMutator``: when it is set and not mapped here, run this
    process again (same pid, arguments and environment) through the dynamic loader with
    ``--preload LIB`` (glibc 2.30 or later), so that no child inherits it. Nothing for a frozen
    target or when unset.
    RuntimeError when the library is still not mapped after that."""
    lib = os.environ.get(MUTATOR_LIB_ENV)
    if not lib or getattr(sys, "frozen", False) or mapped(lib):
        return
    if os.environ.get(PRELOAD_PID_ENV) == str(os.getpid()):
        raise RuntimeError(f"{lib} is not loaded after running {sys.executable} with --preload")
    loader = interpreter_of(sys.executable)
    os.environ[PRELOAD_PID_ENV] = str(os.getpid())
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(loader, [loader, "--preload", lib, sys.executable, *sys.orig_argv[1:]])


def mapped(lib: str) -> bool:
    """Whether the shared object ``lib`` is mapped into this process (/proc/self/maps)."""
    real = os.path.realpath(lib)
    with open("/proc/self/maps") as maps:
        return any(line.rstrip("\n").endswith(real) for line in maps)


def interpreter_of(executable: str) -> str:
    """The dynamic loader an ELF ``executable`` names (its PT_INTERP program header); OSError when
    it is no dynamically linked ELF file."""
    with open(executable, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF":
            raise OSError(f"{executable} is not an ELF file")
        wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
        word = order + ("Q" if wide else "I")
        phoff, = struct.unpack_from(word, head, 32 if wide else 28)
        entsize, count = struct.unpack_from(order + "HH", head, 54 if wide else 42)
        for i in range(count):      # program headers: p_type, then p_offset and p_filesz where the class puts them
            f.seek(phoff + i * entsize)
            header = f.read(entsize)
            if struct.unpack_from(order + "I", header)[0] == 3:         # PT_INTERP
                offset, = struct.unpack_from(word, header, 8 if wide else 4)
                size, = struct.unpack_from(word, header, 32 if wide else 16)
                f.seek(offset)
                return f.read(size).rstrip(b"\0").decode()
    raise OSError(f"{executable} names no dynamic loader (statically linked?)")


def launcher(script: str, python: str = sys.executable, directory: str | None = None) -> Path:
    """A shell script that runs ``python script "$@"`` (absolute paths), created
    once per (python, script) pair under ``directory`` (default: the temporary
    directory) and reused; written atomically, so parallel jobs may race."""
    script, python = os.path.abspath(script), os.path.abspath(python)
    tag = hashlib.sha1(f"{python}\0{script}".encode()).hexdigest()[:16]
    home = Path(directory or tempfile.gettempdir()) / f"chunkers-fuzz-{os.getuid()}"
    path = home / f"{Path(script).stem}-{tag}"
    text = ("#!/bin/sh\n# libFuzzer helper launcher (fuzz/launcher.py)\n"
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
