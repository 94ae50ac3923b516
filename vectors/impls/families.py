"""The conformance families (kernel selectors) and the chunkers each one runs: what an adapter is asked by,
from the family table (chunkers.families)."""

from __future__ import annotations

from chunkers.families import FAMILIES, chunkers_of, family_of  # noqa: F401  (family_of re-exported)

FAMILY_CHUNKERS = {name: chunkers_of(name) for name in FAMILIES}
"""Family -> the chunker names whose params belong to it (the three AES chunkers share one kernel selector)."""
