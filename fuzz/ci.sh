#!/bin/bash
# CI fuzzing step (called from .ci/run): the instrumented build, every fuzz target for
# FUZZ_TIME seconds (default 60) with one job, then the pytest suite of fuzz/ (regression
# replay, harness checks, instrumentation checks). Exits non-zero on any finding or failure;
# a finding is minimized into fuzz/regressions/TARGET/ and printed here in base64.
# Time: 10 targets x (60 s + ~6 s start-up and seed loading), the build (~50 s) and pytest
# (~30 s) make the step about 11 minutes on a 2-core machine; FUZZ_TIME scales it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
PY=${PYTHON:-.venv/bin/python}
export PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# clang, llvm, libclang-rt with apt; the [fuzz] extra (atheris, and the instrumented build's
# requirements: it runs setup.py with this interpreter) into $PY. libFuzzer's helpers run with
# $PY too (fuzz/launcher.py), whatever python3 is on PATH.
ci/fuzz-deps.sh "$PY" || exit 2
"$PY" -c 'import chunkers' 2>/dev/null || "$PY" setup.py -q build_ext --inplace || exit 2

"$PY" -m fuzz build || exit 2
before=$(find fuzz/regressions -type f 2>/dev/null | sort)
status=0
"$PY" -m fuzz run all --time "${FUZZ_TIME:-60}" --jobs 1 || status=1
for f in $(comm -13 <(echo "$before") <(find fuzz/regressions -type f | sort)); do
  echo "NEW REGRESSION $f (base64): $(base64 -w0 "$f")"
done
"$PY" -m pytest -q -rs fuzz || status=1
exit $status
