#!/usr/bin/env bash
# Check the real borg 2.0.0b25 with this suite (issue 9): build borg from its
# PyPI sdist into its own virtual environment, install this project with its
# test dependencies there, then run the main job and pytest against borg
# (`--impl borg`) from outside the checkout, as a borg CI would.
#
#   ci/borg-reference.sh               build (if needed), install, check
#   ci/borg-reference.sh --build-only  only make $BORG_VENV/bin/python import borg.chunkers
#
# BORG_VENV: the environment (default .borg-venv in the repository, git-ignored).
# Idempotent: an environment that already imports borg 2.0.0b25 is reused.
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
BORG_VENV=${BORG_VENV:-$repo/.borg-venv}
case $BORG_VENV in /*) ;; *) BORG_VENV=$repo/$BORG_VENV ;; esac
build_only=0
case ${1:-} in
    --build-only) build_only=1 ;;
    "") ;;
    *) echo "usage: ci/borg-reference.sh [--build-only]" >&2; exit 2 ;;
esac
py=$BORG_VENV/bin/python

borg_ok() {
    [ -x "$py" ] && "$py" -c "import borg, borg.chunkers, sys; sys.exit(borg.__version__ != '$BORG_VERSION')" 2>/dev/null
}

apt_need() {
    local need=()
    command -v cc >/dev/null || need+=(gcc)
    command -v pkg-config >/dev/null || need+=(pkg-config)
    python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
    [ -e /usr/include/openssl/evp.h ] || need+=(libssl-dev)
    [ -e /usr/include/lz4.h ] || need+=(liblz4-dev)
    [ -e /usr/include/sys/acl.h ] || need+=(libacl1-dev)
    [ -e /usr/include/zstd.h ] || need+=(libzstd-dev)
    [ -e /usr/include/xxhash.h ] || need+=(libxxhash-dev)
    if [ ${#need[@]} -gt 0 ]; then
        local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        echo "borg-reference: installing ${need[*]} with apt" >&2
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
    fi
}

build_borg() {
    apt_need
    [ -x "$py" ] || python3 -m venv "$BORG_VENV"
    "$py" -m pip install -q --upgrade pip
    # borg's build requirements (its pyproject.toml), installed here so that
    # the sdist builds without isolation and sees BORG_OPENSSL_PREFIX and CPPFLAGS
    "$py" -m pip install -q "setuptools>=78.1.1" wheel pkgconfig "Cython>=3.0.3" "setuptools-scm[toml]"
    # CPPFLAGS, not CFLAGS: setuptools appends it to Python's flags, CFLAGS would replace -O3
    local cppflags=${CPPFLAGS:-}
    if ! pkg-config --atleast-version=3.2 libcrypto 2>/dev/null; then
        cppflags="$cppflags -I$repo/ci/borg-shim"
    fi
    echo "borg-reference: building borg $BORG_VERSION into $BORG_VENV (CPPFLAGS=$cppflags)" >&2
    # --no-binary: borg's PyPI sdist, built here (its dependencies may come as wheels)
    BORG_OPENSSL_PREFIX=/usr CPPFLAGS="$cppflags" "$py" -m pip install -q --no-build-isolation \
        --no-binary borgbackup "borgbackup==$BORG_VERSION"
}

borg_ok || build_borg
borg_ok || { echo "borg-reference: $py cannot import borg.chunkers $BORG_VERSION after the build" >&2; exit 1; }
echo "borg-reference: $("$py" -c 'import borg; print("borg", borg.__version__, "from", borg.__file__)')"
[ "$build_only" -eq 1 ] && exit 0

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
