#!/usr/bin/env bash
# Set up a fresh machine for chunkers: system packages (OpenSSL headers, a C
# compiler), a virtual environment in .venv, and the project installed in
# place with its test dependencies (compiling the Cython/C extensions).
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -e /usr/include/openssl/evp.h ] || need+=(libssl-dev)
command -v cc >/dev/null || need+=(gcc)
python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "ci/setup.sh: installing ${need[*]} with apt" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[test,fuzz]"
