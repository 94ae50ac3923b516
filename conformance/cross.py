"""Kernel checks on this interpreter's own architecture, for runs under qemu-user.

``ci/cross-run ARCH`` builds the extensions for aarch64 or s390x and runs
``python -m conformance.cross`` under qemu. On the emulated CPU this checks

1. every kernel that runs there against the scalar kernel (conformance.identity),
2. the keyed tables and whole-stream chunk sizes of every kernel against the
   pure-Python model (on big-endian s390x this is what shows that no table,
   driver or lane extraction depends on host byte order),
3. the suite's own scan-identity and golden-vector tests, where present,

and writes a JSON report. Exit status 1 on any difference.

    python -m conformance.cross --emulator qemu-s390x --report ci/cross/report-s390x.json
"""

from __future__ import annotations

import argparse
import glob
import json
import platform
import sys
import time

import chunkers
from chunkers import buzhash64, fastcdc
from conformance import identity, inputs, model

SUITE_TESTS = ("conformance/tests/test_scan_identity.py", "conformance/tests/test_golden*.py",
               "conformance/tests/test_vectors*.py")
"""The suite's test files that run under qemu too (those that exist)."""

CHUNK_PARAMS = (
    ("fastcdc", 6, 12, 8, 0), ("fastcdc", 6, 12, 8, 2), ("fastcdc", 10, 16, 14, 2),
    ("buzhash64", 6, 12, 8, 64, 0), ("buzhash64", 6, 12, 8, 63, 2), ("buzhash64", 6, 12, 8, 4000, 0),
)
"""Parameter tuples of spec 05 §5 checked end to end against the model."""

TABLES = {"fastcdc": (fastcdc.gear_table, model.fastcdc.gear_table),
          "buzhash64": (buzhash64.table, model.buzhash64.table)}


def _kernel_rows(coverage: str) -> list:
    rows = []
    for status in chunkers.kernels():
        if not status.runs:
            rows.append(dict(family=status.family, kernel=status.kernel, coverage="not covered",
                             result="skipped", detail=status.reason))
            continue
        t = time.monotonic()
        rep = identity.check(status.family, status.kernel, identity.native(status.family, status.kernel))
        rows.append(dict(family=status.family, kernel=status.kernel, coverage=coverage,
                         result="failed" if rep.mismatches else "passed", cases=rep.cases,
                         mismatch_count=len(rep.mismatches), mismatches=rep.mismatches[:20], seconds=round(time.monotonic() - t, 1)))
    return rows


def _model_rows() -> list:
    rows = []
    for family, (ours, theirs) in TABLES.items():
        for key in identity.KEYS:
            same = ours(key) == theirs(key)
            rows.append(dict(check=f"{family} table, key {key[:2].hex()}..", result="passed" if same else "failed"))
    data = {"SHA-CTR(64KiB)": inputs.sha_ctr(1 << 16), "LCG(64KiB)": inputs.lcg(1 << 16)}
    for params in CHUNK_PARAMS:
        for key in identity.KEYS:
            for name, blob in data.items():
                want = model.chunk_sizes(params, blob, key=key)
                for status in chunkers.kernels():
                    if status.family == params[0] and status.runs:
                        got = chunkers.chunk_sizes(params, blob, key=key, kernel=status.kernel)
                        rows.append(dict(check=f"{params} {status.kernel} key {key[:2].hex()}.. {name}",
                                         result="passed" if got == want else "failed",
                                         chunks=len(want)))
    return rows


def _pytest() -> dict:
    files = sorted(f for pattern in SUITE_TESTS for f in glob.glob(pattern))
    if not files:
        return dict(result="skipped", detail="none of the suite's scan-identity / golden-vector tests exist yet")
    import pytest
    rc = pytest.main(["-q", "-p", "no:cacheprovider", *files])
    return dict(result="passed" if rc == 0 else "failed", files=files, exit_status=int(rc))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m conformance.cross", description=__doc__.split("\n\n")[0])
    ap.add_argument("--emulator", default="native", help="how this interpreter runs, for the report (qemu-aarch64 ...)")
    ap.add_argument("--report", help="write the JSON report here")
    ap.add_argument("--no-pytest", action="store_true", help="skip the suite's own test files")
    args = ap.parse_args(argv)
    label = args.emulator if sys.byteorder == "little" else f"{args.emulator}, big-endian"
    coverage = "native" if args.emulator == "native" else f"emulated ({label})"
    report = dict(machine=platform.machine(), byteorder=sys.byteorder, emulator=args.emulator,
                  kernels=_kernel_rows(coverage), model=_model_rows(),
                  pytest=dict(result="skipped", detail="--no-pytest") if args.no_pytest else _pytest())
    for row in report["kernels"]:
        print(f"{row['family']:10} {row['kernel']:10} {row['coverage']:32} {row['result']:7} "
              f"{row.get('cases', '')} cases" + "".join(f"\n    {m}" for m in row.get("mismatches", [])))
    failed_model = [r["check"] for r in report["model"] if r["result"] != "passed"]
    print(f"model: {len(report['model']) - len(failed_model)}/{len(report['model'])} table and chunk-size checks passed"
          + "".join(f"\n    FAILED {c}" for c in failed_model))
    print(f"suite tests: {report['pytest']['result']}")
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    failed = any(r["result"] == "failed" for r in report["kernels"]) or failed_model \
        or report["pytest"]["result"] == "failed"
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
