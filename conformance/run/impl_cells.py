"""Every chunker x kernel cell of an implementation under test, on every target, and how this run
covered it: native (this host), emulated (qemu-user, by ci/borg-cross.sh) or not covered, why.

The main job's matrix under ``--impl`` has one cell per family x kernel of this host; an AES
cell runs all three AES chunkers. This view splits it per chunker (spec 01 §2: fastcdc,
buzhash64, rabin-aes, goldilocks-aes, toeplitz-aes, legacy buzhash, fixed) and adds the kernels
of the other targets: for borg 2.0.0b25 that is 24 cells (fastcdc and buzhash64: avx512, avx2,
neon, blockwise, scalar; each AES chunker: vaes, aes-ni, aes-arm64, evp; buzhash; fixed), and
the portable ones again on big-endian s390x (extra rows, outside the count).

``--tiers all`` with ``--impl borg`` runs ``ci/borg-cross.sh aarch64`` and ``... s390x`` (borg
cross-built, checked under qemu by conformance.run.cross) alongside the host run; :func:`start_cross`
and :func:`finish_cross`. A route that cannot be set up (exit 2) ends the job with its one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import NamedTuple

from chunkers.registry import NATIVE, NOT_COVERED, SINGLE
from conformance.cases.families import FAMILIES
from conformance.tools.tiers import (ALL_KERNELS, BIG_ENDIAN, PORTABLE, REPO, host_target, install_cross_packages,
                                     script_env)

CROSS_ARCHES = ("aarch64", "s390x")
SCRIPT = REPO / "ci" / "borg-cross.sh"
SETUP_FAILED = 2
"""ci/borg-cross.sh's exit status when borg cannot be cross-built or run there."""


class CellRow(NamedTuple):
    """One chunker x kernel cell of the implementation on one target."""

    chunker: str
    kernel: str
    target: str         # x86-64, aarch64, portable kernels: the host's or "s390x (big-endian)"
    coverage: str       # native, "emulated (qemu-ARCH)" or "not covered"
    result: str         # passed, failed or "not run"
    detail: str = ""


def known_kernels(impl, family: str) -> list[str]:
    """The kernel names ``impl`` has for ``family`` on any target: those it lists here and, for an
    adapter with ``KERNEL_NAMES`` (impls.Borg), those of its other builds."""
    inner = getattr(impl, "inner", impl)            # audit.Counting
    names = [k for k, _ in impl.kernels(family)]
    return names + [k for k in getattr(inner, "KERNEL_NAMES", {}).get(family, ()) if k not in names]


def _target(family: str, kernel: str) -> str:
    return ALL_KERNELS.get(family, {}).get(kernel, PORTABLE if kernel == SINGLE else "?")


def _verdict(chunker: str, family: str, status: str, mismatches) -> str:
    """A family cell's result for one of its chunkers: an AES cell failed for the chunkers its
    mismatches name (each names its params or vector), passed for the others."""
    if status != "failed" or len(FAMILIES[family].chunkers) == 1:
        return status
    texts = [str(m) for m in mismatches]
    named = [c for c in FAMILIES[family].chunkers if any(c in t for t in texts)]
    return "failed" if chunker in named or not named else "passed"


def rows(impl, host_cells, reports: dict | None = None, cross_note: str = "") -> list[CellRow]:
    """Every cell of ``impl``: ``host_cells`` (conformance.run.job.Cell of this run), ``reports``
    (arch -> the JSON report of ci/borg-cross.sh ARCH, or a failure text); ``cross_note``:
    why a target without a report was not run."""
    reports = reports or {}
    host = {(c.family, c.kernel): c for c in host_cells}
    here = host_target()
    out = []
    for family, fam in FAMILIES.items():
        kernels = known_kernels(impl, family)
        for chunker in fam.chunkers:
            for kernel in kernels:
                target = _target(family, kernel)
                cell = host.get((family, kernel))
                ran_here = cell is not None and cell.status in ("passed", "failed")
                label = here if target == PORTABLE else target
                if ran_here:
                    out.append(CellRow(chunker, kernel, label, NATIVE,
                                       _verdict(chunker, family, cell.status, cell.mismatches),
                                       f"{cell.chunk_runs} chunk runs, {cell.vectors} vectors"))
                    continue
                emulated = [_cross_row(chunker, family, kernel, arch, reports[arch]) for arch in CROSS_ARCHES
                            if arch == target and arch in reports]
                if emulated:
                    out.append(emulated[0])
                    continue
                if target in CROSS_ARCHES and target != here:
                    why = f"{target} kernel: {cross_note or f'run ci/borg-cross.sh {target} (or --tiers all)'}"
                else:
                    why = cell.reason if cell is not None and cell.reason else "not run"
                out.append(CellRow(chunker, kernel, label, NOT_COVERED, "not run", why))
    for family, fam in FAMILIES.items():           # the portable kernels again on big-endian
        for kernel in known_kernels(impl, family):
            if _target(family, kernel) != PORTABLE:
                continue
            for chunker in fam.chunkers:
                if "s390x" in reports:
                    out.append(_cross_row(chunker, family, kernel, "s390x", reports["s390x"], BIG_ENDIAN))
                else:
                    out.append(CellRow(chunker, kernel, BIG_ENDIAN, NOT_COVERED, "not run",
                                       cross_note or "run ci/borg-cross.sh s390x (or --tiers all)"))
    return out


