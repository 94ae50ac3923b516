"""Conformance suite for the chunkers package: reference model, inputs and tests.

Importing the suite registers its CPU emulator with chunkers.registry (the
product never imports the suite; see chunkers.registry.EMULATOR_GROUP)."""

from conformance.tools import emulate as _emulate  # noqa: F401  (registers the bochscpu emulator)
