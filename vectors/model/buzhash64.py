"""buzhash64 reference model: balanced keyed table, rolling hash, own driver
(spec 03).  All values are u64; masks are **low** masks."""

from __future__ import annotations

import functools

from . import driver
from .csprng import KeyStream, check_key
from .masks import M64, check_common, nc_masks

__all__ = ["rotl64", "table", "table_from_stream", "rotated", "window_hash",
           "roll", "scan", "block_lanes", "chunk_sizes", "chunk_sizes_rolling",
           "window_hashes"]


def rotl64(x: int, k: int) -> int:
    """Rotate the u64 ``x`` left by ``k mod 64`` bits (rotation by 0 = identity)."""
    k %= 64
    if k == 0:
        return x
    return ((x << k) | (x >> (64 - k))) & M64


def table_from_stream(stream) -> list:
    """Balanced table derivation of spec 03 §2 from a CSPRNG ``stream``
    (anything with ``shuffle``, e.g. :class:`csprng.KeyStream`).

    For ``bit = 0..63``: shuffle a fresh ``[0..255]`` with the (shared)
    generator and set ``bit`` in ``T[L[0]] .. T[L[127]]``.  Returns 256 u64.
    """
    T = [0] * 256
    for bit in range(64):
        L = list(range(256))
        stream.shuffle(L)
        for idx in L[:128]:
            T[idx] |= 1 << bit
    return T


def table(key: bytes) -> list:
    """buzhash64 table for a 32-byte ``key`` (spec 03 §2); 256 u64 values,
    every bit set in exactly 128 entries.  TypeError / ValueError for a bad
    key (01 §9). Derivations are cached per key (they dominate short runs)."""
    check_key(key)
    return list(_table(key))


@functools.lru_cache(maxsize=64)
def _table(key: bytes) -> tuple:
    return tuple(table_from_stream(KeyStream(key)))


def rotated(T: list, w: int) -> list:
    """``Trot[x] = rotl64(T[x], w mod 64)`` (spec 03 §4); 256 u64."""
    return [rotl64(t, w) for t in T]


def window_hash(T: list, window) -> int:
    """``H(b_0..b_{w-1}) = XOR_t rotl64(T[b_t], (w-1-t) mod 64)`` (spec 03 §3).

    ``window``: bytes-like, oldest byte first, any length ``w >= 0`` (empty
    -> 0).  Computed by grouping the terms with equal rotation (rotation is
    linear over XOR), which is exactly the definition.
    """
    w = len(window)
    h = 0
    for r in range(min(w, 64)):
        t0 = (w - 1 - r) % 64          # first t with (w-1-t) mod 64 == r
        x = 0
        for b in window[t0::64]:
            x ^= T[b]
        h ^= rotl64(x, r)
    return h


def roll(T: list, Trot: list, h: int, out_byte: int, in_byte: int) -> int:
    """One rolling step (spec 03 §4): ``rotl64(h,1) ^ Trot[out] ^ T[in]``."""
    return (((h << 1) | (h >> 63)) & M64) ^ Trot[out_byte] ^ T[in_byte]


def scan(T: list, Trot: list, data, w: int, sum: int, mask: int):
    """Scan kernel contract of spec 03 §5 (test, then roll).

    ``data`` holds ``pr[0 .. n+w-1]`` (so ``n = len(data) - w`` steps and
    ``pa = pr + w``).  While ``j < n`` and ``sum & mask != 0``: roll with out
    ``pr[j]``, in ``pa[j]``.  Returns ``(j, exit_sum)``; with ``j == n`` the
    final window has been computed but not tested.  ValueError if
    ``len(data) < w``.
    """
    n = len(data) - w
    if n < 0:
        raise ValueError("data must hold at least w bytes")
    j = 0
    if not sum & mask:
        return 0, sum
    for o, i in zip(data[:n], data[w:]):
        sum = (((sum << 1) | (sum >> 63)) & M64) ^ Trot[o] ^ T[i]
        j += 1
        if not sum & mask:
            break
    return j, sum


