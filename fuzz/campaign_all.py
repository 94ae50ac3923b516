"""``python -m fuzz campaign``: every target in one long campaign, corpora merged, one report.

``campaign --time S [--jobs N] [--runs N] [--impl X] [--no-reach] [TARGET...]`` runs each
target (default: every target; under ``--impl X`` other than ours the targets that go through
the adapter) for its share of S seconds (S / number of targets; ``--runs``: executions per
target instead or as well) with fuzz/campaign.py, on the corpus it keeps in
fuzz/corpus/RUN_DIR/ from one campaign to the next, then merges that corpus (libFuzzer
``-merge=1``: the smallest subset with the same features; campaign.merge) and copies the merged
set to fuzz/corpora/RUN_DIR/ (campaign.carry), which is committed: a campaign on another machine
starts from it (campaign.seed_corpus). A line per target shows progress as it starts and as it
ends (flushed: readable when piped).

The report (fuzz/artifacts/campaign/report.json and report.md, a Markdown table for the
measurements log) gives per target the execs, exec/s, edges, corpus size before and after the
merge, findings (minimized into fuzz/regressions/) and the executions of every campaign on this
corpus so far (fuzz/corpora/campaign-totals.json, committed with the carried corpora), then the
branch reach of the scan targets' corpora per kernel file (fuzz/reach.py; needs the coverage
build, else one line says so).

Ctrl-C stops the running libFuzzer; the corpus stays as it is (a merge in progress is dropped,
the corpus before it kept), and the report of the targets so far, the interrupted one's counts up
to then, is written; exit 130. Exit 1 when a target found something or failed, 0 otherwise.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

from fuzz import campaign, targets

REPORT_DIR = campaign.ARTIFACT_ROOT / "campaign"


def targets_for(impl: str) -> list[str]:
    """The targets a campaign of ``impl`` runs: all for ours, those that go through the adapter otherwise."""
    return [n for n, t in targets.TARGETS.items() if impl == "ours" or t.impl]


def _totals_path() -> Path:
    return campaign.CARRIED_ROOT / "campaign-totals.json"


def _totals() -> dict:
    try:
        return json.loads(_totals_path().read_text())
    except (OSError, ValueError):       # none yet, or unreadable: counting starts again
        return {}


def _add_total(key: str, execs: int, seconds: float) -> dict:
    totals = _totals()
    t = totals.setdefault(key, {"execs": 0, "seconds": 0.0, "campaigns": 0})
    t["execs"] += execs
    t["seconds"] = round(t["seconds"] + seconds, 1)
    t["campaigns"] += 1
    path = _totals_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(totals, indent=1, sort_keys=True))
    os.replace(tmp, path)
    return t


def _row(s: campaign.Summary, merged: int, error: str | None, total: dict) -> dict:
    return {"target": s.target, "seconds": round(s.seconds, 1), "execs": s.execs, "execs_per_s": s.execs_per_s,
            "edges": s.coverage_edges, "features": s.features, "corpus": s.corpus_entries,
            "corpus_merged": merged, "findings": s.findings, "errors": s.errors + ([error] if error else []),
            "interrupted": s.interrupted, "total_execs": total.get("execs", 0)}


def run_all(names: list[str], seconds: int, jobs: int = 1, runs: int = 0, impl: str = "ours",
            build_dir: Path | None = None, with_reach: bool = True, out=print) -> dict:
    """Run the campaign (see the module doc); returns the report (also written to REPORT_DIR).
    ``out`` prints one progress line."""
    share = max(1, seconds // len(names)) if seconds else 0
    report = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpu": _cpu(), "seconds": seconds,
              "jobs": jobs, "runs": runs, "impl": impl, "targets": [], "reach": [], "interrupted": False}
    for i, name in enumerate(names, 1):
        out(f"[{i}/{len(names)}] {name}: " + (f"{share} s" if share else f"{runs} runs") + f", {jobs} job(s)")
        try:
            s = campaign.run(name, share, jobs, build_dir, runs=runs, minimize_runs=runs, impl=impl)
        except KeyboardInterrupt:       # outside libFuzzer (seeding, minimizing): nothing of this target to count
            report["interrupted"] = True
            break
        corpus = campaign.CORPUS_ROOT / campaign.run_dir(name, impl)
        error, merged = None, s.corpus_entries
        if not s.interrupted:
            try:
                merged = campaign.merge(name, corpus, impl, build_dir)[1]
            except campaign.MergeError as e:
                error = str(e)
            except KeyboardInterrupt:
                report["interrupted"] = True
            else:
                try:
                    campaign.carry(corpus, name, impl)
                except OSError as e:    # the merged corpus stays in fuzz/corpus; the carried one as it was
                    error = f"carrying the merged corpus of {name} to {campaign.CARRIED_ROOT} failed: {e}"
                except KeyboardInterrupt:
                    report["interrupted"] = True
        total = _add_total(campaign.run_dir(name, impl), s.execs, s.seconds)
        row = _row(s, merged, error, total)
        report["targets"].append(row)
        out("  " + _line(row))
        for e in row["errors"]:
            out(f"  ERROR: {e.splitlines()[0]}")
        if s.interrupted or report["interrupted"]:
            report["interrupted"] = True
            break
    if with_reach and not report["interrupted"] and impl == "ours":
        report["reach"] = _reach([r["target"] for r in report["targets"]], out)
    write(report)
    return report


def _reach(names: list[str], out) -> list[str]:
    """The reach lines of the scan targets' corpora (fuzz/reach.py), or one line why there are none."""
    from fuzz import reach
    scans = [n for n in names if n in reach.scan_targets()]
    if not scans:
        return []
    out(f"reach: replaying the corpora of {len(scans)} scan targets under the coverage build")
    try:
        rep = reach.reach(scans, corpus=campaign.CORPUS_ROOT)
    except reach.BadInput as e:
        return [f"reach not measured: {e}"]
    except KeyboardInterrupt:
        return ["reach not measured: interrupted"]
    return reach.text(rep).splitlines()


