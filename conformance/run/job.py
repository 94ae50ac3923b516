"""The main job's run: family x kernel over the corpus, real files and the
golden vectors, the matrix, the JSON report and the reproducers (see
``python -m conformance -h``).

With another implementation (``--impl``), its kernels run the vectors and
the chunk-level comparisons, with our chunkers as the reference; the
scan-level catalogue, which calls our scan kernels directly, is left out."""

from __future__ import annotations

import array
import hashlib
import json
import platform
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import chunkers
from chunkers.families import FAMILIES as TABLE
from chunkers.registry import NATIVE, NOT_COVERED
from conformance.run import audit, engine, impl_cells, parallel, progress, readpath, realfiles, selection
from conformance.tools import emulate, tiers
from vectors import impls
from conformance.cases import catalogue, classes
from conformance.run.engine import (Mismatch, chunk_mismatch, chunk_sizes, model_mismatches, model_sizes, our_sizes,
                                scan_mismatches)
from conformance.cases.families import FAMILIES
from vectors.impls.provenance import ProvenanceError
from conformance.run.proof import kernel_checks, ran_note

MODEL_PREFIX = 1 << 16
"""Bytes of each input on which the reference kernel is compared with the (slow) pure-Python model."""

MODEL_REAL_INPUTS = 16
"""Real inputs (file pieces, in path order) per family whose prefix is also compared with the model:
about 0.2-0.5 s per params set and key each, hours over a system tree; the corpus always is."""

KEYS = ("Z", "KS")


@dataclass
class Cell:
    """One family x kernel entry of the matrix."""

    family: str
    kernel: str
    status: str = "passed"          # passed / failed / skipped; running / interrupted (a partial run)
    coverage: str = "native"        # native, "emulated (<emulator>)" (scan level only) or "not covered"
    reason: str = ""
    scan_cases: int = 0
    vectors: int = 0
    chunk_runs: int = 0
    bytes: int = 0
    cuts: int = 0
    seconds: float = 0.0
    mismatches: list = field(default_factory=list)
    ran: str = ""                   # whose code ran and whether its instructions are its tier's (impls.provenance)
    levels: dict = field(default_factory=dict)     # under --impl: level -> what ran of it (conformance.run.audit)

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / 1e6 if self.seconds else 0.0


@dataclass
class Source:
    """A built-in corpus input (held in memory). Real files are conformance.run.realfiles.FilePiece."""

    name: str
    data: object
    real: bool = False

    @property
    def length(self) -> int:
        return len(self.data)

    def load(self):
        return self.data


def _record(cell: Cell, m: Mismatch | None) -> None:
    if m is not None:
        cell.status = "failed"
        cell.mismatches.append(m)


def check_cell(cell: Cell, sources: list, cases: list, reference_sizes: dict, ours: bool = True,
               progress=None, skipped: dict | None = None) -> None:
    """Run one kernel: scan catalogue (AES: and an OpenSSL failure), chunk-level runs on every source
    and params set, the vectors.

    ``reference_sizes`` caches a digest of the reference sizes per run: with ``ours`` those of the
    family's reference kernel (which runs first and is also compared with the model), else our
    chunkers'.
    ``sources``: corpus Sources and real-file pieces (read once per source, see
    conformance.run.realfiles); a real file that changed, vanished or became unreadable is added to
    ``skipped`` (path -> reason) and left out from then on. ``progress``: see conformance.run.progress.
    """
    fam = FAMILIES[cell.family]
    reference = ours and cell.kernel == fam.reference
    skipped = {} if skipped is None else skipped
    for m in (model_mismatches(cell.family, cases) if reference else scan_mismatches(cell.family, cell.kernel, cases)):
        _record(cell, m)
    if ours and TABLE[cell.family].hash == "uhf":      # the AES portable path's failure handling (06 §9.3)
        for m in engine.evp_failure_mismatches(cell.kernel):
            _record(cell, m)
    cell.scan_cases = len(cases)
    real_seen = 0
    for src in sources:
        path = getattr(src, "snap", None) and src.snap.path
        try:
            if path in skipped:
                raise realfiles.FileChanged(skipped[path])
            data = src.load()
        except realfiles.FileChanged as e:
            skipped[path] = str(e)
            if progress:        # its planned work will not be done
                progress.skip(src.length * len(fam.chunk_params) * len(KEYS))
            continue
        model = reference and (not src.real or real_seen < MODEL_REAL_INPUTS)
        real_seen += src.real
        for params in fam.chunk_params:
            for key in KEYS:
                _chunk_run(cell, params, src.name, data, key, reference_sizes, ours, model)
        if progress:
            progress.advance(len(data) * len(fam.chunk_params) * len(KEYS))
        del data
    check_vectors(cell)


