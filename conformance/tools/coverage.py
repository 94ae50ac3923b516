"""Line and branch coverage of the C kernels under the default test tier (ci/coverage.sh).

    python -m conformance.tools.coverage [--pytest-args ARGS] [--json FILE] [--no-run]

Builds the extensions with ``gcc --coverage -O0`` into build/coverage
(conformance.tools.buildtree; the in-place build is untouched), runs the default
pytest tier against that build, reads gcov's JSON for every object, merges
the counts per source line (a header line counts as covered when any object
that inlines it covered it) and prints per C file under chunkers/csrc: lines,
line coverage, branches, branch coverage, and the branches left.

The bar (exit status 1 when missed): at least BAR branch coverage on every C
file whose code runs on this CPU. Files of kernels this CPU cannot run
(``chunkers.kernels()``: e.g. avx512 and vaes without AVX-512, neon and
aes-arm64 off aarch64; they are checked in emulators instead) are reported
and not held to it. A branch that the default tier cannot reach is excused
only by an entry in EXCLUSIONS (ci/coverage-exclusions.txt: file, a piece of
the line's text, the reason), and every excused branch is listed with its
reason; an exclusion that matches no line is an error (stale).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from chunkers.clihelp import ArgumentParser
from conformance.tools.buildtree import REPO, Tree

BAR = 0.95
EXCLUSIONS = REPO / "ci" / "coverage-exclusions.txt"


def load_exclusions(path: Path = EXCLUSIONS) -> list[tuple[str, str, str]]:
    """(file relative to chunkers/csrc, line text fragment, reason) per non-comment line."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            parts = line.split("\t")
            if len(parts) != 3 or not all(p.strip() for p in parts):
                raise ValueError(f"{path}:{n}: expected FILE<TAB>LINE TEXT<TAB>REASON")
            out.append(tuple(p.strip() for p in parts))
    return out


def not_run_here() -> dict[str, str]:
    """C files (relative to chunkers/csrc) of kernels this CPU cannot run -> why."""
    import chunkers
    from chunkers.registry import rows
    out = {}
    for k in chunkers.kernels():
        source = next(r.source for r in rows(k.family) if r.name == k.kernel)    # its kernels.def row
        if not k.runs and source is not None:       # None: a single implementation, no C file of its own
            out[source] = k.reason or "does not run here"
    return out


def gcov_files(tree: Tree) -> list[dict]:
    """gcov's JSON ``files`` entries of every object of the build that has counts."""
    out = []
    for gcda in sorted(tree.obj.glob("*.gcda")):
        proc = subprocess.run(["gcov", "--json-format", "--stdout", "--branch-probabilities", str(gcda)],
                              cwd=tree.src, capture_output=True, text=True)
        for doc in filter(None, proc.stdout.splitlines()):
            out += json.loads(doc)["files"]
    return out


def merge(files: list[dict], src: Path) -> dict:
    """{csrc-relative file: {line: [count, [branch covered flags]]}} merged over objects."""
    csrc = (src / "chunkers" / "csrc").resolve()
    lines = defaultdict(dict)
    for f in files:
        path = (src / f["file"]).resolve()
        if csrc not in path.parents:
            continue
        rel = path.relative_to(csrc).as_posix()
        for ln in f["lines"]:
            n = ln["line_number"]
            cnt, br = lines[rel].get(n, (0, []))
            new = [b["count"] > 0 for b in ln.get("branches", []) if not b.get("throw")]
            if len(new) > len(br):
                br, new = new, br
            br = [a or (i < len(new) and new[i]) for i, a in enumerate(br)]
            lines[rel][n] = (cnt + ln["count"], br)
    return lines


def report(lines: dict, src: Path, exclusions, skip: dict) -> tuple[list[dict], list[str]]:
    """Rows per file and the problems (files under the bar, stale exclusions)."""
    rows, problems, used = [], [], set()
    for rel in sorted(lines):
        text = (src / "chunkers" / "csrc" / rel).read_text().splitlines()
        nlines = sum(1 for _ in lines[rel])
        hit_lines = sum(1 for c, _ in lines[rel].values() if c > 0)
        total = covered = 0
        left, excused = [], []
        for n, (cnt, br) in sorted(lines[rel].items()):
            if not br:
                continue
            miss = br.count(False)
            code = text[n - 1].strip() if n <= len(text) else ""
            why = [(i, r) for i, (f, frag, r) in enumerate(exclusions) if f == rel and frag in code]
            if miss and why:
                used.update(i for i, _ in why)
                excused.append(f"{rel}:{n}: {miss} of {len(br)} branches: {code}  -- {why[0][1]}")
                total += len(br) - miss
                covered += len(br) - miss
                continue
            total += len(br)
            covered += len(br) - miss
            if miss:
                left.append(f"{rel}:{n}: {miss} of {len(br)} branches not taken: {code}")
        rate = covered / total if total else 1.0
        held = rel not in skip
        if held and rate < BAR:
            problems.append(f"{rel}: branch coverage {100 * rate:.1f}% < {100 * BAR:.0f}%")
        rows.append(dict(file=rel, lines=nlines, line_rate=hit_lines / nlines if nlines else 1.0, branches=total,
                         branch_rate=rate, held=held, skip_reason=skip.get(rel, ""), left=left, excused=excused))
    for i, (f, frag, _) in enumerate(exclusions):
        if i not in used:
            problems.append(f"stale exclusion (no uncovered branch on a matching line): {f}: {frag}")
    return rows, problems


def print_rows(rows, problems) -> None:
    print(f"{'file':24} {'lines':>6} {'line%':>6} {'branches':>8} {'branch%':>8}  note")
    for r in rows:
        note = "not held to the bar: " + r["skip_reason"] if not r["held"] else ""
        print(f"{r['file']:24} {r['lines']:6} {100 * r['line_rate']:6.1f} {r['branches']:8} "
              f"{100 * r['branch_rate']:8.1f}  {note}")
    for r in rows:
        for item in r["excused"]:
            print("excused  " + item)
    for r in rows:
        if r["held"]:
            for item in r["left"]:
                print("left     " + item)
    for p in problems:
        print("PROBLEM  " + p)


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.tools.coverage", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(REPO / "build" / "coverage"), help="build tree (default build/coverage)")
    ap.add_argument("--pytest-args", default="-n 2", help="pytest arguments (default '-n 2')")
    ap.add_argument("--no-run", action="store_true", help="report the counts of an earlier run")
    ap.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    args = ap.parse_args(argv)
    try:
        exclusions = load_exclusions()
    except (OSError, ValueError) as e:
        ap.error(str(e))
    tree = Tree(args.root, cc="gcc", cflags="--coverage -O0", ldflags="--coverage")
    if not args.no_run:
        tree.sync()
        tree.build()
        for gcda in tree.obj.glob("*.gcda"):
            gcda.unlink()
        proc = tree.run("-m", "pytest", "-q", "-p", "no:cacheprovider", *args.pytest_args.split())
        print(proc.stdout[-1500:])
        if proc.returncode:
            print(f"the default tier failed under the coverage build (exit {proc.returncode})")
            return 1
    skip_proc = tree.run("-c", "import json; from conformance.tools.coverage import not_run_here; "
                               "print(json.dumps(not_run_here()))")
    skip = json.loads(skip_proc.stdout) if skip_proc.returncode == 0 else {}
    rows, problems = report(merge(gcov_files(tree), tree.src), tree.src, exclusions, skip)
    print_rows(rows, problems)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