def _cpu() -> str:
    from chunkers.tune import cpu_model
    return f"{cpu_model() or 'unknown'} ({platform.machine()}, {os.cpu_count()} CPUs)"


def _line(row: dict) -> str:
    return (f"{row['target']}: {row['execs']} execs in {row['seconds']:.0f} s ({row['execs_per_s']}/s), "
            f"{row['edges']} edges, corpus {row['corpus']} -> {row['corpus_merged']} merged, "
            f"{len(row['findings'])} findings, {row['total_execs']} execs on this corpus so far"
            + (", interrupted" if row["interrupted"] else ""))


def markdown(report: dict) -> str:
    """The report as a Markdown table (for docs/measurements.md) and the reach lines."""
    head = (f"Campaign of {report['started']} on {report['cpu']}: {report['seconds']} s"
            + (f", {report['runs']} runs per target" if report["runs"] else "")
            + f", {report['jobs']} job(s), --impl {report['impl']}"
            + (" (interrupted)" if report["interrupted"] else ""))
    rows = ["| target | execs | exec/s | edges | corpus (merged) | findings | execs so far |",
            "|---|---|---|---|---|---|---|"]
    rows += [f"| {r['target']} | {r['execs']} | {r['execs_per_s']} | {r['edges']} | {r['corpus']} "
             f"({r['corpus_merged']}) | {len(r['findings'])} | {r['total_execs']} |" for r in report["targets"]]
    reach = ["", "Branch reach of the corpora per kernel file:", "", *[f"    {line}" for line in report["reach"]]]
    return "\n".join([head, "", *rows, *(reach if report["reach"] else [])]) + "\n"


def write(report: dict) -> Path:
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    (REPORT_DIR / "report.json").write_text(json.dumps(report, indent=1))
    (REPORT_DIR / "report.md").write_text(markdown(report))
    return REPORT_DIR


def main(a) -> int:
    """``python -m fuzz campaign`` (fuzz/__main__.py parses ``a``)."""
    names = a.targets or targets_for(a.impl)
    for name in names:              # unknown target, wrong --impl: one line, exit 2, before any campaign
        if name not in targets.TARGETS:
            raise LookupError(f"unknown target {name!r}; targets: {', '.join(targets.TARGETS)}")
        campaign.check_impl(name, a.impl)
    report = run_all(names, a.time, a.jobs, a.runs, a.impl, a.build_dir, not a.no_reach,
                     out=lambda line: print(line, flush=True))
    print(markdown(report), end="")
    print(f"report: {REPORT_DIR / 'report.md'} (and report.json)")
    if report["interrupted"]:
        return 130
    return 1 if any(r["findings"] or r["errors"] for r in report["targets"]) else 0
