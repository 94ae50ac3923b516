#!/usr/bin/env bash
# Simulates the OSS-Fuzz / ClusterFuzzLite builder's `compile` here, once per sanitizer (address,
# undefined; as .clusterfuzzlite/project.yaml lists), then runs every produced target on its seed
# corpus. Fails when a target is missing, does not run its seeds clean, or is not instrumented.
#
# Per sanitizer: a temporary $SRC/$OUT/$WORK; the repository's tracked and unignored files copied
# to $SRC/chunkers (the Dockerfile's COPY, .dockerignore applied by git's ignore rules); the real
# .clusterfuzzlite/build.sh copied to $SRC/build.sh and run from $SRC/chunkers with the builder's
# variables ($CC, $CFLAGS with OSS-Fuzz's sanitizer + coverage flags, $SANITIZER, ...),
# `python3` being the interpreter that has the [fuzz] extra (the builder's has atheris), and
# ci/oss-fuzz/compile_python_fuzzer (PyInstaller --onefile, as the builder) on PATH. Like
# `compile`, it copies atheris's SANITIZER_with_fuzzer.so to $OUT/sanitizer_with_fuzzer.so.
# Then per target: unzip TARGET_seed_corpus.zip, run $OUT/TARGET -runs=SEEDS+RUNS with the .options
# flags, require exit 0 and libFuzzer's "Loaded N modules (M inline 8-bit counters)" with the
# C extensions' counters in it (M > 1000: the frozen package carries the instrumented build).
#
# PYTHON: the interpreter (default .venv/bin/python; the [fuzz] extra is installed into it when
# missing); CFLITE_SANITIZERS (default "address undefined"); CFLITE_RUNS (default 300);
# CFLITE_KEEP=1 keeps the temporary tree; CHUNKERS_FUZZ_TARGETS="T1 T2" builds and runs only those,
# CFLITE_TARGETS_address / CFLITE_TARGETS_undefined the same for one sanitizer. About 40 s per
# target and sanitizer on 2 cores (PyInstaller), plus the instrumented build.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
PY=${PYTHON:-.venv/bin/python}
PY="$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")"     # absolute, not resolved (a venv's python is a link)
RUNS=${CFLITE_RUNS:-300}

ci/fuzz-deps.sh "$PY" || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cflite.XXXXXX")
[ -n "${CFLITE_KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin"
for name in python3 python; do     # scripts, not links: a link outside the venv would lose the venv
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" > "$TMP/bin/$name"
  chmod +x "$TMP/bin/$name"
done
cp ci/oss-fuzz/compile_python_fuzzer "$TMP/bin/"

# OSS-Fuzz's flags per sanitizer (infra/base-images/base-clang: SANITIZER_FLAGS_*, COVERAGE_FLAGS).
COMMON="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=fuzzer-no-link"
UB="array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr"
UB_FATAL="array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr"
declare -A FLAGS=(
  [address]="-fsanitize=address -fsanitize-address-use-after-scope -fno-sanitize=leak"
  [undefined]="-fsanitize=$UB -fno-sanitize-recover=$UB_FATAL"
)
declare -A RUNTIME=([address]=asan_with_fuzzer.so [undefined]=ubsan_with_fuzzer.so)

status=0
for san in ${CFLITE_SANITIZERS:-address undefined}; do
  t0=$SECONDS
  # CFLITE_TARGETS_<sanitizer>: the targets built and run for that sanitizer (default: every one)
  targets_var=CFLITE_TARGETS_$san
  export CHUNKERS_FUZZ_TARGETS=${!targets_var:-${CHUNKERS_FUZZ_TARGETS:-}}
  [ -n "$CHUNKERS_FUZZ_TARGETS" ] || unset CHUNKERS_FUZZ_TARGETS
  export SRC=$TMP/$san/src OUT=$TMP/$san/out WORK=$TMP/$san/work
  mkdir -p "$SRC/chunkers" "$OUT" "$WORK"
  git -C "$REPO" ls-files -z -co --exclude-standard | tar -C "$REPO" --null -T - -cf - | tar -C "$SRC/chunkers" -xf -
  cp "$REPO/.clusterfuzzlite/build.sh" "$SRC/build.sh"
  cp "$("$PY" -c 'import atheris; print(atheris.path())')/${RUNTIME[$san]}" "$OUT/sanitizer_with_fuzzer.so"
  echo "--- cflite $san: compile ($SRC/build.sh)"
  if ! (cd "$SRC/chunkers" && env PATH="$TMP/bin:$PATH" SANITIZER=$san FUZZING_ENGINE=libfuzzer \
          FUZZING_LANGUAGE=python ARCHITECTURE=x86_64 CC=clang CXX=clang++ \
          CFLAGS="$COMMON ${FLAGS[$san]}" CXXFLAGS="$COMMON ${FLAGS[$san]}" \
          bash -eu "$SRC/build.sh" >"$TMP/$san/compile.log" 2>&1); then
    tail -40 "$TMP/$san/compile.log"
    echo "--- cflite $san: build.sh FAILED"
    status=1
    continue
  fi
  echo "--- cflite $san: compiled in $((SECONDS - t0)) s; running every target on its seeds ($RUNS runs)"
  for target in ${CHUNKERS_FUZZ_TARGETS:-$(cd "$REPO" && "$PY" -c 'from fuzz.targets import TARGETS; print(" ".join(TARGETS))')}; do
    if [ ! -x "$OUT/$target" ] || [ ! -f "$OUT/$target.pkg" ] || [ ! -f "$OUT/${target}_seed_corpus.zip" ]; then
      echo "FAIL $san/$target: missing from \$OUT: $(ls "$OUT" | tr '\n' ' ')"
      status=1
      continue
    fi
    corpus=$TMP/$san/corpus/$target
    mkdir -p "$corpus"
    "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
      "$OUT/${target}_seed_corpus.zip" "$corpus"
    opts=$(sed -n 's/^\([a-z_]*\) = \(.*\)$/-\1=\2/p' "$OUT/$target.options" | sed "s#^-dict=#-dict=$OUT/#")
    seeds=$(ls "$corpus" | wc -l)
    runs=$((seeds + RUNS))      # -runs counts the seed corpus' executions too
    log=$TMP/$san/$target.log
    # ClusterFuzz's sanitizer options that matter here; unsigned overflow is the hashes' arithmetic.
    (cd "$TMP/$san" && env ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:handle_segv=1 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1 PYTHONMALLOC=malloc \
        "$OUT/$target" -runs="$runs" $opts "$corpus" >"$log" 2>&1)
    rc=$?
    counters=$(sed -n 's/.*Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -1)
    done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
    if [ "$rc" -ne 0 ] || [ "${counters:-0}" -le 1000 ] || [ "${done_runs:-0}" -lt "$runs" ]; then
      tail -30 "$log"
      echo "FAIL $san/$target: exit $rc, ${counters:-no} inline counters, $seeds seeds"
      status=1
    else
      echo "ok   $san/$target: $seeds seeds + $RUNS runs, $counters inline 8-bit counters, $(grep -m1 -o 'cov: [0-9]*' "$log" | tail -1)"
    fi
  done
  echo "--- cflite $san: $((SECONDS - t0)) s"
done
exit $status