def _chunk_run(cell: Cell, params, name: str, data, key: str, reference_sizes: dict, ours: bool,
               model: bool) -> None:
    t = time.perf_counter()
    got = chunk_sizes(params, data, key, cell.kernel)
    cell.seconds += time.perf_counter() - t
    run = (params, name, key)
    want = None
    if run not in reference_sizes:
        want = got if ours else our_sizes(params, data, key)
        reference_sizes[run] = _digest(want)
    if _digest(got) != reference_sizes[run]:
        if want is None:        # recomputed only for a reproducer: the cache holds digests
            want = our_sizes(params, data, key, FAMILIES[cell.family].reference if ours else None)
        _record(cell, chunk_mismatch(params, data, want, key=key, kernel=cell.kernel, source=name))
    cell.chunk_runs += 1
    cell.bytes += len(data)
    cell.cuts += len(got)
    if model:
        prefix = memoryview(data)[:MODEL_PREFIX]
        _record(cell, chunk_mismatch(params, prefix, model_sizes(params, prefix, key), key=key,
                                     kernel=cell.kernel, source=f"{name}[:{len(prefix)}] vs model"))


def _digest(sizes: list[int]) -> bytes:
    """SHA-256 of a size list: what the reference cache keeps per run, so its memory does not grow
    with the bytes of the tree (a list of sizes of a large tree runs to hundreds of MB)."""
    return hashlib.sha256(array.array("Q", sizes).tobytes()).digest()


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


