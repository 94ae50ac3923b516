"""pytest plugin of the conformance suite (loaded with ``-p`` from pyproject's addopts):
the ``--tiers`` option and the kernel-tier summary (conformance.tools.tiers).

``--tiers native`` (default) verifies this host's kernels and emulates those it
cannot run; ``--tiers all`` also emulates the ones it can and runs the qemu-user
tiers. Tests report each tier they verified through the ``record_tier`` fixture;
the terminal summary shows every tier of every target as native, emulated
(which emulator) or not covered. Rows travel in the test reports, so the
summary is complete under pytest-xdist too.
"""

import pytest

from conformance.tools import tiers

_ROWS: list = []


def pytest_addoption(parser):
    parser.addoption("--tiers", choices=tiers.TIERS, default="native",
                     help="native (default): this host's kernels, emulating those it cannot run; all: also "
                          "every emulator route (bochscpu for native kernels too, qemu-user aarch64 and s390x)")


@pytest.fixture
def tiers_option(request):
    """The --tiers choice of this run."""
    return request.config.getoption("--tiers")


@pytest.fixture
def record_tier(request):
    """Call with each conformance.tools.tiers.Tier row the test verified; the summary shows them."""
    return lambda row: request.node.user_properties.append(("tier", tuple(row)))


def pytest_runtest_logreport(report):
    if report.when == "call":
        _ROWS.extend(tiers.Tier(*value) for name, value in report.user_properties if name == "tier")


def pytest_terminal_summary(terminalreporter, config):
    if config.getoption("--impl") != "ours":      # our tiers: not what an --impl run checks
        return
    rows = tiers.overlay(tiers.matrix(config.getoption("--tiers"), run=False), _ROWS)
    terminalreporter.write_sep("-", "kernel tiers: native / emulated (which emulator) / not covered")
    terminalreporter.write_line(tiers.format_rows(rows))
