"""Predicted cycles per byte of each kernel's hot loop on CPUs this machine is not
(``python -m conformance.tools.mca``): static analysis with LLVM's llvm-mca, never a measurement.

For every x86-64 and portable kernel of the fastcdc, buzhash64 and buzhash lists, and every
x86-64 AES kernel (the rows chunkers.registry exports, so a new kernel is analysed without
naming it here), its
C file is compiled to assembly as setup.py builds it (its CFLAGS, so the same
optimisation level and function target attributes, plus ``-DCK_MCA``, which makes the
kernel's CK_MCA_LOOP mark an assembler comment: csrc/kernel.h), and its hot loop is taken to be the largest innermost loop
of the file holding that mark (a backward branch with no other backward branch inside). llvm-mca then
simulates that loop for each ``--mcpu`` (default: Zen 4 and Sapphire Rapids, the two CPU
kinds this project's machines have been) and gives cycles per iteration.

The AES kernels mark their loops with the UHF kind, so each AES kernel gives a row per AES
chunker. Bytes per iteration are the marks' (the input bytes one pass of the loop body scans,
times the marks a pass meets when the compiler unrolled it). So cycles per byte =
predicted cycles per iteration / bytes per iteration, and GB/s = GHz / cycles per byte.
What llvm-mca does not model (branch mispredictions, cache misses, the front end beyond
its dispatch width, frequency) is not in the figure: compare kernels with each other,
and only a run on the CPU itself measures it.

    python -m conformance.tools.mca [--mcpu CPU ...] [--family F] [--json FILE]

Needs gcc and llvm-mca (Debian: ``apt install llvm-19``; ``LLVM_MCA`` names another);
exits 2 with one line when either is missing.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import NamedTuple

from chunkers.clihelp import ArgumentParser
from chunkers.families import FAMILIES as TABLE, kernel_families
from chunkers.registry import PORTABLE, rows
from conformance.cases import aes_kernels
from conformance.tools import failure_line

ROOT = Path(__file__).resolve().parents[2]
CSRC = ROOT / "chunkers" / "csrc"
FAMILIES = kernel_families()
LOOP_TAGS = {aes_kernels.FAMILY: aes_kernels.UHF_KINDS}
"""Family -> its chunkers by the tag of its loops' marks, for a family whose kernel files hold one
instance of their loop per chunker (the AES chunkers, by UHF kind)."""
MCPUS = ("znver4", "sapphirerapids")


@functools.lru_cache(maxsize=None)
def setup_cflags() -> tuple[str, ...]:
    """setup.py's CFLAGS list, read from its source once (importing it would run setup())."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CFLAGS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise LookupError("setup.py defines no CFLAGS list")

LLVM_MCAS = ("llvm-mca-19", "llvm-mca-18", "llvm-mca-17", "llvm-mca")
"""Tried in order: znver4 needs LLVM 17 or newer (Debian 12's llvm-mca 14 lacks it)."""

_LABEL = re.compile(r"^(\.L\w+|\w+):")
_BRANCH = re.compile(r"^\s+(j[a-z]+)\s+(\.L\w+)\s*$")
_INSN = re.compile(r"^\s+[a-z]")
_MARK = re.compile(r"#\s*ck-mca-loop\s+(\d+)(?:\s+(\d+))?")


class Loop(NamedTuple):
    """A marked loop of an assembly file: the instructions of one pass, the input bytes it scans,
    and its mark's tag (which instance of a shared loop: for AES the UHF kind)."""
    label: str
    lines: list[str]
    bytes: int
    tag: int = 0


def _path(lines: list[str], start: int, end: int, where: dict) -> tuple[list[str], int, int]:
    """The instructions one pass runs from the loop's label (line ``start``) to its backward
    branch (line ``end``), and the bytes its CK_MCA_LOOP marks name. A branch to a label
    inside the loop is taken (the loop's if-bodies are its rare paths: a block kernel's
    recheck), one leaving it is not (an exit on a hit)."""
    body, scanned, tag, i, seen = [], 0, 0, start + 1, set()
    while i <= end and i not in seen:
        seen.add(i)
        line = lines[i]
        m = _MARK.search(line)
        if m:
            scanned, tag = scanned + int(m.group(1)), int(m.group(2) or 0)
        if _INSN.match(line) and not line.strip().startswith("."):
            body.append(line)
            b = _BRANCH.match(line)
            if b and i != end and b.group(2) in where and i < where[b.group(2)] <= end:
                i = where[b.group(2)]
                continue
        i += 1
    return body, scanned, tag


def loops(asm: str) -> list[Loop]:
    """The innermost loops of ``asm`` (gcc's AT&T output, built with -DCK_MCA) that hold a
    CK_MCA_LOOP mark: a backward branch to a label with no other backward branch inside."""
    lines = asm.splitlines()
    where, back = {}, []
    for i, line in enumerate(lines):
        m = _LABEL.match(line)
        if m:
            where[m.group(1)] = i
        b = _BRANCH.match(line)
        if b and b.group(2) in where:
            back.append((where[b.group(2)], i, b.group(2)))
    out = []
    for start, end, label in back:
        if any(start < s2 and e2 < end for s2, e2, _ in back if (s2, e2) != (start, end)):
            continue
        body, scanned, tag = _path(lines, start, end, where)
        if scanned:
            out.append(Loop(label, body, scanned, tag))
    return out


