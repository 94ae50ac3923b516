"""Separate builds of the extensions: a copy of the source tree, compiled with a
chosen compiler and flags, never touching the working tree's in-place build.

Used by the mutation runner (conformance.tools.mutants), the build matrix
(conformance.tools.builds, ``python -m conformance --builds``) and the coverage report
(conformance.tools.coverage, ci/coverage.sh).

A tree lives in one directory ``ROOT``:

* ``ROOT/src``: a copy of every file git lists (tracked and untracked, not
  ignored); tests and the main job run there, importing the extensions built
  into ``ROOT/src/chunkers`` (the copy comes first on ``sys.path``);
* ``ROOT/obj``: object files named by a hash of their compile command, source
  and the project headers it includes, so a source (or header) that changes back reuses the
  object it had; ``ROOT/lib``: linked modules, named the same way.

The extension list (modules, sources, libraries, compile arguments) is read
from setup.py itself (``setuptools.setup`` is intercepted), so a new C file
or extension is built without any change here. Compile flags: Python's own
(sysconfig CFLAGS, CCSHARED) then setup.py's, whose optimisation flags are
replaced by ``cflags`` (setup.py's CHUNKERS_CFLAGS). Errors: BuildError with
the failing command and the compiler's message.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

_CAPTURE = r"""
import json, runpy, sys, setuptools
def setup(ext_modules=(), **kw):
    sys.stdout.write("\n@@extensions@@ ")
    json.dump([dict(name=e.name, sources=e.sources, libraries=e.libraries, include_dirs=e.include_dirs,
                    define_macros=e.define_macros, extra_compile_args=e.extra_compile_args,
                    extra_link_args=e.extra_link_args) for e in ext_modules], sys.stdout)
