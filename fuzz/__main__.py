"""``python -m fuzz``: instrumented builds, campaigns, replay and coverage (see fuzz/README.md)."""

from __future__ import annotations

import argparse
import runpy
import subprocess
import sys
import traceback
from pathlib import Path

from fuzz import targets

# kernel families with scan targets (fuzz/scan_diff.py): the family table, read by path (`build` runs before the
# package's extensions can be imported)
SCAN_FAMILIES = tuple(f.name for f in runpy.run_path(str(targets.FUZZ_DIR.parent / "chunkers" / "families.py"))
                      ["FAMILIES"].values() if f.scan)
IMPL_HELP = ("implementation under test of the targets that go through the adapter (impl_chunks): ours "
             "(default), borg (the instrumented borg of BORG_SANITIZE=1 ci/borg-reference.sh, $BORG_FUZZ_VENV), "
             "model or module:attribute (vectors/impls/); the other targets check ours only")


def _impl_target(name: str, impl: str):
    """The target module, told to check ``impl`` (replay in this process)."""
    from fuzz.campaign import check_impl
    check_impl(name, impl)
    mod = targets.load(name)
    if targets.TARGETS[name].impl:
        from vectors import impls
        mod.set_implementation(impls.load(impl))        # impls.LoadError is a LookupError: one line, exit 2
    return mod


def _inputs(name: str, corpus: bool, paths: list) -> tuple[list, list]:
    """``([(label, bytes)...], [(path, why)...])``: the seeds, regressions, corpus files (``corpus``)
    and ``paths`` of target NAME, and the files that could not be read or decoded."""
    from fuzz.campaign import CORPUS_ROOT, REGRESSION_ROOT, read_input
    items = [(f"seed {i}", s) for i, s in enumerate(targets.load(name).seeds())]
    regressions = REGRESSION_ROOT / name
    files = sorted(regressions.iterdir()) if regressions.is_dir() else []
    files += sorted((CORPUS_ROOT / name).iterdir()) if corpus and (CORPUS_ROOT / name).is_dir() else []
    skipped = []
    for f in files + [Path(p) for p in paths]:
        data, why = read_input(name, f)
        if data is None:
            skipped.append((f, why))
        else:
            items.append((str(f), data))
    return items, skipped


def cmd_replay(a) -> int:
    """Run inputs through a target without libFuzzer; 1 if any fails, 2 if a file could not be
    read or decoded (one line each; the rest are replayed)."""
    failed = 0
    mod = _impl_target(a.target, a.impl)
    items, skipped = _inputs(a.target, a.corpus, a.paths)
    for path, why in skipped:
        print(f"error: {path}: {why}; not replayed", file=sys.stderr)
    for label, data in items:
        try:
            mod.TestOneInput(data)
        except Exception:
            failed += 1
            print(f"FAIL {label}\n{traceback.format_exc()}", file=sys.stderr)
            if not a.keep_going:
                break
    impl = f" against --impl {a.impl}" if targets.TARGETS[a.target].impl else ""
    print(f"{a.target}: {len(items)} inputs replayed{impl}, {failed} failed"
          + (f", {len(skipped)} files unreadable" if skipped else ""))
    return 1 if failed else 2 if skipped else 0


def cmd_build(a) -> int:
    from fuzz.build import build
    print(f"built {a.variant} into {build(a.variant, a.out, a.jobs)}")
    return 0


def cmd_run(a) -> int:
    from fuzz import campaign
    names = list(targets.TARGETS) if a.target == "all" else [a.target]
    if a.impl != "ours" and a.target == "all":     # the targets that go through the adapter
        names = [n for n in names if targets.TARGETS[n].impl]
    for name in names:                              # a wrong --impl: one line, exit 2, before any campaign
        campaign.check_impl(name, a.impl)
    bad = 0
    for name in names:
        s = campaign.run(name, a.time, a.jobs, a.build_dir, tuple(a.libfuzzer), runs=a.runs, minimize_runs=a.runs,
                         impl=a.impl)
        print(s.text(), flush=True)
        if s.interrupted:           # Ctrl-C: the corpus is kept, the next targets are not run
            return 130
        if not s.ok:
            bad += 1
            print(campaign.log_tail(name, impl=a.impl), file=sys.stderr)
    return 1 if bad else 0


