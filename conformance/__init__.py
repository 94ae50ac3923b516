"""Conformance suite for the chunkers package: case catalogues (cases/), the runner and main job
(run/), the pytest plugin (plugin/), the suite's self-measurement (tools/) and the tests.

Importing the suite registers its CPU emulator with chunkers.registry (the
product never imports the suite; see chunkers.registry.register_emulator)."""

from conformance.tools import emulate as _emulate  # noqa: F401  (registers the bochscpu emulator)
