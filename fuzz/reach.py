"""``python -m fuzz reach``: the kernels' branch coverage reached by fuzzing alone.

``reach [--time S] [--corpus DIR] [-v] [TARGET...]`` (default: every scan target,
``scan_diff_*``) fuzzes each target for S seconds (a campaign of the ``asan``
build, fuzz/campaign.py, from its seeds into a fresh corpus under
fuzz/artifacts/reach/), or with ``--corpus DIR`` takes an existing corpus
instead (DIR/TARGET/ where DIR has the layout of fuzz/corpus/, else DIR itself
for every target named); then replays every corpus file under the
``coverage`` build (fuzz/build.py, clang source-based coverage), merges the
profiles of all targets and prints one line per kernel source file that runs
on this CPU (the C file of each kernel that runs here and the headers it
includes, fuzz/llvmcov.py):

    <path> <covered>/<total> branches (<pct> %)[ below 90 %]

(``0/0 branches (no branches of its own)`` for a file whose code is all in a header it includes.)

A branch counts twice (taken, not taken), as llvm-cov counts it. ``-v`` lists
each uncovered direction as ``<path>:<line> (true|false never)``.

Bad input is one ``error:`` line and exit 2 (:class:`BadInput`, a LookupError
for fuzz/__main__.py): an unknown target, a corpus directory that does not
exist, no coverage build. A corpus file that cannot be read or decoded is
skipped and listed (``skipped <path>: <why>``); the report is still printed
and the exit status is then 2.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from fuzz import build as fbuild
from fuzz import campaign, llvmcov, targets

WORK = campaign.ARTIFACT_ROOT / "reach"
THRESHOLD = 90.0            # percent of branches a kernel file should reach (issue 32)


class BadInput(LookupError):
    """One line for the user (exit 2)."""


def scan_targets() -> list[str]:
    return [n for n in targets.TARGETS if n.startswith("scan_diff_")]


def family_of(target: str) -> str:
    """The kernel registry family a scan target checks (fastcdc, buzhash64, buzhash, aes)."""
    from fuzz.scan_diff import FAMILIES
    return FAMILIES[target[len("scan_diff_"):]].registry_family


def kernel_files(families) -> list[str]:
    """The kernel sources of ``families`` that run on this CPU, repository-relative: each runnable
    kernel's C file (chunkers.registry) and the headers it includes."""
    from chunkers.registry import rows
    from fuzz.harness import kernel_inventory
    seen: set = set()
    for family in families:
        runs = set(kernel_inventory(family)[0])
        for k in rows(family):
            if k.source and k.name in runs:
                llvmcov.includes((llvmcov.CSRC / k.source).resolve(), seen)
    return sorted(str(p.relative_to(fbuild.ROOT)) for p in seen if p.suffix in (".c", ".h"))


def _corpus_dirs(names: list, corpus: Path) -> dict:
    """``{target: corpus directory}`` of ``--corpus DIR`` (BadInput when DIR is missing)."""
    if not corpus.is_dir():
        raise BadInput(f"--corpus {corpus}: no such directory")
    layout = {n: corpus / n for n in names if (corpus / n).is_dir()}
    return layout or {n: corpus for n in names}


def _campaigns(names: list, seconds: int) -> tuple[dict, list]:
    """Fuzz each target ``seconds`` into a fresh corpus under WORK; ``({target: corpus}, summary lines)``."""
    dirs, lines = {}, []
    for name in names:
        corpus = WORK / "corpus" / name
        shutil.rmtree(corpus, ignore_errors=True)
        s = campaign.run(name, seconds, corpus=corpus, artifacts=WORK / "artifacts" / name)
        lines.append(f"campaign {s.text().splitlines()[0]}")
        lines += [f"  {line}" for line in s.text().splitlines()[1:] if "NOT exercised" not in line]
        dirs[name] = corpus
    return dirs, lines


def replay_files(name: str, paths: list) -> tuple[int, list]:
    """Run ``paths`` through target ``name`` in this process; ``(failed, skipped)``: the inputs
    a check failed on (their coverage still counts) and ``(path, why)`` for files that could
    not be read or decoded (a regression .json that does not parse)."""
    mod = targets.load(name)
    failed, skipped = 0, []
    for path in paths:
        data, why = campaign.read_input(name, path)
        if data is None:
            skipped.append((str(path), why))
            continue
        try:
            mod.TestOneInput(data)
        except Exception:       # a finding: the campaign reports and keeps those
            failed += 1
    return failed, skipped


