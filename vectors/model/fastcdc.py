"""fastcdc reference model: keyed Gear table, sequential scan, driver (spec 02).

Hash state: one u64 ``fp``; feeding byte ``x``: ``fp = (fp << 1) + G[x] mod
2^64``; cut test with a **high** mask ``m``: ``fp & m == 0`` (02 §3).
"""

from __future__ import annotations

import functools
import struct

from . import driver
from .csprng import KeyStream, check_key
from .masks import M64, check_common, nc_masks

__all__ = ["gear_table", "feed", "scan", "block_lanes", "chunk_sizes",
           "chunk_sizes_bytewise"]


def gear_table(key: bytes) -> list:
    """Keyed Gear table (spec 02 §2): 256 u64 values.

    ``G[i] = LE64(Z[8i .. 8i+7])`` where ``Z`` is the first 2048 bytes of the
    CSPRNG keystream for ``key`` (one ``random_bytes(2048)`` call).
    Raises TypeError (non-bytes key) / ValueError (length != 32).
    """
    check_key(key)
    return list(_gear(key))


@functools.lru_cache(maxsize=64)
def _gear(key: bytes) -> tuple:
    return struct.unpack("<256Q", KeyStream(key).random_bytes(2048))


def feed(gear: list, fp: int, byte: int) -> int:
    """One Gear step (spec 02 §3): ``(fp << 1) + G[byte] mod 2^64``."""
    return ((fp << 1) + gear[byte]) & M64


def scan(gear: list, data, fp: int, mask: int):
    """Sequential scan kernel (spec 02 §4).

    Feeds ``data[0], ..., data[n-1]`` (``n = len(data)``, any bytes-like) into
    the state ``fp``, testing ``fp & mask == 0`` after each byte.  Returns
    ``(i, fp_at_i)`` for the first matching index ``i`` (state *including*
    byte ``i``) or ``(-1, fp_after_all)`` (``fp`` unchanged if ``n == 0``).
    """
    for i, b in enumerate(data):
        fp = ((fp << 1) + gear[b]) & M64
        if not fp & mask:
            return i, fp
    return -1, fp


def block_lanes(gear: list, block, fp: int, mask: int) -> list:
    """The 8-lane block algebra of spec 02 §5.1-5.2 (informative; §8.3).

    ``block``: 8 bytes (``b_1`` first); ``fp``: entry state; ``mask``: any
    u64 mask.  Returns 8 dicts (lane ``j = 1..8``) with keys ``H`` (= ``(fp
    << 8) + S_j``), ``M`` (= ``mask << (8-j)``), ``candidate`` (``H & M ==
    0``), ``h`` (exact sequential state after ``b_j``) and ``exact``
    (``h & mask == 0``).  ValueError if ``len(block) != 8``.
    """
    if len(block) != 8:
        raise ValueError("block must have 8 bytes")
    c = (fp << 8) & M64
    s = 0
    h = fp
    lanes = []
    for j in range(1, 9):
        b = block[j - 1]
        s = (s + ((gear[b] << (8 - j)) & M64)) & M64
        H = (c + s) & M64
        M = (mask << (8 - j)) & M64
        h = feed(gear, h, b)
        lanes.append({"H": H, "M": M, "candidate": H & M == 0,
                      "h": h, "exact": h & mask == 0})
    return lanes


def _setup(key, min_exp, max_exp, mask_bits, nc_level, normal_size):
    # construction order of spec 01 §4.1: table from the key, then checks
    check_key(key)
    gear = gear_table(key)
    check_common(min_exp, max_exp, mask_bits, nc_level)
    mask_s, mask_l, ns = nc_masks(mask_bits, nc_level, normal_size, high=True)
    return gear, mask_s, mask_l, ns


def chunk_sizes(key: bytes, min_exp: int, max_exp: int, mask_bits: int,
                nc_level: int = 0, normal_size: int = 0, data=None) -> list:
    """fastcdc chunk sizes of ``data`` (spec 02 §7 = 01 §5.3, ``restart() = 0``).

    ``key``: 32 bytes; sizes ``min_size = 2^min_exp``, ``max_size =
    2^max_exp``; high masks with ``mask_bits`` (+/- ``nc_level``);
    ``normal_size`` 0 = automatic (ignored when ``nc_level == 0``).
    Returns chunk lengths in bytes (empty for empty data).  Errors: TypeError
    / ValueError for a bad key or missing data, AssertionError for the
    constructor checks of 01 §4.1.
    """
    if data is None:
        raise TypeError("data is required")
    gear, mask_s, mask_l, ns = _setup(key, min_exp, max_exp, mask_bits,
                                      nc_level, normal_size)
    mv = memoryview(bytes(data))

    def restart(a):
        return 0

    def span_scan(p, n, fp, m):
        return scan(gear, mv[p:p + n], fp, m)

    return driver.windowless_scan(len(mv), 1 << min_exp, 1 << max_exp, mask_s,
                                  mask_l, nc_level, ns, restart, span_scan)


def chunk_sizes_bytewise(key: bytes, min_exp: int, max_exp: int, mask_bits: int,
                         nc_level: int = 0, normal_size: int = 0, data=None) -> list:
    """Same as :func:`chunk_sizes` but through the per-byte driver
    :func:`driver.windowless` (restart/feed/test); slower, for cross-checks."""
    if data is None:
        raise TypeError("data is required")
    gear, mask_s, mask_l, ns = _setup(key, min_exp, max_exp, mask_bits,
                                      nc_level, normal_size)
    data = bytes(data)
    return driver.windowless(
        len(data), 1 << min_exp, 1 << max_exp, mask_s, mask_l, nc_level, ns,
        restart=lambda a: 0,
        feed=lambda fp, i: ((fp << 1) + gear[data[i]]) & M64,
        test=lambda fp, m: fp & m == 0)
