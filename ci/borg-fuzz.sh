#!/usr/bin/env bash
# Issue 25: fuzz the real borg 2.0.0b25, instrumented, through the adapter (--impl borg).
#
# 1. clang with its sanitizer runtimes and the [fuzz] extra (ci/fuzz-deps.sh), and a clang >= 18
#    (borg's AES kernels use __builtin_cpu_supports("vaes"); BORG_SANITIZE=1 ci/borg-reference.sh
#    installs clang-19 with apt: ci/packages.sh borg-fuzz);
# 2. the instrumented borg: BORG_SANITIZE=1 ci/borg-reference.sh (ASan + UBSan +
#    -fsanitize=fuzzer-no-link, into $BORG_FUZZ_VENV, default .borg-fuzz-venv; reused when built);
# 3. every target that goes through the adapter (impl_chunks) fuzzed against borg for
#    BORG_FUZZ_TIME seconds (default 30): `python -m fuzz run TARGET --impl borg`, which runs it
#    in that venv's interpreter with atheris's asan_with_fuzzer.so preloaded; a finding is
#    minimized into fuzz/regressions/TARGET/ and printed here in base64;
# 4. the replay: `pytest fuzz --impl borg` in the instrumented venv (sanitizers on), which runs
#    those targets' seeds and regressions against borg (fuzz/tests/test_replay.py).
#
# Exit 2 with one line when borg cannot be instrumented here (no clang, no sanitizer runtime, a
# failed build); 1 on a finding or a failed replay. PYTHON: the interpreter with the [fuzz]
# extra that drives the campaign (default .venv/bin/python). About 4 minutes with the build
# (~2.5 of them), 1.5 without, on a 2-core machine.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
PY=${PYTHON:-.venv/bin/python}
export BORG_FUZZ_VENV=${BORG_FUZZ_VENV:-$PWD/.borg-fuzz-venv}

ci/fuzz-deps.sh "$PY" >&2 || { echo "borg-fuzz: ci/fuzz-deps.sh could not install clang or the [fuzz] extra" >&2; exit 2; }
"$PY" -c 'import chunkers' 2>/dev/null || "$PY" setup.py -q build_ext --inplace >&2 ||
    { echo "borg-fuzz: the in-place build of chunkers (our reference under borg) failed" >&2; exit 2; }
t0=$SECONDS
BORG_SANITIZE=1 BORG_VENV=$BORG_FUZZ_VENV ci/borg-reference.sh || exit $?
echo "borg-fuzz: instrumented borg ready after $((SECONDS - t0)) s"

before=$(find fuzz/regressions -type f 2>/dev/null | sort)
status=0
for target in $("$PY" -c 'from fuzz.targets import TARGETS; print(" ".join(n for n, t in TARGETS.items() if t.impl))'); do
    "$PY" -m fuzz run "$target" --impl borg --time "${BORG_FUZZ_TIME:-30}"
    rc=$?
    [ "$rc" -eq 2 ] && exit 2         # the campaign could not load borg: its one line is above
    [ "$rc" -eq 0 ] || status=1
    # a process the campaign started that could not load what was preloaded (the sanitizers'
    # symbolizer: reports would go unsymbolized; fuzz/launcher.py)
    lookup=$(grep -hs -m1 "symbol lookup error" fuzz/artifacts/"$target"--borg/*.log | head -n1)
    if [ -n "$lookup" ]; then
        echo "borg-fuzz: $target: $lookup"
        status=1
    fi
done
for f in $(comm -13 <(echo "$before") <(find fuzz/regressions -type f | sort)); do
    echo "NEW REGRESSION $f (base64): $(base64 -w0 "$f")"
done

bpy=$BORG_FUZZ_VENV/bin/python
rt=$("$bpy" -c 'import atheris; print(atheris.path())')/asan_with_fuzzer.so
env LD_PRELOAD="$rt" PYTHONMALLOC=malloc ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:handle_segv=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1 \
    "$bpy" -m pytest -q -p no:cacheprovider fuzz --impl borg || status=1
exit $status
