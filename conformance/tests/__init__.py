"""Tests of the conformance suite."""
