"""Measured throughput ceilings of the CPU at hand for the work the scan kernels do
(``python -m conformance.tools.ceilings``): what no kernel of a given shape can beat here.

`bench --against borg` says how fast the kernels are; this says how fast kernels of their
shape could be on this machine, so a speed target can be told reachable or not by a
measurement on the CPU itself (conformance.tools.mca predicts other CPUs). ceilings.c (beside
this file, shipped with the package) is compiled at the kernels' level (C11, -O3, no
auto-vectorisation) and run; it times, over seeded data in cache:

- the sequential Gear loop (fastcdc ``scalar``) and 4 Gear chains over 4 segments with no cut
  test: the most a segment-parallel fastcdc kernel of that shape (a byte load, a table load
  and a shift-add per byte and chain) can scan, and its ratio to the sequential loop (the
  ceiling of ``bench``'s "scan every byte against the single sequential chain");
- the same for buzhash64's roll (two bytes and two table entries per byte);
- byte-then-table lookups per cycle (the load ports both families lean on);
- on x86-64, AES-128 blocks per cycle at the widest AES instruction that runs (the AES
  chunkers encrypt one block per position: their ceiling whatever the UHF), and 64-bit
  gathers (AVX-512 or AVX2): what vector chains would pay per table lookup;

and, in Python, reads of a page-cached file into a reused page-aligned buffer (``readv`` with
one buffer, a plain ``read(2)``): the ceiling of a chunker that does nothing but read
(``fixed`` from a file).

Rates are per cycle of a clock of dependent register adds (one per cycle; no hardware
counters needed), timed before and after the probes (the mean is used, both are shown), and
in MB/s; best of 15 runs of about a millisecond each (reads: 7 of the file); a busy machine
lowers them. Scan figures are over every byte (chunking skips each chunk's first min_size
bytes, so a chunking rate can exceed them). Takes a second or two.

    python -m conformance.tools.ceilings [--json FILE] [--kernels [--size MIB]]

With ``--kernels`` it then scans every byte of seeded random data with every kernel that runs here
(chunkers.bench's scan mode) and prints each one's rate as a fraction of the ceiling of its shape
(kernel_ceiling), naming the bound of that shape: the loads, the ALU, the chain latency or the AES
unit. A fraction near 1 is a kernel at what its shape allows on this CPU; only another shape goes
further.

Needs a C compiler ($CC, else cc). Exit status 2 with one line when it is missing, the probe
cannot be built or run, or --json names a directory that does not exist; 141 when standard
output is closed. The read ceiling is left out, with the reason, when no temporary
directory has room for its file.
"""

from __future__ import annotations

import datetime
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
from chunkers.families import FAMILIES as TABLE
from chunkers.console import to_devnull
from chunkers.tune import cpu_model
from conformance.tools import failure_line

SOURCE = Path(__file__).with_name("ceilings.c")
CFLAGS = ("-std=c11", "-O3", "-fno-tree-vectorize", "-fno-tree-slp-vectorize")
"""The kernels' language and optimisation level (setup.py), the vectorisers off (gcc and clang):
each probe stays the scalar loop it stands for whatever $CC carries; the vector probes carry
their own target attributes."""
READ_SIZE = 64 << 20
"""Bytes of the page-cached file the read ceiling reads (in blocks of READ_BLOCK)."""
READ_BLOCK = 4 << 20
AES_WIDTHS = ("xmm", "ymm", "zmm")
"""The AES instruction widths ceilings.c probes (aes_<width>), narrowest first."""


def compiler() -> list[str]:
    """$CC (split into words: "ccache gcc" works) or cc; LookupError if it is empty or not on PATH."""
    cc = os.environ.get("CC", "cc").split()
    if not cc:
        raise LookupError("no C compiler: CC is empty")
    if not shutil.which(cc[0]):
        raise LookupError(f"no C compiler: {cc[0]} is not on PATH (set CC)")
    return cc


