#!/usr/bin/env bash
# The real borg 2.0.0b25 on aarch64 and big-endian s390x under qemu-user, checked by this suite
# (issue 25; a sibling of ci/borg-reference.sh, on ci/cross-run's Debian roots).
#
#   ci/borg-cross.sh aarch64|s390x|all
#
# Per ARCH: (1) `ci/cross-run ARCH --setup-only`: the Debian bookworm root ci/cross/DEBARCH/root
# (it also holds borg's build and run dependencies: liblz4-dev, libacl1-dev, python3-msgpack)
# and our extensions cross-built for ARCH; (2) borg's PyPI sdist (pip download), its build
# requirements in a host venv (ci/cross/borg/hostenv), Cython run on the host and borg's
# extensions compiled by setup.py with the cross gcc and the target's sysconfig, against the
# root's headers and libraries (BORG_{OPENSSL,LIBLZ4,LIBACL}_PREFIX; the OpenSSL 3.0 shim
# ci/borg-shim as in ci/borg-reference.sh), in place in ci/cross/borg/DEBARCH/src; (3) what
# `import borg.chunkers` needs besides the stdlib (blake3, jsonargparse, PyYAML, packaging,
# platformdirs, typing_extensions) as manylinux wheels for ARCH (pip --target
# ci/cross/borg/DEBARCH/site), msgpack from the root (PyPI has no s390x wheel of it);
# (4) under `qemu-ARCH -L ROOT` the root's python3.11 runs `python -m conformance.run.cross --impl
# borg --quick`: every borg kernel that runs on that CPU, chunk level against our chunkers
# (cross-built for ARCH) and the golden vectors (no scan API, no scan catalogue); the report is
# ci/cross/borg-report-ARCH.json, and every kernel borg 2.0.0b25 has on ARCH must have run.
# The cross-built borg is reused by later runs (a stamp records how it was built).
# `all`: both arches at once (one single-threaded qemu each), each one's log, result and time.
#
# Exit status: 0 all checks passed, 1 a mismatch (or an expected kernel that did not run),
# 2 with one line on stderr when borg cannot be cross-built or run there (no network, a
# missing tool, a compile error, a failed import) or for a usage error.
#
# Env: BORG_CROSS_STUB=1: the same qemu route with the borg-shaped stand-in
#   conformance/tests/stub_borg (our chunkers; BORG_STUB_FAULT plants a fault) instead of the
#   real borg, nothing of borg built; report ci/cross/borg-stub-report-ARCH.json.
# BORG_CROSS_ARGS: more arguments of conformance.run.cross, split on spaces (--fail-fast, --family F).
# BORG_CROSS_QUICK=0: the input classes on every kernel, not only the reference (slower).
# PYTHON: the host interpreter (Python 3.11, as the target's; default .venv/bin/python, set up by ci/setup.sh).
# Sets itself up on a fresh machine: the apt packages (ci/packages.sh cross-ARCH), .venv without PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

BORG_VERSION=2.0.0b25
usage="usage: ci/borg-cross.sh aarch64|s390x|all (env: BORG_CROSS_STUB=1, BORG_CROSS_ARGS, BORG_CROSS_QUICK=0)"
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
arch=$1
stub=${BORG_CROSS_STUB:-0}
case $stub in 0|1) ;; *) echo "ci/borg-cross.sh: BORG_CROSS_STUB must be 0 or 1, not '$stub'" >&2; exit 2 ;; esac

