#!/usr/bin/env bash
# Mutation testing, CI sample (README: "Suite strength"): the deterministic
# sample of the fault catalogue (conformance/mutants/catalogue.py CI_SAMPLE),
# each planted into build/mutants, rebuilt, and run against the default tier
# and the main job. Exits non-zero if a counted fault survives. The whole
# catalogue: .venv/bin/python -m conformance.mutants (about an hour on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHON=${PYTHON:-.venv/bin/python}
ci/build-deps.sh
exec "$PYTHON" -m conformance.mutants --sample "$@"
