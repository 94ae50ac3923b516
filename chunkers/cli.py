"""Command line: python -m chunkers {cut,kernels,bench,tune}.

cut prints one line per chunk as it is cut (size, or offset, size, all-zero
flag and SHA-256 as CSV or JSON lines), kernels the kernel inventory, bench
the throughput of every kernel that runs here, tune a defaults file of this
machine's fastest kernels. Exit status: 0 success, 1
runtime failure (unreadable file, ...), 2 usage error (bad parameters, key or
kernel name), 130 interrupted, 141 standard output closed (see clihelp).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import platform
import stat
import sys

import chunkers
from chunkers import bench as bench_mod, clihelp, registry
from chunkers.api import check_credentials
from chunkers.clihelp import ArgumentParser
from chunkers.cliutil import UsageError, check_memory
from chunkers.params import decimal, parse_params, resolved


FORMATS = ("sizes", "csv", "jsonl")
"""cut --format choices (see _line)."""


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


def _chunker(args):
    params = resolved(parse_params(args.params))        # --json reports what `default` stands for
    name = params[0]
    check_credentials(params, args.key, args.seed, flags=True)   # before --key's hex is read
    try:
        return params, chunkers.make_chunker(params, key=_key(args.key), seed=args.seed,
                                             kernel=args.kernel, sparse=args.sparse)
    except (ValueError, OverflowError) as e:
        raise UsageError(f"{name}: {e}") from None


def _rows(chunker, f):
    """(offset, chunk) for each chunk of the open binary file ``f``, as it is cut."""
    offset = 0
    for chunk in chunker.chunkify(f):
        yield offset, chunk
        offset += chunk.size


def _escaped(name: str) -> str:
    """A file name for a 'NAME: SIZE' line, as sha256sum writes it: a name holding a backslash, newline or
    carriage return gets them as \\\\, \\n, \\r and the line a leading backslash, so every line is one chunk."""
    if not any(c in name for c in "\\\n\r"):
        return name
    return "\\" + name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def _line(fmt: str, name: str | None, offset: int, chunk) -> str:
    """One output line of ``cut`` for a chunk (see the --format help)."""
    if fmt == "sizes":
        return f"{_escaped(name)}: {chunk.size}\n" if name is not None else f"{chunk.size}\n"
    digest = hashlib.sha256(chunk.tobytes()).hexdigest()
    if fmt == "csv":            # the csv module quotes a file name holding a comma, quote or newline
        row = io.StringIO()
        csv.writer(row, lineterminator="\n").writerow([name or "", offset, chunk.size, int(chunk.all_zero), digest])
        return row.getvalue()
    return json.dumps({"file": name, "offset": offset, "size": chunk.size, "all_zero": chunk.all_zero,
                       "sha256": digest}) + "\n"


def _cut_file(args, params, chunker, path: str, name: str | None) -> None:
    """Cut one file (``-``: standard input), printing as it goes; OSError when it cannot be read, or
    when a regular file changed while it was read (the cuts printed so far describe neither version)."""
    if path == "-":
        if sys.stdin is None:
            raise UsageError("standard input is closed")
        f = sys.stdin.buffer
    else:
        f = open(path, "rb")
    with f:
        st, start = _stat(f), _position(f)
        total = 0
        if args.json:           # one object per file: the sizes cannot be streamed inside it
            sizes = [c.size for c in chunker.chunkify(f)]
            _check_unchanged(path, f, st, start + sum(sizes))
            print(json.dumps({"chunker": chunker.name, "kernel": chunker.kernel, "params": list(params),
                              **({"file": path} if name is not None else {}), "sizes": sizes}), flush=True)
            return
        for offset, chunk in _rows(chunker, f):      # each line as soon as its chunk is cut
            sys.stdout.write(_line(args.format, name, offset, chunk))
            sys.stdout.flush()
            total = offset + chunk.size
        _check_unchanged(path, f, st, start + total)


def _stat(f) -> os.stat_result | None:
    """The stat of ``f``'s descriptor, or None where it has none (a replaced sys.stdin)."""
    try:
        return os.fstat(f.fileno())
    except (OSError, ValueError):       # io.UnsupportedOperation is both
        return None


