"""``python -m fuzz planted``: does fuzzing the borg route find planted faults, and how fast?

For each fault of the stand-in borg (conformance/tests/stub_borg/borg/chunkers.py,
``BORG_STUB_FAULT``) that this machine can reach, and for no fault (``none``,
the control), one campaign of ``impl_chunks --impl borg`` per repetition with
the stand-in importable as ``borg.chunkers`` (PYTHONPATH), FROM AN EMPTY
CORPUS (no seeds, no dictionary): libFuzzer's own search only, in the
instrumented borg venv's interpreter (fuzz.build.impl_python) with atheris
instrumenting the stand-in's Python (its fault conditions are comparisons the
fuzzer sees). libFuzzer stops at the first finding; the table gives the
seconds from the start of libFuzzer to its exit (interpreter start-up
included), the executions, and the finding's first line. Repetition ``r`` runs
with libFuzzer ``-seed=r``, so a table is repeatable on one machine.

Findings are minimized by the campaign flow into ``--keep DIR`` (default: a
temporary directory, deleted): planted findings are not regressions of a real
implementation. Exit status 1 when a reachable fault was not found in
``--time`` seconds or the control found something.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from fuzz import build as fbuild

STUB = fbuild.ROOT / "conformance" / "tests" / "stub_borg"
_FINDING = re.compile(r"^(?:fuzz\.harness\.)?Finding: (.*)$", re.M)
_UNCAUGHT = re.compile(r"^=== Uncaught Python exception: ===\n(?:.*\n)*?(\w[\w.]*(?:Error|Exception|Finding)\b.*)$",
                       re.M)

# What a fault needs of the host (the stand-in's FAULTS say it in words): the kernel of ours it
# wraps must run here (named as borg names it: its kernel variable, the family table's borg_env,
# and the kernel), or the host must be of a kind.
NEEDS = {
    "lane": ("kernel", "BORG_FASTCDC_KERNEL", "blockwise"),
    "tail": ("kernel", "BORG_FASTCDC_KERNEL", "avx2"),
    "mask": ("kernel", "BORG_BUZHASH64_KERNEL", "scalar"),
    "kernel": ("kernel", "BORG_FASTCDC_KERNEL", "avx2"),
    "neon": ("kernel", "BORG_FASTCDC_KERNEL", "neon"),
    "endian": ("byteorder", "big", None),
}


def stub_faults() -> dict:
    """The stand-in's FAULTS (name -> what it breaks), read from its module without importing it as borg."""
    spec = importlib.util.spec_from_file_location("_stub_borg_chunkers", STUB / "borg" / "chunkers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return dict(mod.FAULTS)


def unreachable(fault: str) -> str | None:
    """Why this host cannot show ``fault`` (None: it can)."""
    need = NEEDS.get(fault)
    if need is None:
        return None
    if need[0] == "byteorder":
        return None if sys.byteorder == need[1] else f"needs a {need[1]}-endian host (this one is {sys.byteorder})"
    from chunkers.families import FAMILIES
    from fuzz.harness import kernel_inventory
    family = next(f.name for f in FAMILIES.values() if f.borg_env == need[1])
    runs, not_run = kernel_inventory(family)
    if need[2] in runs:
        return None
    why = dict(not_run).get(need[2], "not in this build (another architecture's kernel)")
    return f"needs {family} kernel {need[2]}: {why}"


def _first_finding(text: str) -> str:
    m = _FINDING.search(text) or _UNCAUGHT.search(text)
    if m:
        return m.group(1).strip()
    for line in text.splitlines():
        if "ERROR: AddressSanitizer" in line or "runtime error:" in line or "deadly signal" in line:
            return line.strip()
    return "(no message in the log)"


def one(fault: str, rep: int, seconds: int, build_dir, keep: Path, minimize_seconds: int, extra=()) -> dict:
    """One campaign from an empty corpus with BORG_STUB_FAULT=fault (``none``: unset)."""
    from fuzz import campaign
    saved = {k: os.environ.get(k) for k in ("BORG_STUB_FAULT", "PYTHONPATH")}
    with tempfile.TemporaryDirectory(prefix=f"planted-{fault}-") as tmp:
        tmp = Path(tmp)
        os.environ["PYTHONPATH"] = os.pathsep.join([str(STUB)] + [p for p in (saved["PYTHONPATH"] or "").split(
            os.pathsep) if p])
        if fault == "none":
            os.environ.pop("BORG_STUB_FAULT", None)
        else:
            os.environ["BORG_STUB_FAULT"] = fault
        try:
            s = campaign.run("impl_chunks", seconds, 1, build_dir, (f"-seed={rep}", *extra), impl="borg",
                             corpus=tmp / "corpus", seed=False, artifacts=tmp / "artifacts",
                             regressions=keep / fault, minimize_seconds=minimize_seconds)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        text = (tmp / "artifacts" / "fuzz.log").read_text(errors="replace")
    where = next((line for line in s.kernels if line.startswith("impl borg")), "")
    if "stand-in" not in where:
        raise LookupError(f"planted: the campaign did not run the stand-in borg ({where or 'no inventory'})")
    return {"fault": fault, "rep": rep, "found": bool(s.findings), "seconds": round(s.seconds, 1),
            "execs": s.execs, "exec_per_s": s.execs_per_s, "regressions": s.findings,
            "message": _first_finding(text) if s.findings else "", "errors": s.errors}


def main(a) -> int:
    faults = stub_faults()
    names = a.faults or [*faults, "none"]
    unknown = [f for f in names if f not in faults and f != "none"]
    if unknown:
        raise LookupError(f"planted: unknown fault {unknown[0]!r}; the stand-in has {', '.join(faults)}")
    fbuild.impl_python("borg")          # the instrumented venv must exist (one line, exit 2)
    rows, skipped = [], []
    with tempfile.TemporaryDirectory(prefix="planted-keep-") as scratch:
        keep = (a.keep or Path(scratch)).resolve()
        for fault in names:
            why = None if fault == "none" else unreachable(fault)
            if why:
                skipped.append((fault, why))
                print(f"{fault:<8} not reachable here: {why}", flush=True)
                continue
            for rep in range(1, a.reps + 1):
                row = one(fault, rep, a.time, a.build_dir, keep, 15, tuple(a.libfuzzer.split()))
                rows.append(row)
                result = (f"found after {row['seconds']:>6.1f} s, {row['execs']:>7} execs: {row['message'][:110]}"
                          if row["found"] else f"no finding in {row['seconds']:.0f} s ({row['execs']} execs)")
                print(f"{fault:<8} -seed={rep:<3} {result}", flush=True)
                for e in row["errors"]:
                    print(f"         ERROR: {e.splitlines()[0]}", flush=True)
    bad = [r for r in rows if r["found"] != (r["fault"] != "none")]
    if a.json:
        a.json.write_text(json.dumps({"rows": rows, "not_reachable": skipped}, indent=1))
    print(f"planted: {len(rows)} campaigns, {len(bad)} wrong (a reachable fault not found, or the control "
          f"found something), {len(skipped)} faults not reachable here")
    return 1 if bad else 0
