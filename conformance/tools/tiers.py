"""The tier matrix: every chunker family x every kernel of every build target, and
whether this run verified it natively, in an emulator (which one), or not at all.

Sources of rows:

* this host's kernels (``chunkers.kernels()``): the native ones, and the x86-64
  ones this CPU cannot run, emulated in bochscpu (conformance.tools.emulate);
* with ``tiers="all"`` also every bochscpu-capable kernel emulated even where it
  runs natively, and the qemu-user runs (``ci/cross-run aarch64|s390x``): the
  aarch64 kernels, and the portable kernels on big-endian s390x;
* every other known kernel of another target: "not covered", with how to cover it.

Each verified row is the scan-identity check (conformance.run.engine) on the scan
catalogue (conformance.cases.families) against the reference kernel on the same
machine; under qemu also the chunk-level and golden-vector checks listed in
conformance.run.cross.

    python -m conformance.tools.tiers [--tiers native|all] [--strict] [--json FILE]
"""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from chunkers.clihelp import ArgumentParser
import chunkers
from chunkers.registry import NATIVE, NOT_COVERED, PORTABLE, families, rows
from conformance.tools import emulate
from conformance.run.engine import model_mismatches, scan_mismatches
from conformance.cases.families import FAMILIES, scan_families

ALL_KERNELS = {family: {k.name: k.target for k in rows(family)} for family in families()}
"""family -> kernel -> the target it needs (x86-64, aarch64 or PORTABLE), over all build targets: the
rows of each family's kernel list (chunkers/csrc/<family>/kernels.def) as the extensions export them."""

BIG_ENDIAN = "s390x (big-endian)"
CROSS = {"aarch64": "aarch64", "s390x": BIG_ENDIAN}
"""ci/cross-run architectures -> the target label of their rows; the portable kernels are
also checked on the big-endian one."""

REPO = Path(__file__).resolve().parents[2]
TIERS = ("native", "all")
SEED = 1
"""Seed of the scan catalogue (conformance.cases.families) the host rows are checked on."""


class Tier(NamedTuple):
    """One row of the matrix."""

    family: str
    kernel: str
    target: str         # where it was checked: x86-64, aarch64, s390x (big-endian)
    coverage: str       # native, "emulated (<emulator>)" or "not covered"
    result: str         # passed, failed or "not run"
    detail: str = ""    # cases checked, first mismatch, or why not covered


def host_target() -> str:
    """This machine's target label (x86-64, aarch64, ...)."""
    m = platform.machine().lower()
    return {"x86_64": "x86-64", "amd64": "x86-64", "arm64": "aarch64"}.get(m, m)


@functools.cache
def _cases(family: str) -> list:
    return FAMILIES[family].cases(SEED)


def checked(family: str, kernel: str, target: str, coverage: str, run=None) -> Tier:
    """The row of ``kernel`` after its scan-identity check on the catalogue against the
    family's reference kernel, or for the reference itself against the model (``run``: an
    emulated runner, see conformance.tools.emulate.runner; default the native kernel)."""
    if family not in scan_families():
        return Tier(family, kernel, target, coverage, "not run", "no scan catalogue for this family")
    if kernel == FAMILIES[family].reference and run is None:
        bad = model_mismatches(family, _cases(family))      # the reference is checked against the model
    else:
        bad = scan_mismatches(family, kernel, _cases(family), run)
    detail = f"{len(_cases(family))} scan cases" + (f", {len(bad)} differ, first: {bad[0]}" if bad else "")
    return Tier(family, kernel, target, coverage, "failed" if bad else "passed", detail)


def _row(st, coverage: str, run: bool) -> Tier:
    if coverage == NOT_COVERED:
        return Tier(st.family, st.kernel, host_target(), coverage, "not run", st.reason or "")
    if not run:
        return Tier(st.family, st.kernel, host_target(), coverage, "not run")
    emulated = None if coverage == NATIVE else emulate.runner(st.family, st.kernel)
    return checked(st.family, st.kernel, host_target(), coverage, emulated)


def host_rows(tiers: str = "native", run: bool = True) -> list:
    """Rows for this host's kernels, each verified the way ``chunkers.kernels()`` says it can
    be here, plus :func:`emulated_native_rows` for ``tiers="all"``; ``run=False`` reports
    coverage only (result "not run")."""
    rows = [_row(st, st.coverage, run) for st in chunkers.kernels()]
    return rows + (emulated_native_rows(run) if tiers == "all" else [])


def emulated_native_rows(run: bool = True) -> list:
    """The bochscpu rows of the kernels that also run natively here (a check of the emulator
    path on a machine that can cross-check it)."""
    cov = f"emulated ({emulate.EMULATOR})"
    return [_row(st, cov, run) for st in chunkers.kernels()
            if st.coverage == NATIVE and emulate.covers(st.family, st.kernel)]


def script_env() -> dict:
    """The environment of a cross script started from here: PYTHON (its host interpreter) is this
    one unless set, so the script builds with it rather than setting up .venv (ci/setup.sh) anew."""
    return {**os.environ, "PYTHON": os.environ.get("PYTHON") or sys.executable}


