"""The conformance families (kernel selectors) and the chunkers each one runs: what an adapter is asked by."""

from __future__ import annotations

FAMILY_CHUNKERS = {"fastcdc": ("fastcdc",), "buzhash64": ("buzhash64",), "buzhash": ("buzhash",), "fixed": ("fixed",),
                   "aes": ("toeplitz-aes", "rabin-aes", "goldilocks-aes")}
"""Family -> the chunker names whose params belong to it (the three AES chunkers share one kernel selector)."""


def family_of(chunker: str) -> str:
    """The family whose kernels run the chunker called ``chunker`` (e.g. ``rabin-aes``); ValueError if none."""
    for name, chunkers in FAMILY_CHUNKERS.items():
        if chunker in chunkers:
            return name
    raise ValueError(f"no conformance family runs the chunker {chunker!r}")
