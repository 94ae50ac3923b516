"""``python -m conformance.tools.mutants``: mutation testing of the kernels, driver and tables.

Plants every fault of the catalogue (conformance/tools/mutants/catalogue.py) in turn
into a separate build tree (build/mutants by default; the working tree and its
in-place build are never touched), rebuilds what the fault touches, runs the
default pytest tier and the main job against it, and prints one line per
fault, the kill rate per tier for both, and the survivors with a command that
plants them. Equivalent faults (identical object code, or argued in the
catalogue) are listed and not counted.

    python -m conformance.tools.mutants [--sample] [--id ID ...] [--tier T ...] [--no-cross] [--json FILE]
    python -m conformance.tools.mutants --compare RUN.json ... [--runs 2]

``--compare`` runs nothing: it reads the ``--json`` files of earlier runs and
prints, per fault, every run's verdicts and whether they agree
(conformance/tools/mutants/compare.py); exit 0 only when every counted fault was
killed by both in at least ``--runs`` runs that agree.

Exit status 0 when every counted fault was killed by both, 1 otherwise, 2 for
a bad argument or an environment that cannot judge faults (the original's
tests do not collect with this interpreter, e.g. one without pytest-xdist).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections import defaultdict

from chunkers.clihelp import ArgumentParser
from conformance.tools.buildtree import BuildError
from conformance.tools.mutants import compare
from conformance.tools.mutants.catalogue import CATALOGUE, CI_SAMPLE
from conformance.tools.mutants.runner import Runner, as_dict, command_line

COUNTED = ("killed", "survived", "survived (quick)", "error")


def _rate(verdicts, column: str) -> str:
    counted = [v for v in verdicts if getattr(v, column) in COUNTED and not v.equivalent]
    if not counted:
        return "-"
    killed = sum(getattr(v, column) == "killed" for v in counted)
    return f"{killed}/{len(counted)} {100 * killed / len(counted):.0f}%"


def table(verdicts) -> str:
    """The kill table: per tier, faults, equivalents, default-tier and main-job kill rates."""
    by_tier = defaultdict(list)
    for v in verdicts:
        by_tier[v.tier].append(v)
    rows = [f"{'tier':12} {'faults':>6} {'equiv':>5}  {'default tier':>14}  {'main job':>14}"]
    for tier, vs in [*by_tier.items(), ("all", verdicts)]:
        eq = sum(bool(v.equivalent) for v in vs)
        rows.append(f"{tier:12} {len(vs):6} {eq:5}  {_rate(vs, 'pytest'):>14}  {_rate(vs, 'main'):>14}")
    return "\n".join(rows)


def select(args) -> list:
    chosen = CATALOGUE
    if args.sample:
        chosen = [m for m in chosen if m.id in CI_SAMPLE]
    if args.id:
        chosen = [m for m in chosen if m.id in args.id]
    if args.tier:
        chosen = [m for m in chosen if m.tier in args.tier]
    if args.no_cross:
        chosen = [m for m in chosen if m.route == "native"]
    return round_robin(chosen)


def round_robin(faults) -> list:
    """The faults with the tiers taking turns (catalogue order within a tier), so that a run cut
    short still has verdicts for every tier."""
    by_tier = defaultdict(list)
    for m in faults:
        by_tier[m.tier].append(m)
    queues = list(by_tier.values())
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m conformance.tools.mutants", description=__doc__.splitlines()[0])
    ap.add_argument("--sample", action="store_true", help=f"only the CI sample ({', '.join(CI_SAMPLE)})")
    ap.add_argument("--id", action="append", help="only this fault (repeatable)")
    ap.add_argument("--tier", action="append", help="only this tier (repeatable)")
    ap.add_argument("--no-cross", action="store_true", help="skip the aarch64 / big-endian faults (qemu runs)")
    ap.add_argument("--root", help="build tree directory (default build/mutants)")
    ap.add_argument("--timeout", type=int, default=3600,
                    help="seconds per test or job step (default 3600; a run past it counts as a hang: a kill)")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments, e.g. '-n 2'")
    ap.add_argument("--main-args", default="", help="extra main-job arguments, e.g. '--corpus-size 262144'")
    ap.add_argument("--quick", action="store_true", help="only the selected tests and the family's main job per fault")
    ap.add_argument("--json", metavar="FILE", help="write every verdict as JSON")
    ap.add_argument("--list", action="store_true", help="list the catalogue and exit")
    ap.add_argument("--compare", nargs="+", metavar="RUN.json",
                    help="run nothing: the verdicts of these --json files together, per fault, and whether they agree")
    ap.add_argument("--runs", type=int, default=2, help="with --compare: runs each fault needs (default 2)")
    args = ap.parse_args(argv)
    if args.compare:
        try:
            lines, done = compare.report(compare.load(args.compare), args.runs)
        except ValueError as e:
            ap.error(str(e))
        print("\n".join(lines))
        return 0 if done else 1
    known_ids, known_tiers = {m.id for m in CATALOGUE}, {m.tier for m in CATALOGUE}
    for name, given, known in (("--id", args.id, known_ids), ("--tier", args.tier, known_tiers)):
        bad = sorted(set(given or ()) - known)
        if bad:
            ap.error(f"{name}: unknown {', '.join(bad)} (known: {', '.join(sorted(known))})")
    chosen = select(args)
    if args.list:
        for m in chosen:
            print(f"{m.id:24} {m.tier:11} {m.route:8} {m.file}: {m.note}")
        return 0
    if not shutil.which("objcopy"):
        ap.error("objcopy (binutils) is needed to compare object code")
    kw = dict(pytest_args=args.pytest_args.split(), main_args=args.main_args.split(), timeout=args.timeout,
              quick=args.quick)
    runner = Runner(args.root, **kw) if args.root else Runner(**kw)
    try:
        runner.prepare()
    except BuildError as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    verdicts = []
    for i, m in enumerate(chosen, 1):
        v = runner.run(m)
        verdicts.append(v)
        how = v.equivalent if v.pytest == "equivalent" else \
            f"default tier: {v.pytest} {v.pytest_by}".rstrip() + f"; main job: {v.main} {v.main_by}".rstrip()
        print(f"[{i}/{len(chosen)}] {m.id:24} {m.tier:11} {v.seconds:6.0f} s  {how}", flush=True)
        for line in v.log:
            print("    " + line.replace("\n", "\n    "))
        if args.json:       # after every fault: a run cut short keeps its verdicts
            with open(args.json, "w") as f:
                json.dump([as_dict(v) for v in verdicts], f, indent=1)
    print("\n" + table(verdicts))
    argued = [v for v in verdicts if v.equivalent]
    if argued:
        print("\nequivalent (not counted):")
        for v in argued:
            print(f"  {v.id}: {v.equivalent}" + ("" if v.pytest == "equivalent" else f" [default tier: {v.pytest}, "
                                                                                      f"main job: {v.main}]"))
    survivors = [(m, v) for m, v in zip(chosen, verdicts)
                 if not v.equivalent and (v.pytest != "killed" or v.main != "killed")]
    if survivors:
        print("\nsurvivors (plant one with the command shown):")
        for m, v in survivors:
            print(f"  {m.id} ({m.tier}, {m.file}: {m.note}) default tier: {v.pytest}, main job: {v.main}\n"
                  f"    {command_line(m)}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
