"""The AES-based chunkers ``rabin-aes``, ``goldilocks-aes``, ``toeplitz-aes``:
key expansion, AES cut test, scan contract and driver (spec 06; UHFs in
07/08/09).

Positions are absolute 0-based indices into the input ``data``; the window at
position ``i`` (defined for ``i >= 63``) is ``data[i-63 .. i]`` (inclusive),
its digest ``D_i`` and its cut value ``c_i``.
"""

from __future__ import annotations

import struct

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from . import driver
from .csprng import KeyStream
from .goldilocks import Goldilocks
from .masks import check_common, nc_masks
from .rabin import Rabin
from .toeplitz import Toeplitz

__all__ = ["NAMES", "UHF_CLASSES", "WINDOW", "AESChunkerKey", "expand_key",
           "from_uhf", "aes_block", "restart", "scan", "digests", "digests_two_lanes",
           "cut_values",
           "raw_candidates", "chunk_sizes", "chunk_sizes_from_cut_values",
           "check_params"]

WINDOW = 64
UHF_CLASSES = {"rabin-aes": Rabin, "goldilocks-aes": Goldilocks, "toeplitz-aes": Toeplitz}
NAMES = tuple(UHF_CLASSES)


def aes_block(D: int) -> bytes:
    """The AES input block for digest ``D`` (06 §3): ``LE64bytes(D) || 8 x 00``."""
    return struct.pack("<QQ", D, 0)


class AESChunkerKey:
    """Expanded key material of one AES chunker instance (06 §2).

    Attributes: ``name``; ``A`` (16-byte AES-128 key); ``uhf`` (a
    :class:`Toeplitz`, :class:`Rabin` or :class:`Goldilocks`).  Methods give
    the AES layer (06 §3-4).
    """

    def __init__(self, name: str, A: bytes, uhf):
        if name not in UHF_CLASSES:
            raise ValueError("unknown AES chunker %r" % (name,))
        if not isinstance(A, bytes) or len(A) != 16:
            raise ValueError("A must be 16 bytes")
        self.name = name
        self.A = A
        self.uhf = uhf
        self._cipher = Cipher(algorithms.AES(A), modes.ECB())

    def encrypt(self, D: int) -> bytes:
        """``AES-128_A(LE64bytes(D) || 0^8)``: the 16 ciphertext bytes."""
        enc = self._cipher.encryptor()
        return enc.update(aes_block(D)) + enc.finalize()

    def cut_value(self, D: int) -> int:
        """Cut value ``c = LE64(ct[0..7])`` of digest ``D`` (06 §4)."""
        return struct.unpack_from("<Q", self.encrypt(D))[0]

    def cut_values(self, Ds) -> list:
        """Cut values for a sequence of digests, with one ECB call (06 §8.3)."""
        Ds = list(Ds)
        if not Ds:
            return []
        n = len(Ds)
        plain = bytearray(16 * n)
        struct.pack_into("<%dQ" % (2 * n), plain, 0,
                         *[x for D in Ds for x in (D, 0)])
        enc = self._cipher.encryptor()
        ct = enc.update(bytes(plain)) + enc.finalize()
        return list(struct.unpack("<%dQ" % (2 * n), ct)[0::2])

    def digest(self, window) -> int:
        """``H(W)`` of a 64-byte window (oldest byte first)."""
        return self.uhf.digest(window)


def expand_key(name: str, key=None, *, stream=None) -> AESChunkerKey:
    """Key expansion (06 §2.2): ``A = Z[0..15]``, then the UHF material from
    ``Z[16]`` on (toeplitz 2048 bytes, rabin / goldilocks 8-byte candidates).

    ``key``: 32-byte chunker key (TypeError for non-bytes, ValueError for
    another length); alternatively ``stream`` = an injected keystream object
    with ``random_bytes`` (e.g. :class:`csprng.ByteStream`).  ValueError for
    an unknown ``name``.
    """
    if name not in UHF_CLASSES:
        raise ValueError("unknown AES chunker %r" % (name,))
    if stream is None:
        stream = KeyStream(key)
    A = stream.random_bytes(16)
    uhf = UHF_CLASSES[name].from_stream(stream)
    return AESChunkerKey(name, A, uhf)