def _position(f) -> int:
    """The file offset of ``f`` where reading starts (standard input may be a file read from the middle);
    0 where it has none (a pipe, no descriptor)."""
    try:
        return os.lseek(f.fileno(), 0, os.SEEK_CUR)
    except (OSError, ValueError):
        return 0


def _check_unchanged(path: str, f, st: os.stat_result | None, end: int) -> None:
    """OSError when the regular file ``f`` (``st``: its stat when opened) was written while it was
    read (its modification time moved: written in place, as far as the file system's timestamps
    tell), changed size, or reading stopped at offset ``end`` short of its size. Pseudo files are no
    change: /proc files report size 0 while bytes come, sysfs files 4096 with fewer bytes, and
    neither has a block on disk (a regular file without blocks, all hole, reads as zeros to its size)."""
    if st is None or not stat.S_ISREG(st.st_mode):
        return
    now = os.fstat(f.fileno())
    if now.st_size != st.st_size or (end < st.st_size and st.st_blocks) or now.st_mtime_ns != st.st_mtime_ns:
        how = "written" if now.st_size == st.st_size and end == st.st_size else "changed size"
        raise OSError(f"{path}: {how} while it was read ({st.st_size} bytes when opened, {now.st_size} at the "
                      f"end, read up to byte {end}): its cuts are not those of any one version of the file")


def _file_error(path: str, e: OSError) -> str:
    """One line for a file that could not be cut, naming it once."""
    text = str(e)
    return text if getattr(e, "filename", None) is not None or text.startswith(f"{path}:") else f"{path}: {text}"


def cmd_cut(args) -> int:
    try:
        params, chunker = _chunker(args)
    except (ValueError, OverflowError) as e:     # from parse_params: the message names the chunker
        raise UsageError(str(e)) from None
    if args.json and args.format != "sizes":
        raise UsageError("--json and --format are alternatives: use --format jsonl for one object per chunk")
    if args.files.count("-") > 1:
        raise UsageError("- (standard input) can be named only once: it is read to its end")
    several = len(args.files) > 1
    if args.format == "csv":
        sys.stdout.write("file,offset,size,all_zero,sha256\n")
    status = 0
    for path in args.files:     # a file that cannot be cut is reported and the others are still cut
        try:
            _cut_file(args, params, chunker, path, path if several or args.format != "sizes" else None)
        except OSError as e:
            if isinstance(e, BrokenPipeError):
                raise
            sys.stdout.flush()  # its lines so far before the error, in the order they happened
            print(f"error: {_file_error(path, e)}", file=sys.stderr)
            status = 1
    return status


def cmd_kernels(args) -> int:
    for family in registry.families():     # a bad CHUNKERS_*_KERNEL value: exit 2 saying so, not a clean list
        registry.resolve(family)
    rows = chunkers.kernels()
    if args.json:
        print(json.dumps([r._asdict() for r in rows], indent=2))
        return 0
    from chunkers.kerneltable import cpu_features
    from chunkers.tune import cpu_model
    # the CPU first: a pasted inventory then says which machine it is from (features as detected,
    # before CHUNKERS_CPU_HIDE, which the rows below honour)
    print(f"CPU: {cpu_model() or 'unknown'} ({platform.machine()}); features: "
          f"{' '.join(sorted(cpu_features())) or 'none'}")
    width = max(len(r.kernel) for r in rows)
    for r in rows:
        # without the suite loaded no emulator is registered: say where coverage is reported
        check = r.coverage if registry.emulators() else "see python -m conformance.tools.tiers"
        status = "runs" if r.runs else f"cannot run: {r.reason}; verification: {check}"
        print(f"{r.family:<10} {r.kernel:<{width}} {'default' if r.default else '':<8} {status}")
    return 0


def cmd_bench(args) -> int:
    if args.size < 1 or args.repeat < 1:
        raise UsageError(f"bench needs --size >= 1 and --repeat >= 1, got {args.size} and {args.repeat}")
    check_memory("bench", args.size, 3 if args.against else 2)   # data, its file (/dev/shm) or copy
    if args.against:
        from chunkers import bench_cli
        return bench_cli.against_borg(args)
    bench_mod.run(size=args.size << 20, seed=args.seed, repeat=args.repeat, families=args.family,
                  scan=not args.no_scan, as_json=args.json)
    return 0


def parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="python -m chunkers", description=__doc__.splitlines()[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=clihelp.epilog())
    p.add_argument("--defaults", metavar="FILE", help="kernel defaults written by `tune` (sets CHUNKERS_DEFAULTS)")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cut", help="cut files into chunks, one line per chunk as it is cut",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=clihelp.epilog())
    c.add_argument("--params", required=True, help="chunker params, e.g. fastcdc,19,23,21,2")
    c.add_argument("--key", help="chunker key, 64 hex digits (default: 32 zero bytes)")
    c.add_argument("--seed", type=decimal, help="legacy buzhash seed, a C int (default 0)")
    c.add_argument("--kernel", help="scan kernel name (default: the env var or the platform default)")
    c.add_argument("--sparse", action="store_true", help="read file holes as zeros without reading them")
    c.add_argument("--format", choices=FORMATS, default="sizes",
                   help="sizes (default): the size per line (prefixed 'FILE: ' with several files; a name "
                        "with a backslash or line break is escaped as sha256sum does); csv: a "
                        "header, then file,offset,size,all_zero (0/1),sha256 per chunk; jsonl: one JSON object "
                        "per chunk with those keys")
    c.add_argument("--json", action="store_true", help="print one JSON object per file with every size (printed "
                                                         "once the file is cut)")
    c.add_argument("files", nargs="+", metavar="FILE", help="input files, - for standard input")
    c.set_defaults(func=cmd_cut)
    k = sub.add_parser("kernels", help="list every kernel, whether it runs here and why not")
    k.add_argument("--json", action="store_true")
    k.set_defaults(func=cmd_kernels)
    b = sub.add_parser("bench", help="MB/s of every runnable kernel on seeded random data in memory")
    b.add_argument("--size", type=decimal, default=64, help="MiB of data, any size that fits in memory (default 64)")
    b.add_argument("--seed", type=decimal, default=0, help="seed of the random data (default 0)")
    b.add_argument("--repeat", type=decimal, default=3, help="runs per kernel, best counts (default 3)")
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
    """The command line; the exit status (0, 1: a file could not be read or cut, 2: bad usage,
    130: interrupted, 141: standard output closed)."""
    closed = {name: getattr(sys, name) is None for name in ("stdout", "stderr")}
    for name, is_closed in closed.items():      # started with `>&-`: write nowhere, not to None
        if is_closed:
            setattr(sys, name, open(os.devnull, "w"))
    try:
        status = _main(argv)
        return 141 if closed["stdout"] and status == 0 else status   # the work is done, its output lost
    except SystemExit as e:                     # --help: printed to /dev/null when stdout was closed
        if closed["stdout"] and e.code == 0:
            return 141
        raise
    finally:
        for name, is_closed in closed.items():
            if is_closed:
                getattr(sys, name).close()
                setattr(sys, name, None)


def _main(argv) -> int:
    args = parser().parse_args(argv)
    try:
        if args.defaults is not None:
            registry.loaded(args.defaults, "--defaults")    # a bad file is a usage error before any work
            os.environ[registry.DEFAULTS_ENV] = args.defaults
        status = args.func(args)
        sys.stdout.flush()          # a closed pipe shows here for output still buffered
        return status
    except BrokenPipeError:                  # the reader went away (| head): stop quietly
        return _closed_stdout()
    except (UsageError, ValueError) as e:    # ValueError: e.g. a bad CHUNKERS_* environment variable
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as e:     # RuntimeError: the AES chunkers' OpenSSL failed mid-stream
        print(f"error: {e}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as e:         # e.g. bench --against borg run by a borg venv's Python
        print(f"error: {e} in {sys.executable}: install this project's requirements there, or put "
              "them on PYTHONPATH (docs/benchmarks.md, Side by side with borg)", file=sys.stderr)
        return 2
    except MemoryError:                      # e.g. bench --size larger than this machine's memory
        print("error: out of memory", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _closed_stdout() -> int:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again; exit 141."""
    from chunkers.console import to_devnull
    to_devnull(sys.stdout)
    return 141