def matrix(seed: int, corpus_size: int, real=(), families=None, progress=None, patterns=None,
           cells: list | None = None, skipped: dict | None = None, classes_everywhere: bool = True,
           fail_fast: bool = False) -> list[Cell]:
    """Run the whole job on the implementation under test (engine.implementation()) over the
    built-in corpus and the ``real`` sources (conformance.run.realfiles.pieces); returns one Cell per
    family x kernel it knows on this architecture. ``patterns``: only these catalogue patterns of
    the built-in corpus (default: all). ``progress``: a callable told each family/kernel, or a
    conformance.run.progress.Progress (also told the work planned and done). ``cells``: a list the
    cells are appended to as each one starts (what ran so far, when the run is interrupted).
    ``skipped``: a dict receiving path -> reason for real files that changed during the run.
    ``classes_everywhere=False``: the input-class cases (conformance.cases.classes) on each family's
    reference kernel only, said in the other cells' reason (the quick qemu runs of CI).
    ``fail_fast``: stop after the first failed cell (the cells after it are not run and not listed)."""
    impl = engine.implementation()
    ours = impl.name == "ours"
    sources = [Source(i.name, i.data) for i in catalogue.corpus(seed, corpus_size)
               if patterns is None or i.name.split("(")[0] in patterns]
    sources += list(real)
    cells = [] if cells is None else cells
    plan = []
    for fam_name, fam in FAMILIES.items():
        if families and fam_name not in families:
            continue
        if ours:
            rows = [(k.kernel, k.reason, k.coverage) for k in chunkers.kernels() if k.family == fam_name]
            # the reference runs first, emulated and not covered kernels last (--fail-fast stops sooner)
            rows.sort(key=lambda k: (k[0] != fam.reference, k[1] is not None))
        else:
            rows = [(k, why, NATIVE if why is None else NOT_COVERED) for k, why in impl.kernels(fam_name)]
        plan.append((fam_name, fam, rows))
    if hasattr(progress, "plan"):
        source_bytes = sum(s.length for s in sources)
        progress.plan(sum(source_bytes * len(fam.chunk_params) * len(KEYS) for _n, fam, rows in plan
                          for _k, reason, _c in rows if not reason), len(sources))
    tracker = progress if hasattr(progress, "advance") else None
    for fam_name, fam, rows in plan:
        cases, case_error = _catalogue(fam_name, fam, seed) if ours and fam.cases else ([], None)
        if case_error and not any(k == fam.reference for k, _r, _c in rows):
            cells.append(Cell(fam_name, fam.reference, "failed", mismatches=[case_error]))
        reference_sizes: dict = {}
        if not rows:
            cells.append(Cell(fam_name, "-", "skipped", NOT_COVERED, f"{impl.name} has no {fam_name} chunker"))
        for kernel, reason, coverage in rows:
            cell = Cell(fam_name, kernel, coverage=coverage, status="running")
            cells.append(cell)
            if kernel == fam.reference:
                _record(cell, case_error)
            if coverage == NOT_COVERED:
                cell.status, cell.reason = "skipped", reason
                continue
            if reason:            # emulated: the kernel alone, on the scan catalogue
                if progress:
                    progress(f"{fam_name}/{kernel} ({coverage})")
                run = emulate.runner(fam_name, kernel)
                if tracker:         # minutes under an emulator: keep the progress lines coming
                    run = _ticking(run, tracker)
                for m in scan_mismatches(fam_name, kernel, cases, run):
                    _record(cell, m)
                cell.scan_cases, cell.reason = len(cases), f"{reason}; scan level only"
            else:
                if progress:
                    progress(f"{impl.name}: {fam_name}/{kernel}")
                calls = getattr(impl, "calls", 0)
                try:
                    check_cell(cell, sources, cases, reference_sizes, ours, tracker, skipped)
                    if classes_everywhere or kernel == fam.reference:
                        classes.check_cell(cell, seed, ours and kernel == fam.reference)
                    else:
                        cell.reason = f"input classes on {fam.reference} only (quick run)"
                except ProvenanceError as e:
                    _record(cell, Mismatch("provenance", f"ProvenanceError: {e}", f"{fam_name}/{kernel}'s own code",
                                           "other code"))
                except parallel.Interrupted:
                    raise
                except Exception as e:   # noqa: BLE001  (a kernel or adapter that raises fails its cell)
                    _record(cell, Mismatch("error", f"{fam_name}/{kernel}: {type(e).__name__}: {e}", "a result",
                                           "an exception"))
                if isinstance(impl, audit.Counting):
                    _audit_cell(cell, impl, impl.calls - calls)
            if cell.status != "skipped":
                for m in kernel_checks(impl.name, cell.family, cell.kernel):
                    _record(cell, m)
                cell.ran = ran_note(impl.name, cell)
            if cell.status == "running":
                cell.status = "passed"
            if fail_fast and cell.status == "failed":
                return cells
    return cells


def surface_cells(impl, seed: int) -> list[Cell]:
    """The read-path and kernel-selection rows of ``impl`` (conformance.run.readpath, .selection)
    as cells: family ``read path`` / ``selection``, the check in the kernel column."""
    return [Cell(family, r.check, r.status, "native", r.note, chunk_runs=r.runs, bytes=r.bytes,
                 mismatches=list(r.problems))
            for family, found in ((readpath.FAMILY, readpath.rows(impl, seed)),
                                  (selection.FAMILY, selection.rows(impl))) for r in found]


