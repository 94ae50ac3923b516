"""pytest plugin of the conformance suite: its options and what ``--impl`` checked.

Loaded by ``-p conformance.plugin`` in a checkout (pyproject's addopts)
and through the ``pytest11`` entry point once installed, so that
``pytest --pyargs conformance --impl borg`` runs the suite from any directory
(README "Checking your implementation"). It also loads conformance.plugin.tiers
(``--tiers`` and the kernel-tier summary) and conformance.plugin.provenance
(the kernel provenance summary).

Options: ``--slow``, ``--impl NAME`` (``ours`` by default, ``borg``, ``model`` or
``module:attribute``, see impls) and ``--allow-missing``.

Under ``--impl X`` other than ours:

* X must load: a name that cannot be imported or an implementation that is
  unavailable here (borg not installed) ends the run with one line and exit
  status 2, unless ``--allow-missing`` asks for every check to be skipped;
* every verdict is about X: a test that passes without a single call reaching
  X (conformance.run.audit.Counting) is reported failed;
* the terminal summary says how many tests ran against X and, per family x
  kernel, which levels ran (vectors, chunk; scan: not available), and names
  the kernels only one side lists.
"""

from __future__ import annotations

import collections
import sys

import pytest

from conformance.run import audit, engine

from vectors import impls

pytest_plugins = ["conformance.plugin.tiers", "conformance.plugin.provenance"]

USAGE_ERROR = 2
"""Exit status for an --impl that cannot load (as the main job's)."""

_RUNS: list = []        # (family, kernel, level, outcome, calls) per test that ran under --impl
_SKIPPED: list = [0]


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the slow tier (marker 'slow')")
    parser.addoption("--impl", default="ours",
                     help="implementation under test: ours (default), borg, model or module:attribute "
                          "(see vectors/impls/)")
    parser.addoption("--allow-missing", action="store_true",
                     help="with --impl: skip every check if the implementation is not available here, "
                          "instead of exit status 2")


def _load(config) -> impls.Implementation | str:
    """The implementation --impl names, or the one line saying why it cannot be used."""
    name = config.getoption("--impl")
    try:
        impl = impls.load(name, available=False)
    except impls.LoadError as e:
        return str(e)
    reason = impl.unavailable()
    if reason and not config.getoption("--allow-missing"):
        return f"--impl {name}: {reason} (--allow-missing skips the checks instead)"
    return impl


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Refuse an --impl that cannot load before any collection: one line, exit 2."""
    if hasattr(config, "workerinput"):       # xdist workers: the controller has checked
        return None
    loaded = _load(config)
    if isinstance(loaded, str):
        sys.stderr.write(f"error: {loaded}\n")
        return USAGE_ERROR
    return None


def pytest_configure(config):
    config.addinivalue_line("markers", "ours_only: checks of this project's internals (skipped with --impl)")
    # also declared in pyproject; repeated for runs outside the checkout (pytest --pyargs conformance)
    config.addinivalue_line("markers", "slow: long-running checks (run with --slow)")
    config.addinivalue_line("markers", "level(name): the level a check under --impl runs at (vectors; "
                                       "default chunk)")
    config.addinivalue_line("markers", "families(*names): parametrize family_kernel over these families only")
    impl = _load(config)
    if isinstance(impl, str):
        raise pytest.UsageError(impl)
    engine.set_implementation(impl if impl.name == "ours" else audit.Counting(impl))


def _under_test():
    impl = engine.implementation()
    return impl if isinstance(impl, audit.Counting) else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    impl = _under_test()
    before = impl.calls if impl else 0
    yield
    if impl:
        item.stash[_CALLS] = impl.calls - before


_CALLS = pytest.StashKey[int]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    impl = _under_test()
    if impl is None or call.when != "call":
        return
    calls = item.stash.get(_CALLS, 0)
    if report.passed and calls == 0:
        report.outcome = "failed"
        report.longrepr = (f"passed without a single call reaching --impl {impl.name}: this test does not "
                           f"check {impl.name} (route it through conformance.run.engine or mark it ours_only)")
    callspec = getattr(item, "callspec", None)
    family, kernel = (callspec.params.get("family_kernel") if callspec else None) or ("-", "-")
    marker = item.get_closest_marker("level")
    level = marker.args[0] if marker else "chunk"
    report.user_properties.append(("impl_run", (family, kernel, level, report.outcome, calls)))


def pytest_runtest_logreport(report):
    if report.when == "call":
        _RUNS.extend(value for name, value in report.user_properties if name == "impl_run")
    elif report.when == "setup" and report.skipped:
        _SKIPPED[0] += 1


def _cell(counter) -> str:
    if not counter:
        return "-"
    return ", ".join(f"{n} {outcome}" for outcome, n in sorted(counter.items()))


def pytest_terminal_summary(terminalreporter, config):
    impl = _under_test()
    if impl is None:
        return
    write = terminalreporter.write_line
    terminalreporter.write_sep("-", f"--impl {impl.name}: what was checked")
    reason = impl.unavailable()
    if reason:                              # --allow-missing
        write(f"nothing ran against {impl.name}: {reason}")
        return
    ran = [r for r in _RUNS if r[4] > 0]
    outcomes = collections.Counter(r[3] for r in ran)
    idle = collections.Counter(r[3] for r in _RUNS if r[4] == 0)
    write(f"{len(ran)} tests ran against {impl.name} ({_cell(outcomes)}); "
          f"{_SKIPPED[0] + idle['skipped']} skipped (ours-only checks, or kernels and families not available)")
    if idle["failed"]:
        write(f"{idle['failed']} tests failed without a call reaching {impl.name}")
    per = collections.defaultdict(collections.Counter)
    for family, kernel, level, outcome, _calls in ran:
        per[family, kernel, level][outcome] += 1
    rows = [("family", "kernel", "vectors", "chunk", "scan")]
    from conformance.cases.families import FAMILIES
    for family in FAMILIES:
        kernels = impl.kernels(family)
        if not kernels:
            rows.append((family, "-", f"{impl.name} has no {family} chunker", "", ""))
        for kernel, why in kernels:
            if why:
                rows.append((family, kernel, f"not run: {why}", "", ""))
            else:
                rows.append((family, kernel, _cell(per[family, kernel, "vectors"]),
                             _cell(per[family, kernel, "chunk"]), audit.scan_note(impl)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        write("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
    for line in audit.format_differences(impl, audit.kernel_differences(impl)):
        write(line)
