#!/usr/bin/env bash
# The Debian/Ubuntu packages of every route that needs system packages, in one place, and
# their installer. Every script of a route calls it first, so each README command does its
# own set-up on a fresh machine.
#
#   ci/packages.sh ROUTE...          install with apt what the routes need and this machine lacks
#   ci/packages.sh --missing ROUTE...  print the missing packages (one line), install nothing
#
# One line on stderr before installing ("ci/packages.sh: installing P... with apt (for ROUTE)");
# apt-get update runs once, only when something is missing; noninteractive; sudo when not root.
# Tools are looked for on the caller's PATH (the one the route runs them from); apt and sudo
# also in the system directories. Exit 0 when nothing is missing or all was installed, 2 with
# one line when apt fails, a tool is still not on PATH after it, or a route is unknown.
# CHUNKERS_NO_APT=1: install nothing; what is missing is that one line and exit 2.
#
# A route's row: CHECK=PACKAGE pairs. CHECK is an absolute path that must exist, py:MODULE
# (python3 imports it), probe:NAME (the function probe_NAME below succeeds) or a command on PATH.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sys_path="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

route_rows() {
    case $1 in
        # ci/setup.sh: the OpenSSL headers and a C compiler for the extensions, venv for .venv
        setup) echo "/usr/include/openssl/evp.h=libssl-dev cc=gcc py:ensurepip=python3-venv py:venv=python3-venv" ;;
        # ci/cross-run ARCH (and ci/emulated-tiers.sh, python -m conformance --tiers all, ci/borg-cross.sh):
        # the cross gcc and its libc headers, qemu-user, debootstrap (stage one under fakeroot) with
        # Debian's keyring, dpkg-deb to unpack, flock for borg-cross's shared cache
        cross-aarch64|cross-s390x)
            local triplet deb
            case $1 in cross-aarch64) triplet=aarch64-linux-gnu deb=arm64 ;; *) triplet=s390x-linux-gnu deb=s390x ;; esac
            echo "$triplet-gcc=gcc-$triplet /usr/$triplet/include/stdio.h=libc6-dev-$deb-cross" \
                 "qemu-${1#cross-}=qemu-user debootstrap=debootstrap fakeroot=fakeroot dpkg-deb=dpkg" \
                 "/usr/share/keyrings/debian-archive-keyring.gpg=debian-archive-keyring flock=util-linux" ;;
        cross) echo "$(route_rows cross-aarch64) $(route_rows cross-s390x)" ;;
        # ci/fuzz-deps.sh: clang, llvm-symbolizer and clang's sanitizer runtimes (without its
        # ignore lists clang cannot compile with -fsanitize=address)
        fuzz) echo "clang=clang llvm-symbolizer=llvm probe:clang_sanitizers=libclang-rt-14-dev" ;;
        # ci/borg-fuzz.sh: borg's AES kernels call __builtin_cpu_supports("vaes"), which needs clang >= 18
        borg-fuzz) echo "probe:borg_clang=clang-19 probe:borg_clang=libclang-rt-19-dev" ;;
        # ci/borg-reference.sh: borg 2.0.0b25's build requirements
        borg) echo "cc=gcc pkg-config=pkg-config py:ensurepip=python3-venv py:venv=python3-venv" \
                   "/usr/include/openssl/evp.h=libssl-dev /usr/include/lz4.h=liblz4-dev" \
                   "/usr/include/sys/acl.h=libacl1-dev /usr/include/zstd.h=libzstd-dev /usr/include/xxhash.h=libxxhash-dev" ;;
        # ci/builds.sh: the clang half of the build matrix
        builds) echo "clang=clang" ;;
        # ci/mca.sh: an llvm-mca that knows znver4 (Debian 12's llvm 14 does not)
        mca) echo "probe:mca=llvm-19" ;;
        *) return 1 ;;
    esac
}

probe_clang_sanitizers() {
    echo 'int main(void){return 0;}' | clang -fsanitize=address,undefined,fuzzer-no-link -x c -c -o /dev/null - 2>/dev/null
}
probe_borg_clang() {
    [ -n "${BORG_CC:-}" ] && return 0
    local v
    for ((v = 30; v >= 18; v--)); do command -v "clang-$v" >/dev/null && return 0; done
    return 1
}
probe_mca() {
    "${PYTHON:-.venv/bin/python}" -c "from conformance.tools.mca import find_mca; find_mca()" 2>/dev/null
}

present() {
    case $1 in
        /*) [ -e "$1" ] ;;
        py:*) python3 -c "import ${1#py:}" 2>/dev/null ;;
        probe:*) "probe_${1#probe:}" ;;
        *) command -v "$1" >/dev/null ;;
    esac
}

missing() {     # the packages the routes "$@" need and this machine lacks, each once, on one line
    local route pair rows out=" "
    for route in "$@"; do
        rows=$(route_rows "$route") || { echo "ci/packages.sh: unknown route '$route' (setup, cross, cross-aarch64, cross-s390x, fuzz, borg-fuzz, borg, builds, mca)" >&2; return 2; }
        for pair in $rows; do
            present "${pair%%=*}" || [[ $out == *" ${pair#*=} "* ]] || out+="${pair#*=} "
        done
    done
    out=${out# }
    echo "${out% }"
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }     # PATH: the system's by then

if [ "${1:-}" = --missing ]; then
    shift
    missing "$@" || exit 2
    exit 0
fi
[ $# -gt 0 ] || { echo "usage: ci/packages.sh [--missing] ROUTE..." >&2; exit 2; }
need=$(missing "$@") || exit 2
[ -n "$need" ] || exit 0
if [ -n "${CHUNKERS_NO_APT:-}" ]; then
    echo "ci/packages.sh: missing $need (for $*; CHUNKERS_NO_APT is set: apt-get install them)" >&2
    exit 2
fi
# both arches' runs start at once: one apt at a time, the second sees what the first installed
if PATH=$sys_path command -v flock >/dev/null; then
    exec 9>"${TMPDIR:-/tmp}/chunkers-packages.lock" && PATH=$sys_path flock 9
    need=$(missing "$@") || exit 2
    [ -n "$need" ] || exit 0
fi
echo "ci/packages.sh: installing $need with apt (for $*)" >&2
user_path=$PATH
PATH=$sys_path
log=$(mktemp "${TMPDIR:-/tmp}/chunkers-apt.XXXXXX")    # apt's chatter, shown only when it fails
as_root apt-get update -qq >"$log" 2>&1 ||
    { echo "ci/packages.sh: apt-get update failed (for $*: $need): $(tail -n 1 "$log")" >&2; exit 2; }
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends $need >"$log" 2>&1 ||
    { echo "ci/packages.sh: apt-get install $need failed (for $*): $(tail -n 1 "$log")" >&2; exit 2; }
rm -f "$log"
left=$(PATH=$user_path missing "$@") || exit 2
[ -z "$left" ] || { echo "ci/packages.sh: $left installed, but still not found on PATH ($user_path) (for $*)" >&2; exit 2; }
