#!/bin/sh
# The instructions of every compiled kernel are its tier's (conformance.tools.isa): each registry row's
# function contains its declared ISA and nothing above its declared CPU features. Seconds.
# (The aarch64 cross build is checked the same way inside ci/cross-aarch64.)
set -eu
cd "$(dirname "$0")/.."
[ -n "${PYTHON:-}" ] || ci/setup.sh >&2 || exit 2     # without PYTHON: .venv, set up on a fresh clone
exec "${PYTHON:-.venv/bin/python}" -m conformance.tools.isa