def _catalogue(fam_name: str, fam, seed: int) -> tuple[list, Mismatch | None]:
    """The family's scan catalogue, or ([], the failure) when building it raises: its planted hits
    are found and confirmed on the reference kernel, so a broken reference can make that
    impossible, which is the reference's failure, not a crash of the job."""
    try:
        return fam.cases(seed), None
    except parallel.Interrupted:
        raise
    except Exception as e:   # noqa: BLE001
        return [], Mismatch("error", f"{fam_name}: building the scan catalogue on {fam.reference} failed: "
                                     f"{type(e).__name__}: {e}", "a scan catalogue", "an exception")


def _ticking(run, tracker):
    """``run`` (case -> result) that also lets ``tracker`` report (a line per its interval)."""
    def ticked(case):
        tracker.tick()
        return run(case)
    return ticked


def _audit_cell(cell: Cell, impl: audit.Counting, calls: int) -> None:
    """Under --impl: record which levels ran against ``impl``; a cell no call of which reached it fails."""
    cell.levels = {"vectors": f"{cell.vectors} vectors", "chunk": f"{cell.chunk_runs} runs",
                   "scan": audit.scan_note(impl)}
    if calls == 0:
        _record(cell, Mismatch("nothing checked", f"{cell.family}/{cell.kernel}: no call reached {impl.name}",
                               "calls", "none"))


def print_matrix(cells: list[Cell], console) -> None:
    from rich.table import Table
    name = engine.implementation().name
    what = ("each kernel vs its family's reference; reference vs model; golden vectors" if name == "ours" else
            f"each {name} kernel vs our chunkers' cut points; golden vectors")
    table = Table(title=f"conformance matrix of {name} ({what})")
    numeric = ("scan cases", "vectors", "chunk runs", "bytes", "cut points", "MB/s")
    for col in ("family", "kernel", "coverage", "result", *numeric, "ran", "note"):
        table.add_column(col, justify="right" if col in numeric else "left")
    colors = {"passed": "green", "failed": "bold red", "skipped": "yellow", "interrupted": "bold yellow",
              "running": "bold yellow"}
    for c in cells:
        table.add_row(c.family, c.kernel, c.coverage, f"[{colors[c.status]}]{c.status}[/]", str(c.scan_cases),
                      str(c.vectors),
                      str(c.chunk_runs),
                      f"{c.bytes:,}", f"{c.cuts:,}", f"{c.mb_s:.0f}" if c.seconds else "", c.ran,
                      "; ".join(filter(None, [c.reason or (f"{len(c.mismatches)} mismatches" if c.mismatches else ""),
                                              *(f"{k}: {v}" for k, v in c.levels.items())])))
    console.print(table)


def write_report(path: str, cells: list[Cell], seed: int, paths, tier_rows=(), unreadable=(), differences=None,
                 **extra) -> None:
    """The JSON report; ``unreadable``: "path: reason" for every real file skipped (before or during
    the run); ``differences``: audit.kernel_differences of another implementation (None for ours);
    ``extra``: more top-level keys (interrupted, files, files_left_out)."""
    report = {
        "implementation": engine.implementation().name,
        "seed": seed,
        "paths": list(paths),
        "unreadable": list(unreadable),
        **extra,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_features": sorted(chunkers.cpu_features()),
        "cells": [{**{k: v for k, v in asdict(c).items() if k != "mismatches"}, "mb_s": c.mb_s,
                   "mismatches": [m._asdict() | {"expected": str(m.expected), "got": str(m.got)}
                                  for m in c.mismatches]} for c in cells],
        "other_tiers": [r._asdict() for r in tier_rows],
    }
    if differences is not None:
        report["kernel_differences"] = [{"family": f, "only_impl": a, "only_ours": b} for f, a, b in differences]
    with open(path, "w") as f:
        json.dump(report, f, indent=2)


