#!/bin/sh
# Predicted cycles per byte of every kernel's hot loop on AMD Zen 4 and Intel Sapphire Rapids
# (conformance.tools.mca: llvm-mca static analysis, a prediction, never a measurement), and the
# tool's tests with an llvm-mca present. Installs Debian's llvm-19 with apt when no llvm-mca
# that knows znver4 is on PATH (Debian 12's llvm 14 does not). Seconds.
set -eu
cd "$(dirname "$0")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
py=${PYTHON:-.venv/bin/python}
PYTHON=$py ci/packages.sh mca
mkdir -p ci/cross
"$py" -m conformance.tools.mca --json ci/cross/mca.json
exec "$py" -m pytest -q -p no:cacheprovider conformance/tests/test_mca.py
