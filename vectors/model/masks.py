"""Mask construction and normalized-chunking parameters (spec 01 §3)."""

from __future__ import annotations

__all__ = ["M64", "mask", "nc_masks", "check_common"]

M64 = (1 << 64) - 1

#: borg's MAX_DATA_SIZE (spec 01 §4.1 check 1).
MAX_DATA_SIZE = 20971479


def mask(bits: int, high: bool) -> int:
    """u64 mask with ``bits`` set bits (spec 01 §3.1).

    ``bits <= 0`` -> 0; ``bits >= 64`` -> all 64 bits; otherwise
    ``L = 2^bits - 1`` (low mask) or ``L << (64 - bits)`` (high mask: the
    ``bits`` most significant bits).  Never raises for integer input.
    """
    if bits <= 0:
        return 0
    if bits >= 64:
        return M64
    low = (1 << bits) - 1
    return (low << (64 - bits)) if high else low


def nc_masks(hash_mask_bits: int, nc_level: int, normal_size: int, high: bool):
    """Return ``(mask_s, mask_l, normal_size)`` (spec 01 §3.2).

    * ``nc_level == 0``: ``mask_s = mask_l = mask(b, high)`` and the returned
      normal size is 0 (the ``normal_size`` argument is ignored).
    * ``nc_level > 0``: ``mask_s = mask(b+n, high)``, ``mask_l = mask(b-n,
      high)``; normal size = ``normal_size`` if non-zero else
      ``2^b - 2^(b-n)`` (mod 2^64).

    ``normal_size`` is a byte offset measured from the chunk start.
    Raises ValueError for ``nc_level < 0`` or ``normal_size < 0``.
    """
    if nc_level < 0:
        raise ValueError("nc_level must be >= 0")
    if normal_size < 0:
        raise ValueError("normal_size must be >= 0 (unsigned)")
    b, n = hash_mask_bits, nc_level
    if n == 0:
        m = mask(b, high)
        return m, m, 0
    ns = normal_size if normal_size else ((1 << b) - (1 << (b - n))) & M64
    return mask(b + n, high), mask(b - n, high), ns


def check_common(chunk_min_exp: int, chunk_max_exp: int, hash_mask_bits: int,
                 nc_level: int) -> None:
    """Common constructor checks of spec 01 §4.1, in that order.

    Raises AssertionError (as borg does) if ``max_size > 20971479``,
    ``min_size + 1 > max_size``, ``nc_level < 0``,
    ``hash_mask_bits - nc_level < 1`` or ``hash_mask_bits + nc_level > 48``.
    Negative exponents raise ValueError (not meaningful as sizes).
    """
    if chunk_min_exp < 0 or chunk_max_exp < 0:
        raise ValueError("chunk size exponents must be >= 0")
    min_size, max_size = 1 << chunk_min_exp, 1 << chunk_max_exp
    if not max_size <= MAX_DATA_SIZE:
        raise AssertionError("max_size too large")
    if not min_size + 1 <= max_size:
        raise AssertionError("min_size + 1 must be <= max_size")
    if not nc_level >= 0:
        raise AssertionError("nc_level must be >= 0")
    if not hash_mask_bits - nc_level >= 1:
        raise AssertionError("hash_mask_bits - nc_level must be >= 1")
    if not hash_mask_bits + nc_level <= 48:
        raise AssertionError("hash_mask_bits + nc_level must be <= 48")
