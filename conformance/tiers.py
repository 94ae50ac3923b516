"""The tier matrix: every chunker family x every kernel of every build target, and
whether this run verified it natively, in an emulator (which one), or not at all.

Sources of rows:

* this host's kernels (``chunkers.kernels()``): the native ones, and the x86-64
  ones this CPU cannot run, emulated in bochscpu (conformance.emulate);
* with ``tiers="all"`` also every bochscpu-capable kernel emulated even where it
  runs natively, and the qemu-user runs (``ci/cross-run aarch64|s390x``): the
  aarch64 kernels, and the portable kernels on big-endian s390x;
* every other known kernel of another target: "not covered", with how to cover it.

Each verified row is the identity check of conformance.identity against the
scalar kernel on the same machine (plus, under qemu, the checks listed in
conformance.cross).

    python -m conformance.tiers [--tiers native|all] [--strict] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import chunkers
from chunkers.kernels import NATIVE, NOT_COVERED
from conformance import emulate, identity

PORTABLE = "portable"
ALL_KERNELS = {
    "fastcdc": {"avx512": "x86-64", "avx2": "x86-64", "neon": "aarch64", "blockwise": PORTABLE, "scalar": PORTABLE},
    "buzhash64": {"avx512": "x86-64", "avx2": "x86-64", "neon": "aarch64", "blockwise": PORTABLE,
                  "scalar": PORTABLE},
}
"""family -> kernel -> the target it needs (spec 01 §11.2), over all build targets."""

CROSS = {"aarch64": "aarch64", "s390x": "s390x (big-endian)"}
"""ci/cross-run architectures -> the target label of their rows."""

REPO = Path(__file__).resolve().parents[1]
TIERS = ("native", "all")


class Tier(NamedTuple):
    """One row of the matrix."""

    family: str
    kernel: str
    target: str         # where it was checked: x86-64, aarch64, s390x (big-endian)
    coverage: str       # native, "emulated (<emulator>)" or "not covered"
    result: str         # passed, failed or "not run"
    detail: str = ""    # cases checked, first mismatch, or why not covered


def host_target() -> str:
    m = platform.machine().lower()
    return {"x86_64": "x86-64", "amd64": "x86-64", "arm64": "aarch64"}.get(m, m)


def _checked(family, kernel, target, coverage, runner) -> Tier:
    rep = identity.check(family, kernel, runner)
    detail = f"{rep.cases} cases" + (f", {len(rep.mismatches)} differ: {rep.mismatches[0]}" if rep.mismatches else "")
    return Tier(family, kernel, target, coverage, "failed" if rep.mismatches else "passed", detail)


def host_rows(tiers: str = "native", run: bool = True) -> list:
    """Rows for this host's kernels; ``run=False`` reports coverage only (result "not run")."""
    target, rows = host_target(), []
    for st in chunkers.kernels():
        modes = [st.coverage]
        if tiers == "all" and st.coverage == NATIVE and emulate.covers(st.family, st.kernel):
            modes.append(f"emulated ({emulate.EMULATOR})")
        for cov in modes:
            if cov == NOT_COVERED:
                rows.append(Tier(st.family, st.kernel, target, cov, "not run", st.reason or ""))
            elif not run:
                rows.append(Tier(st.family, st.kernel, target, cov, "not run"))
            else:
                runner = identity.native(st.family, st.kernel) if cov == NATIVE else emulate.scan(st.family, st.kernel)
                rows.append(_checked(st.family, st.kernel, target, cov, runner))
    return rows


def run_cross(arch: str) -> list:
    """Run ``ci/cross-run arch`` and turn its report into rows; a failed setup is one failed row."""
    script, report = REPO / "ci" / "cross-run", REPO / "ci" / "cross" / f"report-{arch}.json"
    if not script.exists():
        return [Tier("*", "*", CROSS[arch], NOT_COVERED, "not run", f"{script} not found (needs a source checkout)")]
    report.unlink(missing_ok=True)
    proc = subprocess.run([str(script), arch], cwd=REPO)
    if not report.exists():
        return [Tier("*", "*", CROSS[arch], f"emulated (qemu-{arch})", "failed",
                     f"ci/cross-run {arch} exited {proc.returncode} before reporting")]
    data = json.loads(report.read_text())
    rows = [Tier(r["family"], r["kernel"], CROSS[arch], r["coverage"] if r["coverage"] == NOT_COVERED
                 else f"emulated (qemu-{arch})", r["result"],
                 f"{r.get('cases', 0)} cases" + (f", {r['mismatch_count']} differ: {r['mismatches'][0]}"
                                                  if r.get("mismatches") else ""))
            for r in data["kernels"]]
    bad = [r["check"] for r in data["model"] if r["result"] != "passed"]
    rows.append(Tier("*", "tables+driver", CROSS[arch], f"emulated (qemu-{arch})", "failed" if bad else "passed",
                     f"{len(data['model'])} checks against the model" + (f"; failed: {bad[0]}" if bad else "")))
    if data["pytest"]["result"] != "skipped":
        rows.append(Tier("*", "suite tests", CROSS[arch], f"emulated (qemu-{arch})", data["pytest"]["result"],
                         " ".join(data["pytest"].get("files", []))))
    return rows


def matrix(tiers: str = "native", run: bool = True) -> list:
    """All rows: this host, the qemu runs (``tiers="all"`` and ``run``), and what stays uncovered."""
    rows = host_rows(tiers, run)
    if tiers == "all" and run:
        for arch in CROSS:
            rows += run_cross(arch)
    covered = {(r.family, r.kernel, r.target) for r in rows} | {("*", "*", r.target) for r in rows}
    for family, kernels in ALL_KERNELS.items():
        for kernel, target in kernels.items():
            wanted = [t for t in CROSS.values() if target == PORTABLE and "big-endian" in t or t == target]
            for t in wanted:
                if t != host_target() and (family, kernel, t) not in covered:
                    arch = next(a for a, label in CROSS.items() if label == t)
                    rows.append(Tier(family, kernel, t, NOT_COVERED, "not run",
                                     f"run ci/cross-{arch} (or --tiers all)"))
    return rows


def overlay(rows, results) -> list:
    """``rows`` with each row of ``results`` put in place of the row it verified: the same
    family, kernel and target with the same coverage, or one that was not covered."""
    out = list(rows)
    for r in results:
        out = [o for o in out if not ((o.family, o.kernel, o.target) == (r.family, r.kernel, r.target)
                                      and o.coverage in (r.coverage, NOT_COVERED))]
        out.append(r)
    return out


def format_rows(rows) -> str:
    """The matrix as an aligned text table."""
    head = Tier("family", "kernel", "target", "coverage", "result", "detail")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(5)]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r[:5], widths)) + "  " + r.detail[:160]
                     for r in [head, *rows])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m conformance.tiers", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiers", choices=TIERS, default="native",
                    help="native: this host, emulating only what it cannot run; all: also every emulator "
                         "route (bochscpu for native kernels too, qemu-user aarch64 and s390x)")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any tier is not covered")
    ap.add_argument("--json", help="write the rows as JSON here")
    args = ap.parse_args(argv)
    rows = matrix(args.tiers)
    print(format_rows(rows))
    if args.json:
        Path(args.json).write_text(json.dumps([r._asdict() for r in rows], indent=1))
    failed = any(r.result == "failed" for r in rows)
    uncovered = args.strict and any(r.coverage == NOT_COVERED for r in rows)
    return 1 if failed or uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
