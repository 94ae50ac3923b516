"""Runs mutants (conformance.tools.mutants.catalogue) one at a time in a separate build tree.

Per fault: apply the search/replace in the tree's copy of the sources, rebuild
only the objects whose source or headers changed (conformance.tools.buildtree), and
compare each rebuilt object with the original's (debug info stripped): all
identical means the fault is equivalent (the same machine code) and nothing
is run. Otherwise

* the default pytest tier, fail-fast (-x): first the tests selected by the
  mutated file's family or component (``-k``), then all the others, the
  scan-level test files first (FIRST); the first failing test
  is the killer (a run past ``timeout`` counts as a kill: a hang);
* the main job (``python -m conformance --fail-fast``): first for the families
  the file belongs to (``--family``), then in full. --fail-fast only stops
  after the first failed cell, so it fails exactly when the full job does.

Only the suite's own verdict kills: pytest exit 1 or 2 naming a FAILED / ERROR
test that passes on the original tree (checked once per test id), the main
job's exit 1 with a FAILED cell, or a crash by a signal (the fault took the
process down). Anything else (a usage error, an import error,
a traceback out of the job) is an "error" with the output's tail, never a
kill: a broken environment must not read as a strong suite. prepare() checks
the environment first (the tests collect, the job imports), so that those
errors stop the run before the first fault.

Faults of the aarch64 and big-endian tiers (route aarch64 / s390x) exist
only on those targets: the tree is cross-built and checked under qemu-user by
ci/cross-run (the same run ``pytest --tiers all`` and ``python -m conformance
--tiers all`` make), so one verdict serves both columns: fail-fast, the
mutated file's families first (``CROSS_ARGS``), then all of them; killed only
by a failed cell, a crash or a hang, as for the main job.

The original file is restored after each fault; a rebuild of the original
reuses the cached objects.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from chunkers.families import FAMILIES, kernel_families
from conformance.tools.buildtree import REPO, BuildError, Tree, includes
from conformance.tools.mutants.catalogue import Mutant

TEST_DIRS = ("conformance/tests", "fuzz/tests")
NO_TIMEOUT = ("-p", "no:cacheprovider", "-n", "0", "-o", "timeout=0")
"""pytest arguments of every fault's run and of the original's check: one process, and no
pytest-timeout (its 300 s per test fails slow tests on a loaded machine, on the mutated and the
original tree alike); the runner's own ``timeout`` per step stands for a hang."""
FIRST = ("conformance/tests/test_scan_identity.py", "conformance/tests/test_segments.py",
         "conformance/tests/test_aes_scan.py", "conformance/tests/test_tiers.py")
"""Run before the other test files (pytest keeps the command line's file order): the scan-level
identity checks find most kernel faults in seconds (test_tiers: the kernels this CPU lacks, in
bochscpu), while the chunk-level files take minutes."""


TOOLING = "conformance/tests/test_suite_tools.py"
"""Left out of fault runs: it checks this tooling against the source text (each fault's search
text occurs once), which the planted fault itself changes, so it fails for every fault."""


def ordered_test_files(src: Path) -> list[str]:
    """Every test file under TEST_DIRS in ``src`` but TOOLING, FIRST first, then in path order."""
    rest = sorted(str(p.relative_to(src)) for d in TEST_DIRS for p in (src / d).glob("test_*.py"))
    return [*FIRST, *(f for f in rest if f not in FIRST and f != TOOLING)]


FAMILY_OF_DIR = {name: [name] for name in kernel_families()}     # csrc/<family>/: chunkers.families
CROSS_ARCH = {"aarch64": "arm64", "s390x": "s390x"}
CROSS_CC = {"aarch64": "aarch64-linux-gnu-gcc", "s390x": "s390x-linux-gnu-gcc"}


@dataclass
class Verdict:
    """What became of one fault. ``pytest`` / ``main``: killed, survived, equivalent, error or
    not run; ``*_by``: the killing test or job step; ``seconds``: wall time for this fault."""

    id: str
    tier: str
    route: str
    pytest: str = "not run"
    pytest_by: str = ""
    main: str = "not run"
    main_by: str = ""
    equivalent: str = ""
    seconds: float = 0.0
    log: list = field(default_factory=list)


CYTHON = (".pyx", ".pxd", ".pxi")
BUILT = (".c", ".h", ".def", *CYTHON)      # .def: a kernel list, compiled into its family's extension
"""Sources a fault is compiled from (a Cython one cythonized first); the others are Python, read as they are."""

READ_PATH = ("sources", "bufpool", "driver")
SELECTION = ("registry", "tune")


