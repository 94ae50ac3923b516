#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of borg's chunkers for the chunkers suite's differential target
# impl_chunks (fuzz/impl_chunks.py of the suite) with --impl borg, run by the builder's `compile`
# once per sanitizer: borg is this checkout ($SRC/borg, the Dockerfile's WORKDIR), the suite is
# $SRC/chunkers, the builder sets $OUT, $WORK, $SANITIZER, $CC and $CFLAGS.
#
# 1. borg from this checkout, every extension compiled with $CC/$CFLAGS (the sanitizer and
#    -fsanitize=fuzzer-no-link: libFuzzer sees borg's C branches), installed into the builder's
#    Python; on OpenSSL < 3.2 with the suite's header shim (ci/borg-shim, as ci/borg-reference.sh);
# 2. the suite's chunkers built plain (they are the reference the target compares borg with, not
#    the code under test) and staged with vectors/ (the model and the adapters within), conformance/, fuzz/;
# 3. the fuzzer impl_chunks_borg: impl_chunks with CHUNKERS_FUZZ_IMPL=borg, packaged by
#    compile_python_fuzzer with every module of borg, chunkers and fuzz as a hidden import
#    (PyInstaller never imports the instrumented extensions), plus its seed corpus and options.
: "${SRC:?}" "${OUT:?}" "${WORK:?}" "${SANITIZER:?}"
SUITE="$SRC/chunkers"
BORG_SRC=${BORG_SRC:-$SRC/borg}
STAGE="$WORK/stage"
NAME=impl_chunks_borg

cd "$BORG_SRC"
cppflags=""
pkg-config --atleast-version=3.2 libcrypto 2>/dev/null || cppflags="-I$SUITE/ci/borg-shim"
BORG_OPENSSL_PREFIX=/usr CPPFLAGS="$cppflags" LDSHARED="$CC -shared" \
  python3 -m pip install --no-cache-dir --no-build-isolation .
site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -n "$(ls "$site"/borg/chunkers/*.so 2>/dev/null)" ] || { echo "build.sh: borg's chunkers were not built" >&2; exit 1; }

cd "$SUITE"
env -u CFLAGS -u CXXFLAGS -u LDFLAGS -u LDSHARED CC="${CC%% *}" python3 setup.py -q build_ext --inplace
rm -rf "$STAGE"
mkdir -p "$STAGE"
for pkg in chunkers vectors conformance fuzz; do
  tar -C "$SUITE" --exclude=__pycache__ --exclude=fuzz/build --exclude=fuzz/corpus --exclude=fuzz/artifacts \
    --exclude='chunkers/csrc' -cf - "$pkg" | tar -C "$STAGE" -xf -
done
cat > "$STAGE/$NAME.py" <<'PY'
"""impl_chunks of the chunkers suite against borg (--impl borg), for ClusterFuzzLite."""
import os
os.environ.setdefault("CHUNKERS_FUZZ_IMPL", "borg")
from fuzz.impl_chunks import main
main()
PY
HIDDEN=()
while IFS= read -r mod; do HIDDEN+=(--hidden-import "$mod"); done < <(
  { cd "$STAGE" && find chunkers fuzz \( -name '*.py' -o -name '*.so' \) -not -path 'fuzz/tests/*' \
      -not -path 'fuzz/cflite-borg/*' -not -name '__main__.py'
    cd "$site" && find borg \( -name '*.py' -o -name '*.so' \) -not -path 'borg/testsuite/*' -not -name '__main__.py'; } |
  sed -e 's/\.cpython[^/]*\.so$//' -e 's/\.py$//' -e 's/\.so$//' -e 's#/__init__$##' -e 's#/#.#g' | sort -u)

cd "$STAGE"
compile_python_fuzzer "$NAME.py" --paths "$STAGE" "${HIDDEN[@]}" \
  --exclude-module rich --exclude-module pygments --exclude-module markdown_it
python3 -m fuzz seeds impl_chunks "$OUT/${NAME}_seed_corpus.zip"
python3 -c 'from fuzz.targets import TARGETS; print(f"[libfuzzer]\nmax_len = {TARGETS[\"impl_chunks\"].max_len}")' \
  > "$OUT/$NAME.options"
