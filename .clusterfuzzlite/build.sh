#!/bin/bash -eu
# Build every fuzz target (the list is fuzz/targets.py).
#
# Under OSS-Fuzz / ClusterFuzzLite the builder image sets $SRC, $OUT, $WORK, $CC, $CFLAGS and
# $SANITIZER, and compile_python_fuzzer packages each target with PyInstaller. Locally (no
# $SANITIZER) the same steps run with clang and the ASan+UBSan flags of fuzz/build.py, and each
# target becomes a launcher in $OUT (default fuzz/build/out) that preloads atheris's runtime, the
# way OSS-Fuzz's launcher preloads sanitizer_with_fuzzer.so:
#     .clusterfuzzlite/build.sh && fuzz/build/out/scan_diff_fastcdc -max_total_time=60
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${OUT:-$ROOT/fuzz/build/out}"
BUILD="${WORK:-$ROOT/fuzz/build}/cflite"
mkdir -p "$OUT"

python3 -m fuzz build --out "$BUILD"

if ! command -v compile_python_fuzzer >/dev/null 2>&1; then
  RUNTIME="$(python3 -c 'from fuzz.build import atheris_runtime; print(atheris_runtime())')"
  compile_python_fuzzer() {    # local stand-in: a launcher instead of a PyInstaller bundle
    local name
    name="$(basename "$1" .py)"
    cat > "$OUT/$name" <<LAUNCHER
#!/bin/sh
# LLVMFuzzerTestOneInput (the marker OSS-Fuzz looks for)
PYTHONPATH="$BUILD:$ROOT" LD_PRELOAD="$RUNTIME" PYTHONMALLOC=malloc \\
ASAN_OPTIONS="\${ASAN_OPTIONS:-}:detect_leaks=0:allocator_may_return_null=1" \\
UBSAN_OPTIONS="\${UBSAN_OPTIONS:-}:halt_on_error=1:print_stacktrace=1" \\
exec python3 "$ROOT/$1" "\$@"
LAUNCHER
    chmod +x "$OUT/$name"
  }
fi

for target in $(python3 -c 'from fuzz.targets import TARGETS; print(" ".join(TARGETS))'); do
  compile_python_fuzzer "fuzz/$target.py" --paths "$BUILD" --paths "$ROOT" \
    --collect-submodules chunkers --collect-submodules fuzz --collect-submodules conformance \
    --collect-submodules vectors --add-data "$ROOT/vectors:vectors"      # vectors_load reads the JSON files
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