def install_cross_packages(arches, repo: Path = REPO) -> None:
    """Install with apt what the qemu routes of ``arches`` need and this machine lacks
    (``ci/packages.sh cross-ARCH``, one line on stderr when it installs), once before the runs
    start, so that line shows now rather than in the logs printed when they end. A failure is
    left to each route's script, which stops with the same one line. ``repo``: the checkout whose
    ci/ holds the scripts (none: nothing to install)."""
    script = repo / "ci" / "packages.sh"
    if script.exists():
        subprocess.run([str(script), *(f"cross-{arch}" for arch in arches)], cwd=repo, stdin=subprocess.DEVNULL)


def run_cross(arches) -> list:
    """Run ``ci/cross-run arch`` for each of ``arches`` at once (each is one single-threaded qemu
    process, so two cores run both in the time of the longer) and turn their reports into rows;
    a failed setup is one failed row. Each run's log is printed whole when it ends."""
    script = REPO / "ci" / "cross-run"
    if not script.exists():
        return [Tier("*", "*", CROSS[a], NOT_COVERED, "not run", f"{script} not found (needs a source checkout)")
                for a in arches]
    install_cross_packages(arches)
    (REPO / "ci" / "cross").mkdir(parents=True, exist_ok=True)
    runs = []
    for arch in arches:
        report, log = (REPO / "ci" / "cross" / f"{name}-{arch}.{ext}" for name, ext in (("report", "json"), ("run", "log")))
        report.unlink(missing_ok=True)
        with open(log, "wb") as out:
            runs.append((arch, report, log, subprocess.Popen([str(script), arch], cwd=REPO, stdout=out,
                                                              stderr=subprocess.STDOUT, env=script_env())))
    rows = []
    for arch, report, log, proc in runs:
        returncode = proc.wait()
        sys.stdout.write(log.read_text(errors="replace"))
        sys.stdout.flush()
        rows += _cross_rows(arch, report, returncode)
    return rows


def _cross_rows(arch: str, report: Path, returncode: int) -> list:
    if not report.exists():
        return [Tier("*", "*", CROSS[arch], f"emulated (qemu-{arch})", "failed",
                     f"ci/cross-run {arch} exited {returncode} before reporting")]
    data = json.loads(report.read_text())
    rows = [Tier(r["family"], r["kernel"], CROSS[arch], r["coverage"], r["result"],
                 f"{r['cases']} scan cases" + (f" ({r['limit_boundary']} at a lane limit)" if r.get("limit_boundary")
                                                else "") + f", {r['chunk_runs']} chunk runs, {r['vectors']} vectors" + (
                     f", {r['mismatch_count']} differ, first: {r['mismatches'][0]}" if r["mismatches"]
                     else f"; {r['detail']}" if r["detail"] else ""))
            for r in data["kernels"]]
    if returncode and not any(r.result == "failed" for r in rows):
        rows.append(Tier("*", "*", CROSS[arch], f"emulated (qemu-{arch})", "failed",
                         f"ci/cross-run {arch} exited {returncode}"))
    return rows


def other_rows(tiers: str = "native", run: bool = True) -> list:
    """Rows of the other targets: the qemu runs (``tiers="all"`` and ``run``), else one
    "not covered" row per kernel of another target and per portable kernel on big-endian."""
    rows = []
    if tiers == "all" and run:
        rows += run_cross(list(CROSS))
    covered = {(r.family, r.kernel, r.target) for r in rows} | {("*", "*", r.target) for r in rows}
    for arch, label in CROSS.items():
        for family, kernel in required(label):
            if label != host_target() and (family, kernel, label) not in covered:
                rows.append(Tier(family, kernel, label, NOT_COVERED, "not run",
                                 f"run ci/cross-{arch} (or --tiers all)"))
    return rows


def required(label: str) -> list:
    """The (family, kernel) tiers the target ``label`` verifies: its own kernels, and on the
    big-endian target also every portable kernel."""
    return [(family, kernel) for family, kernels in ALL_KERNELS.items() for kernel, target in kernels.items()
            if target == label or (target == PORTABLE and label == BIG_ENDIAN)]


def matrix(tiers: str = "native", run: bool = True) -> list:
    """All rows: :func:`host_rows` and :func:`other_rows`."""
    return host_rows(tiers, run) + other_rows(tiers, run)


def extra_rows(tiers: str = "native", run: bool = True) -> list:
    """The rows the main job's own matrix (this host's kernels, conformance.run.job) lacks."""
    return (emulated_native_rows(run) if tiers == "all" else []) + other_rows(tiers, run)


def overlay(rows, results) -> list:
    """``rows`` with each row of ``results`` in place of the row it verified: the same family,
    kernel and target with the same coverage, or one that was not covered (else appended)."""
    out = list(rows)
    for r in results:
        at = [i for i, o in enumerate(out) if (o.family, o.kernel, o.target) == (r.family, r.kernel, r.target)
              and o.coverage in (r.coverage, NOT_COVERED)]
        if at:
            out[at[0]] = r
            out = [o for i, o in enumerate(out) if i not in at[1:]]
        else:
            out.append(r)
    return out


def format_rows(rows) -> str:
    """The matrix as an aligned text table."""
    head = Tier("family", "kernel", "target", "coverage", "result", "detail")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(5)]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r[:5], widths)) + "  " + r.detail[:160]
                     for r in [head, *rows])


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.tools.tiers", description=__doc__.split("\n\n")[0])
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
