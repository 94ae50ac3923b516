"""pytest plugin of the conformance suite (loaded with ``-p`` from pyproject's addopts): the
kernel provenance summary.

Tests that proved something about a kernel's code (conformance/tests/test_provenance.py: its
scans and chunk runs recorded its own name, the emulated run did, its compiled instructions are
its tier's) call the ``record_provenance`` fixture; the terminal summary lists per kernel what was
proven ("ran: own code", "ISA ok") or why nothing could be. Rows travel in the test reports, so
the summary is complete under pytest-xdist too.
"""

import pytest

_ROWS: dict = {}


@pytest.fixture
def record_provenance(request):
    """Call with (family, kernel, what) for each fact the test proved (shown if it passes)."""
    return lambda family, kernel, what: request.node.user_properties.append(("provenance", (family, kernel, what)))


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed:
        for name, value in report.user_properties:
            if name == "provenance":
                _ROWS.setdefault(tuple(value[:2]), set()).add(value[2])


def pytest_terminal_summary(terminalreporter, config):
    import chunkers
    from conformance.run import engine
    from vectors.impls import provenance
    impl = engine.implementation().name
    terminalreporter.write_sep("-", "kernel provenance: whose code ran, whose instructions")
    if impl != "ours":
        terminalreporter.write_line(f"--impl {impl}: {provenance.note(impl, '', '', False)}")
        return
    for r in chunkers.kernels():
        facts = sorted(_ROWS.get((r.family, r.kernel), ()))
        if r.family not in provenance.MODULES:
            text = provenance.SINGLE
        elif facts:
            text = ", ".join(facts)
        else:
            text = "not proven in this run" + (f" ({r.reason})" if r.reason else "")
        terminalreporter.write_line(f"{r.family:10} {r.kernel:10} {text}")