def probe(cc: list[str] | None = None) -> dict[str, float | str]:
    """ceilings.c built and run: {name: rate per second} (clock_before, clock_after, gear1, gear4,
    roll1, roll4, lookups; on x86-64 aes and gather when the CPU has them, with aes_width and
    gather_width: "xmm", "ymm" or "zmm"; aes_xmm, aes_ymm, aes_zmm for each width that runs, aes
    the widest). CalledProcessError if it fails to build or run, OSError
    if the built program cannot be started (a noexec temporary directory)."""
    cc = cc or compiler()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "ceilings"
        subprocess.run([*cc, *CFLAGS, "-o", str(exe), str(SOURCE)], check=True, capture_output=True, text=True)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    found: dict[str, float | str] = {}
    for line in out.splitlines():
        name, value, *unit = line.split()
        found[name] = float(value)
        if name == "gather":
            found["gather_width"] = unit[-1]
    widths = [w for w in AES_WIDTHS if f"aes_{w}" in found]
    if widths:      # the table's AES row: the widest (each width holds its own kernels)
        found["aes"], found["aes_width"] = found[f"aes_{widths[-1]}"], widths[-1]   # not a family: the block ceiling
    return found


def read_dir(size: int) -> str:
    """Where the read ceiling's file goes: /dev/shm (memory: page-cached for sure) when it has
    twice ``size`` bytes free, else the default temporary directory when that has; OSError when
    neither has (a container's small /dev/shm and a full disk)."""
    for place in ("/dev/shm", tempfile.gettempdir()):
        try:
            st = os.statvfs(place)
        except OSError:
            continue
        if st.f_bavail * st.f_frsize > 2 * size:
            return place
    raise OSError(f"no temporary directory has {2 * size >> 20} MiB free for the read ceiling's file")


def read_ceiling(size: int = READ_SIZE, block: int = READ_BLOCK, runs: int = 7) -> float:
    """MB/s of reading a page-cached ``size``-byte file in ``block``-byte reads into one reused
    page-aligned buffer, best of ``runs``. OSError if the file cannot be written or read."""
    with tempfile.TemporaryFile(dir=read_dir(size)) as f, mmap.mmap(-1, block) as buf:
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


LOOPS = {"gear": ("gear1", "gear4"), "cyclic": ("roll1", "roll4")}
"""ceilings.c's sequential and 4-chain loops per rolling hash (the family table's ``hash``): the Gear
loop, the 64-bit cyclic roll."""


LOOKUPS_PER_BYTE = {"gear": 1, "cyclic": 2}
"""Byte-then-table lookups a rolling hash makes per byte: the Gear hash the byte coming in, the
cyclic roll that and the byte leaving its window."""
LOAD_BOUND = 0.85
"""A loop's ceiling at this fraction or more of the lookup rate it needs is bound by the loads;
below it, by the ALU work around them (segment chains) or by its chain (the sequential loop)."""


def kernel_ceiling(found: dict, family: str, row) -> tuple[str, float, str] | None:
    """(shape, its ceiling in B/s, the bound) for the scan kernel ``row`` (a chunkers.registry row) of
    ``family``, from the probe's ``found``:

    - the family's reference kernel (the sequential loop): the sequential probe, bound by the
      latency of its chain, or by the loads when it reaches LOAD_BOUND of the lookup rate it needs
      (a CPU with two load ports: the Gear loop on an Intel Xeon, family 6, model 106);
    - a segment-parallel form (chunkers.registry.segment_form): its hash's 4 segment chains, bound
      by the loads, or by the ALU when those chains do not reach LOAD_BOUND of the lookup rate;
    - any other form (blocks of one chain, vector lanes): the lookup rate over the lookups its hash
      makes per byte, bound by the loads (every form looks up a table entry per byte);
    - an AES kernel: the AES unit at the width of the instructions it needs (OpenSSL's evp: xmm).

    None when no probe stands for it here (an AES kernel off x86-64). The probes are loops of the
    same work built alike, not proofs: a kernel a compiler schedules better can pass its probe by a
    few per cent."""
    from chunkers.registry import segment_form
    hash_ = TABLE[family].hash
    if hash_ not in LOOPS:          # the AES chunkers: one AES-128 block per position, whatever the UHF
        cpu = set(row.cpu)
        width = "zmm" if {"vaes", "avx512f"} <= cpu else "ymm" if "vaes" in cpu else "xmm"
        key = f"aes_{width}"
        return (f"AES-128 blocks ({width})", found[key], f"AES unit ({width})") if key in found else None
    one, four = LOOPS[hash_]
    loads = found["lookups"] / LOOKUPS_PER_BYTE[hash_]

    def bound(rate: float, otherwise: str) -> str:
        return "loads" if rate >= LOAD_BOUND * loads else otherwise
    if row.reference:
        return (f"{hash_}: the sequential loop", found[one], bound(found[one], "chain latency"))
    if segment_form(row.name):
        return (f"{hash_}: 4 segment chains", found[four], bound(found[four], "ALU"))
    return (f"{hash_}: table lookups, {LOOKUPS_PER_BYTE[hash_]} a byte", loads, "loads")


