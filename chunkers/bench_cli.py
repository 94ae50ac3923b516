"""The command-line ends of ``bench --against borg`` (chunkers.bench_borg) and ``tune``
(chunkers.tune): progress display, tables, JSON. Imports chunkers.cliutil, never chunkers.cli
(which imports this module)."""

from __future__ import annotations

import json

from chunkers.cliutil import UsageError, check_memory, unwritable
from chunkers.params import decimal


def _console(as_json: bool):
    from chunkers.console import PipeConsole
    return PipeConsole(stderr=as_json)


def against_borg(args) -> int:
    """Run chunkers.bench_borg and chunkers.bench's scan mode; print the tables (or one JSON object)."""
    from rich.table import Table

    from chunkers import bench, bench_borg
    from chunkers.tune import cpu_model
    try:
        bench_borg.borg_module()
    except ImportError as e:                  # exit 2 with how to get borg, before any work
        raise UsageError(str(e)) from None
    console = _console(args.json)
    with console.status("benchmark") as status:
        rows = bench_borg.measure(args.size << 20, args.repeat, args.seed, bench_borg.chunkers_of(args.family),
                                  progress=lambda s: status.update(f"running {s}"))
        scan = [] if args.no_scan else bench_borg.scan_vs_sequential(
            bench.measure(args.size << 20, args.seed, args.repeat, args.family, True,
                          progress=lambda s: status.update(f"running {s}")))
    ratio = bench_borg.ratios(rows)
    if args.json:
        print(json.dumps({"cpu": cpu_model(), "rows": rows, "ratios": ratio, "scan": scan}, indent=2))
        return 0
    title = f"{cpu_model()}: MB/s, {args.size} MiB seeded random data, best of {args.repeat} interleaved rounds"
    t = Table(title=title)
    for col in ("chunker", "feed", "ours", "MB/s", "borg", "MB/s ", "ours/borg"):
        t.add_column(col, justify="right" if "MB/s" in col or "/" in col else "left")
    for r in ratio:
        t.add_row(r["chunker"], r["feed"], r["ours"], f"{r['ours_mb_s']:.0f}", r["borg"], f"{r['borg_mb_s']:.0f}",
                  f"{r['ratio']:.2f}")
    console.print(t)
    t = Table(title="every run (MB/s)")
    for col in ("chunker", "impl", "kernel", "feed", "MB/s"):
        t.add_column(col, justify="right" if col == "MB/s" else "left")
    for r in rows:
        t.add_row(r["chunker"], r["impl"], r["kernel"], r["feed"], f"{r['mb_s']:.0f}")
    console.print(t)
    if scan:
        t = Table(title="scan every byte against the single sequential chain (MB/s)")
        for col in ("family", "kernel", "MB/s", "sequential", "MB/s ", "ratio"):
            t.add_column(col, justify="right" if "MB/s" in col or col == "ratio" else "left")
        for r in scan:
            t.add_row(r["family"], r["kernel"], f"{r['mb_s']:.0f}", r["sequential"], f"{r['sequential_mb_s']:.0f}",
                      f"{r['ratio']:.2f}")
        console.print(t)
    return 0


def cmd_tune(args) -> int:
    from chunkers import tune
    if args.size < 1 or args.rounds < 1:
        raise UsageError(f"tune needs --size >= 1 and --rounds >= 1, got {args.size} and {args.rounds}")
    check_memory("tune", args.size, 2)
    why = unwritable(args.out)        # before the measuring, not after it
    if why:
        raise UsageError(f"--out: cannot write {args.out!r} ({why})")
    console = _console(args.json)
    with console.status("tune") as status:
        mb_s = tune.measure(args.size << 20, args.rounds, progress=lambda s: status.update(f"measuring, {s}"))
        doc = tune.document(mb_s)
        tune.write(args.out, doc)   # before the status ends: its last write can find the output lost
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        for family, kernel in doc["defaults"].items():
            console.print(f"{family}: {kernel} ({mb_s[family][kernel]:.0f} MB/s; " +
                          ", ".join(f"{k} {v:.0f}" for k, v in mb_s[family].items()) + ")")
        console.print(f"wrote {args.out}; use it with CHUNKERS_DEFAULTS={args.out} or --defaults {args.out}")
    return 0


def add_tune(sub) -> None:
    t = sub.add_parser("tune", help="measure this machine's fastest kernels and write a defaults file")
    t.add_argument("--out", default="chunkers-defaults.json", help="file to write (default chunkers-defaults.json)")
    t.add_argument("--size", type=decimal, default=16, help="MiB of data per run (default 16)")
    t.add_argument("--rounds", type=decimal, default=7, help="interleaved rounds, best counts (default 7)")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_tune)
