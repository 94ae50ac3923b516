"""pytest options and report of the conformance suite."""

import pytest

from conformance import tiers

TIER_RESULTS = pytest.StashKey[list]()


def pytest_addoption(parser):
    parser.addoption("--tiers", choices=tiers.TIERS, default="native",
                     help="native (default): this host's kernels, emulating those it cannot run; all: also "
                          "every emulator route (bochscpu for native kernels too, qemu-user aarch64 and s390x)")


def pytest_configure(config):
    config.stash[TIER_RESULTS] = []


@pytest.fixture
def tiers_option(request):
    """The --tiers choice of this run."""
    return request.config.getoption("--tiers")


@pytest.fixture
def tier_results(request):
    """List collecting the conformance.tiers.Tier rows that tests verified (shown in the summary)."""
    return request.config.stash[TIER_RESULTS]


def pytest_terminal_summary(terminalreporter, config):
    rows = tiers.overlay(tiers.matrix(config.getoption("--tiers"), run=False), config.stash[TIER_RESULTS])
    terminalreporter.write_sep("-", "kernel tiers: native / emulated (which emulator) / not covered")
    terminalreporter.write_line(tiers.format_rows(rows))
