"""Suite-wide options and the kernel parametrization.

Tests that take ``family_kernel`` run once per (family, kernel) known on this
architecture (unless they parametrize it themselves, with params.kernel_params); a kernel that cannot run here is reported as skipped with the
reason from chunkers.kernels() (so ``pytest -rs`` shows what was not
covered). Tests that take ``scan_family`` run once per scan family.

``--slow``, ``--impl NAME`` and ``--allow-missing`` are registered, and the
implementation under test is set, by the plugin conformance.plugin.
``--impl NAME`` (``ours`` by default, ``borg``, ``model`` or
``module:attribute``, see vectors.impls) runs the vectors and the
chunk-level checks against that implementation's kernels: only the tests
parametrized over ``family_kernel`` by this hook (``@pytest.mark.families``
narrows the families) and not marked ``ours_only`` (those call our chunkers or
scan kernels directly) run; the rest are skipped.
"""

from pathlib import Path

import pytest

from conformance import seeding

from conformance.run import engine
from conformance.cases.families import scan_families
from conformance.tests.params import kernel_params


HYPOTHESIS_PROFILE = seeding.load()     # before the test modules build their settings objects


def pytest_report_header(config):
    return seeding.header(HYPOTHESIS_PROFILE)


def pytest_collection_modifyitems(config, items):
    impl = engine.implementation()
    skip_slow = pytest.mark.skip(reason="slow tier: run with --slow")
    skip_ours = pytest.mark.skip(reason=f"--impl {impl.name}: runs the vectors and chunk-level checks only")
    here = Path(__file__).parent
    for item in items:
        if "slow" in item.keywords and not config.getoption("--slow"):
            item.add_marker(skip_slow)
        if impl.name != "ours" and here in item.path.parents and \
                ("ours_only" in item.keywords or "family_kernel" not in item.fixturenames):
            item.add_marker(skip_ours)      # fuzz/tests/conftest.py decides for its own tests


def _explicit(metafunc, name):
    return any(name in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize"))


def pytest_generate_tests(metafunc):
    if "family_kernel" in metafunc.fixturenames and not _explicit(metafunc, "family_kernel"):
        families = metafunc.definition.get_closest_marker("families")
        metafunc.parametrize("family_kernel", kernel_params(list(families.args) if families else None,
                                                            impl=engine.implementation()))
    if "scan_family" in metafunc.fixturenames:
        metafunc.parametrize("scan_family", scan_families())
