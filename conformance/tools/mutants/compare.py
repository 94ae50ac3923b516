"""``python -m conformance.tools.mutants --compare RUN.json ...``: the verdicts of several runs, together.

Issue 12 asks for the whole catalogue killed by both the default tier and the
main job, **deterministically**: every fault run at least twice, with the same
verdict pair (default tier, main job) each time. A run of the whole catalogue
takes hours, so it is usually split (by ``--id`` / ``--tier``, over several
build roots, over several days); this reads the ``--json`` files of those
runs and answers three questions per fault of the current catalogue:

* its verdicts in every run that has it, and whether they agree;
* whether it was run at least ``runs`` times (default 2);
* whether the latest verdicts kill it in both columns (argued-equivalent
  faults are listed and not counted, whether they were run or not).

A verdict pair is (default tier, main job), each one of killed / survived /
error / not run; which test or job step killed a fault may differ between
runs (the test order is fixed, but a fault can fail several tests) and is
shown, not compared.
"""

from __future__ import annotations

import json
from collections import defaultdict

from conformance.tools.mutants.catalogue import CATALOGUE
from conformance.tools.mutants.runner import Verdict


def load(paths) -> dict:
    """``{fault id: [Verdict, ...]}`` in the order of ``paths`` (then file order); ids the
    catalogue no longer has are dropped. Raises ValueError naming a file that is not a verdict list."""
    known = {m.id for m in CATALOGUE}
    runs: dict = defaultdict(list)
    for path in paths:
        try:
            with open(path) as f:
                rows = json.load(f)
            verdicts = [Verdict(**row) for row in rows]
        except (OSError, ValueError, TypeError) as e:
            raise ValueError(f"{path}: not a verdict file of python -m conformance.tools.mutants --json ({e})") from None
        for v in verdicts:
            if v.id in known:
                runs[v.id].append(v)
    return runs


def report(runs: dict, need: int = 2) -> tuple[list[str], bool]:
    """(lines, done): one line per catalogue fault, then the totals; ``done`` when every counted
    fault ran ``need`` times or more, always with the same verdict pair, and was killed by both."""
    lines, done = [], True
    counts = defaultdict(int)
    for m in CATALOGUE:
        vs = runs.get(m.id, [])
        pairs = [(v.pytest, v.main) for v in vs]
        if m.equivalent:
            counts["equivalent"] += 1
            ran = f"; ran {len(vs)}x: {', '.join('/'.join(p) for p in pairs)}" if vs else ""
            lines.append(f"{m.id:24} {m.tier:11} equivalent (argued in the catalogue{ran})")
            continue
        agree = len(set(pairs)) <= 1
        killed = bool(vs) and pairs[-1] == ("killed", "killed")
        state = ("not run" if not vs else "DIFFERENT" if not agree else
                 "killed" if killed else "NOT KILLED")
        short = len(vs) < need
        counts[state] += 1
        counts["run fewer than needed"] += short and bool(vs)
        done &= agree and killed and not short
        by = f"  [{vs[-1].pytest_by} | {vs[-1].main_by}]" if vs else ""
        lines.append(f"{m.id:24} {m.tier:11} {state:10} runs {len(vs)}: "
                     f"{', '.join('/'.join(p) for p in pairs) or '-'}{by}")
    lines.append("")
    verdict = f"every counted fault killed by both in {need}+ runs that agree" if done else "not done"
    lines.append(f"{len(CATALOGUE)} faults: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v) + f"; {verdict}")
    return lines, done