host_setup() {    # .venv as the host interpreter when PYTHON names none (a fresh clone)
    [ -n "${PYTHON:-}" ] && return 0
    ci/setup.sh >&2 || { echo "ci/borg-cross.sh $arch: ci/setup.sh failed" >&2; exit 2; }
    export PYTHON=$repo/.venv/bin/python
}
if [ "$arch" = all ]; then
    ci/packages.sh cross || exit 2   # once, here, rather than in both logs
    host_setup
    # both at once, each to its own log (printed whole when both end), then one line per arch
    mkdir -p ci/cross
    t0=$SECONDS
    pids=()
    for a in aarch64 s390x; do
        "$0" "$a" >"ci/cross/borg-cross-$a.log" 2>&1 </dev/null &
        pids+=($!)
    done
    rcs=()
    for i in 0 1; do
        rc=0; wait "${pids[$i]}" || rc=$?
        rcs+=("$rc")
    done
    summary=() errors=()
    for i in 0 1; do
        a=$([ "$i" = 0 ] && echo aarch64 || echo s390x)
        echo "=== ci/borg-cross.sh $a (log ci/cross/borg-cross-$a.log):"
        cat "ci/cross/borg-cross-$a.log"
        result=$(case ${rcs[$i]} in 0) echo passed ;; 2) echo "not run (setup failed)" ;; *) echo "failed (exit ${rcs[$i]})" ;; esac)
        summary+=("$a: $result, $(sed -n 's/^borg-cross \S*: .* in \([0-9]* s .*\)$/\1/p' "ci/cross/borg-cross-$a.log" | tail -1)")
        [ "${rcs[$i]}" != 2 ] || errors+=("$a: $(tail -n 1 "ci/cross/borg-cross-$a.log")")
    done
    printf 'borg-cross all (%s s wall):\n' "$((SECONDS - t0))"
    printf '  %s\n' "${summary[@]}"
    [ "${rcs[0]}" = 1 ] || [ "${rcs[1]}" = 1 ] && exit 1
    [ "${#errors[@]}" -eq 0 ] || { (IFS=';'; echo "ci/borg-cross.sh: ${errors[*]}") >&2; exit 2; }
    [ "${rcs[0]}" = 0 ] && [ "${rcs[1]}" = 0 ] || exit 1
    exit 0
fi

case $arch in
    aarch64) deb_arch=arm64 triplet=aarch64-linux-gnu
             # borg 2.0.0b25's kernels on an aarch64 CPU with NEON and the AES instructions (qemu's "max")
             expect="fastcdc/neon fastcdc/blockwise fastcdc/scalar buzhash64/neon buzhash64/blockwise
                     buzhash64/scalar aes/aes-arm64 aes/evp buzhash/single fixed/single" ;;
    s390x) deb_arch=s390x triplet=s390x-linux-gnu
           expect="fastcdc/blockwise fastcdc/scalar buzhash64/blockwise buzhash64/scalar aes/evp
                   buzhash/single fixed/single" ;;
    *) echo "$usage" >&2; exit 2 ;;
esac
cache=$repo/ci/cross/$deb_arch
root=$cache/root
borg_cache=$repo/ci/cross/borg
work=$borg_cache/$deb_arch
qemu=qemu-$arch
pyver=3.11
start=$SECONDS