def _family_run(family: str, seed: int, corpus_size: int, real, fail_fast: bool) -> tuple[list[Cell], dict]:
    """One family in a --jobs worker, with plain progress lines tagged with the family."""
    cells: list = []
    skipped: dict = {}
    matrix(seed, corpus_size, real, [family], progress=progress.plain(prefix=f"[{family}] "), cells=cells,
           skipped=skipped, fail_fast=fail_fast)
    return cells, skipped


@contextmanager
def _progress(console):
    """A live status line on a terminal, else plain progress lines on stderr every 10 s."""
    if not console.is_terminal:
        yield progress.plain()
        return
    with console.status("conformance") as status:
        yield progress.Progress(lambda line: status.update(f"checking {line}"), interval=0.5)


def _run_all(cells: list, skipped: dict, seed: int, corpus_size: int, real, families, jobs: int, console,
             fail_fast: bool = False) -> None:
    """Fill ``cells`` and ``skipped`` (see matrix), in ``jobs`` processes (one family each); with
    ``fail_fast`` each family (all of them with one process) stops at its first failed cell."""
    if jobs <= 1:
        with _progress(console) as prog:
            matrix(seed, corpus_size, real, families, progress=prog, cells=cells, skipped=skipped,
                   fail_fast=fail_fast)
        return
    names = [f for f in FAMILIES if not families or f in families]
    results: dict = {}
    try:
        results = parallel.map_families(_family_run, names, jobs, seed, corpus_size, real, fail_fast)
    except parallel.Interrupted as e:
        results = e.partial
        raise
    finally:
        for f in names:
            if f in results:
                cells += results[f][0]
                skipped.update(results[f][1])
            else:
                cells.append(Cell(f, "-", "interrupted", NOT_COVERED, "the run was interrupted before it finished"))