def _replay(name: str, corpus: Path, profile: Path, variant_dir: Path) -> tuple[int, list]:
    """Replay ``corpus`` through ``name`` under the coverage build (a child process writing its
    profile into ``profile``)."""
    env = dict(fbuild.run_env(variant_dir), LLVM_PROFILE_FILE=str(profile / f"{name}-%p-%m.profraw"))
    out = subprocess.run([sys.executable, "-P", "-m", "fuzz.reach", name, str(corpus)], cwd=fbuild.ROOT,
                         env=env, capture_output=True, text=True)
    try:
        result = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise RuntimeError(f"replaying {corpus} through {name} under the coverage build failed "
                           f"(exit {out.returncode}):\n{out.stderr[-3000:]}") from None
    return result["failed"], [tuple(s) for s in result["skipped"]]


def reach(names: list, seconds: int = 60, corpus: Path | None = None) -> dict:
    """Fuzz (or take ``corpus`` for) ``names``, replay under the coverage build; returns
    ``{"files": {path: [(line, col, taken, not_taken)...]}, "lines": [...], "skipped": [...]}``
    for the kernel files of the targets' families (llvmcov.branches)."""
    unknown = [n for n in names if n not in targets.TARGETS]
    if unknown:
        raise BadInput(f"unknown target {unknown[0]!r}; scan targets: {', '.join(scan_targets())}")
    given = None if corpus is None else _corpus_dirs(names, corpus)     # checked before any work
    variant_dir = fbuild.build_dir("coverage")
    why = fbuild.stale(variant_dir)
    if why:
        raise BadInput(f"no current coverage build ({why.split(':')[0]}): run python -m fuzz build --variant coverage")
    dirs, lines = _campaigns(names, seconds) if given is None else (given, [])
    profile = WORK / "profile"
    shutil.rmtree(profile, ignore_errors=True)
    profile.mkdir(parents=True)
    skipped = []
    for name, d in dirs.items():
        files = sorted(p for p in d.iterdir() if not p.is_dir())
        failed, bad = _replay(name, d, profile, variant_dir)
        skipped += bad
        lines.append(f"replayed {name}: {len(files)} files from {d}" + (f", {failed} failing" if failed else ""))
    families = sorted({family_of(n) for n in names if n.startswith("scan_diff_")})
    wanted = kernel_files(families)
    found = llvmcov.branches(llvmcov.merge(profile), variant_dir, [fbuild.ROOT / f for f in wanted])
    return {"files": {f: found[f] for f in wanted if f in found}, "lines": lines, "skipped": skipped}


def _count(branches) -> tuple[int, int]:
    return sum((t > 0) + (f > 0) for _, _, t, f in branches), 2 * len(branches)


def text(rep: dict, verbose: bool = False) -> str:
    """The report: campaign and replay lines, then one line per kernel file (see the module doc)."""
    out = list(rep["lines"])
    for path, branches in rep["files"].items():
        covered, total = _count(branches)
        if not total:       # its code is in a header it includes (seg_roll.h) or a macro's
            out.append(f"{path} 0/0 branches (no branches of its own)")
            continue
        pct = 100 * covered / total
        out.append(f"{path} {covered}/{total} branches ({pct:.1f} %)" + (" below 90 %" if pct < THRESHOLD else ""))
        if verbose:
            out += [f"  {path}:{line} ({side} never)" for line, _, t, f in branches
                    for side, n in (("true", t), ("false", f)) if n == 0]
    out += [f"skipped {p}: {why}" for p, why in rep["skipped"]]
    return "\n".join(out)


def _replay_main(argv: list) -> int:
    """Child process of :func:`_replay`: ``TARGET DIR``; prints ``{"failed", "skipped"}`` as JSON."""
    name, d = argv
    failed, skipped = replay_files(name, sorted(p for p in Path(d).iterdir() if not p.is_dir()))
    print(json.dumps({"failed": failed, "skipped": skipped}))
    return 0


if __name__ == "__main__":
    sys.exit(_replay_main(sys.argv[1:]))