setuptools.setup = setup
sys.argv = ["setup.py"]
runpy.run_path("setup.py", run_name="__main__")
"""


class BuildError(RuntimeError):
    """A compile or link step failed, or the tree could not be prepared."""


def repo_files(repo: Path = REPO) -> list[str]:
    """Paths (relative to ``repo``) of every file git lists, tracked or untracked but not ignored."""
    out = subprocess.run(["git", "-C", str(repo), "ls-files", "-co", "--exclude-standard", "-z"],
                         check=True, capture_output=True).stdout.decode()
    return sorted(p for p in out.split("\0") if p and (repo / p).is_file())


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def includes(src: Path, source: str) -> list[Path]:
    """The project headers ``source`` (relative to the tree ``src``) includes, directly or not
    (``#include "..."`` looked up next to the including file, then under chunkers/; system headers
    are not followed), as resolved paths."""
    src = Path(src).resolve()
    seen, todo = set(), [src / source]
    while todo:
        path = todo.pop()
        for name in _INCLUDE.findall(path.read_text(errors="replace")):
            for cand in (path.parent / name, src / "chunkers" / name):
                cand = cand.resolve()
                if cand.is_file() and src in cand.parents:
                    if cand not in seen:
                        seen.add(cand)
                        todo.append(cand)
                    break
    return sorted(seen)


def _pruned(rel: str) -> bool:
    """Whether a file at ``rel`` in a copy goes when the repository no longer lists it: the copied
    packages' files, and chunkers' own sources (not what cythonizing and compiling write next to
    them: chunkers/*.c, *.so)."""
    return rel.startswith(("chunkers/csrc/", "vectors/", "conformance/")) or (
        rel.count("/") == 1 and rel.startswith("chunkers/") and rel.endswith((".py", ".pyx", ".pxd", ".pxi")))


class Tree:
    """A build of the extensions in ``root`` with compiler ``cc`` and optimisation/instrumentation
    flags ``cflags`` (e.g. ``"-O2"``, ``"--coverage -O0"``); ``ldflags`` are added to every link."""

    def __init__(self, root, cc: str = "gcc", cflags: str = "-O3", ldflags: str = "", python: str = sys.executable):
        self.root, self.cc, self.cflags, self.ldflags = Path(root).resolve(), cc, cflags, ldflags
        self.src, self.obj, self.lib = self.root / "src", self.root / "obj", self.root / "lib"
        self.python = python
        self._exts = None

    # -- the source copy -------------------------------------------------------------------------

    def sync(self, repo: Path = REPO) -> None:
        """Make ``src`` an exact copy of the repository's listed files (stale copies removed;
        files whose content is unchanged keep their timestamps)."""
        files = repo_files(repo)
        wanted = set(files)
        self.src.mkdir(parents=True, exist_ok=True)
        for rel in files:
            dst = self.src / rel
            data = (repo / rel).read_bytes()
            if not dst.is_file() or dst.read_bytes() != data:
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_bytes(data)
                shutil.copymode(repo / rel, dst)
        for path in self.src.rglob("*"):
            rel = path.relative_to(self.src).as_posix()
            if path.is_file() and _pruned(rel) and rel not in wanted and "__pycache__" not in rel:
                path.unlink()
        self._exts = None

    def extensions(self) -> list[dict]:
        """setup.py's extensions (cythonizing the .pyx in the copy), with C sources for the .pyx."""
        if self._exts is None:
            env = dict(os.environ, CHUNKERS_CFLAGS=self.cflags)
            proc = subprocess.run([self.python, "-c", _CAPTURE], cwd=self.src, env=env, capture_output=True,
                                  text=True)
            if proc.returncode:
                raise BuildError(f"reading the extensions from setup.py failed:\n{proc.stderr[-3000:]}")
            marked = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@extensions@@ ")]
            if not marked:
                raise BuildError(f"setup.py did not call setup():\n{proc.stdout[-2000:]}")
            self._exts = json.loads(marked[-1].split(" ", 1)[1])
        return self._exts

    # -- compiling -------------------------------------------------------------------------------

    def compile_command(self, ext: dict, source: str, obj: Path) -> list[str]:
        """The compiler command line for one source of ``ext`` (as setuptools would run it)."""
        base = shlex.split(sysconfig.get_config_var("CFLAGS") or "") + \
            shlex.split(sysconfig.get_config_var("CCSHARED") or "-fPIC")
        incs = [f"-I{d}" for d in ext["include_dirs"]] + [f"-I{sysconfig.get_paths()['include']}"]
        macros = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in ext["define_macros"]]
        return [*shlex.split(self.cc), *base, *macros, *incs, *ext["extra_compile_args"], "-c", source,
                "-o", str(obj)]

    def includes(self, source: str) -> list[Path]:
        """The project headers ``source`` includes, directly or not (see :func:`includes`)."""
        return includes(self.src, source)

    def object_for(self, ext: dict, source: str) -> Path:
        """Path of the object of ``source`` for its current text and the headers it includes."""
        cmd = self.compile_command(ext, source, Path("OBJ"))
        deps = [p.read_bytes() for p in [self.src / source, *self.includes(source)]]
        return self.obj / f"{_digest(self.cc, *cmd, *deps)}.o"

    def _compile(self, ext: dict, source: str, obj: Path) -> None:
        tmp = obj.with_suffix(f".tmp{os.getpid()}.o")
        proc = subprocess.run(self.compile_command(ext, source, tmp), cwd=self.src, capture_output=True, text=True)
        if proc.returncode:
            raise BuildError(f"{self.cc} {self.cflags}: compiling {source} failed:\n{proc.stderr[-4000:]}")
        tmp.replace(obj)

    def build(self, jobs: int = 2) -> list[str]:
        """Compile what changed and link every extension into ``src/chunkers``; returns the
        sources that were compiled."""
        self.obj.mkdir(parents=True, exist_ok=True)
        self.lib.mkdir(parents=True, exist_ok=True)
        plan = [(ext, s, self.object_for(ext, s)) for ext in self.extensions() for s in ext["sources"]]
        todo = list({o: (ext, s, o) for ext, s, o in plan if not o.exists()}.values())    # cpu.c: one object
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            for f in [pool.submit(self._compile, *job) for job in todo]:
                f.result()
        for ext in self.extensions():
            self._link(ext, [o for e, _, o in plan if e is ext])
        return [s for _, s, _ in todo]

    def module_path(self, ext: dict) -> Path:
        return self.src / (ext["name"].replace(".", "/") + sysconfig.get_config_var("EXT_SUFFIX"))

    def _link(self, ext: dict, objects: list[Path]) -> None:
        cmd = [*shlex.split(self.cc), "-shared", *map(str, objects), *[f"-l{x}" for x in ext["libraries"]],
               *ext["extra_link_args"], *shlex.split(self.ldflags)]
        lib = self.lib / f"{_digest(*cmd)}.so"
        if not lib.exists():
            tmp = lib.with_suffix(f".tmp{os.getpid()}.so")
            proc = subprocess.run([*cmd, "-o", str(tmp)], capture_output=True, text=True)
            if proc.returncode:
                raise BuildError(f"linking {ext['name']} failed:\n{proc.stderr[-3000:]}")
            tmp.replace(lib)
        dst = self.module_path(ext)
        if not dst.exists() or dst.read_bytes() != lib.read_bytes():
            tmp = dst.with_suffix(".tmp")
            shutil.copyfile(lib, tmp)
            tmp.replace(dst)    # a new inode: a running process keeps the module it loaded

    # -- running ---------------------------------------------------------------------------------

    def env(self) -> dict:
        """Environment for a process that must import this build (the copy first on sys.path)."""
        env = dict(os.environ, PYTHONPATH=str(self.src), PYTHONDONTWRITEBYTECODE="1")
        env.pop("CHUNKERS_CFLAGS", None)
        return env

    def run(self, *args, timeout=None, **kw) -> subprocess.CompletedProcess:
        """Run ``python ARGS`` in the copy against this build; output captured as text."""
        return subprocess.run([self.python, *args], cwd=self.src, env=self.env(), capture_output=True, text=True,
                              timeout=timeout, **kw)
