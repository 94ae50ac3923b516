#!/usr/bin/env bash
# Cython and setuptools in the interpreter PYTHON (default .venv/bin/python): the
# separate build trees (conformance.tools.buildtree) cythonize and compile outside pip's
# isolated build environment, which is where ci/setup.sh's install got them.
set -euo pipefail
py=${PYTHON:-.venv/bin/python}
"$py" -c 'import Cython, setuptools' 2>/dev/null \
    || "$py" -m pip install -q --disable-pip-version-check "Cython>=3.0" "setuptools>=68"