def kernel_rows(found: dict, size: int, repeat: int = 3) -> list[dict]:
    """Every runnable scan kernel's rate over every byte of ``size`` bytes (chunkers.bench's scan
    mode, best of ``repeat``) against the ceiling of its shape: {family, kernel, mb_s, shape,
    ceiling_mb_s, fraction, bound} (the last four None where no probe stands for it)."""
    from chunkers import bench, registry
    out = []
    for r in bench.measure(size, repeat=repeat, chunk=False):
        row = next(k for k in registry.rows(r["family"]) if k.name == r["kernel"])
        c = kernel_ceiling(found, r["family"], row)
        shape, ceiling, bound = c if c else (None, None, None)
        out.append({"family": r["family"], "kernel": r["kernel"], "mb_s": round(r["mb_s"], 1), "shape": shape,
                    "ceiling_mb_s": round(ceiling / 1e6, 1) if c else None,
                    "fraction": round(r["mb_s"] * 1e6 / ceiling, 3) if c else None, "bound": bound})
    return out


def _loop_families() -> list[tuple[str, tuple[str, str]]]:
    """(family, its LOOPS entry) for the first family of the table of each hash of LOOPS (fastcdc's
    Gear loop, buzhash64's roll): the family the rows are named for."""
    first = {}
    for family in TABLE.values():
        first.setdefault(family.hash, family.name)
    return [(first[h], loops) for h, loops in LOOPS.items() if h in first]


def rows(found: dict, read_mb_s: float | str | None, block: int = READ_BLOCK) -> list[dict]:
    """The table: {key, what, value, unit, mb_s, ratio} per ceiling. value: per cycle of the
    mean clock (the clock row: its GHz, before and after); mb_s: MB/s; ratio: the segment
    chains against the sequential loop. ``read_mb_s``: the read ceiling, or a string saying why
    it was not measured (a row with value None), or None (no row)."""
    hz = (found["clock_before"] + found["clock_after"]) / 2

    def row(key, what, per_s, unit, mb=True, ratio=None):
        return {"key": key, "what": what, "value": round(per_s / hz, 4), "unit": unit,
                "mb_s": round(per_s / 1e6, 1) if mb else None, "ratio": ratio}

    out = [{"key": "clock", "what": "clock (dependent register adds)", "value": round(hz / 1e9, 3), "unit": "GHz",
            "mb_s": None, "ratio": None,
            "range": [round(found["clock_before"] / 1e9, 3), round(found["clock_after"] / 1e9, 3)]}]
    for family, (one, four) in _loop_families():
        out.append(row(f"{family}_sequential", f"{family}: the sequential loop", found[one], "B/cycle"))
        out.append(row(f"{family}_segments", f"{family}: 4 segment chains, no cut test", found[four], "B/cycle",
                       ratio=round(found[four] / found[one], 3)))
    out.append(row("lookups", "byte-then-table lookups", found["lookups"], "per cycle", mb=False))
    if "aes" in found:      # the AES-128 block ceiling: not a family
        out.append(row("aes", f"AES-128 blocks ({found['aes_width']}), one per position", found["aes"],  # not a family
                       "blocks/cycle") | {"width": found["aes_width"]})
    if "gather" in found:
        out.append({"key": "gather", "what": f"64-bit gather ({found['gather_width']})",
                    "value": round(hz / found["gather"], 2), "unit": "cycles each", "mb_s": None, "ratio": None,
                    "width": found["gather_width"]})
    if read_mb_s is not None:
        measured = not isinstance(read_mb_s, str)
        out.append({"key": "read", "what": f"read of a page-cached file, {block >> 20} MiB reads",
                    "value": round(read_mb_s, 1) if measured else None, "unit": "MB/s",
                    "mb_s": round(read_mb_s, 1) if measured else None, "ratio": None}
                   | ({} if measured else {"not_measured": read_mb_s}))
    return out


