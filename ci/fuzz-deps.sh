#!/usr/bin/env bash
# Installs what fuzzing needs on a fresh machine, for fuzz/ci.sh and ci/cflite-simulate.sh:
# clang, llvm and clang's sanitizer runtimes (libclang-rt-14-dev: without its ignore lists clang
# cannot compile with -fsanitize=address) with apt, and the [fuzz] extra (pyproject.toml: atheris,
# Cython, setuptools, PyInstaller) into the interpreter $1 (default .venv/bin/python).
# Works with any PATH (it adds the system directories) and as root or with sudo.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PY=${1:-.venv/bin/python}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need=()
command -v clang >/dev/null || need+=(clang)
command -v llvm-symbolizer >/dev/null || need+=(llvm)
echo 'int main(void){return 0;}' | clang -fsanitize=address,undefined,fuzzer-no-link -x c -c -o /dev/null - \
  2>/dev/null || need+=(libclang-rt-14-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "ci/fuzz-deps.sh: installing ${need[*]} with apt" >&2
  as_root apt-get update -qq || exit 2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null || exit 2
fi
# The extra's requirements only (the project itself is built by ci/setup.sh or fuzz build).
"$PY" -c 'import atheris, Cython, setuptools, PyInstaller' 2>/dev/null ||
  "$PY" -c 'import subprocess, sys, tomllib
extra = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["fuzz"]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "-q", *extra]))' || exit 2
