#!/usr/bin/env bash
# The build matrix (docs/suite-strength.md): the extensions built by gcc and
# clang at -O0, -O2 and -O3 into build/builds/, the main job in each, identical
# result fingerprints required, MB/s per build. Installs clang with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
export PYTHON=${PYTHON:-.venv/bin/python}
ci/packages.sh builds
ci/build-deps.sh
exec "$PYTHON" -m conformance.tools.builds --builds "${BUILDS:-gcc-O0,gcc-O2,gcc-O3,clang-O0,clang-O2,clang-O3}" "$@"
