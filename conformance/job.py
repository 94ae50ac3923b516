"""The main job's run: family x kernel over the corpus, real files and the
golden vectors, the matrix, the JSON report and the reproducers (see
``python -m conformance -h``).

With another implementation (``--impl``), its kernels run the vectors and
the chunk-level comparisons, with our chunkers as the reference; the
scan-level catalogue, which calls our scan kernels directly, is left out."""

from __future__ import annotations

import json
import mmap
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field

import chunkers
from chunkers.registry import NATIVE, NOT_COVERED
from conformance import audit, catalogue, emulate, engine, impls, tiers
from conformance.engine import (Mismatch, chunk_mismatch, chunk_sizes, model_mismatches, model_sizes, our_sizes,
                                scan_mismatches)
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
    vectors: int = 0
    chunk_runs: int = 0
    bytes: int = 0
    cuts: int = 0
    seconds: float = 0.0
    mismatches: list = field(default_factory=list)
    levels: dict = field(default_factory=dict)     # under --impl: level -> what ran of it (conformance.audit)

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / 1e6 if self.seconds else 0.0


@dataclass
class Source:
    name: str
    data: object
    real: bool = False


def real_sources(paths) -> tuple[list[Source], list[str]]:
    """Every regular file under ``paths`` (files themselves, or directories walked), sorted, mapped
    into memory; and ``"path: reason"`` for each one that cannot be read (skipped, not fatal: a
    tree of real input often holds a few). Raises FileNotFoundError for a path that does not exist."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, names in os.walk(p):
                files += [os.path.join(root, f) for f in names if os.path.isfile(os.path.join(root, f))]
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise FileNotFoundError(f"not a file or directory: {p}")
    sources, unreadable = [], []
    for path in sorted(files):
        try:
            sources.append(Source(path, _map(path), real=True))
        except OSError as e:
            unreadable.append(f"{path}: {e.strerror or e}")
    return sources, unreadable


def _map(path: str):
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""


def _record(cell: Cell, m: Mismatch | None) -> None:
    if m is not None:
        cell.status = "failed"
        cell.mismatches.append(m)


def check_cell(cell: Cell, sources: list[Source], cases: list, reference_sizes: dict, ours: bool = True) -> None:
    """Run one kernel: scan catalogue, chunk-level runs on every source and params set, the vectors.

    ``reference_sizes`` caches the reference sizes per run: with ``ours`` those of the family's
    reference kernel (which runs first and is also compared with the model), else our chunkers'.
    """
    fam = FAMILIES[cell.family]
    reference = ours and cell.kernel == fam.reference
    for m in (model_mismatches(cell.family, cases) if reference else scan_mismatches(cell.family, cell.kernel, cases)):
        _record(cell, m)
    cell.scan_cases = len(cases)
    for params in fam.chunk_params:
        for src in sources:
            for key in KEYS:
                t = time.perf_counter()
                got = chunk_sizes(params, src.data, key, cell.kernel)
                cell.seconds += time.perf_counter() - t
                want = reference_sizes.get((params, src.name, key))
                if want is None:
                    want = reference_sizes[params, src.name, key] = got if ours else our_sizes(params, src.data, key)
                if got != want:
                    _record(cell, chunk_mismatch(params, src.data, want, key=key, kernel=cell.kernel, source=src.name))
                cell.chunk_runs += 1
                cell.bytes += len(src.data)
                cell.cuts += len(got)
                if reference:
                    prefix = memoryview(src.data)[:MODEL_PREFIX]
                    _record(cell, chunk_mismatch(params, prefix, model_sizes(params, prefix, key), key=key,
                                                 kernel=cell.kernel, source=f"{src.name}[:{len(prefix)}] vs model"))
    check_vectors(cell)


def check_vectors(cell: Cell) -> None:
    """Run every golden vector of the cell's family on its kernel (through the implementation under test)."""
    import vectors
    from vectors.generate import run_document
    for name in FAMILIES[cell.family].chunkers:
        if name not in vectors.names():
            continue
        ran, failures = run_document(engine.implementation(), vectors.load(name), cell.kernel)
        cell.vectors += ran
        for f in failures:
            _record(cell, Mismatch("golden vector", f, "the vector's result", "a different result"))