def block_lanes(T: list, Trot: list, out_bytes, in_bytes, s0: int, mask: int) -> list:
    """The exact 8-lane block algebra of spec 03 §7.1 (informative; §8.3).

    ``out_bytes``/``in_bytes``: the 8 leaving / entering bytes of 8 steps;
    ``s0``: entry state.  Returns 8 dicts (lane ``k = 1..8``) with ``D``
    (``D_{k-1}``), ``A`` (``c ^ S_k``), ``M`` (``rotl64(mask, 8-k)``),
    ``hit`` (``A & M == 0``) and ``s`` (exact state ``s_k``).
    """
    if len(out_bytes) != 8 or len(in_bytes) != 8:
        raise ValueError("need 8 out and 8 in bytes")
    c = rotl64(s0, 8)
    S = 0
    s = s0
    lanes = []
    for k in range(1, 9):
        D = Trot[out_bytes[k - 1]] ^ T[in_bytes[k - 1]]
        S ^= rotl64(D, 8 - k)
        A = c ^ S
        M = rotl64(mask, 8 - k)
        s = rotl64(s, 1) ^ D
        lanes.append({"D": D, "A": A, "M": M, "hit": A & M == 0, "s": s})
    return lanes


def _setup(key, min_exp, max_exp, mask_bits, window, nc_level, normal_size):
    # construction order of spec 01 §4.1 / 03 §1
    if window < 1:
        raise ValueError("model restriction: window must be >= 1")
    if not window + (1 << min_exp) + 1 <= (1 << max_exp):
        raise AssertionError("window + min_size + 1 must be <= max_size")
    check_key(key)
    T = table(key)
    check_common(min_exp, max_exp, mask_bits, nc_level)
    mask_s, mask_l, ns = nc_masks(mask_bits, nc_level, normal_size, high=False)
    return T, rotated(T, window), mask_s, mask_l, ns


def chunk_sizes(key: bytes, min_exp: int, max_exp: int, mask_bits: int, window: int,
                nc_level: int = 0, normal_size: int = 0, data=None) -> list:
    """buzhash64 chunk sizes of ``data`` (spec 03 §6.2, via the scan contract).

    Low masks; ``window`` = w bytes (>= 1 in this model); ``normal_size`` 0 =
    automatic.  Returns chunk lengths in bytes.  Errors: AssertionError for
    ``w + min_size + 1 > max_size`` and the checks of 01 §4.1, TypeError /
    ValueError for a bad key or missing data.
    """
    if data is None:
        raise TypeError("data is required")
    T, Trot, mask_s, mask_l, ns = _setup(key, min_exp, max_exp, mask_bits,
                                         window, nc_level, normal_size)
    w = window
    mv = memoryview(bytes(data))

    def wh(x):
        return window_hash(T, mv[x:x + w])

    def span_scan(x, n, h, m):
        return scan(T, Trot, mv[x:x + n + w], w, h, m)

    return driver.windowed_scan(len(mv), 1 << min_exp, 1 << max_exp, w, mask_s,
                                mask_l, nc_level, ns, wh, span_scan)


def chunk_sizes_rolling(key: bytes, min_exp: int, max_exp: int, mask_bits: int,
                        window: int, nc_level: int = 0, normal_size: int = 0,
                        data=None) -> list:
    """Same as :func:`chunk_sizes` through the literal per-step driver
    :func:`driver.windowed` (slower; for cross-checks)."""
    if data is None:
        raise TypeError("data is required")
    T, Trot, mask_s, mask_l, ns = _setup(key, min_exp, max_exp, mask_bits,
                                         window, nc_level, normal_size)
    w = window
    data = bytes(data)
    return driver.windowed(
        len(data), 1 << min_exp, 1 << max_exp, w, mask_s, mask_l, nc_level, ns,
        window_hash=lambda x: window_hash(T, data[x:x + w]),
        roll=lambda h, x: roll(T, Trot, h, data[x], data[x + w]))


def window_hashes(key_or_table, data, w: int) -> list:
    """``H(S[x .. x+w-1])`` for every window start ``x = 0 .. N-w`` (rolled;
    empty list if ``N < w``).  ``key_or_table``: a 32-byte key or a table."""
    T = table(key_or_table) if isinstance(key_or_table, bytes) else key_or_table
    Trot = rotated(T, w)
    data = bytes(data)
    N = len(data)
    if N < w:
        return []
    h = window_hash(T, data[:w])
    out = [h]
    for o, i in zip(data[:N - w], data[w:]):
        h = (((h << 1) | (h >> 63)) & M64) ^ Trot[o] ^ T[i]
        out.append(h)
    return out
