"""Repository-wide pytest set-up. The suite's options (--slow, --impl, --allow-missing, --tiers)
live in the plugin conformance/plugin/ (loaded from pyproject's addopts here, and through
its pytest11 entry point once installed), so that they are known before pytest decides which
arguments are test paths and in every xdist worker. Hooks: conformance/tests/conftest.py."""
