"""fixed's cases (conformance.cases.families): chunk level only (no scan)."""

FAMILY = "fixed"

CHUNK_PARAMS = ["fixed,64", "fixed,4096,123", "fixed,1000,-5", "fixed,65536,100000"]
"""Params of the chunk-level checks."""
