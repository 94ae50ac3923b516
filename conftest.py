"""Repository-wide pytest options, registered here so that they are known before
pytest decides which arguments are test paths (``pytest --impl borg`` must not take
``borg`` for a path) and in every xdist worker. Hooks: conformance/tests/conftest.py."""


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the slow tier (marker 'slow')")
    parser.addoption("--impl", default="ours",
                     help="implementation under test: ours (default), borg, model or module:attribute "
                          "(see conformance/impls.py)")
