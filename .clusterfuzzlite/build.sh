#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build of every fuzz target (the list is fuzz/targets.py), run by the
# builder's `compile` in the builder layout: the repository is $SRC/chunkers (the Dockerfile's
# WORKDIR), this script is $SRC/build.sh, and the builder sets $OUT, $WORK, $SANITIZER (address
# or undefined: one build each), $CC and $CFLAGS (sanitizer and libFuzzer coverage flags).
# Here, ci/cflite-simulate.sh runs it the same way with a stand-in compile_python_fuzzer.
#
# 1. checks the pinned toolchain: Python >= 3.11, atheris 3.0.0, PyInstaller;
# 2. builds the extensions with $CC/$CFLAGS into $WORK/build (python -m fuzz build);
# 3. stages ONLY what a target needs into $WORK/stage: the instrumented chunkers package (no
#    source-tree chunkers/ anywhere on the path), vectors/ (with the model and the adapters), conformance/, fuzz/;
# 4. per target: compile_python_fuzzer (PyInstaller, every module named as a hidden import, so
#    PyInstaller never has to import the instrumented extensions), the seed corpus zip, the
#    .options file (max_len, dict) and the dictionary.
ROOT="${SRC:?}/chunkers"
: "${OUT:?}" "${WORK:?}" "${SANITIZER:?}"
cd "$ROOT"

python3 - <<'PY'
import importlib.metadata as md, sys
problems = []
if sys.version_info < (3, 11):
    problems.append(f"Python >= 3.11 needed, the builder has {sys.version.split()[0]}")
for pkg, want in (("atheris", "3.0.0"), ("pyinstaller", None), ("Cython", None), ("setuptools", None)):
    try:
        have = md.version(pkg)
    except md.PackageNotFoundError:
        problems.append(f"{pkg} is not installed (pip install -e '.[fuzz]')")
        continue
    if want and have != want:
        problems.append(f"{pkg} {want} is pinned, the builder has {have}")
if problems:
    sys.exit("build.sh: " + "; ".join(problems))
print(f"build.sh: Python {sys.version.split()[0]}, atheris {md.version('atheris')}, "
      f"PyInstaller {md.version('pyinstaller')}")
PY

BUILD="$WORK/build"
STAGE="$WORK/stage"
python3 -m fuzz build --out "$BUILD"
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -r "$BUILD/chunkers" "$STAGE/chunkers"
rm -rf "$STAGE/chunkers/tmp"
for pkg in vectors conformance fuzz; do
  tar -C "$ROOT" --exclude=__pycache__ --exclude=fuzz/build --exclude=fuzz/corpus --exclude=fuzz/artifacts \
    -cf - "$pkg" | tar -C "$STAGE" -xf -
done
# Every module of chunkers (the extensions among them) and fuzz (targets are loaded by name) as
# PyInstaller hidden imports: found statically, nothing is imported (an instrumented extension
# cannot be imported without the sanitizer runtime). vectors and conformance follow
# from their import statements.
HIDDEN=()
while IFS= read -r mod; do HIDDEN+=(--hidden-import "$mod"); done < <(
  cd "$STAGE" && find chunkers fuzz \( -name '*.py' -o -name '*.so' \) -not -path 'fuzz/tests/*' \
    -not -name '__main__.py' |
  sed -e 's/\.cpython[^/]*\.so$//' -e 's/\.py$//' -e 's/\.so$//' -e 's#/__init__$##' -e 's#/#.#g' | sort -u)

cd "$STAGE"
# CHUNKERS_FUZZ_TARGETS: a subset (space-separated) for a quicker local check; default all.
for target in ${CHUNKERS_FUZZ_TARGETS:-$(python3 -c 'from fuzz.targets import TARGETS; print(" ".join(TARGETS))')}; do
  # rich and what only it pulls in (pygments, markdown_it: a third of the modules PyInstaller would
  # analyse and pack) render the CLI's tables; no harness prints one
  compile_python_fuzzer "fuzz/$target.py" --paths "$STAGE" "${HIDDEN[@]}" \
    --exclude-module rich --exclude-module pygments --exclude-module markdown_it \
    --add-data "$STAGE/vectors:vectors"      # vectors_load reads the JSON vector files
  python3 -m fuzz seeds "$target" "$OUT/${target}_seed_corpus.zip" --build-dir "$BUILD"
  python3 - "$target" "$OUT/$target.options" <<'PY'
import sys
from fuzz.targets import TARGETS
t = TARGETS[sys.argv[1]]
open(sys.argv[2], "w").write(f"[libfuzzer]\nmax_len = {t.max_len}\n"
                             + (f"dict = {sys.argv[1]}.dict\n" if t.dictionary else ""))
PY
  if [ -f "fuzz/dict/$target.dict" ]; then cp "fuzz/dict/$target.dict" "$OUT/$target.dict"; fi
done
