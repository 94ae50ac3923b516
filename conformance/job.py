"""The main job's run: family x kernel over the corpus and real files, the
matrix, the JSON report and the reproducers (see ``python -m conformance -h``)."""

from __future__ import annotations

import json
import mmap
import os
import platform
import time
from dataclasses import asdict, dataclass, field

import chunkers
from chunkers.registry import NOT_COVERED
from conformance import catalogue, emulate, tiers
from conformance.engine import Mismatch, chunk_mismatch, chunk_sizes, model_mismatches, model_sizes, scan_mismatches
from conformance.families import FAMILIES

MODEL_PREFIX = 1 << 16
"""Bytes of each input on which the reference kernel is compared with the (slow) pure-Python model."""

KEYS = ("Z", "KS")


@dataclass
class Cell:
    """One family x kernel entry of the matrix."""

    family: str
    kernel: str
    status: str = "passed"          # passed / failed / skipped
    coverage: str = "native"        # native, "emulated (<emulator>)" (scan level only) or "not covered"
    reason: str = ""
    scan_cases: int = 0
    chunk_runs: int = 0
    bytes: int = 0
    cuts: int = 0
    seconds: float = 0.0
    mismatches: list = field(default_factory=list)

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / 1e6 if self.seconds else 0.0


@dataclass
class Source:
    name: str
    data: object
    real: bool = False


def real_files(paths) -> list[str]:
    """Every regular file under ``paths`` (files themselves, or directories walked), sorted."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, files in os.walk(p):
                out += [os.path.join(root, f) for f in files if os.path.isfile(os.path.join(root, f))]
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise FileNotFoundError(f"not a file or directory: {p}")
    return sorted(out)


def _map(path: str):
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""


def _record(cell: Cell, m: Mismatch | None) -> None:
    if m is not None:
        cell.status = "failed"
        cell.mismatches.append(m)


def check_cell(cell: Cell, sources: list[Source], cases: list, reference_sizes: dict) -> None:
    """Run one kernel: scan catalogue, then chunk-level runs on every source and params set."""
    fam = FAMILIES[cell.family]
    for m in (model_mismatches(cell.family, cases) if cell.kernel == fam.reference
              else scan_mismatches(cell.family, cell.kernel, cases)):
        _record(cell, m)
    cell.scan_cases = len(cases)
    for params in fam.chunk_params:
        for src in sources:
            for key in KEYS:
                t = time.perf_counter()
                got = chunk_sizes(params, src.data, key, cell.kernel)
                cell.seconds += time.perf_counter() - t
                want = reference_sizes.setdefault((params, src.name, key), got)
                if got != want:
                    _record(cell, chunk_mismatch(params, src.data, want, key=key, kernel=cell.kernel, source=src.name))
                cell.chunk_runs += 1
                cell.bytes += len(src.data)
                cell.cuts += len(got)
                if cell.kernel == fam.reference:
                    prefix = memoryview(src.data)[:MODEL_PREFIX]
                    _record(cell, chunk_mismatch(params, prefix, model_sizes(params, prefix, key), key=key,
                                                 kernel=cell.kernel, source=f"{src.name}[:{len(prefix)}] vs model"))


def matrix(seed: int, corpus_size: int, paths, families=None, progress=None, patterns=None) -> list[Cell]:
    """Run the whole job; returns one Cell per family x kernel known on this architecture.
    ``patterns``: only these catalogue patterns of the built-in corpus (default: all)."""
    sources = [Source(i.name, i.data) for i in catalogue.corpus(seed, corpus_size)
               if patterns is None or i.name.split("(")[0] in patterns]
    sources += [Source(p, _map(p), real=True) for p in real_files(paths)]
    cells = []
    for fam_name, fam in FAMILIES.items():
        if families and fam_name not in families:
            continue
        cases = fam.cases(seed)
        reference_sizes: dict = {}
        rows = [k for k in chunkers.kernels() if k.family == fam_name]
        rows.sort(key=lambda k: k.kernel != fam.reference)      # the reference runs first
        for k in rows:
            cell = Cell(fam_name, k.kernel, coverage=k.coverage)
            if k.coverage == NOT_COVERED:
                cell.status, cell.reason = "skipped", k.reason
            elif not k.runs:        # emulated: the kernel alone, on the scan catalogue
                if progress:
                    progress(f"{fam_name}/{k.kernel} ({k.coverage})")
                run = emulate.runner(fam_name, k.kernel)
                for m in scan_mismatches(fam_name, k.kernel, cases, run):
                    _record(cell, m)
                cell.scan_cases, cell.reason = len(cases), f"{k.reason}; scan level only"
            else:
                if progress:
                    progress(f"{fam_name}/{k.kernel}")
                check_cell(cell, sources, cases, reference_sizes)
            cells.append(cell)
    return cells


def print_matrix(cells: list[Cell], console) -> None:
    from rich.table import Table
    table = Table(title="conformance matrix (each kernel vs its family's reference; reference vs model)")
    for col in ("family", "kernel", "coverage", "result", "scan cases", "chunk runs", "bytes", "cut points", "MB/s",
                "note"):
        table.add_column(col, justify="right" if col in ("scan cases", "chunk runs", "bytes", "cut points", "MB/s")
                         else "left")
    colors = {"passed": "green", "failed": "bold red", "skipped": "yellow"}
    for c in cells:
        table.add_row(c.family, c.kernel, c.coverage, f"[{colors[c.status]}]{c.status}[/]", str(c.scan_cases),
                      str(c.chunk_runs),
                      f"{c.bytes:,}", f"{c.cuts:,}", f"{c.mb_s:.0f}" if c.seconds else "",
                      c.reason or (f"{len(c.mismatches)} mismatches" if c.mismatches else ""))
    console.print(table)


def write_report(path: str, cells: list[Cell], seed: int, paths, tier_rows=()) -> None:
    report = {
        "seed": seed,
        "paths": list(paths),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_features": sorted(chunkers.cpu_features()),
        "cells": [{**{k: v for k, v in asdict(c).items() if k != "mismatches"}, "mb_s": c.mb_s,
                   "mismatches": [m._asdict() | {"expected": str(m.expected), "got": str(m.got)}
                                  for m in c.mismatches]} for c in cells],
        "other_tiers": [r._asdict() for r in tier_rows],
    }
    with open(path, "w") as f:
        json.dump(report, f, indent=2)


def run(paths, seed: int, corpus_size: int, report: str | None, families=None, tier_choice: str = "native") -> int:
    """Run the job with a progress display; print the matrix, the other tiers (see
    conformance.tiers.extra_rows) and reproducers. Returns the exit status."""
    from rich.console import Console
    console = Console(width=None if Console().is_terminal else 150)
    try:
        with console.status("conformance") as status:
            cells = matrix(seed, corpus_size, paths, families, progress=lambda s: status.update(f"checking {s}"))
    except OSError as e:
        console.print(f"[bold red]error:[/] {e}")
        return 1
    print_matrix(cells, console)
    tier_rows = tiers.extra_rows(tier_choice)
    console.print("other tiers (native / emulated (which emulator) / not covered):\n" + tiers.format_rows(tier_rows),
                  markup=False, highlight=False)
    if report:
        write_report(report, cells, seed, paths, tier_rows)
        console.print(f"report written to {report}")
    failed = [c for c in cells if c.status == "failed"] + [r for r in tier_rows if r.result == "failed"]
    for c in failed:
        first = c.mismatches[0] if isinstance(c, Cell) else c.detail
        console.print(f"[bold red]FAILED[/] {c.family}/{c.kernel}: first reproducer:\n{first}")
    return 1 if failed else 0
