"""fuzz/ under ``--impl X`` (the plugin conformance.plugin, loaded repo-wide by pyproject's
addopts): the tests that take the ``impl`` fixture replay their target's seeds and regressions
against X (fuzz/tests/test_replay.py: impl_chunks, the targets with Target.impl); every other test
here checks this project's harnesses, builds and campaigns and is skipped under an implementation
other than ours (a test that passed without reaching X would be reported failed by the plugin)."""

from pathlib import Path

import pytest

from conformance.run import engine


@pytest.fixture
def impl():
    """The implementation under test (--impl; ours by default), as the plugin wraps it."""
    return engine.implementation()


def pytest_collection_modifyitems(config, items):
    impl = engine.implementation()
    if impl.name == "ours":
        return
    here = Path(__file__).parent
    skip = pytest.mark.skip(reason=f"--impl {impl.name}: fuzz/ replays only the targets that go through the "
                                   "adapter (impl_chunks) against it; the rest checks this project")
    for item in items:
        if here in item.path.parents and "impl" not in item.fixturenames:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _registry_resolve_restored():
    """Each scan module's own kernel resolution back after every test here: a scan target
    (fuzz.scan_diff.target) memoizes it for its process, whose environment is fixed, while tests
    in the same process later change CHUNKERS_CPU_HIDE and the kernel variables."""
    import importlib

    from chunkers.families import scan_families
    modules = [importlib.import_module(f"chunkers.{family}") for family in scan_families()]
    saved = [m.resolve for m in modules]
    yield
    for m, resolve in zip(modules, saved):
        m.resolve = resolve
