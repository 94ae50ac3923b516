#!/usr/bin/env bash
# C coverage of the kernels under the default test tier (docs/suite-strength.md):
# a gcc --coverage -O0 build in build/coverage, the default pytest tier against it,
# line and branch coverage per C file from gcov; exits non-zero when a file whose
# code runs on this CPU is under 95 % branch coverage after the reasoned
# exclusions in ci/coverage-exclusions.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
export PYTHON=${PYTHON:-.venv/bin/python}
ci/build-deps.sh
command -v gcov >/dev/null || { echo "ci/coverage.sh: gcov (gcc) not found" >&2; exit 2; }
exec "$PYTHON" -m conformance.tools.coverage --json build/coverage/coverage.json "$@"
