"""Conformance suite for the chunkers package: reference model, inputs and tests."""
