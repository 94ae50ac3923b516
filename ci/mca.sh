#!/bin/sh
# Predicted cycles per byte of every kernel's hot loop on AMD Zen 4 and Intel Sapphire Rapids
# (conformance.tools.mca: llvm-mca static analysis, a prediction, never a measurement), and the
# tool's tests with an llvm-mca present. Installs Debian's llvm-19 with apt when no llvm-mca
# that knows znver4 is on PATH (Debian 12's llvm 14 does not). Seconds.
set -eu
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
if ! "$py" -c "from conformance.tools.mca import find_mca; find_mca()" 2>/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "ci/mca.sh: installing llvm-19 with apt" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends llvm-19 >/dev/null
fi
mkdir -p ci/cross
"$py" -m conformance.tools.mca --json ci/cross/mca.json
exec "$py" -m pytest -q -p no:cacheprovider conformance/tests/test_mca.py