def from_uhf(name: str, A: bytes, uhf) -> AESChunkerKey:
    """Build a context from an AES key ``A`` and a ready UHF object (e.g. a
    :class:`Goldilocks` with an injected ``K``)."""
    return AESChunkerKey(name, A, uhf)


def restart(ctx: AESChunkerKey, data, P: int) -> int:
    """Warm-up digest (06 §7.1): ``H(data[P-64 .. P-1]) = D_{P-1}``.
    ValueError if ``P < 64`` or ``P > len(data)``."""
    if not WINDOW <= P <= len(data):
        raise ValueError("need 64 <= P <= len(data)")
    return ctx.uhf.digest(data[P - WINDOW:P])


def scan(ctx: AESChunkerKey, data, p: int, n: int, state: int, mask: int):
    """Scan contract of 06 §7.2.

    Tests positions ``p .. p+n-1`` (absolute; ``data`` is the whole buffer,
    bytes ``p-64 .. p+n-1`` must exist).  ``state`` is ``D_{p-1}``.  For each
    position ``q``: ``D_q = roll(D_{q-1}, data[q-64], data[q])``; hit iff
    ``c_q & mask == 0``.  Returns ``(r, exit_state)``: ``r`` = smallest hit
    index relative to ``p`` with exit ``D_{p+r}``, or ``-1`` with exit
    ``D_{p+n-1}`` (``state`` unchanged if ``n == 0``).  Digests are computed
    in growing batches and encrypted with one ECB call per batch.
    ValueError if the byte range is not inside ``data`` or ``n < 0``.
    """
    if n < 0 or p < WINDOW or p + n > len(data):
        raise ValueError("need n >= 0, p >= 64 and p + n <= len(data)")
    roll = ctx.uhf.roll
    D = state
    j = 0
    batch = 64
    while j < n:
        m = min(batch, n - j)
        ds = []
        for q in range(p + j, p + j + m):
            D = roll(D, data[q - WINDOW], data[q])
            ds.append(D)
        for t, c in enumerate(ctx.cut_values(ds)):
            if not c & mask:
                return j + t, ds[t]
        j += m
        batch = min(2 * batch, 16384)
    return -1, D


def digests_two_lanes(ctx: AESChunkerKey, data, p: int, n: int, state: int) -> list:
    """``[D_p, ..., D_{p+n-1}]`` computed with the two stride-2 lanes of 06 §8.1.

    ``state`` = ``D_{p-1}``.  Even lane: ``D_p = roll(D_{p-1}, S[p-64], S[p])``
    then ``roll2`` steps; odd lane: ``D_{p+1} = roll2(D_{p-1}, S[p-64],
    S[p-63], S[p], S[p+1])`` then ``roll2`` steps.  Must equal single rolls.
    ValueError if the byte range is not inside ``data``.
    """
    if n < 0 or p < WINDOW or p + n > len(data):
        raise ValueError("need n >= 0, p >= 64 and p + n <= len(data)")
    u = ctx.uhf
    out = [None] * n
    if n >= 1:
        d = u.roll(state, data[p - 64], data[p])
        out[0] = d
        for t in range(2, n, 2):          # even lane: D_{p+t} from D_{p+t-2}
            q = p + t
            d = u.roll2(d, data[q - 65], data[q - 64], data[q - 1], data[q])
            out[t] = d
    if n >= 2:
        d = u.roll2(state, data[p - 64], data[p - 63], data[p], data[p + 1])
        out[1] = d
        for t in range(3, n, 2):          # odd lane
            q = p + t
            d = u.roll2(d, data[q - 65], data[q - 64], data[q - 1], data[q])
            out[t] = d
    return out


def digests(ctx: AESChunkerKey, data) -> list:
    """``[D_63, D_64, ..., D_{N-1}]`` (element ``k`` is ``D_{63+k}``; empty if
    ``N < 64``): full digest of the first window, then single rolls."""
    data = bytes(data)
    N = len(data)
    if N < WINDOW:
        return []
    uhf = ctx.uhf
    D = uhf.digest(data[:WINDOW])
    out = [D]
    roll = uhf.roll
    for q in range(WINDOW, N):
        D = roll(D, data[q - WINDOW], data[q])
        out.append(D)
    return out


