"""Command line: ``python -m chunkers {cut,kernels,bench}``.

``cut`` prints one chunk size per line (or a JSON object), ``kernels`` the
kernel inventory, ``bench`` the throughput of every kernel that runs here.
Exit status: 0 success, 1 runtime failure (unreadable file, ...), 2 usage
error (bad parameters, key or kernel name).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import chunkers
from chunkers import bench as bench_mod
from chunkers.params import parse_params


class UsageError(Exception):
    """A bad command-line value: reported on stderr with exit status 2."""


def _key(text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"--key must be hex, got {text!r}") from None
    if len(key) != 32:
        raise UsageError(f"--key must be 32 bytes (64 hex digits), got {len(key)} bytes")
    return key


KEYLESS = ("buzhash", "fixed")
"""Chunkers that take no key (buzhash takes a seed instead, fixed neither)."""


def _chunker(args):
    params = parse_params(args.params)
    name = "fastcdc" if params[0] == "default" else params[0]
    if args.key is not None and name in KEYLESS:
        raise UsageError(f"--key: {name} takes no key" + (" (it takes --seed)" if name == "buzhash" else ""))
    if args.seed is not None and name != "buzhash":
        raise UsageError(f"--seed: only the legacy buzhash takes a seed, not {name}")
    try:
        return params, chunkers.make_chunker(params, key=_key(args.key), seed=args.seed or 0,
                                             kernel=args.kernel, sparse=args.sparse)
    except (ValueError, OverflowError) as e:
        raise UsageError(f"{name}: {e}") from None


def cmd_cut(args) -> int:
    try:
        params, chunker = _chunker(args)
    except (ValueError, OverflowError) as e:     # from parse_params: the message names the chunker
        raise UsageError(str(e)) from None
    if args.file == "-":
        if sys.stdin is None:
            raise UsageError("standard input is closed")
        sizes = [c.size for c in chunker.chunkify(sys.stdin.buffer)]
    else:
        with open(args.file, "rb") as f:
            sizes = [c.size for c in chunker.chunkify(f)]
    if args.json:
        print(json.dumps({"chunker": chunker.name, "kernel": chunker.kernel, "params": list(params),
                          "sizes": sizes}))
    else:
        sys.stdout.write("".join(f"{s}\n" for s in sizes))
    return 0


def cmd_kernels(args) -> int:
    rows = chunkers.kernels()
    if args.json:
        print(json.dumps([r._asdict() for r in rows], indent=2))
        return 0
    for r in rows:
        status = "runs" if r.runs else f"cannot run: {r.reason}; verification: {r.coverage}"
        print(f"{r.family:<10} {r.kernel:<10} {'default' if r.default else '':<8} {status}")
    return 0


def cmd_bench(args) -> int:
    if args.size < 1 or args.repeat < 1:
        raise UsageError(f"bench needs --size >= 1 and --repeat >= 1, got {args.size} and {args.repeat}")
    if args.against:
        from chunkers import bench_cli
        return bench_cli.against_borg(args)
    bench_mod.run(size=args.size << 20, seed=args.seed, repeat=args.repeat, families=args.family,
                  scan=not args.no_scan, as_json=args.json)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m chunkers", description=__doc__.splitlines()[0])
    p.add_argument("--defaults", metavar="FILE", help="kernel defaults written by `tune` (sets CHUNKERS_DEFAULTS)")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cut", help="print the chunk sizes of a file")
    c.add_argument("--params", required=True, help="chunker params, e.g. fastcdc,19,23,21,2")
    c.add_argument("--key", help="chunker key, 64 hex digits (default: 32 zero bytes)")
    c.add_argument("--seed", type=int, help="legacy buzhash seed, a C int (default 0)")
    c.add_argument("--kernel", help="scan kernel name (default: the env var or the platform default)")
    c.add_argument("--sparse", action="store_true", help="read file holes as zeros without reading them")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("file", help="input file, or - for standard input")
    c.set_defaults(func=cmd_cut)
    k = sub.add_parser("kernels", help="list every kernel, whether it runs here and why not")
    k.add_argument("--json", action="store_true")
    k.set_defaults(func=cmd_kernels)
    b = sub.add_parser("bench", help="MB/s of every runnable kernel on seeded random data in memory")
    b.add_argument("--size", type=int, default=64, help="MiB of data (default 64)")
    b.add_argument("--seed", type=int, default=0, help="seed of the random data (default 0)")
    b.add_argument("--repeat", type=int, default=3, help="runs per kernel, best counts (default 3)")
    b.add_argument("--family", action="append", choices=sorted(bench_mod.BENCH_PARAMS),
                   help="only this family (repeatable; aes = the three AES chunkers)")
    b.add_argument("--no-scan", action="store_true", help="skip the scan-every-byte mode")
    b.add_argument("--json", action="store_true")
    b.add_argument("--against", choices=["borg"], help="side by side with the importable borg.chunkers")
    b.set_defaults(func=cmd_bench)
    from chunkers import bench_cli
    bench_cli.add_tune(sub)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.defaults is not None:
            from chunkers import defaults
            defaults.load(args.defaults)              # a bad file is a usage error before any work
            os.environ[defaults.ENV] = args.defaults
        return args.func(args)
    except (UsageError, ValueError) as e:    # ValueError: e.g. a bad CHUNKERS_* environment variable
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as e:     # RuntimeError: the AES chunkers' OpenSSL failed mid-stream
        print(f"error: {e}", file=sys.stderr)
        return 1
    except MemoryError:                      # e.g. bench --size larger than this machine's memory
        print("error: out of memory", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
