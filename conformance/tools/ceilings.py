"""Measured throughput ceilings of the CPU at hand for the work the scan kernels do
(``python -m conformance.tools.ceilings``): what no kernel of a given shape can beat here.

`bench --against borg` says how fast the kernels are; this says how fast they could be on
this machine, so a speed target can be told reachable or not by a measurement on the CPU
itself (conformance.tools.mca predicts other CPUs). ceilings.c (beside this file, shipped with
the package) is compiled at the kernels' level (C11, -O3) and run; it times, over seeded data in
cache:

- the sequential Gear loop (fastcdc ``scalar``) and 4 Gear chains over 4 segments with no
  cut test: the most a segment-parallel fastcdc kernel of that shape can scan, and its ratio
  to the sequential loop (the ceiling of ``bench``'s "scan every byte against the single
  sequential chain");
- the same for buzhash64's roll (two table lookups per byte);
- byte-then-table lookups per cycle (the load ports both families lean on);
- AES-128 blocks per cycle at the widest AES instruction that runs here (the AES chunkers
  encrypt one block per position: their ceiling whatever the UHF);
- 64-bit gathers (AVX-512 or AVX2): what vector chains would pay per table lookup;

and, in Python, ``read(2)`` of a page-cached file into a reused page-aligned buffer: the
ceiling of a chunker that does nothing but read (``fixed`` from a file).

Figures are per cycle of a dependent-add clock (no hardware counters needed; one add per
cycle) and in MB/s at that clock; best of 7 runs each; a busy machine lowers them. Seconds.

    python -m conformance.tools.ceilings [--json FILE]

Needs a C compiler (``$CC``, else cc); exit 2 with one line when it is missing or fails, 141
when standard output is closed.
"""

from __future__ import annotations

import json
import mmap
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chunkers.clihelp import ArgumentParser
from chunkers.console import to_devnull
from chunkers.tune import cpu_model
from conformance.tools import failure_line

SOURCE = Path(__file__).with_name("ceilings.c")
CFLAGS = ("-std=c11", "-O3")
"""The kernels' language and optimisation level (setup.py); the probes carry their own target attributes."""
READ_SIZE = 64 << 20
"""Bytes of the page-cached file the read ceiling reads (in blocks of READ_BLOCK)."""
READ_BLOCK = 4 << 20


def compiler() -> str:
    """$CC or cc (the compiler setup.py's build uses by default); LookupError if neither is on PATH."""
    cc = os.environ.get("CC") or "cc"
    if not shutil.which(cc.split()[0]):
        raise LookupError(f"no C compiler: {cc} is not on PATH (set CC)")
    return cc


def probe(cc: str | None = None) -> dict[str, float]:
    """ceilings.c built and run: {name: value} (ghz, gear1, gear4, roll1, roll4, lookups, and on
    x86-64 aes and gather when the CPU has them). CalledProcessError if it fails to build or run."""
    cc = cc or compiler()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "ceilings"
        subprocess.run([*cc.split(), *CFLAGS, "-o", str(exe), str(SOURCE)], check=True,
                       capture_output=True, text=True)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        name, value, *unit = line.split()
        found[name] = float(value)
        if name in ("aes", "gather"):
            found[name + "_width"] = unit[-1]
    return found


def read_ceiling(size: int = READ_SIZE, block: int = READ_BLOCK, runs: int = 7) -> float:
    """MB/s of read(2) of a page-cached ``size``-byte file (on /dev/shm where there is one) in
    ``block``-byte reads into one reused page-aligned buffer, best of ``runs``."""
    tmpdir = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryFile(dir=tmpdir) as f, mmap.mmap(-1, block) as buf:
        f.write(random.Random(0).randbytes(size))
        f.flush()
        view, fd, best = memoryview(buf), f.fileno(), float("inf")
        try:
            for _ in range(runs):
                os.lseek(fd, 0, os.SEEK_SET)
                t = time.perf_counter()
                while os.readv(fd, [view]):
                    pass
                best = min(best, time.perf_counter() - t)
        finally:
            view.release()
    return size / best / 1e6


def rows(found: dict[str, float], read_mb_s: float | None) -> list[dict]:
    """The table: {what, value, unit, mb_s, ratio} per ceiling (mb_s: at the measured clock;
    ratio: the segment chains against the sequential loop)."""
    ghz = found["ghz"]
    out = [{"what": "clock (dependent adds)", "value": ghz, "unit": "GHz", "mb_s": None, "ratio": None}]
    for family, one, four in (("fastcdc", "gear1", "gear4"), ("buzhash64", "roll1", "roll4")):
        out.append({"what": f"{family}: the sequential loop", "value": found[one], "unit": "B/cycle",
                    "mb_s": found[one] * ghz * 1e3, "ratio": None})
        out.append({"what": f"{family}: 4 segment chains, no cut test", "value": found[four], "unit": "B/cycle",
                    "mb_s": found[four] * ghz * 1e3, "ratio": found[four] / found[one]})
    out.append({"what": "byte-then-table lookups", "value": found["lookups"], "unit": "per cycle",
                "mb_s": None, "ratio": None})
    if "aes" in found:
        out.append({"what": f"AES-128 blocks ({found['aes_width']}), one per position", "value": found["aes"],
                    "unit": "blocks/cycle", "mb_s": found["aes"] * ghz * 1e3, "ratio": None})
    if "gather" in found:
        out.append({"what": f"64-bit gather ({found['gather_width']})", "value": found["gather"],
                    "unit": "cycles each", "mb_s": None, "ratio": None})
    if read_mb_s is not None:
        out.append({"what": "read(2) of a page-cached file, 4 MiB reads", "value": read_mb_s, "unit": "MB/s",
                    "mb_s": read_mb_s, "ratio": None})
    return out


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.tools.ceilings", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", metavar="FILE", help="also write the ceilings as JSON")
    args = ap.parse_args(argv)
    try:
        found = probe()
    except LookupError as e:
        print(f"ceilings: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(failure_line("ceilings", e), file=sys.stderr)
        return 2
    table = rows(found, read_ceiling())
    if args.json:
        Path(args.json).write_text(json.dumps({"cpu": cpu_model(), "rows": table}, indent=1) + "\n")
    if sys.stdout is None:          # started with `>&-`: the figures are measured, their output lost
        return 141
    try:
        print(f"measured on {cpu_model()} (ceilings of this CPU, best of 7; not kernel figures)")
        print(f"{'ceiling':<46} {'value':>9} {'unit':<13} {'MB/s':>7} {'x sequential':>12}")
        for r in table:
            mb_s = f"{r['mb_s']:.0f}" if r["mb_s"] is not None else ""
            ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else ""
            print(f"{r['what']:<46} {r['value']:>9.3f} {r['unit']:<13} {mb_s:>7} {ratio:>12}")
        sys.stdout.flush()
    except BrokenPipeError:         # the reader went away (| head): as the chunkers CLI, exit 141
        to_devnull(sys.stdout)
        return 141
    return 0


if __name__ == "__main__":
    sys.exit(main())