def cut_values(ctx: AESChunkerKey, data) -> list:
    """Cut values per position: a list of length ``N`` whose entry ``i`` is
    ``c_i`` for ``i >= 63`` and None for ``i < 63`` (06 §5: ``c_i`` is a pure
    function of the window)."""
    data = bytes(data)
    if len(data) < WINDOW:
        return [None] * len(data)
    return [None] * (WINDOW - 1) + ctx.cut_values(digests(ctx, data))


def raw_candidates(ctx: AESChunkerKey, data, mask: int) -> list:
    """Positions ``i >= 63`` with ``c_i & mask == 0`` (spec 10 §5), ascending."""
    cv = cut_values(ctx, data)
    return [i for i in range(WINDOW - 1, len(cv)) if not cv[i] & mask]


def check_params(min_exp: int, max_exp: int, mask_bits: int, nc_level: int) -> None:
    """Construction checks 06 §9.1 steps 1-2: AssertionError if
    ``chunk_min_exp < 6``, then the common checks of 01 §4.1."""
    if not min_exp >= 6:
        raise AssertionError("chunk_min_exp must be at least 6 (2^6 = 64 is the window size)")
    check_common(min_exp, max_exp, mask_bits, nc_level)


def chunk_sizes(name: str, key, min_exp: int, max_exp: int, mask_bits: int,
                nc_level: int = 0, normal_size: int = 0, data=None, *,
                ctx: AESChunkerKey = None) -> list:
    """Chunk sizes of ``data`` for the AES chunker ``name`` (06 §7 with the
    window-less driver of 01 §5.3).

    ``restart`` = digest of the 64 bytes before offset ``min_size``;
    ``scan`` = :func:`scan`; low masks (``mask_bits`` +/- ``nc_level``);
    ``normal_size`` 0 = automatic.  ``key``: 32 bytes (or pass a prepared
    ``ctx``).  Returns chunk lengths in bytes.  Errors in 06 §9.1 order:
    AssertionError (``min_exp < 6``, common checks), then TypeError /
    ValueError for the key; ValueError for an unknown name; TypeError if
    ``data`` is missing.
    """
    if data is None:
        raise TypeError("data is required")
    if name not in UHF_CLASSES:
        raise ValueError("unknown AES chunker %r" % (name,))
    check_params(min_exp, max_exp, mask_bits, nc_level)
    if ctx is None:
        ctx = expand_key(name, key)
    mask_s, mask_l, ns = nc_masks(mask_bits, nc_level, normal_size, high=False)
    data = bytes(data)
    min_size = 1 << min_exp

    def _restart(a):
        return restart(ctx, data, a + min_size)

    def _scan(p, n, st, m):
        return scan(ctx, data, p, n, st, m)

    return driver.windowless_scan(len(data), min_size, 1 << max_exp, mask_s, mask_l,
                                  nc_level, ns, _restart, _scan)


def chunk_sizes_from_cut_values(cvals, min_exp: int, max_exp: int, mask_bits: int,
                                nc_level: int = 0, normal_size: int = 0) -> list:
    """Chunk sizes from precomputed per-position cut values (06 §5).

    ``cvals``: as returned by :func:`cut_values` for the whole input (length
    ``N``).  Uses :func:`driver.windowless_from_hits`; same result as
    :func:`chunk_sizes`.  AssertionError for invalid parameters (06 §9.1).
    """
    check_params(min_exp, max_exp, mask_bits, nc_level)
    mask_s, mask_l, ns = nc_masks(mask_bits, nc_level, normal_size, high=False)
    N = len(cvals)

    def hits(m):
        return [i for i in range(WINDOW - 1, N) if not cvals[i] & m]

    h_l = hits(mask_l)
    h_s = hits(mask_s) if nc_level > 0 else h_l
    return driver.windowless_from_hits(N, 1 << min_exp, 1 << max_exp, nc_level, ns,
                                       h_s, h_l)
