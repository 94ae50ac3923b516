"""Suite-wide options and the kernel parametrization.

Tests that take ``family_kernel`` run once per (family, kernel) known on this
architecture (unless they parametrize it themselves, with params.kernel_params); a kernel that cannot run here is reported as skipped with the
reason from chunkers.kernels() (so ``pytest -rs`` shows what was not
covered). Tests that take ``scan_family`` run once per scan family.
"""

import pytest

from conformance.families import FAMILIES
from conformance.tests.params import kernel_params


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the slow tier (marker 'slow')")


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
