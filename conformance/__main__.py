"""The main job: ``python -m conformance [PATH ...]``.

Runs every chunker family x kernel over the built-in deterministic corpus (the
adversarial scan catalogue and chunk-level inputs, seeded by ``--seed``) and
over every regular file under the given paths, compares each kernel with its
family's reference kernel and the reference with the pure-Python model, runs
every golden vector (vectors/) on every kernel, prints the matrix and exits 1
on any mismatch (printing a minimal reproducer). ``--impl NAME`` checks
another implementation instead (``borg``, ``model`` or ``module:attribute``,
see vectors.impls): its kernels run the vectors and the chunk-level
comparisons against our chunkers; an implementation that cannot be loaded
is an error (one line, exit 2) unless ``--allow-missing`` skips the run.
Real files are read in bounded pieces;
files that change during the run and special files are listed as skipped;
off a terminal, progress lines go to stderr; SIGINT / SIGTERM print and
write what ran so far (exit 128 + signal). A kernel that reads past its span
faults at a guard page (SIGSEGV, with the Python stack on stderr). Exit status 2 for bad arguments,
checked before any work.
"""

import argparse
import faulthandler
import os
import sys

from chunkers.cliutil import short_of_memory, unwritable
from chunkers.clihelp import ArgumentParser
from chunkers.params import decimal
from conformance.cases.families import FAMILIES
from conformance.run.job import run
from conformance.run.realfiles import check_path
from conformance.tools.tiers import TIERS


def _size(text: str) -> int:
    try:
        n = decimal(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _bytes(text: str) -> int:
    """A byte count with an optional K, M or G suffix (powers of 1024), at least 1."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    try:
        n = decimal(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a byte count such as 500M, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return n


MAX_CORPUS = 1 << 27
"""--corpus-size limit in bytes (128 MiB; random.randbytes takes less than 256 MiB at once)."""


def _corpus_too_large(size: int, jobs: int) -> str | None:
    """Why --corpus-size cannot be built here, or None: each worker holds one input per pattern
    (catalogue.PATTERNS) and about two more in flight (a chunk run's copy and its model's)."""
    from conformance.cases.catalogue import PATTERNS
    if size > MAX_CORPUS:
        return f"--corpus-size {size}: at most {MAX_CORPUS} bytes (128 MiB) per input"
    why = short_of_memory((len(PATTERNS) + 2) * size * max(1, jobs))
    return f"--corpus-size {size} with --jobs {jobs} {why}" if why else None


def _unused_options(args) -> str | None:
    """An option given where it would have no effect (never silently ignored), or None."""
    if args.builds is not None:
        given = [name for name, value, default in (
            ("paths", args.paths, []), ("--report", args.report, None), ("--tiers", args.tiers, "native"),
            ("--impl", args.impl, "ours"), ("--max-bytes", args.max_bytes, None), ("--sample", args.sample, None),
            ("--jobs", args.jobs, 1), ("--fail-fast", args.fail_fast, False),
            ("--allow-missing", args.allow_missing, False)) if value != default]
        if given:
            return (f"--builds runs each build's job on the built-in corpus (--seed, --corpus-size, --family); "
                    f"it does not take {', '.join(given)}")
    if args.allow_missing and args.impl == "ours":
        return "--allow-missing applies only with --impl (another implementation that may be missing)"
    if args.tiers != "native" and args.impl != "ours":
        from conformance.run.impl_cells import cross_available
        return cross_available(args.impl)
    if (args.sample or args.max_bytes) and not args.paths:
        return "--sample and --max-bytes choose among real files: give the paths"
    return None


def main(argv=None) -> int:
    p = ArgumentParser(prog="python -m conformance", description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="*", help="files or directories of real input (every regular file below; FIFOs, sockets, devices and dangling symlinks met in a walk are skipped and listed)")
    p.add_argument("--seed", type=decimal, default=1, help="seed of the built-in corpus (default 1)")
    p.add_argument("--corpus-size", type=_size, default=1 << 20, help="bytes per built-in corpus input")
    p.add_argument("--report", metavar="FILE", help="write a JSON report")
    p.add_argument("--family", action="append", choices=list(FAMILIES), help="only this family (repeatable)")
    p.add_argument("--tiers", choices=TIERS, default="native",
                   help="native (default): kernels this CPU cannot run are emulated where possible, other targets "
                        "are listed as not covered; all: also every emulator route (bochscpu for native kernels "
                        "too, qemu-user aarch64 and big-endian s390x via ci/cross-run; with --impl borg: borg cross-built "
                        "under qemu-aarch64 and qemu-s390x, ci/borg-cross.sh)")
    p.add_argument("--max-bytes", type=_bytes, metavar="N[K|M|G]",
                   help="take at most N bytes of real files in all (the first files in path order; a large tree)")
    p.add_argument("--sample", type=_size, metavar="N", help="take a sample of N real files (seeded by --seed)")
    p.add_argument("--jobs", type=_size, default=1, metavar="N", help="worker processes, one family each (default 1)")
    p.add_argument("--impl", default="ours", help="implementation under test: ours (default), borg, model or "
                                                  "module:attribute")
    p.add_argument("-x", "--fail-fast", action="store_true",
                   help="stop at the first failed family x kernel cell (the matrix then lists the cells run so far)")
    p.add_argument("--allow-missing", action="store_true",
                   help="with --impl: skip the run (exit 0) if the implementation is not available here, "
                        "instead of exit status 2")
    p.add_argument("--builds", metavar="LIST", help="build matrix: compile the extensions with each build of LIST "
                                                    "(e.g. gcc-O0,gcc-O3,clang-O2) into build/builds/, run the job in "
                                                    "each, require identical results, report MB/s (conformance.tools.builds)")
    args = p.parse_args(argv)
    for path in args.paths:
        problem = check_path(path)
        if problem:
            p.error(problem)
    why = args.report is not None and unwritable(args.report)
    problem = f"--report: cannot write {args.report!r} ({why})" if why else _unused_options(args) or \
        _corpus_too_large(args.corpus_size, args.jobs)
    if problem:
        p.error(problem)
    if args.builds is not None:        # --builds "" names no build: an error, not the plain job
        from conformance.tools import builds
        try:
            builds.parse_builds(args.builds)
        except ValueError as e:
            p.error(f"--builds: {e}")
        return builds.run(args.builds, seed=args.seed, corpus_size=args.corpus_size, families=args.family)
    return run(args.paths, seed=args.seed, corpus_size=args.corpus_size, report=args.report,
               families=args.family, tier_choice=args.tiers, impl=args.impl, allow_missing=args.allow_missing,
               sample=args.sample, max_bytes=args.max_bytes, jobs=args.jobs, fail_fast=args.fail_fast)


if __name__ == "__main__":
    faulthandler.enable()       # a kernel reading past a guarded span (families.GUARD): the stack names the scan
    sys.exit(main())
