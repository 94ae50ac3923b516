#!/usr/bin/env bash
# Check the real borg 2.0.0b25 with this suite (issue 9): build borg from its
# PyPI sdist into its own virtual environment, install this project with its
# test dependencies there, then run the main job and pytest against borg
# (`--impl borg`) from outside the checkout, as a borg CI would.
#
#   ci/borg-reference.sh               build (if needed), install, check
#   ci/borg-reference.sh --build-only  only make $BORG_VENV/bin/python import borg.chunkers
#   BORG_SANITIZE=1 ci/borg-reference.sh   only build the instrumented borg (below)
#
# BORG_VENV: the environment (default .borg-venv in the repository, git-ignored;
# .borg-fuzz-venv with BORG_SANITIZE=1). Idempotent: an environment that already
# imports borg 2.0.0b25, built the same way (plain or instrumented), is reused.
#
# BORG_SANITIZE=1: the instrumented borg that `python -m fuzz run TARGET --impl borg`
# fuzzes (ci/borg-fuzz.sh): every borg extension compiled by $BORG_CC (default: the
# newest clang-N on PATH; clang >= 18 for borg's AES kernels) with fuzz/build.py's asan flags (ASan + UBSan without recovery +
# -fsanitize=fuzzer-no-link, so libFuzzer sees borg's C branches), pip's wheel cache
# off (it would hand back a plain wheel of the same sdist), atheris 3.0.0 and this
# project's [test] requirements installed in the venv (the checkout provides chunkers,
# conformance and fuzz), the import checked with atheris's asan_with_fuzzer.so
# preloaded (the instrumented modules need it). When borg cannot be instrumented (no
# clang, no sanitizer runtime, a failed build) it exits 2 with one line saying why.
# BORG_CC: the compiler of the plain build (default: cc).
# Needs network access to PyPI, a C compiler and the headers of libcrypto,
# liblz4, libacl, libzstd and libxxhash (installed with apt when missing).
#
# Build fix for OpenSSL 3.0 (Debian 12), borg's build only: borg's setup.py
# asks pkg-config for libcrypto >= 3.2, so BORG_OPENSSL_PREFIX=/usr bypasses
# the version query (pip's metadata step runs that setup.py too); its crypto
# extension includes <openssl/thread.h> and the Argon2 KDF names of 3.2, which
# ci/borg-shim/openssl/thread.h supplies (CPPFLAGS=-I, only when libcrypto is
# older than 3.2). Argon2 then fails at run time; the chunkers never use it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

BORG_VERSION=2.0.0b25
BORG_SANITIZE=${BORG_SANITIZE:-0}
if [ "$BORG_SANITIZE" = 1 ]; then
    BORG_VENV=${BORG_VENV:-$repo/.borg-fuzz-venv}
    ci/packages.sh borg-fuzz || exit 2     # clang-19 and its sanitizer runtimes unless a clang >= 18 or BORG_CC
    if [ -z "${BORG_CC:-}" ]; then      # the newest clang here (borg's AES kernels need clang >= 18, below)
        for v in $(seq 30 -1 14); do command -v "clang-$v" >/dev/null && { BORG_CC=clang-$v; break; }; done
        BORG_CC=${BORG_CC:-clang}
    fi
    # fuzz/build.py VARIANTS["asan"]: compile and link flags (CFLAGS reaches both in setuptools), and
    # what atheris 3.0.0's runtime (asan_with_fuzzer.so, an older LLVM's) lacks for a newer clang:
    # -fno-sanitize-link-runtime keeps clang >= 15's asan_static out of the extensions (it needs
    # __sanitizer_internal_memcpy & co.), -fno-sanitize=function the handler clang >= 17 calls for
    # C function-pointer type checks (__ubsan_handle_function_type_mismatch_abort). Without them the
    # extensions do not load under that runtime. -fno-sanitize-coverage=trace-cmp: a call per comparison
    # in the per-byte scan loops, where every comparison is of hash values the fuzzer cannot steer, made
    # the scans ~5x and the campaign ~3x slower (docs/fuzzing.md); edge coverage and the sanitizers stay.
    SAN_CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-coverage=trace-cmp -fno-sanitize-recover=undefined -fno-sanitize=function -fno-sanitize-link-runtime"
