"""``python -m vectors {regenerate,check}``: write or verify the golden vectors.

``regenerate [--chunker NAME] [--out DIR]`` computes every vector with every kernel of
ours that runs here and with the pure-Python model; if any two disagree it
prints the disagreements and writes nothing (exit 1). ``check [--chunker
NAME] [--model]`` recomputes the vectors with every runnable kernel (and the
model with ``--model``) and exits 1, with a readable diff, when a file is
invalid or differs from what regeneration would write.
"""

import os
import sys

from chunkers.clihelp import ArgumentParser
import vectors
from vectors.generate import check, regenerate


def main(argv=None) -> int:
    p = ArgumentParser(prog="python -m vectors", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("regenerate", help="compute and write the vector files (refuses on any disagreement)")
    c = sub.add_parser("check", help="exit 1 with a diff if a vector file drifted")
    for s in (r, c):
        s.add_argument("--chunker", action="append", choices=vectors.names(),
                       help="only this chunker (repeatable; default: all)")
    c.add_argument("--model", action="store_true", help="also recompute with the (slow) pure-Python model")
    r.add_argument("--dry-run", action="store_true", help="compute and compare, write nothing")
    r.add_argument("--out", metavar="DIR",
                   help="write <chunker>.json into DIR (an existing directory) instead of vectors/")
    args = p.parse_args(argv)
    if args.command == "regenerate" and args.out and not os.path.isdir(args.out):
        p.error(f"--out: not a directory: {args.out}")
    names = args.chunker or vectors.names()
    from rich.console import Console
    console = Console(stderr=True)
    with console.status("vectors") as status:
        def progress(name, i, n):
            status.update(f"{name}: case {i + 1}/{n}")
        if args.command == "regenerate":
            return regenerate(names, write=not args.dry_run, progress=progress, out_dir=args.out)
        return check(names, model=args.model, progress=progress)


if __name__ == "__main__":
    sys.exit(main())
