"""Line and branch coverage of the C kernels reached by a target's corpus (clang source-based coverage).

``python -m fuzz coverage TARGET`` replays the target's seeds, local corpus
(fuzz/corpus/TARGET) and regressions through the ``coverage`` build
(fuzz/build.py) and reports, per kernel source file, the lines and branches
executed, from ``llvm-cov export -summary-only``.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from fuzz import build as fbuild
from fuzz.campaign import ARTIFACT_ROOT

CSRC = fbuild.ROOT / "chunkers" / "csrc"


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path: Path, seen: set) -> None:
    """Add ``path`` and every header it includes with quotes, transitively, to ``seen``."""
    if path in seen or not path.is_file():
        return
    seen.add(path)
    for name in _INCLUDE.findall(path.read_text(errors="replace")):
        includes((path.parent / name).resolve(), seen)


def sources(families) -> list[Path]:
    """The C sources and headers of the families (kernel tiers, registry, hooks, table), the shared
    headers they include (seg_roll.h) and the shared driver."""
    seen: set = set()
    for f in [f for fam in families for f in sorted((CSRC / fam).glob("*.[ch]"))] + [CSRC / "driver.c"]:
        includes(f.resolve(), seen)
    return sorted(p for p in seen if p.suffix in (".c", ".h"))


@functools.cache
def _kernel_sources() -> frozenset:
    """The kernels' C files, from every family's kernel list, and the headers they include (a
    header's inline reference loop, seg_roll.h), relative to the repository."""
    from chunkers.registry import families, rows
    seen: set = set()
    for family in families():
        for k in rows(family):
            if k.source:
                includes((CSRC / k.source).resolve(), seen)
    return frozenset(str(p.relative_to(fbuild.ROOT)) for p in seen)


def _is_kernel(path: str) -> bool:
    return path in _kernel_sources()


def _tool(name: str) -> str:
    out = subprocess.run(["clang", "--version"], capture_output=True, text=True).stdout
    major = re.search(r"version (\d+)", out)
    for cand in ([f"{name}-{major.group(1)}"] if major else []) + [name]:
        if shutil.which(cand):
            return cand
    raise FileNotFoundError(f"{name} not found (apt-get install llvm)")


def collect(target: str, variant_dir: Path | None = None) -> Path:
    """Replay the target's inputs under the coverage build; returns the merged .profdata."""
    variant_dir = Path(variant_dir or fbuild.build_dir("coverage"))
    if fbuild.stale(variant_dir):
        fbuild.build("coverage", variant_dir)
    prof = ARTIFACT_ROOT / target / "profile"
    shutil.rmtree(prof, ignore_errors=True)
    prof.mkdir(parents=True)
    env = dict(fbuild.run_env(variant_dir), LLVM_PROFILE_FILE=str(prof / "%p-%m.profraw"))
    # -P: the repo root (cwd) must not shadow the coverage build's chunkers on sys.path
    subprocess.run([sys.executable, "-P", "-m", "fuzz", "replay", target, "--corpus", "--keep-going"],
                   cwd=fbuild.ROOT, env=env, check=False)
    return merge(prof)


def merge(prof: Path) -> Path:
    """The .profraw files in ``prof`` merged into ``prof``/merged.profdata (returned)."""
    merged = prof / "merged.profdata"
    subprocess.run([_tool("llvm-profdata"), "merge", "-sparse", *map(str, prof.glob("*.profraw")),
                    "-o", str(merged)], check=True)
    return merged


def _export(merged: Path, variant_dir: Path, files, *extra: str) -> dict:
    """``llvm-cov export`` (JSON) of every extension of the build in ``variant_dir`` for ``files``."""
    objects = sorted((Path(variant_dir) / "chunkers").glob("*.so"))
    args = [_tool("llvm-cov"), "export", *extra, f"-instr-profile={merged}", str(objects[0])]
    args += [f"-object={o}" for o in objects[1:]] + [str(s) for s in files]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def branches(merged: Path, variant_dir: Path, files) -> dict:
    """``{path: [(line, column, taken, not_taken), ...]}`` (repository-relative paths, sorted by
    line): each branch of ``files`` once, its counts summed over the copies of an inline function
    that several extensions compile (a header's). A branch inside a macro's expansion is one per
    expansion site and placed at the site's line and column."""
    out, wanted = {}, {str(Path(f).resolve()) for f in files}
    for f in _export(merged, variant_dir, files)["data"][0]["files"]:
        if f["filename"] not in wanted:     # llvm-cov exports every file when none matches (another tree's build)
            continue
        counts: dict = {}
        sites = [((b[0], b[1]), b) for b in f.get("branches", [])]
        sites += [((e["source_region"][0], e["source_region"][1], b[0], b[1]), b)
                  for e in f.get("expansions", []) for b in e["branches"]]
        for key, b in sites:
            t, n = counts.get(key, (0, 0))
            counts[key] = (t + b[4], n + b[5])
        out[str(Path(f["filename"]).relative_to(fbuild.ROOT))] = sorted(
            (key[0], key[1], t, n) for key, (t, n) in counts.items())
    return out


def report(target: str, families, variant_dir: Path | None = None) -> dict:
    """``{file: {"lines": [covered, count], "branches": [covered, count]}}`` for
    the families' sources after replaying ``target``'s inputs, plus the totals
    ``"kernels"`` (tier files and the header) and ``"all"``."""
    variant_dir = Path(variant_dir or fbuild.build_dir("coverage"))
    data = _export(collect(target, variant_dir), variant_dir, sources(families), "-summary-only")
    out = {}
    for f in data["data"][0]["files"]:
        s = f["summary"]
        out[str(Path(f["filename"]).relative_to(fbuild.ROOT))] = {
            k: [s[k]["covered"], s[k]["count"]] for k in ("lines", "branches")}

    def total(names):
        return {k: [sum(out[n][k][i] for n in names) for i in (0, 1)] for k in ("lines", "branches")}

    files = list(out)
    out["kernels"] = total([n for n in files if _is_kernel(n)])
    out["all"] = total(files)
    return out


def text(rep: dict) -> str:
    """The report as an aligned table with percentages."""
    def pct(c, n):
        return f"{c:>5}/{n:<5} {100 * c / n:5.1f}%" if n else f"{c:>5}/{n:<5}   n/a "
    rows = [f"{'file':<40} {'lines':>19}  {'branches':>19}"]
    rows += [f"{name:<40} {pct(*v['lines'])}  {pct(*v['branches'])}" for name, v in rep.items()]
    return "\n".join(rows)
