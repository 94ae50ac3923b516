"""The main job: ``python -m conformance [PATH ...]``.

Runs every chunker family x kernel over the built-in deterministic corpus (the
adversarial scan catalogue and chunk-level inputs, seeded by ``--seed``) and
over every regular file under the given paths, compares each kernel with its
family's reference kernel and the reference with the pure-Python model, runs
every golden vector (vectors/) on every kernel, prints the matrix and exits 1
on any mismatch (printing a minimal reproducer). ``--impl NAME`` checks
another implementation instead (``borg``, ``model`` or ``module:attribute``,
see conformance.impls): its kernels run the vectors and the chunk-level
comparisons against our chunkers; an implementation that is not installed
is skipped with a message (exit 0).
"""

import argparse
import os
import sys

from conformance.families import FAMILIES
from conformance.job import run
from conformance.tiers import TIERS


def _size(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m conformance", description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="*", help="files or directories of real input (every regular file below)")
    p.add_argument("--seed", type=int, default=1, help="seed of the built-in corpus (default 1)")
    p.add_argument("--corpus-size", type=_size, default=1 << 20, help="bytes per built-in corpus input")
    p.add_argument("--report", metavar="FILE", help="write a JSON report")
    p.add_argument("--family", action="append", choices=list(FAMILIES), help="only this family (repeatable)")
    p.add_argument("--tiers", choices=TIERS, default="native",
                   help="native (default): kernels this CPU cannot run are emulated where possible, other targets "
                        "are listed as not covered; all: also every emulator route (bochscpu for native kernels "
                        "too, qemu-user aarch64 and big-endian s390x via ci/cross-run)")
    p.add_argument("--impl", default="ours", help="implementation under test: ours (default), borg, model or "
                                                  "module:attribute")
    p.add_argument("--builds", metavar="LIST", help="build matrix: compile the extensions with each build of LIST "
                                                    "(e.g. gcc-O0,gcc-O3,clang-O2) into build/builds/, run the job in "
                                                    "each, require identical results, report MB/s (conformance.builds)")
    args = p.parse_args(argv)
    for path in args.paths:
        if not os.path.exists(path):
            p.error(f"no such file or directory: {path}")
    if args.report and not os.access(os.path.dirname(os.path.abspath(args.report)), os.W_OK):
        p.error(f"--report: cannot write into the folder of {args.report}")
    if args.builds:
        from conformance import builds
        return builds.run(args.builds, seed=args.seed, corpus_size=args.corpus_size, families=args.family)
    return run(args.paths, seed=args.seed, corpus_size=args.corpus_size, report=args.report,
               families=args.family, tier_choice=args.tiers, impl=args.impl)


if __name__ == "__main__":
    sys.exit(main())