def cmd_campaign(a) -> int:
    from fuzz import campaign_all
    return campaign_all.main(a)


def cmd_planted(a) -> int:
    from fuzz import planted
    return planted.main(a)


def cmd_coverage(a) -> int:
    from fuzz import llvmcov
    families = [a.family] if a.family else [f for f in SCAN_FAMILIES if f in a.target.split("_")] or list(SCAN_FAMILIES)
    print(llvmcov.text(llvmcov.report(a.target, families)))
    return 0


def cmd_reach(a) -> int:
    from fuzz import reach
    rep = reach.reach(a.targets or reach.scan_targets(), a.time, a.corpus)
    print(reach.text(rep, a.verbose))
    return 2 if rep["skipped"] else 0


def cmd_seeds(a) -> int:
    """Write a target's seeds and its carried corpus (fuzz/corpora/TARGET) as files (a directory) or as an
    OSS-Fuzz *_seed_corpus.zip."""
    import hashlib
    import zipfile
    if a.build_dir:     # decode with that build's chunkers (and its runtime preloaded)
        from fuzz.build import run_env
        return subprocess.run([sys.executable, "-P", "-m", "fuzz", "seeds", a.target, str(a.dest.resolve())],
                              env=run_env(a.build_dir.resolve())).returncode
    from fuzz.campaign import CARRIED_ROOT
    seeds = targets.load(a.target).seeds()
    named = [(hashlib.sha1(s).hexdigest(), s) for s in seeds]
    carried = CARRIED_ROOT / a.target           # the last campaign's merged corpus (campaign.carry)
    named += [(f.name, f.read_bytes()) for f in sorted(carried.iterdir())] if carried.is_dir() else []
    if a.dest.suffix == ".zip":
        with zipfile.ZipFile(a.dest, "w") as z:
            for name, data in named:
                z.writestr(name, data)
    else:
        a.dest.mkdir(parents=True, exist_ok=True)
        for name, data in named:
            (a.dest / name).write_bytes(data)
    print(f"{a.target}: {len(seeds)} seeds and {len(named) - len(seeds)} files of {carried} -> {a.dest}")
    return 0


