"""Line and branch coverage of the C kernels reached by a target's corpus (clang source-based coverage).

``python -m fuzz coverage TARGET`` replays the target's seeds, local corpus
(fuzz/corpus/TARGET) and regressions through the ``coverage`` build
(fuzz/build.py) and reports, per kernel source file, the lines and branches
executed, from ``llvm-cov export -summary-only``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from fuzz import build as fbuild
from fuzz.campaign import ARTIFACT_ROOT

CSRC = fbuild.ROOT / "chunkers" / "csrc"


def kernel_sources(family: str) -> list[Path]:
    """The C sources of a family's kernels and registry, its header (with the
    inline reference loop) and the shared driver."""
    d = CSRC / family
    return sorted(d.glob("*.c")) + sorted(d.glob("*.h")) + [CSRC / "driver.c"]


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
    if not (variant_dir / "BUILD_INFO.json").exists():
        fbuild.build("coverage", variant_dir)
    prof = ARTIFACT_ROOT / target / "profile"
    shutil.rmtree(prof, ignore_errors=True)
    prof.mkdir(parents=True)
    env = dict(fbuild.run_env(variant_dir, preload=False), LLVM_PROFILE_FILE=str(prof / "%p-%m.profraw"))
    subprocess.run([sys.executable, "-m", "fuzz", "replay", target, "--corpus", "--keep-going"],
                   cwd=fbuild.ROOT, env=env, check=False)
    merged = prof / "merged.profdata"
    subprocess.run([_tool("llvm-profdata"), "merge", "-sparse", *map(str, prof.glob("*.profraw")),
                    "-o", str(merged)], check=True)
    return merged


def report(target: str, family: str, variant_dir: Path | None = None) -> dict:
    """``{file: {"lines": [covered, count], "branches": [covered, count]}}`` for the family's
    kernel sources after replaying ``target``'s inputs, plus a ``"TOTAL"`` entry."""
    variant_dir = Path(variant_dir or fbuild.build_dir("coverage"))
    merged = collect(target, variant_dir)
    objects = sorted((variant_dir / "chunkers").glob("*.so"))
    args = [_tool("llvm-cov"), "export", "-summary-only", f"-instr-profile={merged}", str(objects[0])]
    args += [f"-object={o}" for o in objects[1:]] + [str(s) for s in kernel_sources(family)]
    data = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    out = {}
    for f in data["data"][0]["files"]:
        s = f["summary"]
        out[str(Path(f["filename"]).relative_to(fbuild.ROOT))] = {
            k: [s[k]["covered"], s[k]["count"]] for k in ("lines", "branches")}
    out["TOTAL"] = {k: [sum(v[k][i] for v in out.values()) for i in (0, 1)] for k in ("lines", "branches")}
    return out


def text(rep: dict) -> str:
    """The report as an aligned table with percentages."""
    def pct(c, n):
        return f"{c:>5}/{n:<5} {100 * c / n:5.1f}%" if n else f"{c:>5}/{n:<5}   n/a "
    rows = [f"{'file':<40} {'lines':>19}  {'branches':>19}"]
    rows += [f"{name:<40} {pct(*v['lines'])}  {pct(*v['branches'])}" for name, v in rep.items()]
    return "\n".join(rows)