def hot_loop(asm: str, tag: int | None = None) -> Loop | None:
    """The marked loop scanning the most bytes per pass (a kernel's own loop, not the sequential
    tail it shares), of those the one with the fewest instructions (a loop the compiler laid out
    around a rare path, such as a hit's resolution, is the same mark with that path in it);
    None if the file has none. ``tag``: only loops with that mark tag."""
    found = [lp for lp in loops(asm) if tag is None or lp.tag == tag]
    return min(found, key=lambda lp: (-lp.bytes, len(lp.lines))) if found else None


def compile_asm(source: Path, cc: str = "gcc") -> str:
    """``source`` compiled to assembly with setup.py's flags and include paths."""
    inc = sysconfig.get_paths()["include"]
    out = subprocess.run([cc, *setup_cflags(), "-DCK_MCA", f"-I{CSRC}", f"-I{inc}", "-S", "-o", "-", str(source)],
                         capture_output=True, text=True, check=True)
    return out.stdout


def cycles_per_iteration(mca: str, mcpu: str, loop: Loop, iterations: int = 500) -> float:
    """llvm-mca's simulated cycles per iteration of ``loop`` on ``mcpu``."""
    with tempfile.NamedTemporaryFile("w", suffix=".s") as f:
        f.write("\n".join(loop.lines) + "\n")
        f.flush()
        out = subprocess.run([mca, f"-mcpu={mcpu}", f"-iterations={iterations}", f.name],
                             capture_output=True, text=True, check=True).stdout
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", out).group(1))
    return cycles / iterations


def analyse(mcpus=MCPUS, families=FAMILIES, mca: str | None = None) -> list[dict]:
    """One row per analysed kernel: family, kernel, loop instructions, bytes per iteration and,
    per CPU, predicted cycles per iteration and per byte."""
    mca = mca or find_mca()
    out = []
    for family in families:
        for row in targets(family):
            asm = compile_asm(CSRC / row.source)
            tagged = enumerate(LOOP_TAGS[family]) if family in LOOP_TAGS else ((None, family),)
            for tag, name in tagged:
                loop = hot_loop(asm, tag)
                if loop is None:    # test_mca holds every kernel to a mark: a new one without it is named
                    raise LookupError(f"{row.source}: no CK_MCA_LOOP mark" + (f" for {name}" if tag is not None else ""))
                entry = {"family": name, "kernel": row.name, "instructions": len(loop.lines),
                         "bytes_per_iteration": loop.bytes, "cpus": {}}
                for cpu in mcpus:
                    c = cycles_per_iteration(mca, cpu, loop)
                    entry["cpus"][cpu] = {"cycles_per_iteration": round(c, 2),
                                          "cycles_per_byte": round(c / loop.bytes, 3)}
                out.append(entry)
    return out


def targets(family: str) -> list:
    """The kernels of ``family`` analysed: x86-64 and portable ones (the AES family: x86-64 only,
    its portable path is OpenSSL's loop, not ours)."""
    wanted = ("x86-64",) if TABLE[family].hash == "uhf" else ("x86-64", PORTABLE)
    return [r for r in rows(family) if r.target in wanted]


def knows(mca: str, cpu: str) -> bool:
    """True if the llvm-mca at ``mca`` has a model for ``cpu`` (for an unknown one it only warns
    and models a generic CPU, exit status 0)."""
    probe = subprocess.run([mca, f"-mcpu={cpu}", "-"], input="nop\n", capture_output=True, text=True)
    return probe.returncode == 0 and "not a recognized processor" not in probe.stderr


def find_mca() -> str:
    """The newest llvm-mca on PATH that knows znver4 (or $LLVM_MCA); LookupError saying how to get one."""
    for name in ((os.environ["LLVM_MCA"],) if os.environ.get("LLVM_MCA") else LLVM_MCAS):
        path = shutil.which(name)
        if path:
            if knows(path, "znver4"):
                return path
    raise LookupError("no llvm-mca that knows -mcpu=znver4 on PATH (apt install llvm-19, or set LLVM_MCA)")


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.tools.mca", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcpu", action="append", help="an llvm-mca CPU (repeatable; default znver4, sapphirerapids)")
    ap.add_argument("--family", action="append", choices=FAMILIES, help="only this family (repeatable)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if not shutil.which("gcc"):
        print("mca: gcc not found on PATH", file=sys.stderr)
        return 2
    mcpus = tuple(args.mcpu or MCPUS)
    try:
        mca = find_mca()
        for cpu in mcpus:
            if not knows(mca, cpu):
                raise LookupError(f"{Path(mca).name} does not know -mcpu={cpu}")
        found = analyse(mcpus, tuple(args.family or FAMILIES), mca)
    except LookupError as e:
        print(f"mca: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(failure_line("mca", e), file=sys.stderr)
        return 2
    print(f"predicted by {Path(mca).name} (static analysis of the hot loop, not a measurement)")
    head = f"{'chunker':<15} {'kernel':<12} {'insns':>5} {'B/iter':>6}" + "".join(f" {c + ' c/B':>20}" for c in mcpus)
    print(head)
    for r in found:
        cells = "".join(f" {r['cpus'][c]['cycles_per_byte']:>20}" for c in mcpus)
        print(f"{r['family']:<15} {r['kernel']:<12} {r['instructions']:>5} {r['bytes_per_iteration']:>6g}{cells}")
    if args.json:
        Path(args.json).write_text(json.dumps({"mca": Path(mca).name, "rows": found}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
