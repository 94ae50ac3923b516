#!/usr/bin/env bash
# The emulated kernel tiers, for .ci/run (README: "Verified tiers"): every x86-64
# kernel in bochscpu, also where it runs natively; the aarch64 kernels under
# qemu-aarch64; the portable kernels and the driver on big-endian s390x under
# qemu-s390x. Prints the tier matrix (also written to ci/cross/tiers.json) and
# exits non-zero on any mismatch and on any tier left uncovered.
#
# Needs: the host extensions built and the test extras installed (README), and
# gcc-aarch64-linux-gnu gcc-s390x-linux-gnu qemu-user debootstrap (and fakeroot
# when not root), plus network for Debian and PyPI. Nothing is reused between CI runs;
# locally the Debian roots stay cached under ci/cross/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p ci/cross
exec "${PYTHON:-python3}" -m conformance.tiers --tiers all --strict --json ci/cross/tiers.json "$@"