else
    BORG_VENV=${BORG_VENV:-$repo/.borg-venv}
    SAN_CFLAGS=""
fi
case $BORG_VENV in /*) ;; *) BORG_VENV=$repo/$BORG_VENV ;; esac
build_only=0
case ${1:-} in
    --build-only) build_only=1 ;;
    "") ;;
    *) echo "usage: ci/borg-reference.sh [--build-only]" >&2; exit 2 ;;
esac
py=$BORG_VENV/bin/python

# The build kind recorded in the venv (a plain venv has no stamp): never reuse one kind as the other.
stamp=$BORG_VENV/.borg-build
want_stamp="borg $BORG_VERSION cc=${BORG_CC:-cc} cflags=$SAN_CFLAGS"

san_env() {     # the environment an instrumented borg imports in: atheris's runtime preloaded
    if [ "$BORG_SANITIZE" = 1 ]; then
        local rt
        rt=$("$py" -c 'import atheris; print(atheris.path())' 2>/dev/null)/asan_with_fuzzer.so || return 1
        env LD_PRELOAD="$rt" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=silence_unsigned_overflow=1 "$@"
    else
        "$@"
    fi
}

borg_ok() {
    [ -x "$py" ] || return 1
    if [ "$BORG_SANITIZE" = 1 ]; then
        [ "$(cat "$stamp" 2>/dev/null)" = "$want_stamp" ] || return 1
    else
        [ ! -e "$stamp" ] || [ "$(cat "$stamp")" = "$want_stamp" ] || return 1
    fi
    san_env "$py" -c "import borg, borg.chunkers, sys; sys.exit(borg.__version__ != '$BORG_VERSION')" 2>/dev/null
}

fail_instrumented() {   # one line, exit 2 (BORG_SANITIZE=1)
    echo "borg-reference: cannot build an instrumented borg $BORG_VERSION into $BORG_VENV: $*" >&2
    exit 2
}

check_instrumentable() {
    command -v "${BORG_CC%% *}" >/dev/null ||
        fail_instrumented "no $BORG_CC (apt-get install clang-19 libclang-rt-19-dev, or set BORG_CC)"
    local why
    why=$(echo 'int main(void) { return 0; }' | $BORG_CC $SAN_CFLAGS -x c -c -o /dev/null - 2>&1 | head -1) ||
        fail_instrumented "$BORG_CC cannot compile with the sanitizers ($why): apt-get install the libclang-rt-N-dev of that clang"
    # borg b25's AES kernels test the CPU with __builtin_cpu_supports("vaes"): clang 14 and 16 reject that
    # name at compile time, clang 19 (Debian 12: apt-get install clang-19 libclang-rt-19-dev) accepts it
    echo 'int f(void) { return __builtin_cpu_supports("vaes"); }' | $BORG_CC -x c -c -o /dev/null - 2>/dev/null ||
        fail_instrumented "$BORG_CC does not know __builtin_cpu_supports(\"vaes\"), which borg's AES kernels use: apt-get install clang-19 libclang-rt-19-dev (or set BORG_CC)"
}

build_borg() {
    ci/packages.sh borg
    [ -x "$py" ] || python3 -m venv "$BORG_VENV"
    rm -f "$stamp"
    "$py" -m pip install -q --upgrade pip
    # borg's build requirements (its pyproject.toml), installed here so that
    # the sdist builds without isolation and sees BORG_OPENSSL_PREFIX and CPPFLAGS
    "$py" -m pip install -q "setuptools>=78.1.1" wheel pkgconfig "Cython>=3.0.3" "setuptools-scm[toml]"
    # CPPFLAGS, not CFLAGS: setuptools appends it to Python's flags, CFLAGS would replace -O3
    local cppflags=${CPPFLAGS:-}
    if ! pkg-config --atleast-version=3.2 libcrypto 2>/dev/null; then
        cppflags="$cppflags -I$repo/ci/borg-shim"
    fi
    local compiler=() nocache=()
    if [ -n "${BORG_CC:-}" ]; then
        # CC compiles, LDSHARED links; CFLAGS (the sanitizers) is appended to both
        compiler=(CC="$BORG_CC" LDSHARED="$BORG_CC -shared" CFLAGS="${CFLAGS:-} $SAN_CFLAGS")
        nocache=(--no-cache-dir)    # a wheel cached from another compiler's build would be reused
    fi
    echo "borg-reference: building borg $BORG_VERSION into $BORG_VENV (CPPFLAGS=$cppflags${BORG_CC:+ CC=$BORG_CC}${SAN_CFLAGS:+ CFLAGS=$SAN_CFLAGS})" >&2
    # --no-binary: borg's PyPI sdist, built here (its dependencies may come as wheels)
    env BORG_OPENSSL_PREFIX=/usr CPPFLAGS="$cppflags" "${compiler[@]}" "$py" -m pip install -q "${nocache[@]}" \
        --no-build-isolation --force-reinstall --no-deps --no-binary borgbackup "borgbackup==$BORG_VERSION"
    "$py" -m pip install -q --no-binary borgbackup "borgbackup==$BORG_VERSION"     # its dependencies
    if [ "$BORG_SANITIZE" = 1 ]; then
        # atheris (the runtime to preload) and the [test] requirements (conformance, pytest)
        "$py" -c 'import subprocess, sys, tomllib
test = tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]["test"]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "-q", "atheris==3.0.0", *test]))' \
            "$repo/pyproject.toml"
    fi
    echo "$want_stamp" >"$stamp"
}

if [ "$BORG_SANITIZE" = 1 ] && ! borg_ok; then
    check_instrumentable
    log=${TMPDIR:-/tmp}/borg-instrumented-build.$$.log
    echo "borg-reference: building the instrumented borg (log $log)" >&2
    set +e
    (set -e; build_borg) >"$log" 2>&1     # errexit holds inside: the subshell is no || operand
    rc=$?
    set -e
    [ "$rc" -eq 0 ] || fail_instrumented "the build failed (exit $rc; $log: $(grep -m1 -iE 'error' "$log" | cut -c1-160))"
    borg_ok || fail_instrumented "$py cannot import borg.chunkers with asan_with_fuzzer.so preloaded after the build ($log)"
fi
borg_ok || build_borg
borg_ok || { echo "borg-reference: $py cannot import borg.chunkers $BORG_VERSION after the build" >&2; exit 1; }
echo "borg-reference: $(san_env "$py" -c 'import borg; print("borg", borg.__version__, "from", borg.__file__)')${SAN_CFLAGS:+ (instrumented: $BORG_CC $SAN_CFLAGS)}"
[ "$build_only" -eq 1 ] && exit 0
[ "$BORG_SANITIZE" = 1 ] && exit 0     # only builds: ci/borg-fuzz.sh fuzzes and checks it

# This project as a user installs it (not editable): the checks below then use
# the installed package and its pytest plugin, not this checkout.
"$py" -m pip install -q "$repo[test]"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
status=0
# BORG_CORPUS_SIZE: bytes per corpus input (CI: 256 KiB; every kernel still runs every level)
"$py" -m conformance --impl borg --corpus-size "${BORG_CORPUS_SIZE:-262144}" --report "$work/report.json" || status=1
"$py" -m pytest -p no:cacheprovider --pyargs conformance --impl borg -n "${BORG_PYTEST_WORKERS:-auto}" || status=1
exit $status
