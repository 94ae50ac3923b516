#!/usr/bin/env bash
# Set up a fresh machine for chunkers: system packages (OpenSSL headers, a C
# compiler), a virtual environment in .venv, and the project installed in
# place with its test dependencies (compiling the Cython/C extensions).
# Idempotent: when nothing changed since the last successful run (same sources,
# build files, CHUNKERS_CFLAGS and Python: a SHA-256 stamp in .venv) and the
# extensions import, it returns at once; otherwise it installs and rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

ci/packages.sh setup

# What a build depends on: tracked or not, every source of the extensions and the build files.
stamp_of() {
    { find chunkers/csrc -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \); ls chunkers/*.pyx chunkers/*.pxd chunkers/*.pxi;
      echo setup.py; echo pyproject.toml; } |
        LC_ALL=C sort -u | xargs sha256sum
    echo "CHUNKERS_CFLAGS=${CHUNKERS_CFLAGS:-}"
    .venv/bin/python -VV
}
STAMP=.venv/.chunkers-setup-stamp
if [ -x .venv/bin/python ] && [ -f "$STAMP" ] && [ "$(stamp_of | sha256sum)" = "$(cat "$STAMP")" ] &&
   .venv/bin/python -c 'import chunkers, pytest, rich' 2>/dev/null; then
    echo "ci/setup.sh: up to date (nothing changed since the last build)" >&2
    exit 0
fi
# --check: only say whether a build is due (exit 1), build nothing
if [ "${1:-}" = --check ]; then
    echo "ci/setup.sh: out of date (sources, build files or interpreter changed since the last build)" >&2
    exit 1
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
rm -f "$STAMP"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[test,fuzz]"
stamp_of | sha256sum > "$STAMP"
