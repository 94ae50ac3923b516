#!/usr/bin/env bash
# Installs what fuzzing needs on a fresh machine, for fuzz/ci.sh and ci/cflite-simulate.sh:
# clang, llvm and clang's sanitizer runtimes (libclang-rt-14-dev: without its ignore lists clang
# cannot compile with -fsanitize=address) with apt, and the [fuzz] extra (pyproject.toml: atheris,
# Cython, setuptools, PyInstaller) into the interpreter $1 (default .venv/bin/python).
# Works with any PATH (it adds the system directories) and as root or with sudo.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PY=${1:-.venv/bin/python}

ci/packages.sh fuzz || exit 2
# The extra's requirements only (the project itself is built by ci/setup.sh or fuzz build).
"$PY" -c 'import atheris, Cython, setuptools, PyInstaller' 2>/dev/null ||
  "$PY" -c 'import subprocess, sys, tomllib
extra = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["fuzz"]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "-q", *extra]))' || exit 2
