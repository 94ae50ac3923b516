"""Fuzzing campaigns: seeded corpora, libFuzzer runs, summaries, regressions.

``python -m fuzz run TARGET --time S --jobs N`` runs one target against the
``asan`` build (fuzz/build.py) with its corpus in fuzz/corpus/TARGET/ (seeded
from the target's ``seeds()`` and from the corpus carried in the repository,
fuzz/corpora/TARGET/, which ``python -m fuzz campaign`` replaces with its merged
corpus), its dictionary if it has one, and crash
artifacts in fuzz/artifacts/TARGET/. Every new crash, timeout or OOM is
minimized with libFuzzer's -minimize_crash and copied to
fuzz/regressions/TARGET/, which pytest replays on every run (commit it).

libFuzzer's helper processes (the minimizer's steps, ``--jobs`` workers) run
the target again through fuzz/launcher.py, with this interpreter. A helper
that does not start is an error of the campaign (``Summary.errors``), never a
silently unminimized regression or a run of 0 execs.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

from fuzz import build as fbuild
from fuzz import targets
from fuzz.input import Input, from_json, to_json

FUZZ_DIR = targets.FUZZ_DIR
CORPUS_ROOT = FUZZ_DIR / "corpus"             # the working corpora (not committed)
CARRIED_ROOT = FUZZ_DIR / "corpora"           # committed: each campaign's merged corpus, carried to the next machine
ARTIFACT_ROOT = FUZZ_DIR / "artifacts"
REGRESSION_ROOT = FUZZ_DIR / "regressions"
FINDING_PREFIXES = ("crash-", "timeout-", "oom-", "leak-")

_STAT = re.compile(r"^stat::(\w+):\s+(\d+)", re.M)
_STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+)", re.M)
_NOT_RUN = re.compile(r"^.*NOT exercised here.*$", re.M)
_INITED = re.compile(r"^#\d+\s+INITED\b", re.M)


class Summary(NamedTuple):
    """What one campaign did. ``coverage_edges`` / ``features``: libFuzzer's
    ``cov`` and ``ft`` counters at the end (C edges plus instrumented Python)."""

    target: str
    seconds: float
    execs: int
    execs_per_s: int
    coverage_edges: int
    features: int
    corpus_entries: int
    new_entries: int
    findings: list
    not_run: list
    returncode: int
    errors: list = []
    impl: str = "ours"
    kernels: list = []      # Target.impl targets: the implementation and its kernels per family (what ran, what not)
    interrupted: bool = False   # stopped by Ctrl-C: counts up to then, findings kept unminimized

    @property
    def ok(self) -> bool:
        return not self.findings and self.returncode == 0 and not self.errors and not self.interrupted

    def text(self) -> str:
        lines = [f"{self.target}: {self.execs} execs in {self.seconds:.0f} s ({self.execs_per_s}/s), "
                 f"cov {self.coverage_edges} edges, ft {self.features}, corpus {self.corpus_entries} "
                 f"(+{self.new_entries}), findings {len(self.findings)}"]
        lines += [f"  {line}" for line in self.kernels]
        lines += [f"  FINDING -> {f}" for f in self.findings]
        lines += [f"  {line}" for line in self.not_run]
        if self.interrupted:
            lines.append("  interrupted (Ctrl-C): corpus kept, counts up to then")
        elif self.returncode and not self.findings:
            lines.append(f"  libFuzzer exited with status {self.returncode} without an artifact")
        lines += [f"  ERROR: {e}" for e in self.errors]
        return "\n".join(lines)


def run_dir(name: str, impl: str = "ours") -> str:
    """The corpus and artifacts directory name of a campaign: NAME, or NAME--IMPL for a Target.impl
    target against another implementation (its own corpus, and campaigns of ours and of borg can
    run at once: .ci/run's lanes do)."""
    return name if impl == "ours" else f"{name}--{re.sub(r'[^A-Za-z0-9_.-]', '_', impl)}"


def seed_corpus(name: str, impl: str = "ours", corpus: Path | None = None) -> Path:
    """``corpus`` (default fuzz/corpus/NAME/, run_dir), with every seed of the target present (named by
    SHA-1, like libFuzzer) and every file of the carried corpus (fuzz/corpora/RUN_DIR/, :func:`carry`)."""
    corpus = Path(corpus or CORPUS_ROOT / run_dir(name, impl))
    corpus.mkdir(parents=True, exist_ok=True)
    for data in targets.load(name).seeds():
        f = corpus / hashlib.sha1(data).hexdigest()
        if not f.exists():
            f.write_bytes(data)
    carried = CARRIED_ROOT / run_dir(name, impl)
    for f in sorted(carried.iterdir()) if carried.is_dir() else ():
        if not (corpus / f.name).exists():
            shutil.copyfile(f, corpus / f.name)
    return corpus


def carry(corpus: Path, name: str, impl: str = "ours") -> int:
    """Replace the carried corpus fuzz/corpora/RUN_DIR/ with the files of ``corpus`` (a merged one);
    the number of files. Built beside it and swapped in (:func:`_swap_in`): an interrupted or failed
    copy (OSError, ENOSPC) leaves the carried corpus as it was."""
    carried = CARRIED_ROOT / run_dir(name, impl)
    new = carried.with_name(carried.name + ".new")
    _recover(carried)
    shutil.rmtree(new, ignore_errors=True)
    try:
        new.mkdir(parents=True)
        files = sorted(p for p in Path(corpus).iterdir() if p.is_file())
        for f in files:
            shutil.copyfile(f, new / f.name)
        _swap_in(new, carried)
        return len(files)
    except OSError:
        _recover(carried)
        raise
    finally:
        shutil.rmtree(new, ignore_errors=True)


def _swap_in(new: Path, target: Path) -> None:
    """Make directory ``new`` the directory ``target``: two renames with SIGINT held off, the old
    ``target`` (if any) moved to TARGET.premerge and removed after (:func:`_recover` puts it back
    if the process ended between the renames)."""
    old = target.with_name(target.name + ".premerge")
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        if target.exists():
            target.rename(old)
        new.rename(target)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    shutil.rmtree(old, ignore_errors=True)


def _recover(target: Path) -> None:
    """Undo a :func:`_swap_in` that stopped between its renames (a crash, a power cut)."""
    old = target.with_name(target.name + ".premerge")
    if old.is_dir():
        if target.is_dir():
            shutil.rmtree(old)
        else:
            old.rename(target)


def _findings(artifacts: Path) -> set:
    return {p for p in artifacts.iterdir() if p.name.startswith(FINDING_PREFIXES)}


def _libfuzzer(name: str, args: list, env: dict, cwd: Path, log: Path, timeout: float,
               python: Path | str = sys.executable) -> int:
    """Run the target under libFuzzer with ``python``; on ``timeout`` (seconds) kill it with the
    jobs / minimization children it spawned and return -9."""
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(python), str(targets.path(name)), *args], env=env, cwd=cwd,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return -9
        except KeyboardInterrupt:   # Ctrl-C reaches only us (own session): stop libFuzzer and its jobs, then re-raise
            _stop(proc)
            raise


