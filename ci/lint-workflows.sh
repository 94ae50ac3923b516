#!/usr/bin/env bash
# The GitHub Actions workflows (.github/workflows/*.yml) checked against the workflow schema
# GitHub reads them by (SchemaStore's, vendored in check-jsonschema), in a venv of its own
# (build/lint-venv: created and check-jsonschema installed from PyPI when missing). Seconds.
# Exit 0 when every workflow is valid, 1 when one is not, 2 when the linter cannot be installed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
venv=build/lint-venv
ci/packages.sh setup || exit 2     # python3-venv
mkdir -p build
if ! "$venv/bin/check-jsonschema" --version >/dev/null 2>&1; then
    { python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q --disable-pip-version-check \
        "check-jsonschema==0.39.0"; } >"$venv.log" 2>&1 ||
        { echo "ci/lint-workflows.sh: check-jsonschema could not be installed ($venv.log: $(grep -v '^WARNING' "$venv.log" | tail -n 1 | cut -c1-160))" >&2; exit 2; }
fi
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml
