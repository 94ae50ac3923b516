#!/usr/bin/env bash
# Mutation testing, CI sample (docs/suite-strength.md): the deterministic
# sample of the fault catalogue (conformance/tools/mutants/catalogue.py CI_SAMPLE),
# each planted into build/mutants, rebuilt, and run against the default tier
# and the main job. Exits non-zero if a counted fault survives. The whole
# catalogue: .venv/bin/python -m conformance.tools.mutants (minutes per fault: a build,
# the selected tests and the main job; measured 6 min per fault on 2 cores under load 19).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
export PYTHON=${PYTHON:-.venv/bin/python}
ci/build-deps.sh
exec "$PYTHON" -m conformance.tools.mutants --sample "$@"