stamp() { printf '[borg-cross-%s %4ds] %s\n' "$arch" "$((SECONDS - start))" "$*"; }
die() {     # the one line of a route that cannot be set up
    echo "ci/borg-cross.sh $arch: $*" >&2
    exit 2
}
"$repo/ci/packages.sh" "cross-$arch" || exit 2    # its one line said why (ci/cross-run's packages too)
host_setup
host_python=$PYTHON
"$host_python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null \
    || die "$host_python is not Python $pyver (the target's; set PYTHON)"

# (1) the root and our extensions for ARCH
mkdir -p "$borg_cache" "$work"
setup_log=$work/cross-run-setup.log
stamp "ci/cross-run $arch --setup-only (log $setup_log)"
rc=0; "$repo/ci/cross-run" "$arch" --setup-only >"$setup_log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || die "ci/cross-run $arch --setup-only failed (exit $rc): $(grep -v '^\[cross-' "$setup_log" | tail -n 1 | cut -c1-200)"
setup_done=$SECONDS

if [ "$stub" = 1 ]; then
    pythonpath=$repo/conformance/tests/stub_borg:$repo
    report=ci/cross/borg-stub-report-$arch.json
    what="the borg stand-in (conformance/tests/stub_borg, BORG_STUB_FAULT=${BORG_STUB_FAULT:-none})"
else
    # (2) borg cross-built, cached under ci/cross/borg/DEBARCH
    src=$work/src
    site=$work/site
    inc=$root/usr/include
    prefix=$work/prefix    # BORG_*_PREFIX: lib/ holds only the three libraries (the root's libc.so must not be seen)
    pc=$root/usr/lib/$triplet/pkgconfig/libcrypto.pc
    ssl_version=$(sed -n 's/^Version: *//p' "$pc" 2>/dev/null)
    [ -n "$ssl_version" ] || die "no libcrypto in $root ($pc missing): rebuild the root (rm -rf $cache; ci/cross-run $arch --setup-only)"
    cppflags=""
    if [ "$(printf '%s\n' 3.2 "$ssl_version" | sort -V | head -n1)" != 3.2 ]; then
        cppflags="-I$repo/ci/borg-shim"    # OpenSSL < 3.2 (bookworm: 3.0), as ci/borg-reference.sh
    fi
    for h in lz4.h sys/acl.h openssl/evp.h; do
        [ -e "$inc/$h" ] || die "$inc/$h missing: the root lacks borg's build dependencies (rm -rf $cache; ci/cross-run $arch --setup-only)"
    done
    want="borg $BORG_VERSION $triplet-gcc $("$triplet-gcc" -dumpversion) openssl $ssl_version cppflags=${cppflags:+shim}"
    built=$work/.built
    if [ "$(cat "$built" 2>/dev/null)" != "$want" ]; then
        rm -f "$built"
        (
            flock 9     # the sdist and the host venv are shared by both arches
            sdist=$borg_cache/borgbackup-$BORG_VERSION.tar.gz
            if [ ! -s "$sdist" ]; then
                stamp "downloading borg $BORG_VERSION's sdist"
                # pip prepares the sdist's metadata (runs its setup.py): the prefixes skip its library checks
                BORG_OPENSSL_PREFIX=/usr BORG_LIBLZ4_PREFIX=/usr BORG_LIBACL_PREFIX=/usr \
                    "$host_python" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
                    -d "$borg_cache/dl" "borgbackup==$BORG_VERSION" >"$borg_cache/download.log" 2>&1 \
                    || die "pip download borgbackup==$BORG_VERSION failed: $(grep -v '^WARNING' "$borg_cache/download.log" | tail -n 1 | cut -c1-200)"
                mv "$borg_cache/dl/borgbackup-$BORG_VERSION.tar.gz" "$sdist"
            fi
            hostenv=$borg_cache/hostenv
            if ! "$hostenv/bin/python" -c 'import Cython, setuptools, setuptools_scm, wheel' 2>/dev/null; then
                stamp "borg's build requirements into $hostenv"
                rm -rf "$hostenv"
                { "$host_python" -m venv "$hostenv" &&
                  "$hostenv/bin/python" -m pip install -q --disable-pip-version-check "setuptools>=78.1.1" wheel \
                      pkgconfig "Cython>=3.0.3" "setuptools-scm[toml]"; } >"$borg_cache/hostenv.log" 2>&1 \
                    || die "borg's build requirements could not be installed: $(grep -v '^WARNING' "$borg_cache/hostenv.log" | tail -n 1 | cut -c1-200)"
            fi
        ) 9>"$borg_cache/.lock"
        rm -rf "$src" "$site" "$prefix"
        mkdir -p "$src" "$prefix/lib" "$prefix/include"
        tar -xzf "$borg_cache/borgbackup-$BORG_VERSION.tar.gz" -C "$src" --strip-components=1
        for lib in crypto lz4 acl; do
            [ -e "$root/usr/lib/$triplet/lib$lib.so" ] || die "lib$lib.so missing in $root/usr/lib/$triplet"
            ln -s "$root/usr/lib/$triplet/lib$lib.so" "$prefix/lib/lib$lib.so"
        done
        build_log=$work/build.log
        stamp "cythonizing on the host and compiling borg's extensions with $triplet-gcc (log $build_log)"
        # as ci/cross-run: the target's sysconfig, the root's headers after the toolchain's
        # (-idirafter: the root's libc headers must not shadow the cross toolchain's)
        rc=0
        ( cd "$src" &&
          _PYTHON_HOST_PLATFORM=linux-$arch \
          _PYTHON_SYSCONFIGDATA_NAME=_sysconfigdata__$triplet \
          PYTHONPATH=$cache/sysconfig \
          BORG_OPENSSL_PREFIX=$prefix BORG_LIBLZ4_PREFIX=$prefix BORG_LIBACL_PREFIX=$prefix \
          CC=$triplet-gcc LDSHARED="$triplet-gcc -shared" \
          CPPFLAGS="$cppflags" \
          CFLAGS="-O3 -I$inc/python$pyver -I$inc/$triplet/python$pyver -idirafter $inc/$triplet -idirafter $inc" \
          LDFLAGS="-L$prefix/lib" \
            "$borg_cache/hostenv/bin/python" setup.py build_ext --inplace -j 2 ) >"$build_log" 2>&1 || rc=$?
        [ "$rc" -eq 0 ] || die "borg's extensions failed to cross-build for $arch (exit $rc; $build_log): $(grep -m1 -E 'error|Error' "$build_log" | cut -c1-200)"
        stamp "borg's run-time dependencies for $arch (manylinux wheels, pip --target $site)"
        "$host_python" -m pip install -q --disable-pip-version-check --target "$site" \
            --platform "manylinux2014_$arch" --python-version $pyver --implementation cp --abi cp311 --only-binary=:all: \
            "blake3>=1.0" "jsonargparse>=4.47.0" "PyYAML>=6.0.2" packaging "platformdirs>=2.6.0,<5.0.0" typing_extensions \
            >"$work/site.log" 2>&1 \
            || die "borg's run-time dependencies for $arch could not be installed: $(grep -v '^WARNING' "$work/site.log" | tail -n 1 | cut -c1-200)"
        echo "$want" >"$built"
    else
        stamp "reusing the cross-built borg in $src ($want)"
    fi
    pythonpath=$src/src:$site:$repo
    report=ci/cross/borg-report-$arch.json
    what="borg $BORG_VERSION cross-built for $arch"
fi

export PYTHONPATH=$pythonpath PYTHONDONTWRITEBYTECODE=1 QEMU_LD_PREFIX=$root
run() { "$qemu" "$root/usr/bin/python$pyver" "$@"; }
rc=0
version=$(run -c 'import borg, borg.chunkers; print(getattr(borg, "__version__", "stand-in"), borg.chunkers.__file__)' 2>"$work/import.log") || rc=$?
[ "$rc" -eq 0 ] || die "import borg.chunkers fails under $qemu (exit $rc): $(tail -n 1 "$work/import.log" | cut -c1-200)"
[ "$stub" = 1 ] || [ "${version%% *}" = "$BORG_VERSION" ] || die "the cross-built borg says version ${version%% *}, not $BORG_VERSION"
stamp "$what imports under $qemu: borg ${version}"

checks_start=$SECONDS
stamp "python -m conformance.run.cross --impl borg under $qemu (report $report)"
rc=0
quick=--quick; [ "${BORG_CROSS_QUICK:-1}" = 0 ] && quick=""
# shellcheck disable=SC2086
run -m conformance.run.cross --impl borg --emulator "$qemu" --report "$report" $quick ${BORG_CROSS_ARGS:-} || rc=$?
if [ "$rc" -eq 2 ]; then
    die "conformance.run.cross --impl borg could not load borg under $qemu"
fi
# every kernel borg has on this CPU must have run (a kernel missing from the build is no pass),
# of the families asked for (--family in BORG_CROSS_ARGS)
missing=$(BORG_CROSS_ARGS=${BORG_CROSS_ARGS:-} "$host_python" - "$report" $expect <<'EOF'
import json, os, sys
args = os.environ["BORG_CROSS_ARGS"].split()
families = {a.split("=", 1)[1] for a in args if a.startswith("--family=")}
families |= {b for a, b in zip(args, args[1:]) if a == "--family"}
try:
    rows = json.load(open(sys.argv[1]))["kernels"]
except (OSError, ValueError, KeyError) as e:
    print(f"no report ({e})")
    sys.exit()
ran = {f"{r['family']}/{r['kernel']}" for r in rows if r["result"] in ("passed", "failed")}
print(" ".join(k for k in sys.argv[2:] if k not in ran and (not families or k.split("/")[0] in families)))
EOF
)
stopped=0
[[ " ${BORG_CROSS_ARGS:-} " == *" --fail-fast "* || " ${BORG_CROSS_ARGS:-} " == *" -x "* ]] && [ "$rc" -ne 0 ] && stopped=1
if [ -n "$missing" ] && [ "$stopped" = 0 ]; then
    echo "ci/borg-cross.sh $arch: borg kernels expected on $arch that did not run: $missing" >&2
    rc=1
fi
result=$([ "$rc" -eq 0 ] && echo passed || echo "failed (exit $rc)")
echo "borg-cross $arch: $result in $((SECONDS - start)) s (setup $((setup_done - start)) s, borg build/import $((checks_start - setup_done)) s, checks $((SECONDS - checks_start)) s)"
exit "$rc"
