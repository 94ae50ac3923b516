"""The conformance checks on this interpreter's own architecture, for runs under qemu-user.

``ci/cross-run ARCH`` builds the extensions for aarch64 or s390x and runs
``python -m conformance.run.cross`` under qemu. On the emulated CPU this runs the
main job's matrix (conformance.run.job) for every kernel that runs there: the scan
catalogue against the reference kernel and the reference against the model,
whole-stream chunking of a reduced corpus (CORPUS) against the reference
kernel and the model, and every golden vector (vectors/, the same check as
the suite's test_vectors.py::test_vectors). The report lists, per kernel, the
limit-boundary cases among its scan cases (conformance.cases.fastcdc_limits: each lane
comparison of fastcdc neon at its limit). On big-endian s390x this is what
shows that no table, driver, lane extraction or AES block layout (evp: the
LE64 digest in, the LE64 cut value out, spec 06 §3-4) depends on host byte
order. Writes a JSON report; exit status 1 on any difference.

With ``--impl NAME`` (as ``python -m conformance --impl``: ``borg``, ``model`` or
``module:attribute``) the cells are that implementation's kernels that run on
this CPU, checked at chunk level against our chunkers (built for this
architecture) and against the golden vectors; it has no scan API, so there is
no scan catalogue, and every cell must make calls that reach it
(conformance.run.audit). ``ci/borg-cross.sh ARCH`` runs it on borg 2.0.0b25
cross-built for aarch64 or s390x. Exit status 2 with one line when the
implementation cannot be loaded here.

    python -m conformance.run.cross --emulator qemu-s390x --report ci/cross/report-s390x.json
                                [--impl NAME] [--quick] [--family F ...] [--fail-fast]
"""

from __future__ import annotations

import json
import platform
import sys

from chunkers.clihelp import ArgumentParser
from conformance.run import audit, engine, job
from vectors import impls
from conformance.cases import fastcdc_limits as limits
from conformance.cases.families import FAMILIES

SEED = 1
CORPUS = (1 << 16, ("lcg", "sha-ctr"))
"""Bytes per input and catalogue patterns of the chunk-level corpus: the model is slow under qemu."""


def _kernel_rows(coverage: str, quick: bool = False, families=None, fail_fast: bool = False) -> list:
    name = engine.implementation().name
    rows = []
    for cell in job.matrix(SEED, CORPUS[0], [], families=families, patterns=CORPUS[1], classes_everywhere=not quick,
                           fail_fast=fail_fast):
        rows.append(dict(family=cell.family, kernel=cell.kernel, implementation=name, result=cell.status,
                         detail=cell.reason, coverage=coverage if cell.status != "skipped" else "not covered",
                         cases=cell.scan_cases, chunk_runs=cell.chunk_runs, vectors=cell.vectors,
                         ran=cell.ran, levels=cell.levels, mismatch_count=len(cell.mismatches),
                         mismatches=[str(m) for m in cell.mismatches[:5]]))
    return rows


BOUNDARY = "limit-boundary"
"""Group prefix of the cases that put each limit-comparing lane at its limit (conformance.cases.fastcdc_limits)."""


def boundary_cases(families=None) -> dict[str, list[str]]:
    """family -> the group of each limit-boundary case of its scan catalogue (seed SEED, the one
    the matrix runs on every kernel; conformance.cases.fastcdc_limits, part of the fastcdc catalogue)."""
    return {limits.FAMILY: [c.group for c in limits.cases(SEED)]} if limits.FAMILY in (families or FAMILIES) else {}


def _boundary_lines(rows: list, boundary: dict) -> list[str]:
    """What the report lists: per kernel that ran its family's scan catalogue, the limit-boundary
    cases among them (one line per block and relation: the lanes covered)."""
    lines = []
    for row in rows:
        groups = boundary.get(row["family"])
        if not groups or not row["cases"]:
            continue
        by = {}
        for g in groups:
            _prefix, where, lane, relation = g.split("/")
            by.setdefault((where, relation), []).append(int(lane[4:]))
        lines.append(f"{row['kernel']:10} {row['family']:10} {row['result']:7} {len(groups)} {BOUNDARY} cases of its "
                     f"{row['cases']} scan cases: " + "; ".join(
                         f"{where} block {relation} lanes {','.join(map(str, sorted(set(lanes))))} ({len(lanes)})"
                         for (where, relation), lanes in sorted(by.items())))
    return lines


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.run.cross", description=__doc__.split("\n\n")[0])
    ap.add_argument("--emulator", default="native", help="how this interpreter runs, for the report (qemu-aarch64 ...)")
    ap.add_argument("--report", help="write the JSON report here")
    ap.add_argument("--quick", action="store_true",
                    help="the input-class cases (all-zero offsets, nc levels: driver paths) on each family's "
                         "reference kernel only; every kernel still runs the scan catalogue, the corpus and "
                         "the vectors (CI: about half the qemu time)")
    ap.add_argument("--family", action="append", choices=list(FAMILIES), help="only this family (repeatable)")
    ap.add_argument("-x", "--fail-fast", action="store_true",
                    help="stop at the first failed family x kernel cell (conformance.tools.mutants: minutes per fault "
                         "under qemu instead of a quarter of an hour)")
    ap.add_argument("--impl", default="ours",
                    help="the implementation whose kernels are checked (as python -m conformance --impl: ours, "
                         "borg, model or module:attribute; default ours); not ours: chunk level and vectors only")
    args = ap.parse_args(argv)
    try:
        impl = impls.load(args.impl)
    except impls.LoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if impl.name != "ours":             # count the calls that reach it: every cell must make some
        impl = audit.Counting(impl)
    coverage = "native" if args.emulator == "native" else f"emulated ({args.emulator})"
    previous = engine.implementation()
    engine.set_implementation(impl)
    try:
        rows = _kernel_rows(coverage, args.quick, args.family, args.fail_fast)
    finally:
        engine.set_implementation(previous)
    report = dict(implementation=impl.name, machine=platform.machine(), byteorder=sys.byteorder,
                  emulator=args.emulator, kernels=rows)
    if impl.name == "ours":                 # the limit-boundary cases every kernel ran (issue 35)
        boundary = boundary_cases(args.family)
        report[BOUNDARY] = _boundary_lines(rows, boundary)
        for row in rows:
            row["limit_boundary"] = len(boundary.get(row["family"], [])) if row["cases"] else 0
    if isinstance(impl, audit.Counting):
        report["calls"] = impl.calls
        report["kernel_differences"] = [{"family": f, "only_impl": a, "only_ours": b}
                                        for f, a, b in audit.kernel_differences(impl, args.family)]
    for row in report["kernels"]:
        scan = f"{row['cases']} scan cases" if impl.name == "ours" else "no scan API"
        print(f"{impl.name:5} {row['family']:10} {row['kernel']:10} {row['coverage']:24} {row['result']:7} "
              f"{scan}, {row['chunk_runs']} chunk runs, {row['vectors']} vectors {row['detail']}"
              + "".join(f"\n    {m}" for m in row["mismatches"][:1]))
    for line in report.get(BOUNDARY, []):
        print(f"{BOUNDARY}: {line}")
    if isinstance(impl, audit.Counting):
        print(f"{len(rows)} family x kernel cells of {impl.name} on {platform.machine()} ({sys.byteorder}-endian), "
              f"{impl.calls} calls reached it")
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    failed = any(r["result"] == "failed" for r in report["kernels"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