def _cross_row(chunker: str, family: str, kernel: str, arch: str, report, target: str | None = None) -> CellRow:
    target = target or arch
    coverage = f"emulated (qemu-{arch})"
    if isinstance(report, str):
        return CellRow(chunker, kernel, target, coverage, "failed", report)
    for r in report.get("kernels", ()):
        if (r["family"], r["kernel"]) == (family, kernel):
            if r["result"] not in ("passed", "failed"):
                return CellRow(chunker, kernel, target, NOT_COVERED, "not run", r.get("detail") or r["result"])
            return CellRow(chunker, kernel, target, coverage,
                           _verdict(chunker, family, r["result"], r.get("mismatches", ())),
                           f"{r.get('chunk_runs', 0)} chunk runs, {r.get('vectors', 0)} vectors")
    return CellRow(chunker, kernel, target, NOT_COVERED, "not run", f"not listed by {arch}'s run of it")


def main_rows(cells: list[CellRow]) -> list[CellRow]:
    """The chunker x kernel cells (one per pair; the big-endian repeats left out)."""
    return [c for c in cells if c.target != BIG_ENDIAN]


def summary(name: str, cells: list[CellRow]) -> str:
    """One line: how many of the implementation's cells were covered, and how."""
    main = main_rows(cells)
    covered = [c for c in main if c.coverage != NOT_COVERED]
    ways = {}
    for c in covered:
        ways[c.coverage] = ways.get(c.coverage, 0) + 1
    failed = sum(c.result == "failed" for c in cells)
    be = [c for c in cells if c.target == BIG_ENDIAN]
    be_run = [c for c in be if c.coverage != NOT_COVERED]
    missing = [f"{c.chunker}/{c.kernel}" for c in main if c.coverage == NOT_COVERED]
    return (f"{name}: {len(covered)}/{len(main)} chunker x kernel cells covered ("
            + ", ".join(f"{n} {w}" for w, n in ways.items()) + f"), {failed} failed; "
            f"big-endian: {len(be_run)}/{len(be)} portable cells run"
            + (f"; not covered: {', '.join(missing)}" if missing else ""))


def format_rows(cells: list[CellRow]) -> str:
    """The cells as an aligned text table."""
    head = CellRow("chunker", "kernel", "target", "coverage", "result", "detail")
    widths = [max(len(str(r[i])) for r in [head, *cells]) for i in range(5)]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r[:5], widths)) + "  " + r.detail[:120]
                     for r in [head, *cells])


def cross_available(impl_name: str) -> str | None:
    """None if ``--tiers all`` can run ``impl_name`` under qemu, else why not (one line)."""
    if impl_name != "borg":
        return f"--tiers all with --impl runs borg under qemu (ci/borg-cross.sh); {impl_name} has no such route"
    if not SCRIPT.exists():
        return f"{SCRIPT} not found (needs a source checkout)"
    return None


def start_cross(arches=CROSS_ARCHES) -> list:
    """Start ``ci/borg-cross.sh ARCH`` for each arch at once (one qemu process each); returns the
    runs for :func:`finish_cross`. Each run's output goes to ci/cross/borg-run-ARCH.log."""
    install_cross_packages(arches, REPO)
    out_dir = REPO / "ci" / "cross"
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = []
    for arch in arches:
        report, log = out_dir / f"borg-report-{arch}.json", out_dir / f"borg-run-{arch}.log"
        report.unlink(missing_ok=True)      # a report of an earlier run is never taken for this one's
        with open(log, "wb") as f:
            proc = subprocess.Popen([str(SCRIPT), arch], cwd=REPO, stdout=f, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=script_env())
        runs.append((arch, report, log, proc))
    return runs


def finish_cross(runs) -> tuple[dict, list[str]]:
    """Wait for the runs; ``(reports, errors)``: arch -> report (or a failure text), and the one
    line of each route that could not be set up (exit 2). Each log is printed whole."""
    reports, errors = {}, []
    for arch, report, log, proc in runs:
        rc = proc.wait()
        text = log.read_text(errors="replace")
        sys.stdout.write(text)
        sys.stdout.flush()
        last = next((line for line in reversed(text.splitlines()) if line.strip()), f"exit {rc}")
        if rc == SETUP_FAILED:
            errors.append(f"ci/borg-cross.sh {arch}: {last}")
        elif report.exists():
            reports[arch] = json.loads(report.read_text())
            if rc and not any(r["result"] == "failed" for r in reports[arch].get("kernels", ())):
                reports[arch] = f"ci/borg-cross.sh {arch} exited {rc}: {last}"
        else:
            reports[arch] = f"ci/borg-cross.sh {arch} exited {rc} before reporting: {last}"
    return reports, errors


def terminate(runs) -> None:
    """Stop runs still going (the job was interrupted)."""
    for _arch, _report, _log, proc in runs:
        if proc.poll() is None:
            proc.terminate()
            proc.wait()