def document(table: list[dict], cc: list[str]) -> dict:
    """The --json document: the CPU, the date, the compiler and flags, and the rows."""
    version = subprocess.run([*cc, "--version"], capture_output=True, text=True).stdout.splitlines()
    return {"cpu": cpu_model(), "date": datetime.date.today().isoformat(),
            "compiler": version[0] if version else " ".join(cc), "cflags": list(CFLAGS), "rows": table}


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.tools.ceilings",
                        description="Measured throughput ceilings of the CPU at hand for the work the scan kernels "
                                    "do: what no kernel of a given shape can beat here.")
    ap.add_argument("--json", metavar="FILE", help="also write the ceilings as JSON")
    ap.add_argument("--kernels", action="store_true",
                    help="then scan every byte with every kernel that runs here and print its rate as a fraction "
                         "of the ceiling of its shape, with the bound of that shape")
    ap.add_argument("--size", type=int, default=16, metavar="MIB",
                    help="MiB of seeded random data each kernel scans with --kernels (default 16, 1-1024)")
    args = ap.parse_args(argv)
    if not 1 <= args.size <= 1024:
        print(f"ceilings: --size: {args.size} MiB is not within 1-1024", file=sys.stderr)
        return 2
    if args.json and not Path(args.json).resolve().parent.is_dir():
        print(f"ceilings: --json: no such directory: {Path(args.json).resolve().parent}", file=sys.stderr)
        return 2
    try:
        cc = compiler()
        found = probe(cc)
    except LookupError as e:
        print(f"ceilings: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print(failure_line("ceilings", e), file=sys.stderr)
        return 2
    except OSError as e:            # the built probe cannot be started (e.g. a noexec /tmp)
        print(f"ceilings: cannot run the probe: {e.strerror or e}", file=sys.stderr)
        return 2
    try:
        read = read_ceiling()
    except OSError as e:
        read = f"not measured: {e.strerror or e}"
    table = rows(found, read)
    kernels = kernel_rows(found, args.size << 20) if args.kernels else None
    if sys.stdout is not None:      # `>&-`: the figures are measured, their output lost (141 below)
        try:
            _print(table)
            if kernels is not None:
                _print_kernels(kernels, args.size)
        except BrokenPipeError:     # the reader went away (| head): as the chunkers CLI, exit 141
            to_devnull(sys.stdout)
            return 141
    if args.json:
        try:
            doc = document(table, cc) | ({"kernels": kernels} if kernels is not None else {})
            Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
        except OSError as e:
            print(f"ceilings: --json: cannot write {args.json}: {e.strerror or e}", file=sys.stderr)
            return 2
    return 141 if sys.stdout is None else 0


def _print(table: list[dict]) -> None:
    print(f"measured on {cpu_model()} (ceilings of this CPU, best of 15 runs; not kernel figures)")
    print(f"{'ceiling':<46} {'value':>9} {'unit':<13} {'MB/s':>8} {'x sequential':>12}")
    for r in table:
        value = "" if r["value"] is None else f"{r['value']:.3f}"
        mb_s = "" if r["mb_s"] is None else f"{r['mb_s']:.0f}"
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}"
        note = f"  ({r['range'][0]} before, {r['range'][1]} after)" if "range" in r else \
            f"  ({r['not_measured']})" if "not_measured" in r else ""
        print(f"{r['what']:<46} {value:>9} {r['unit']:<13} {mb_s:>8} {ratio:>12}{note}")
    sys.stdout.flush()



def _print_kernels(kernels: list[dict], size: int) -> None:
    print(f"\nscan kernels against the ceiling of their shape (every byte of {size} MiB, best of 3)")
    print(f"{'family':<10} {'kernel':<12} {'MB/s':>7}  {'shape':<26} {'ceiling':>8} {'fraction':>8}  bound")
    for k in kernels:
        if k["shape"] is None:
            print(f"{k['family']:<10} {k['kernel']:<12} {k['mb_s']:>7.0f}  (no probe of its shape here)")
        else:
            print(f"{k['family']:<10} {k['kernel']:<12} {k['mb_s']:>7.0f}  {k['shape']:<26} "
                  f"{k['ceiling_mb_s']:>8.0f} {k['fraction']:>8.2f}  {k['bound']}")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
