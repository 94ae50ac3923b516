#!/usr/bin/env bash
# The emulated kernel tiers, for .ci/run (docs/verified-tiers.md): every x86-64
# kernel in bochscpu, also where it runs natively; the aarch64 kernels under
# qemu-aarch64; the portable kernels and the driver on big-endian s390x under
# qemu-s390x. Prints the tier matrix (also written to ci/cross/tiers.json) and
# exits non-zero on any mismatch and on any tier left uncovered.
#
# Needs the host extensions built and the test extras installed (ci/setup.sh;
# PYTHON names that interpreter, default python3) and network for Debian and
# PyPI; installs the cross compilers, qemu-user and debootstrap with apt when
# missing. Nothing is reused between CI runs; locally the Debian roots stay
# cached under ci/cross/.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for tool in aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu s390x-linux-gnu-gcc:gcc-s390x-linux-gnu \
            qemu-aarch64:qemu-user qemu-s390x:qemu-user debootstrap:debootstrap; do
    command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || need+=(libc6-dev-arm64-cross)
[ -e /usr/s390x-linux-gnu/include/stdio.h ] || need+=(libc6-dev-s390x-cross)
[ "$(id -u)" -eq 0 ] || command -v fakeroot >/dev/null || need+=(fakeroot)
[ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
if [ ${#need[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "ci/emulated-tiers.sh: installing ${need[*]} with apt" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${need[@]}" | sort -u) >/dev/null
fi
mkdir -p ci/cross
exec "${PYTHON:-python3}" -m conformance.tools.tiers --tiers all --strict --json ci/cross/tiers.json "$@"
