#!/usr/bin/env bash
# Issue 13: `bench --against borg` and `tune` end to end, after this CPU's measured ceilings
# (conformance.tools.ceilings); all must run; timings are printed, never asserted. Uses the
# Python of a borg 2.0.0b25 venv (BORG_PYTHON, default the venv ci/borg-reference.sh builds,
# $BORG_VENV or .borg-venv) with this project on PYTHONPATH; without one, only the ceilings and
# `tune` run and the borg comparison is reported as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
PYTHON=${PYTHON:-.venv/bin/python}
BORG_PYTHON=${BORG_PYTHON:-${BORG_VENV:-.borg-venv}/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# This CPU's ceilings for the kernels' work, and every scan kernel as a fraction of its shape's (measured).
"$PYTHON" -m conformance.tools.ceilings --kernels --size 4
"$PYTHON" -m chunkers tune --size 2 --rounds 1 --out "$out/defaults.json"
"$PYTHON" -m chunkers --defaults "$out/defaults.json" kernels
if [ -x "$BORG_PYTHON" ] && "$BORG_PYTHON" -c 'import borg.chunkers' 2>/dev/null; then
    site=$("$PYTHON" -c 'import rich, os; print(os.path.dirname(os.path.dirname(rich.__file__)))')
    PYTHONPATH="$PWD:$site" "$BORG_PYTHON" -m chunkers bench --against borg --size 8 --repeat 1
else
    echo "bench --against borg: skipped, no borg at $BORG_PYTHON (set BORG_PYTHON to a borg 2.0.0b25 venv's python)"
fi