def families_of(path: str) -> list[str]:
    """Main-job families a mutated file belongs to (empty: every family)."""
    parts = Path(path).parts
    if len(parts) > 3 and parts[1] == "csrc":
        return FAMILY_OF_DIR.get(parts[2], [])
    if parts[0] == "chunkers" and len(parts) == 2 and Path(path).suffix == ".py" and Path(path).stem in FAMILIES:
        return [Path(path).stem]        # a pure-Python family's module (fixed)
    if parts[-1] in ("seg_roll.h", "stride_roll.h"):    # the segment-parallel and strided templates of the
        return [name for name, f in FAMILIES.items() if f.hash == "cyclic"]   # windowed hashes
    return []


def selection_of(path: str) -> str:
    """A pytest ``-k`` expression for the tests most likely to kill a fault in ``path``."""
    p = Path(path)
    fams = families_of(path)
    longer = [f for f in FAMILIES if len(fams) == 1 and f != fams[0] and f.startswith(fams[0])]
    if longer:      # -k matches substrings: a family named in another's name
        return " and not ".join(fams + longer)
    if fams:
        return " or ".join(fams)
    if p.stem in SELECTION:
        return "select or kernel or default or tune or registry or hide"
    if p.parts[0] == "chunkers" and p.stem in READ_PATH and p.suffix in CYTHON:
        return "sparse or hole or read or buffer or kept or pool or source"
    if p.stem == "driver":
        return "driver or zero or chunk"
    return "table or vector or key or model"


def _stripped(obj: Path, out: Path, objcopy: str) -> bytes:
    proc = subprocess.run([objcopy, "--strip-debug", "-R", ".comment", str(obj), str(out)], capture_output=True,
                          text=True)
    if proc.returncode:
        raise BuildError(f"{objcopy} {obj}: {proc.stderr.strip()[-2000:]}")
    return out.read_bytes()


def same_code(a: Path, b: Path, scratch: Path, objcopy: str = "objcopy") -> bool:
    """True iff objects ``a`` and ``b`` are identical once debug info is removed (``objcopy``: one
    that reads the objects' target, e.g. aarch64-linux-gnu-objcopy). Raises BuildError if it cannot."""
    return _stripped(a, scratch / "a.o", objcopy) == _stripped(b, scratch / "b.o", objcopy)