def run(paths, seed: int, corpus_size: int, report: str | None, families=None, tier_choice: str = "native",
        impl: str = "ours", allow_missing: bool = False, *, sample: int | None = None,
        max_bytes: int | None = None, jobs: int = 1, fail_fast: bool = False) -> int:
    """Run the job on implementation ``impl`` (see vectors.impls.get) with progress reports;
    print the matrix, the skipped files, the other tiers of ours (see conformance.tools.tiers.extra_rows)
    and reproducers. Real files under ``paths``: a seeded ``sample`` of them and at most
    ``max_bytes`` bytes (see conformance.run.realfiles). ``jobs``: worker processes. ``fail_fast``:
    stop at the first failed cell (see matrix; the other tiers are then not listed). Without
    ``families`` the matrix ends with the read-path and kernel-selection rows (surface_cells).
    Returns the exit status: 2 with one line on stderr when ``impl`` cannot be loaded or is
    unavailable here, unless ``allow_missing`` (then 0, the run skipped with a message); 128 + the
    signal number after SIGINT / SIGTERM, once the partial matrix and report are written."""
    from chunkers.console import PipeConsole
    console = PipeConsole(width=None if PipeConsole().is_terminal else 150, finish=True)  # closed stdout: verdict
    try:
        implementation = impls.load(impl, available=False)
    except impls.LoadError as e:
        sys.stderr.write(f"error: {e}\n")
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
    files, skipped = realfiles.walk(paths)
    chosen, left_out = realfiles.select(files, sample=sample, max_bytes=max_bytes, seed=seed)
    for path, why in skipped.items():
        console.print(f"[yellow]skipped[/] {path}: {why}", markup=True, highlight=False)
    if left_out:
        console.print(f"{len(chosen)} of {len(files)} real files taken (--sample / --max-bytes)")
    cells: list = []
    interrupted = None
    cross = impl_cells.start_cross() if implementation.name != "ours" and tier_choice == "all" else []
    try:
        with parallel.interruptible():
            _run_all(cells, skipped, seed, corpus_size, realfiles.pieces(chosen, max_bytes), families, jobs, console,
                     fail_fast)
    except parallel.Interrupted as e:
        impl_cells.terminate(cross)
        cross = []
        interrupted = e
        for c in cells:
            if c.status == "running":
                c.status, c.reason = "interrupted", f"{e} during this kernel"
        console.print(f"[bold yellow]interrupted by {e}[/]: partial results follow")
    if not families and not interrupted and not (fail_fast and any(c.status == "failed" for c in cells)):
        cells += surface_cells(implementation, seed)    # the read path and kernel selection: whole-job rows
    print_matrix(cells, console)
    unreadable = [f"{path}: {why}" for path, why in sorted(skipped.items())]
    if unreadable:
        console.print("skipped files (not compared):\n" + "\n".join(f"  {u}" for u in unreadable),
                      markup=False, highlight=False)
    differences = None
    if isinstance(implementation, audit.Counting):
        ran = [c for c in cells if c.levels]
        console.print(f"{len(ran)} family x kernel cells ran against {implementation.name} "
                      f"({implementation.calls} calls); levels per cell in the note column", highlight=False)
        differences = audit.kernel_differences(implementation, families)     # console and report alike
        for line in audit.format_differences(implementation, differences):
            console.print(line, markup=False, highlight=False)
        reports, cross_errors = impl_cells.finish_cross(cross)
        note = "the run was interrupted" if interrupted else ""
        impl_rows = [r for r in impl_cells.rows(implementation, cells, reports, note)
                     if not families or any(r.chunker in FAMILIES[f].chunkers for f in families)]
        console.print(f"{implementation.name}'s cells on every target (native / emulated (which emulator) / "
                      "not covered):\n" + impl_cells.format_rows(impl_rows), markup=False, highlight=False)
        console.print(impl_cells.summary(implementation.name, impl_rows), markup=False, highlight=False)
    else:
        impl_rows, cross_errors = [], []
    tier_rows = []
    stopped = fail_fast and any(c.status == "failed" for c in cells)
    if implementation.name == "ours" and not interrupted and not stopped:   # our kernels on other targets
        tier_rows = [r for r in tiers.extra_rows(tier_choice) if not families or r.family in families]
        console.print("other tiers (native / emulated (which emulator) / not covered):\n"
                      + tiers.format_rows(tier_rows), markup=False, highlight=False)
    report_failed = False
    if report:
        try:
            write_report(report, cells, seed, paths, tier_rows, unreadable, differences,
                         interrupted=str(interrupted) if interrupted else None, files=len(chosen),
                         files_left_out=left_out, impl_cells=[r._asdict() for r in impl_rows])
            console.print(f"report written to {report}")
        except OSError as e:    # checked writable before the run; a full disk shows only now
            print(f"error: the report could not be written to {report}: {e}", file=sys.stderr)
            report_failed = True
    failed = [c for c in cells if c.status == "failed"] + [r for r in tier_rows if r.result == "failed"]
    for c in failed:
        first = c.mismatches[0] if isinstance(c, Cell) else c.detail
        console.print(f"[bold red]FAILED[/] {c.family}/{c.kernel}: first reproducer:\n{first}")
        replay = f" --family {c.family}" if c.family in FAMILIES else ""     # read path / selection: whole job
        console.print(f"  replay: python -m conformance --seed {seed}{replay}", highlight=False)
    emulated_failed = [r for r in impl_rows if r.result == "failed" and r.coverage != "native"]
    for r in emulated_failed:
        console.print(f"[bold red]FAILED[/] {r.chunker}/{r.kernel} on {r.target} ({r.coverage}): {r.detail}")
    for line in cross_errors:       # a route that could not be set up: never a silent skip
        sys.stderr.write(f"error: {line}\n")
    if cross_errors:
        return 2
    if interrupted:
        return 128 + interrupted.signum
    return 1 if failed or emulated_failed or report_failed else 0