def matrix(seed: int, corpus_size: int, real=(), families=None, progress=None, patterns=None) -> list[Cell]:
    """Run the whole job on the implementation under test (engine.implementation()) over the
    built-in corpus and the ``real`` sources (see real_sources); returns one Cell per family x
    kernel it knows on this architecture. ``patterns``: only these catalogue patterns of the
    built-in corpus (default: all)."""
    impl = engine.implementation()
    ours = impl.name == "ours"
    sources = [Source(i.name, i.data) for i in catalogue.corpus(seed, corpus_size)
               if patterns is None or i.name.split("(")[0] in patterns]
    sources += list(real)
    cells = []
    for fam_name, fam in FAMILIES.items():
        if families and fam_name not in families:
            continue
        cases = fam.cases(seed) if ours and fam.cases else []
        reference_sizes: dict = {}
        if ours:
            rows = [(k.kernel, k.reason, k.coverage) for k in chunkers.kernels() if k.family == fam_name]
            rows.sort(key=lambda k: k[0] != fam.reference)      # the reference runs first
        else:
            rows = [(k, why, NATIVE if why is None else NOT_COVERED) for k, why in impl.kernels(fam_name)]
        if not rows:
            cells.append(Cell(fam_name, "-", "skipped", NOT_COVERED, f"{impl.name} has no {fam_name} chunker"))
        for kernel, reason, coverage in rows:
            cell = Cell(fam_name, kernel, coverage=coverage)
            if coverage == NOT_COVERED:
                cell.status, cell.reason = "skipped", reason
            elif reason:            # emulated: the kernel alone, on the scan catalogue
                if progress:
                    progress(f"{fam_name}/{kernel} ({coverage})")
                run = emulate.runner(fam_name, kernel)
                for m in scan_mismatches(fam_name, kernel, cases, run):
                    _record(cell, m)
                cell.scan_cases, cell.reason = len(cases), f"{reason}; scan level only"
            else:
                if progress:
                    progress(f"{impl.name}: {fam_name}/{kernel}")
                calls = getattr(impl, "calls", 0)
                try:
                    check_cell(cell, sources, cases, reference_sizes, ours)
                except Exception as e:   # noqa: BLE001  (a kernel or adapter that raises fails its cell)
                    _record(cell, Mismatch("error", f"{fam_name}/{kernel}: {type(e).__name__}: {e}", "a result",
                                           "an exception"))
                if isinstance(impl, audit.Counting):
                    _audit_cell(cell, impl, impl.calls - calls)
            cells.append(cell)
    return cells


def _audit_cell(cell: Cell, impl: audit.Counting, calls: int) -> None:
    """Under --impl: record which levels ran against ``impl``; a cell no call of which reached it fails."""
    cell.levels = {"vectors": f"{cell.vectors} vectors", "chunk": f"{cell.chunk_runs} runs",
                   "scan": audit.scan_note(impl)}
    if calls == 0:
        _record(cell, Mismatch("nothing checked", f"{cell.family}/{cell.kernel}: no call reached {impl.name}",
                               "calls", "none"))


def print_matrix(cells: list[Cell], console) -> None:
    from rich.table import Table
    table = Table(title="conformance matrix (each kernel vs its family's reference; reference vs model; "
                        "golden vectors)")
    numeric = ("scan cases", "vectors", "chunk runs", "bytes", "cut points", "MB/s")
    for col in ("family", "kernel", "coverage", "result", *numeric, "note"):
        table.add_column(col, justify="right" if col in numeric else "left")
    colors = {"passed": "green", "failed": "bold red", "skipped": "yellow"}
    for c in cells:
        table.add_row(c.family, c.kernel, c.coverage, f"[{colors[c.status]}]{c.status}[/]", str(c.scan_cases),
                      str(c.vectors),
                      str(c.chunk_runs),
                      f"{c.bytes:,}", f"{c.cuts:,}", f"{c.mb_s:.0f}" if c.seconds else "",
                      "; ".join(filter(None, [c.reason or (f"{len(c.mismatches)} mismatches" if c.mismatches else ""),
                                              *(f"{k}: {v}" for k, v in c.levels.items())])))
    console.print(table)