def _stop(proc: subprocess.Popen) -> None:
    """SIGINT to the process group (libFuzzer exits; its corpus files are already written), SIGKILL after 10 s."""
    for sig, wait in ((signal.SIGINT, 10), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue


class MinimizeError(RuntimeError):
    """libFuzzer's -minimize_crash did not finish (its helpers could not run the
    target); ``regression`` is the unminimized regression file written instead."""

    def __init__(self, message: str, regression: Path):
        super().__init__(message)
        self.regression = regression


def minimize(name: str, artifact: Path, env: dict, seconds: int = 60, runs: int = 0,
             python: Path | str = sys.executable, regressions: Path | None = None, note: str = "") -> Path:
    """Minimize a crashing input with libFuzzer, add it to fuzz/regressions/NAME/
    and return that path. Each minimization step is bounded by ``runs``
    executions when given, else by ``seconds``. The regression is JSON: the
    decoded fields (replayed through the target's decoder, so it survives
    layout changes) and the raw input in base64 (for libFuzzer, as long as the
    layout is unchanged). Timeouts and OOMs are kept as found.

    Raises MinimizeError, after writing the unminimized regression (so the
    finding is not lost), when libFuzzer did not report a finished
    minimization: e.g. its helper processes could not start the target.

    ``python`` runs the target (a Target.impl campaign's interpreter), ``regressions`` is the
    directory (default fuzz/regressions/NAME), ``note`` goes into the file (e.g. the --impl)."""
    out = artifact.with_name("minimized-" + artifact.name)
    failure = None
    if artifact.name.startswith("crash-"):
        log = artifact.parent / "minimize.log"
        bound = f"-runs={runs}" if runs else f"-max_total_time={seconds}"
        _libfuzzer(name, ["-minimize_crash=1", bound, f"-exact_artifact_path={out}", str(artifact)],
                   env, artifact.parent, log, (seconds or 60) * 4 + 600, python)
        text = log.read_text(errors="replace") if log.exists() else ""
        if not out.exists() or "CRASH_MIN: failed to minimize beyond" not in text:
            failure = (f"minimizing {artifact.name} failed (libFuzzer's helpers did not run the target?); "
                       f"{log}:\n" + "\n".join(text.splitlines()[-15:]))
    return keep(name, (out if out.exists() and not failure else artifact).read_bytes(), artifact.name, regressions,
                note, failure)


def keep(name: str, data: bytes, artifact_name: str, regressions: Path | None = None, note: str = "",
         failure: str | None = None) -> Path:
    """Write input ``data`` of finding ``artifact_name`` (crash-SHA...) as a regression of NAME
    (see :func:`minimize`); MinimizeError after writing it when ``failure`` says why it is unminimized."""
    inp = Input(data, record=True)
    targets.load(name).decode(inp)
    dest = Path(regressions or REGRESSION_ROOT / name) / \
        f"{artifact_name.split('-')[0]}-{hashlib.sha1(data).hexdigest()[:16]}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(dump_regression(to_json(inp.fields), data, note))
    if failure:
        raise MinimizeError(f"{failure}\n(kept unminimized as {dest})", dest)
    return dest


def dump_regression(fields: list, data: bytes, note: str = "") -> str:
    """A regression file's JSON text: one decoded field per line, the raw input, an optional note."""
    lines = ",\n".join(f"  {json.dumps(pair)}" for pair in fields)
    head = f'{{"note": {json.dumps(note)},\n' if note else "{"
    return f'{head}"input": "{base64.b64encode(data).decode()}",\n"fields": [\n{lines}\n]}}\n'



def regression_input(name: str, path: Path) -> bytes:
    """The bytes to replay for a regression file: its fields re-encoded for
    the current decoder (.json), or the file itself (a raw libFuzzer input)."""
    if path.suffix != ".json":
        return path.read_bytes()
    return from_json(targets.load(name).decode, json.loads(path.read_text())["fields"])


def read_input(name: str, path: Path) -> tuple[bytes | None, str]:
    """``(bytes to replay, "")`` of a corpus or regression file of target NAME (regression_input),
    or ``(None, why)``: unreadable (a directory, no permission, vanished) or corrupt (a
    regression .json that does not parse or does not decode)."""
    try:
        return regression_input(name, Path(path)), ""
    except OSError as e:
        return None, f"unreadable ({e.strerror or e})"
    except (ValueError, KeyError, TypeError) as e:
        return None, f"corrupt ({type(e).__name__}: {e})"


def _stats(logs: list) -> tuple:
    """``(stats, cov, ft)`` of libFuzzer logs: final stats summed over the logs (a run stopped by
    Ctrl-C prints none: its executions are then the last status line's ``#N`` of each log),
    ``cov`` / ``ft`` of the last status line."""
    stats, last_status = {}, []
    for text in logs:
        for key, val in _STAT.findall(text):
            stats[key] = stats.get(key, 0) + int(val)
        last_status += _STATUS.findall(text)[-1:]
    stats.setdefault("number_of_executed_units", sum(int(s[0]) for s in last_status))
    cov, ft = (int(last_status[-1][1]), int(last_status[-1][2])) if last_status else (0, 0)
    return stats, cov, ft


def _job_errors(artifacts: Path, jobs: int) -> list:
    """One line per ``-jobs`` worker whose log (fuzz-J.log) shows neither that
    fuzzing started (libFuzzer's INITED line) nor a finding (a crash while
    loading the corpus): its helper could not run the target."""
    errors = []
    for j in range(jobs):
        log = artifacts / f"fuzz-{j}.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        if not _INITED.search(text) and "Test unit written to" not in text:
            tail = "\n".join(text.splitlines()[-8:])
            errors.append(f"libFuzzer job {j} did not start fuzzing ({log}):\n{tail}")
    return errors


_PROBE = """
import json, sys
from fuzz import targets
mod = targets.load(sys.argv[1])
try:
    inv = mod.inventory()
    print(json.dumps(dict(inv, lines=mod.inventory_lines(inv))))
except LookupError as e:            # impls.LoadError: the one line
    print(json.dumps({"error": str(e)}))
"""


def check_impl(name: str, impl: str) -> None:
    """LookupError (one line) unless target ``name`` can fuzz ``impl``: a name impls
    knows or ``module:attribute``, and a target that goes through the adapter (Target.impl)."""
    try:
        from vectors.impls import REGISTRY
        known = list(REGISTRY)
    except ImportError:         # chunkers not importable in this process (the ClusterFuzzLite build)
        known = ["ours", "borg", "model"]
    if impl not in known and ":" not in impl:
        raise LookupError(f"--impl {impl}: unknown implementation; known: {', '.join(known)} or module:attribute")
    if impl != "ours" and not targets.TARGETS[name].impl:
        takes = ", ".join(n for n, t in targets.TARGETS.items() if t.impl)
        raise LookupError(f"--impl {impl}: target {name} checks this project's code only; --impl applies to {takes}")


def impl_inventory(name: str, python: Path, env: dict) -> dict:
    """The target's implementation and its kernels as the campaign's interpreter sees them
    (``inventory()`` of the target module, run with ``python`` in ``env``); LookupError with
    one line when the implementation cannot be loaded there."""
    out = subprocess.run([str(python), "-P", "-c", _PROBE, name, env.get("CHUNKERS_FUZZ_IMPL", "ours")],
                         env=env, capture_output=True, text=True, cwd=fbuild.ROOT)
    lines = out.stdout.strip().splitlines()
    try:
        inv = json.loads(lines[-1])
    except (IndexError, ValueError):
        why = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise LookupError(f"--impl {env.get('CHUNKERS_FUZZ_IMPL')}: {python} cannot load it "
                          f"(exit {out.returncode}: {why})") from None
    if "error" in inv:
        raise LookupError(inv["error"])
    return inv


def target_env(name: str, impl: str = "ours", variant_dir: Path | None = None) -> tuple[Path, dict]:
    """``(python, env)`` that run target NAME against ``impl`` (see :func:`run`); FileNotFoundError or
    LookupError (one line) when the instrumented build or the implementation is missing."""
    spec = targets.TARGETS[name]
    check_impl(name, impl)
    if impl == "ours" or variant_dir:       # absolute: libFuzzer runs in the artifacts directory
        variant_dir = Path(variant_dir or fbuild.build_dir("asan")).resolve()
        why = fbuild.stale(variant_dir)
        if why:
            raise FileNotFoundError(why)
    if not spec.impl:
        python, env = Path(sys.executable), fbuild.run_env(variant_dir, spec.pymalloc)
    else:
        python = fbuild.impl_python(impl)
        env = fbuild.impl_env(impl, python, variant_dir, spec.pymalloc)
    return python, fbuild.with_custom_mutator(env) if spec.custom_mutator else env


def run(name: str, seconds: int = 60, jobs: int = 1, variant_dir: Path | None = None, extra: tuple = (),
        minimize_seconds: int = 60, runs: int = 0, minimize_runs: int = 0, impl: str = "ours",
        corpus: Path | None = None, seed: bool = True, artifacts: Path | None = None,
        regressions: Path | None = None) -> Summary:
    """Fuzz target NAME for ``seconds`` (0: no time bound) and/or ``runs``
    executions (0: no bound) with ``jobs`` parallel libFuzzer jobs, then
    minimize each finding (each step bounded by ``minimize_runs`` executions,
    else ``minimize_seconds``); returns the summary (also written to
    fuzz/artifacts/NAME/summary.json). Helpers that did not start and failed
    minimizations are in ``Summary.errors``.

    ``impl`` (Target.impl targets): the implementation under test (impls name or
    ``module:attribute``); ``borg`` runs in the instrumented borg venv's interpreter
    (fuzz.build.impl_python), others in this one; our instrumented build is required for
    ``ours`` only (``variant_dir`` also puts it under another implementation's reference).
    ``corpus`` / ``artifacts`` / ``regressions``: other directories than fuzz/corpus/RUN_DIR,
    fuzz/artifacts/RUN_DIR (:func:`run_dir`: NAME, or NAME--IMPL) and fuzz/regressions/NAME; ``seed=False`` leaves the corpus unseeded
    (an empty one starts from nothing)."""
    spec = targets.TARGETS[name]
    python, env = target_env(name, impl, variant_dir)
    kernels = impl_inventory(name, python, env)["lines"] if spec.impl else []
    if seed:
        corpus = seed_corpus(name, impl, corpus)
    else:
        corpus = Path(corpus or CORPUS_ROOT / run_dir(name, impl))
        corpus.mkdir(parents=True, exist_ok=True)
    artifacts = Path(artifacts or ARTIFACT_ROOT / run_dir(name, impl))
    artifacts.mkdir(parents=True, exist_ok=True)
    for old in artifacts.glob("fuzz-*.log"):
        old.unlink()
    before_findings, before_corpus = _findings(artifacts), len(list(corpus.iterdir()))
    args = [f"-max_total_time={seconds}", f"-max_len={spec.max_len}", "-print_final_stats=1", "-timeout=30",
            "-rss_limit_mb=4096", f"-artifact_prefix={artifacts}/"] + ([f"-runs={runs}"] if runs else [])
    if spec.dictionary:
        args.append(f"-dict={FUZZ_DIR / 'dict' / spec.dictionary}")
    if jobs > 1:
        args += [f"-jobs={jobs}", f"-workers={jobs}"]
    log = artifacts / "fuzz.log"
    start, interrupted = time.monotonic(), False
    try:
        rc = _libfuzzer(name, [*args, *extra, str(corpus)], env, artifacts, log, (seconds or 600) * 2 + 300, python)
    except KeyboardInterrupt:       # libFuzzer stopped (_libfuzzer); summarize what ran, keep what it found
        rc, interrupted = -2, True
    elapsed = time.monotonic() - start
    # with -jobs the workers log to fuzz-J.log (libFuzzer also echoes them into fuzz.log: not counted twice)
    job_logs = sorted(artifacts.glob("fuzz-*.log")) or [log]
    texts = [p.read_text(errors="replace") for p in job_logs if p.exists()]
    stats, cov, ft = _stats(texts)
    found = sorted(_findings(artifacts) - before_findings)
    errors = _job_errors(artifacts, jobs) if jobs > 1 and not interrupted else []
    found_in, note = [], f"found with --impl {impl}" if spec.impl else ""
    for f in found:
        try:
            kept = (keep(name, f.read_bytes(), f.name, regressions, note) if interrupted else
                    minimize(name, f, env, minimize_seconds, minimize_runs, python, regressions, note))
            found_in.append(os.path.relpath(kept))
        except MinimizeError as e:
            errors.append(str(e))
            found_in.append(os.path.relpath(e.regression))
    after_corpus = len(list(corpus.iterdir()))
    execs = stats.get("number_of_executed_units", 0)
    rate = stats.get("average_exec_per_sec") or (int(execs / elapsed) if interrupted and elapsed else 0)
    summary = Summary(name, elapsed, execs, rate, cov, ft, after_corpus, after_corpus - before_corpus,
                      found_in, sorted(set(_NOT_RUN.findall("".join(texts)))), rc, errors, impl, kernels, interrupted)
    (artifacts / "summary.json").write_text(json.dumps(summary._asdict(), indent=1))
    return summary


def log_tail(name: str, lines: int = 60, impl: str = "ours") -> str:
    """The last lines of the target's campaign log (for failures)."""
    log = ARTIFACT_ROOT / run_dir(name, impl) / "fuzz.log"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""


def clean(name: str) -> None:
    """Forget the target's local corpus and artifacts (regressions stay)."""
    for d in (CORPUS_ROOT / name, ARTIFACT_ROOT / name):
        shutil.rmtree(d, ignore_errors=True)


class MergeError(RuntimeError):
    """A corpus merge did not finish (libFuzzer failed, the disk filled); the corpus is as it was."""


def merge(name: str, corpus: Path, impl: str = "ours", variant_dir: Path | None = None,
          artifacts: Path | None = None) -> tuple[int, int]:
    """Minimize ``corpus`` of target NAME in place with libFuzzer's ``-merge=1`` (the smallest
    subset of its files with the same coverage features); ``(files before, files after)``.

    The merged set is built in a sibling directory and swapped in only when libFuzzer finished and
    kept at least one file of a non-empty corpus (:func:`_swap_in`).
    MergeError (the corpus untouched, the partial merge removed) otherwise: libFuzzer failed, a
    write failed (ENOSPC), a file could not be read. KeyboardInterrupt leaves the corpus as it was."""
    spec = targets.TARGETS[name]
    python, env = target_env(name, impl, variant_dir)
    artifacts = Path(artifacts or ARTIFACT_ROOT / run_dir(name, impl))
    artifacts.mkdir(parents=True, exist_ok=True)
    corpus = Path(corpus).resolve()
    merged = corpus.with_name(corpus.name + ".merging")
    _recover(corpus)
    before = len(list(corpus.iterdir()))
    log = artifacts / "merge.log"
    try:
        shutil.rmtree(merged, ignore_errors=True)
        merged.mkdir()
        rc = _libfuzzer(name, ["-merge=1", f"-max_len={spec.max_len}", "-timeout=30", "-rss_limit_mb=4096",
                               f"-artifact_prefix={artifacts}/", str(merged), str(corpus)],
                        env, artifacts, log, 3600, python)
        after = len(list(merged.iterdir()))
        if rc != 0 or (before and not after):
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-6:]) if log.exists() else ""
            raise MergeError(f"merging the corpus of {name} ({corpus}) failed (libFuzzer exit {rc}, "
                             f"{after} of {before} files written); the corpus is kept as it was. {log}:\n{tail}")
        _swap_in(merged, corpus)
        return before, after
    except OSError as e:
        _recover(corpus)
        raise MergeError(f"merging the corpus of {name} ({corpus}) failed: {e.strerror or e}"
                         f"{f' ({e.filename})' if e.filename else ''}; the corpus is kept as it was") from None
    finally:
        shutil.rmtree(merged, ignore_errors=True)
