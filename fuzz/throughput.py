"""Executions per CPU-second of fuzz targets, this tree against another, back to back.

    python -m fuzz.throughput OTHER_TREE [TARGET ...] [--runs N1 N2] [--reps R]

``OTHER_TREE``: a checkout of another revision (``git worktree add`` or ``git archive | tar -x``)
with its own instrumented build (``python -m fuzz build`` run inside it). Each target (default: the
five scan targets) runs under libFuzzer ``-runs=N -seed=1`` from a copy of each tree's own seed
corpus, for N1 and N2 runs; the marginal rate ``(N2 - N1) / (cpu(N2) - cpu(N1))`` (user + system
CPU seconds of the target process) leaves out start-up and the seed-corpus pass. The two trees
alternate R times, so load on the machine hits both alike; printed: every rate, and the ratio of
the medians (this tree / other). Exit status 2 for a tree without a build, 1 when a run fails.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from fuzz import build as fbuild
from fuzz import targets

SCAN_TARGETS = [t for t in targets.TARGETS if t.startswith("scan_diff_")]


def _env(tree: Path) -> dict:
    """The fuzz run environment (fuzz/build.py run_env, pymalloc as the scan targets) for ``tree``."""
    build = tree / "fuzz" / "build" / "asan"
    env = fbuild.run_env(build, pymalloc=True)
    env["PYTHONPATH"] = os.pathsep.join([str(build), str(tree)])
    return env


def _seed_corpus(tree: Path, name: str, into: Path) -> None:
    """Write the seeds of ``tree``'s target ``name`` into ``into`` (by SHA-1, like libFuzzer)."""
    code = ("import hashlib, os, sys\nfrom fuzz import targets\n"
            "for s in targets.load(sys.argv[1]).seeds():\n"
            "    open(os.path.join(sys.argv[2], hashlib.sha1(s).hexdigest()), 'wb').write(s)\n")
    subprocess.run([sys.executable, "-c", code, name, str(into)], env=_env(tree), cwd=into, check=True,
                   stderr=subprocess.DEVNULL)


def _cpu_seconds(tree: Path, name: str, corpus: Path, runs: int, work: Path) -> float:
    """CPU seconds of one libFuzzer run of ``runs`` executions from a fresh copy of ``corpus``."""
    copy = work / "corpus"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(corpus, copy)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, str(tree / "fuzz" / f"{name}.py"), f"-runs={runs}", "-seed=1",
                           f"-max_len={targets.TARGETS[name].max_len}", "-timeout=30", "-rss_limit_mb=4096",
                           str(copy)], env=_env(tree), cwd=work, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.stderr.write(proc.stderr[-4000:])
        raise RuntimeError(f"{name} in {tree} exited with status {proc.returncode}")
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.throughput", description=__doc__.split("\n\n")[0])
    ap.add_argument("other", type=Path, help="the other tree (with fuzz/build/asan)")
    ap.add_argument("targets", nargs="*", default=SCAN_TARGETS)
    ap.add_argument("--runs", nargs=2, type=int, default=(2000, 12000), metavar=("N1", "N2"))
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    trees = {"other": args.other.resolve(), "this": fbuild.ROOT}
    for tree in trees.values():
        if not (tree / "fuzz" / "build" / "asan" / "BUILD_INFO.json").exists():
            print(f"error: no instrumented build in {tree}: run python -m fuzz build there", file=sys.stderr)
            return 2
    n1, n2 = args.runs
    if not 0 < n1 < n2:
        print("error: --runs needs 0 < N1 < N2", file=sys.stderr)
        return 2
    for name in args.targets:
        if name not in targets.TARGETS:
            print(f"error: unknown target {name!r}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="fuzz-throughput-") as tmp:
        work = Path(tmp)
        try:
            for name in args.targets:
                rates: dict = {label: [] for label in trees}
                corpora = {}
                for label, tree in trees.items():
                    corpora[label] = work / f"seeds-{label}"
                    corpora[label].mkdir()
                    _seed_corpus(tree, name, corpora[label])
                for _ in range(args.reps):
                    for label, tree in trees.items():
                        t1, t2 = (_cpu_seconds(tree, name, corpora[label], n, work) for n in (n1, n2))
                        rates[label].append((n2 - n1) / (t2 - t1))
                for corpus in corpora.values():
                    shutil.rmtree(corpus)
                med = {label: statistics.median(r) for label, r in rates.items()}
                print(f"{name}: other {[round(r) for r in rates['other']]} this {[round(r) for r in rates['this']]}"
                      f" exec per CPU-s; median ratio this/other {med['this'] / med['other']:.2f}", flush=True)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