def write_report(path: str, cells: list[Cell], seed: int, paths, tier_rows=(), unreadable=()) -> None:
    report = {
        "implementation": engine.implementation().name,
        "seed": seed,
        "paths": list(paths),
        "unreadable": list(unreadable),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_features": sorted(chunkers.cpu_features()),
        "cells": [{**{k: v for k, v in asdict(c).items() if k != "mismatches"}, "mb_s": c.mb_s,
                   "mismatches": [m._asdict() | {"expected": str(m.expected), "got": str(m.got)}
                                  for m in c.mismatches]} for c in cells],
        "other_tiers": [r._asdict() for r in tier_rows],
    }
    if isinstance(engine.implementation(), audit.Counting):
        report["kernel_differences"] = [{"family": f, "only_impl": a, "only_ours": b}
                                        for f, a, b in audit.kernel_differences(engine.implementation())]
    with open(path, "w") as f:
        json.dump(report, f, indent=2)


def run(paths, seed: int, corpus_size: int, report: str | None, families=None, tier_choice: str = "native",
        impl: str = "ours", allow_missing: bool = False) -> int:
    """Run the job on implementation ``impl`` (see conformance.impls.get) with a progress display;
    print the matrix, the other tiers of ours (see conformance.tiers.extra_rows) and reproducers.
    Returns the exit status: 2 with one line on stderr when ``impl`` cannot be loaded or is
    unavailable here, unless ``allow_missing`` (then 0, the run skipped with a message)."""
    from rich.console import Console
    console = Console(width=None if Console().is_terminal else 150)
    try:
        implementation = impls.get(impl)
    except (ValueError, ImportError, AttributeError) as e:
        sys.stderr.write(f"error: --impl {impl}: {e}\n")
        return 2
    reason = implementation.unavailable()
    if reason and not allow_missing:
        sys.stderr.write(f"error: --impl {impl}: {reason} (--allow-missing skips the run instead)\n")
        return 2
    if reason:
        console.print(f"[yellow]skipped:[/] implementation {implementation.name!r} is not available: {reason}")
        return 0
    if implementation.name != "ours":       # count the calls that reach it: every cell must make some
        implementation = audit.Counting(implementation)
    engine.set_implementation(implementation)
    real, unreadable = real_sources(paths)
    for u in unreadable:
        console.print(f"[yellow]skipped unreadable file[/] {u}", markup=True, highlight=False)
    with console.status("conformance") as status:
        cells = matrix(seed, corpus_size, real, families, progress=lambda s: status.update(f"checking {s}"))
    print_matrix(cells, console)
    if isinstance(implementation, audit.Counting):
        ran = [c for c in cells if c.levels]
        console.print(f"{len(ran)} family x kernel cells ran against {implementation.name} "
                      f"({implementation.calls} calls); levels per cell in the note column", highlight=False)
        for line in audit.format_differences(implementation, audit.kernel_differences(implementation)):
            console.print(line, markup=False, highlight=False)
    tier_rows = []
    if implementation.name == "ours":       # our kernels on other targets (emulators, cross builds)
        tier_rows = [r for r in tiers.extra_rows(tier_choice) if not families or r.family in families]
        console.print("other tiers (native / emulated (which emulator) / not covered):\n"
                      + tiers.format_rows(tier_rows), markup=False, highlight=False)
    if report:
        write_report(report, cells, seed, paths, tier_rows, unreadable)
        console.print(f"report written to {report}")
    failed = [c for c in cells if c.status == "failed"] + [r for r in tier_rows if r.result == "failed"]
    for c in failed:
        first = c.mismatches[0] if isinstance(c, Cell) else c.detail
        console.print(f"[bold red]FAILED[/] {c.family}/{c.kernel}: first reproducer:\n{first}")
    return 1 if failed else 0