class Runner:
    """Runs faults in the tree under ``root`` (default build/mutants); ``pytest_args`` are added
    to every pytest call (e.g. ``-n 2``), ``main_args`` to every main-job call (e.g. a smaller
    ``--corpus-size``); ``quick``: only the selected tests and the main job of the file's
    families (a survivor is then "survived (quick)", not proof of a gap); ``timeout`` bounds each test or job step (seconds)."""

    def __init__(self, root=REPO / "build" / "mutants", pytest_args=(), main_args=(), timeout=3600, quick=False,
                 echo=print):
        self.tree = Tree(Path(root) / "native")
        self.pytest_args, self.main_args = list(pytest_args), list(main_args)
        self.timeout, self.echo, self.quick = timeout, echo, quick
        self.scratch = Path(root) / "scratch"
        self.original_passes: dict = {}     # test id -> (passes on the original tree, output tail)

    def prepare(self) -> None:
        """Copy the working tree and build the original (the objects every fault starts from)."""
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.tree.sync()
        t0 = time.monotonic()
        built = self.tree.build()
        self.echo(f"original build: {len(built)} sources compiled in {time.monotonic() - t0:.0f} s ({self.tree.root})")
        self.preflight()

    def preflight(self) -> None:
        """Raise BuildError (one line and the output's tail) unless the original tree's tests
        collect with this interpreter and these pytest arguments, and the main job imports."""
        checks = [("collecting the default tier", ["-m", "pytest", "--collect-only", "-q", *NO_TIMEOUT,
                                                  *self.pytest_args, *ordered_test_files(self.tree.src)]),
                  ("importing the main job", ["-c", "import conformance.run.job, conformance.__main__"])]
        for what, cmd in checks:
            proc = self.tree.run(*cmd, timeout=self.timeout)
            if proc.returncode:
                raise BuildError(f"{what} with {self.tree.python} failed (exit {proc.returncode}); "
                                 f"faults cannot be judged in this environment:\n"
                                 f"{(proc.stdout + proc.stderr)[-2000:]}")

    # -- one fault -------------------------------------------------------------------------------

    def run(self, m: Mutant) -> Verdict:
        v = Verdict(m.id, m.tier, m.route)
        t0 = time.monotonic()
        target = self.tree.src / m.file
        original = target.read_text()
        if original.count(m.find) != 1:
            v.pytest = v.main = "error"
            v.log.append(f"'find' occurs {original.count(m.find)} times in {m.file}, expected once")
            return v
        native_c = m.route == "native" and m.file.endswith(BUILT)
        before = self._objects() if native_c else {}
        try:
            target.write_text(original.replace(m.find, m.replace))
            self._recythonize(m)
            if m.route != "native":
                self._cross(m, v)
            elif not (native_c and self._same_code(before, v)):
                v.pytest, v.pytest_by = self._pytest(m)
                v.main, v.main_by = self._main_job(m)
        except BuildError as e:
            v.pytest = v.main = "error"
            v.log.append(str(e))
        finally:
            target.write_text(original)
            self._recythonize(m)
            if native_c:
                self.tree.build()   # the original's objects are cached: a relink at most
        if v.pytest == "killed" and "::" in v.pytest_by:
            self._check_killer(v)
        for column in ("pytest_by", "main_by"):     # an error's output tail goes to the log
            head, _, tail = getattr(v, column).partition("\n")
            if tail:
                setattr(v, column, head)
                v.log.append(tail)
        if m.equivalent and not v.equivalent:
            v.equivalent = f"argued: {m.equivalent}"
        v.seconds = round(time.monotonic() - t0, 1)
        return v

    def _recythonize(self, m: Mutant) -> None:
        """After a Cython source changed: its C is generated anew when the extensions are read next."""
        if m.file.endswith(CYTHON):
            self.tree._exts = None

    def _check_killer(self, v: Verdict) -> None:
        """A kill counts only if the killing test passes on the original tree (now restored): a
        test that fails for another reason (the environment, a flaky test) must not read as a
        kill. Results are cached per test id."""
        test = v.pytest_by
        if test not in self.original_passes:
            proc = self.tree.run("-m", "pytest", "-q", *NO_TIMEOUT, *self.pytest_args, test, timeout=self.timeout)
            self.original_passes[test] = (proc.returncode == 0, _tail(proc.stdout + proc.stderr))
        ok, out = self.original_passes[test]
        if not ok:
            v.pytest, v.pytest_by = "error", f"{test} also fails on the original tree:\n{out}"

    def _objects(self) -> dict:
        return {(e["name"], s): self.tree.object_for(e, s) for e in self.tree.extensions() for s in e["sources"]}

    def _same_code(self, before: dict, v: Verdict) -> bool:
        """Build the mutated tree; True (and ``v`` marked equivalent) if every rebuilt object has
        the original's machine code."""
        self.tree.build()
        after = self._objects()
        changed = [k for k in after if after[k] != before[k]]
        if not all(same_code(before[k], after[k], self.scratch) for k in changed):
            return False
        v.pytest = v.main = "equivalent"
        v.equivalent = f"identical object code ({len(changed)} objects rebuilt)"
        return True

    def _pytest(self, m: Mutant) -> tuple[str, str]:
        expr = selection_of(m.file)
        stages = [("selected", expr), ("rest", f"not ({expr})")][: 1 if self.quick else 2]
        for stage, sel in stages:
            cmd = ["-m", "pytest", "-x", "-q", *NO_TIMEOUT, *self.pytest_args, "-k", sel,
                   *ordered_test_files(self.tree.src)]
            try:
                proc = self.tree.run(*cmd, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                return "killed", f"{stage} tests: timeout after {self.timeout} s (a hang)"
            verdict = pytest_verdict(proc.returncode, proc.stdout + proc.stderr, stage)
            if verdict:
                return verdict
        return ("survived" if not self.quick else "survived (quick)"), ""

    def _main_job(self, m: Mutant) -> tuple[str, str]:
        fams = families_of(m.file)
        steps = ([["--family", f] for f in fams] if fams else []) + ([] if self.quick and fams else [[]])
        for extra in steps:
            label = "python -m conformance " + " ".join(extra)
            try:
                proc = self.tree.run("-m", "conformance", "--fail-fast", *self.main_args, *extra, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                return "killed", f"{label}: timeout (a hang)"
            verdict = main_job_verdict(proc.returncode, proc.stdout + proc.stderr, label.strip())
            if verdict:
                return verdict
        return ("survived" if not self.quick else "survived (quick)"), ""

    # -- cross targets ---------------------------------------------------------------------------

    def _cross(self, m: Mutant, v: Verdict) -> None:
        arch = m.route
        src = self.tree.src
        if m.file.endswith((".c", ".h")) and self._cross_same_code(m, arch):
            v.pytest = v.main = "equivalent"
            v.equivalent = f"identical {arch} object code"
            return
        cache = REPO / "ci" / "cross"
        link = src / "ci" / "cross"
        if not link.exists():
            link.symlink_to(cache, target_is_directory=True)
        fams = families_of(m.file)
        for extra in ([["--family", f] for f in fams] if fams else []) + [[]]:     # as _main_job
            env = dict(os.environ, PYTHON=self.tree.python, CROSS_ARGS=" ".join(["--fail-fast", *extra]))
            try:
                proc = subprocess.run(["ci/cross-run", arch], cwd=src, env=env, capture_output=True, text=True,
                                      timeout=self.timeout)
                rc, out = proc.returncode, proc.stdout + proc.stderr
            except subprocess.TimeoutExpired:
                rc, out = None, "timeout (a hang)"
            if rc == 0:
                continue
            label = f"ci/cross-run {arch} {' '.join(extra)}".rstrip()
            bad = [line.split()[:2] for line in out.splitlines() if " failed " in line]
            # only the checks' own verdict kills (a failed cell, a crash, a hang), as in main_job_verdict
            crashed = rc is None or rc < 0 or rc > 128         # the script's exit status for a signal: 128 + N
            if bad or crashed:
                v.pytest = v.main = "killed"
                v.pytest_by = v.main_by = f"{label}: " + (" ".join(bad[0]) if bad else out if rc is None else
                                                          f"crashed, exit {rc}")
            else:
                v.pytest = v.main = "error"
                v.pytest_by = v.main_by = f"{label}: exit {rc} without a failed cell:\n{_tail(out)}"
            return
        v.pytest = v.main = "survived"

    def _cross_same_code(self, m: Mutant, arch: str) -> bool:
        """Compile the mutated file and the original with the cross compiler and compare."""
        inc = REPO / "ci" / "cross" / CROSS_ARCH[arch] / "root" / "usr" / "include"
        triplet = CROSS_CC[arch].removesuffix("-gcc")
        src = self.tree.src / m.file
        sources = [m.file] if m.file.endswith(".c") else _includers(self.tree.src, m.file)
        # the target's headers as ci/cross-run takes them (its multiarch dir holds opensslconf.h)
        flags = ["-std=c11", "-O3", "-fPIC", "-idirafter", str(inc / triplet), "-idirafter", str(inc), "-c"]
        mutated = src.read_text()
        objs = {}
        for label, text in (("mut", mutated), ("orig", mutated.replace(m.replace, m.find, 1) if m.replace else None)):
            if text is None:
                return False
            src.write_text(text)
            for s in sources:
                out = self.scratch / f"{label}-{Path(s).stem}.o"
                proc = subprocess.run([CROSS_CC[arch], *flags, str(self.tree.src / s), "-o", str(out)],
                                      capture_output=True, text=True)
                if proc.returncode:
                    src.write_text(mutated)
                    raise BuildError(f"{CROSS_CC[arch]} {s}: {proc.stderr[-2000:]}")
                objs[label, s] = out
        src.write_text(mutated)
        objcopy = f"{triplet}-objcopy"      # the host objcopy cannot read them
        return all(same_code(objs["mut", s], objs["orig", s], self.scratch, objcopy) for s in sources)


def _includers(src: Path, header: str) -> list[str]:
    """The C files under chunkers/csrc that include ``header`` directly or through other headers
    (buildtree.includes), relative to ``src``."""
    src = Path(src).resolve()
    target = (src / header).resolve()
    return [str(f.relative_to(src)) for f in sorted((src / "chunkers" / "csrc").rglob("*.c"))
            if target in includes(src, str(f.relative_to(src)))]


def _tail(out: str) -> str:
    return "\n".join(out.strip().splitlines()[-12:])


def pytest_verdict(rc: int, out: str, stage: str) -> tuple[str, str] | None:
    """(verdict, by) of one pytest run (exit status ``rc``, output ``out``), or None when it passed
    (0) or selected nothing (5). Killed only when pytest names a failing test (exit 1, or 2 for a
    collection error) or died by a signal; otherwise "error" with the output's tail."""
    if rc in (0, 5):
        return None
    if rc < 0:
        return "killed", f"{stage} tests: crashed by signal {-rc}"
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
    if rc in (1, 2) and failed:
        return "killed", failed[0]
    return "error", f"{stage} tests: exit {rc} without a failing test:\n{_tail(out)}"


def main_job_verdict(rc: int, out: str, label: str) -> tuple[str, str] | None:
    """(verdict, by) of one main-job run, or None when it passed. Killed only by the job's own
    verdict (exit 1 with a FAILED cell) or a crash by a signal; otherwise "error"."""
    if rc == 0:
        return None
    if rc < 0:
        return "killed", f"{label}: crashed by signal {-rc}"
    cells = re.findall(r"^FAILED ([^/\n]+/[^:\n]+): first reproducer", out, re.M)     # "read path/sparse files" too
    if rc == 1 and cells:
        return "killed", f"{label}: FAILED {cells[0]}"
    return "error", f"{label}: exit {rc} without a failed cell:\n{_tail(out)}"


def command_line(m: Mutant) -> str:
    """A shell line that plants ``m`` in a checkout (for reproducing a survivor by hand)."""
    code = f"p='{m.file}';s=open(p).read();open(p,'w').write(s.replace({m.find!r},{m.replace!r}))"
    return "python3 -c " + shlex.quote(code)


def as_dict(v: Verdict) -> dict:
    return asdict(v)
