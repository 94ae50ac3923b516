"""The input kinds and the nc grid the golden vectors share with the suite's catalogues
(conformance.cases.catalogue generates the patterns, conformance.cases.classes runs the grid)."""

from __future__ import annotations

PERIODS = (2, 8, 64, 4095, 4096)
"""Unit lengths of the ``periodic-P`` patterns."""

PATTERNS = ("random", "const-00", "const-41", "const-ff", *(f"periodic-{p}" for p in PERIODS),
            "high-bytes", "zero-islands", "lcg", "sha-ctr")
"""The catalogue's pattern kinds."""

NC_MASK_BITS = (8, 12, 24, 40)
"""Mask widths of the nc grid: 8 and 12 put the automatic normal size inside 64..4096 bytes;
24 allows the largest nc_level of all (23); 40 puts the strict mask at the 48-bit limit."""

NORMAL_SIZES = (65, 100, 1000, 2049, 4095, 4096, 5000, 1 << 63)
"""Explicit normal sizes (bytes) of the nc grid, one per level in rotation: just past min, inside
the size range, at and past max (loose mask never used) and far out of range."""

NC_LENGTH = 4500
"""Input bytes per nc case: one chunk past the 4096-byte max at least, a few at most."""


def max_nc(mask_bits: int) -> int:
    """The largest nc_level the rules allow for ``mask_bits`` (spec 01 §4.1)."""
    return min(mask_bits - 1, 48 - mask_bits)
