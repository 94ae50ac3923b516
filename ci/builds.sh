#!/usr/bin/env bash
# The build matrix (docs/suite-strength.md): the extensions built by gcc and
# clang at -O0, -O2 and -O3 into build/builds/, the main job in each, identical
# result fingerprints required, MB/s per build. Installs clang with apt if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHON=${PYTHON:-.venv/bin/python}
if ! command -v clang >/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang >/dev/null
fi
ci/build-deps.sh
exec "$PYTHON" -m conformance.tools.builds --builds "${BUILDS:-gcc-O0,gcc-O2,gcc-O3,clang-O0,clang-O2,clang-O3}" "$@"
