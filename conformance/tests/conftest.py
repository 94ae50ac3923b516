"""Suite-wide options and the kernel parametrization.

Tests that take ``family_kernel`` run once per (family, kernel) known on this
architecture (unless they parametrize it themselves, with params.kernel_params); a kernel that cannot run here is reported as skipped with the
reason from chunkers.kernels() (so ``pytest -rs`` shows what was not
covered). Tests that take ``scan_family`` run once per scan family.
"""

import pytest

from conformance import tiers
from conformance.families import FAMILIES
from conformance.tests.params import kernel_params

_TIER_ROWS: list = []   # Tier rows verified by tests, gathered from the reports (so also under xdist)


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the slow tier (marker 'slow')")
    parser.addoption("--tiers", choices=tiers.TIERS, default="native",
                     help="native (default): this host's kernels, emulating those it cannot run; all: also "
                          "every emulator route (bochscpu for native kernels too, qemu-user aarch64 and s390x)")


@pytest.fixture
def tiers_option(request):
    """The --tiers choice of this run."""
    return request.config.getoption("--tiers")


@pytest.fixture
def record_tier(request):
    """Call with each conformance.tiers.Tier row the test verified; the summary shows them."""
    return lambda row: request.node.user_properties.append(("tier", tuple(row)))


def pytest_runtest_logreport(report):
    if report.when == "call":
        _TIER_ROWS.extend(tiers.Tier(*value) for name, value in report.user_properties if name == "tier")


def pytest_terminal_summary(terminalreporter, config):
    rows = tiers.overlay(tiers.matrix(config.getoption("--tiers"), run=False), _TIER_ROWS)
    terminalreporter.write_sep("-", "kernel tiers: native / emulated (which emulator) / not covered")
    terminalreporter.write_line(tiers.format_rows(rows))


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow tier: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _explicit(metafunc, name):
    return any(name in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize"))


def pytest_generate_tests(metafunc):
    if "family_kernel" in metafunc.fixturenames and not _explicit(metafunc, "family_kernel"):
        metafunc.parametrize("family_kernel", kernel_params())
    if "scan_family" in metafunc.fixturenames:
        metafunc.parametrize("scan_family", list(FAMILIES))
