#!/usr/bin/env bash
# The emulated kernel tiers, for .ci/run (docs/verified-tiers.md): every x86-64
# kernel in bochscpu, also where it runs natively; the aarch64 kernels under
# qemu-aarch64; the portable kernels and the driver on big-endian s390x under
# qemu-s390x. Prints the tier matrix (also written to ci/cross/tiers.json) and
# exits non-zero on any mismatch and on any tier left uncovered.
#
# Needs the host extensions built and the test extras installed (PYTHON names
# that interpreter; without it ci/setup.sh makes .venv) and network for Debian and
# PyPI; installs the cross compilers, qemu-user and debootstrap with apt when
# missing (ci/packages.sh cross). Nothing is reused between CI runs; locally the Debian roots stay
# cached under ci/cross/.
set -euo pipefail
cd "$(dirname "$0")/.."

ci/packages.sh cross
if [ -z "${PYTHON:-}" ]; then     # a fresh clone: .venv, built by ci/setup.sh
    ci/setup.sh >&2
    export PYTHON=.venv/bin/python
fi
mkdir -p ci/cross
exec "$PYTHON" -m conformance.tools.tiers --tiers all --strict --json ci/cross/tiers.json "$@"