def cmd_list(a) -> int:
    from fuzz.harness import kernel_inventory
    for name, t in targets.TARGETS.items():
        print(f"{name:<26} max_len={t.max_len} dict={t.dictionary}")
    for fam in SCAN_FAMILIES:
        runs, not_run = kernel_inventory(fam)
        print(f"{fam}: runs {', '.join(runs)}" + "".join(f"; NOT run: {k} ({r})" for k, r in not_run))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="instrumented build into fuzz/build/VARIANT")
    b.add_argument("--variant", choices=("asan", "coverage"), default="asan")
    b.add_argument("--out", type=Path, help="build directory (default fuzz/build/VARIANT)")
    b.add_argument("--jobs", type=int, default=2)
    r = sub.add_parser("run", help="fuzz a target (or 'all') with libFuzzer")
    r.add_argument("target", choices=[*targets.TARGETS, "all"])
    r.add_argument("--time", type=int, default=60, help="seconds per target (0: bounded by --runs only)")
    r.add_argument("--runs", type=int, default=0,
                   help="executions per target and per minimization step (0: bounded by --time)")
    r.add_argument("--jobs", type=int, default=1)
    r.add_argument("--build-dir", type=Path, help="instrumented build (default fuzz/build/asan)")
    r.add_argument("--impl", default="ours", help=IMPL_HELP)
    r.add_argument("libfuzzer", nargs="*", help="extra libFuzzer flags (after --)")
    ca = sub.add_parser("campaign", help="every target in turn, corpora merged, one report (fuzz/campaign_all.py)")
    ca.add_argument("targets", nargs="*", metavar="TARGET", help="targets (default: every one --impl applies to)")
    ca.add_argument("--time", type=int, default=600, help="seconds in all, split evenly over the targets (default 600)")
    ca.add_argument("--runs", type=int, default=0, help="executions per target (0: bounded by --time)")
    ca.add_argument("--jobs", type=int, default=1)
    ca.add_argument("--impl", default="ours", help=IMPL_HELP)
    ca.add_argument("--build-dir", type=Path, help="instrumented build (default fuzz/build/asan)")
    ca.add_argument("--no-reach", action="store_true", help="leave out the branch reach of the corpora")
    rp = sub.add_parser("replay", help="run seeds, regressions (and corpus, paths) without libFuzzer")
    rp.add_argument("target", choices=list(targets.TARGETS))
    rp.add_argument("paths", nargs="*")
    rp.add_argument("--corpus", action="store_true", help="also the local corpus fuzz/corpus/TARGET")
    rp.add_argument("--keep-going", action="store_true")
    rp.add_argument("--impl", default="ours", help="implementation a Target.impl target checks (in this process)")
    pl = sub.add_parser("planted", help="seconds to the first finding of impl_chunks --impl borg per planted fault "
                                        "of the stand-in borg (conformance/tests/stub_borg), from an empty corpus")
    pl.add_argument("faults", nargs="*", help="faults (default: every one reachable here, and 'none')")
    pl.add_argument("--time", type=int, default=120, help="seconds per campaign at most (default 120)")
    pl.add_argument("--reps", type=int, default=1, help="campaigns per fault, libFuzzer -seed=1..REPS")
    pl.add_argument("--build-dir", type=Path, help="our instrumented build under the stand-in (default: plain)")
    pl.add_argument("--keep", type=Path, help="write the minimized findings here (default: a temporary directory)")
    pl.add_argument("--json", type=Path, help="also write the table as JSON")
    pl.add_argument("--libfuzzer", default="", help="extra libFuzzer flags, one string (e.g. '-use_value_profile=1')")
    c = sub.add_parser("coverage", help="kernel line/branch coverage of a target's corpus (llvm-cov)")
    c.add_argument("target", choices=list(targets.TARGETS))
    c.add_argument("--family", choices=SCAN_FAMILIES, help="kernel sources to report (default: from the target)")
    rc = sub.add_parser("reach", help="kernel branch coverage reached by fuzzing alone, per kernel file (llvm-cov)")
    rc.add_argument("targets", nargs="*", metavar="TARGET", help="targets (default: every scan target)")
    rc.add_argument("--time", type=int, default=60, help="seconds of fuzzing per target (default 60)")
    rc.add_argument("--corpus", type=Path, help="replay this corpus (DIR/TARGET/ or DIR) instead of fuzzing")
    rc.add_argument("-v", "--verbose", action="store_true", help="list the uncovered branches (file:line)")
    sd = sub.add_parser("seeds", help="write a target's seed inputs to a directory or a .zip")
    sd.add_argument("target", choices=list(targets.TARGETS))
    sd.add_argument("dest", type=Path)
    sd.add_argument("--build-dir", type=Path, help="import chunkers from this build (no in-place build needed)")
    sub.add_parser("list", help="targets and the kernels that run here")
    a = p.parse_args(argv)
    if a.cmd == "reach" and a.time <= 0 and a.corpus is None:
        p.error("reach: --time must be > 0 (or --corpus DIR)")
    if a.cmd == "campaign" and (a.time < 0 or a.runs < 0 or not (a.time or a.runs) or a.jobs < 1):
        p.error("campaign: --time and --runs must be >= 0 and not both 0, --jobs >= 1")
    if a.cmd == "run" and (a.time < 0 or a.runs < 0 or not (a.time or a.runs)):
        p.error("run: --time and --runs must be >= 0 and not both 0 (a campaign needs a bound)")
    try:
        return {"build": cmd_build, "run": cmd_run, "replay": cmd_replay, "coverage": cmd_coverage,
                "seeds": cmd_seeds, "list": cmd_list, "reach": cmd_reach, "planted": cmd_planted,
                "campaign": cmd_campaign}[a.cmd](a)
    except (FileNotFoundError, LookupError) as e:     # no instrumented build, atheris, Cython or clang
        print(f"error: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:        # a compiler or tool failed; its output is above
        print(f"error: {e.cmd[0]} exited with status {e.returncode}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
