#!/usr/bin/env bash
# Issue 12's input classes beyond the default tier: the seeded boundary-key search
# (conformance.cases.keystream) must find exactly the stored keys again, and the main job
# runs the class cases of every family on a small corpus (twice: same verdicts).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
PY=${PYTHON:-.venv/bin/python}
"$PY" -m pytest -q -n 0 -p no:cacheprovider --slow conformance/tests/test_input_classes.py -k search
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in 1 2; do      # the verdicts are checked below, from the reports
    "$PY" -m conformance --corpus-size 65536 --report "$tmp/$run.json" >/dev/null || true
done
"$PY" - "$tmp" <<'PY'
import json, sys
a, b = (json.load(open(f"{sys.argv[1]}/{r}.json")) for r in (1, 2))
def verdict(doc):
    return [(c["family"], c["kernel"], c["status"], c["chunk_runs"], len(c["mismatches"])) for c in doc["cells"]]

for row in verdict(a):
    print(*row)
if verdict(a) != verdict(b):
    sys.exit("the main job's verdicts differ between two runs with the same seed")
if any(c["status"] == "failed" for c in a["cells"]):
    sys.exit("the main job failed")
PY
