"""Deterministic input generators used by the golden checks.

Every generator returns ``bytes`` of exactly the requested length ``n``
(``n >= 0``; a negative ``n`` raises ValueError).

* :func:`sha_ctr` -- spec 02 §8 / 05 §1 ("SHA-CTR(n)", label ``b"borg-spec"``)
  and, with ``label=b""``, spec 10 §1 ("SC": SHA-256(LE64bytes(i))).
* :func:`lcg` -- spec 05 §1 / 10 §1 ("LCG(n)", borg's frozen test data).
* :func:`zeros`, :func:`const` -- trivial helpers (``ZEROS(n)``, constant bytes).
"""

from __future__ import annotations

import hashlib
import struct

__all__ = ["sha_ctr", "lcg", "lcg_naive", "zeros", "const"]

_LCG_A = 1103515245
_LCG_C = 12345
_LCG_M = 1 << 31


def _check_n(n: int) -> None:
    if not isinstance(n, int):
        raise TypeError("n must be an int")
    if n < 0:
        raise ValueError("n must be >= 0")


def sha_ctr(n: int, label: bytes = b"borg-spec") -> bytes:
    """SHA-256 counter stream, truncated to ``n`` bytes.

    Concatenation of ``SHA-256(label || LE64(i))`` for ``i = 0, 1, 2, ...``
    (the counter is 8 bytes little-endian), cut to the first ``n`` bytes.

    * ``label=b"borg-spec"`` (default): ``SHA-CTR(n)`` of spec 02 §8 / 05 §1;
      first 16 bytes ``bec4155a004aa3996830fee250a069a9``.
    * ``label=b""``: the AES spec's ``SC`` input (spec 10 §1), first 16 bytes
      ``af5570f5a1810b7af78caf4bc70a660f`` (use ``n = 262144``).

    Raises ValueError for ``n < 0``, TypeError for a non-bytes label.
    """
    _check_n(n)
    if not isinstance(label, (bytes, bytearray)):
        raise TypeError("label must be bytes")
    label = bytes(label)
    have = _SHA_STREAMS.get(label, b"")
    if n <= len(have):
        return have[:n]
    pack = struct.Struct("<Q").pack
    sha = hashlib.sha256
    parts, stop = [have], (n + 31) // 32
    for start in range(len(have) // 32, stop, SHA_PIECE_BLOCKS):    # joined per piece: the peak stays ~2n
        parts.append(b"".join(sha(label + pack(i)).digest() for i in range(start, min(start + SHA_PIECE_BLOCKS, stop))))
    out = b"".join(parts)
    del parts
    if len(out) <= SHA_CACHE_BYTES:
        if sum(map(len, _SHA_STREAMS.values())) + len(out) - len(have) > SHA_CACHE_BYTES:
            _SHA_STREAMS.clear()
        _SHA_STREAMS[label] = out
    return out[:n]


SHA_PIECE_BLOCKS = 1 << 15
"""Digests joined at a time (1 MiB): one join over a whole 20 MiB stream held ~45 MB of digest objects."""
SHA_CACHE_BYTES = 32 << 20
"""Bytes of SHA-CTR streams kept per process (the longest per label; every shorter request is a
prefix): the vectors ask for the same labels over and over, once per kernel, and regenerating
them was a tenth of a conformance run (most of it under qemu)."""
_SHA_STREAMS: dict = {}


def lcg_naive(n: int) -> bytes:
    """``LCG(n)`` computed with the plain loop of spec 05 §1 (slow reference).

    ``x = 1``; for each output byte: ``x = (x*1103515245 + 12345) mod 2^31``,
    then emit ``x & 255``.  Raises ValueError for ``n < 0``.
    """
    _check_n(n)
    x = 1
    out = bytearray(n)
    for i in range(n):
        x = (x * _LCG_A + _LCG_C) % _LCG_M
        out[i] = x & 255
    return bytes(out)


def _lcg_period_block() -> bytes:
    """The first 256 output bytes of LCG, which repeat forever.

    Derivation: ``2^8`` divides ``2^31``, so ``x_{k+1} mod 256`` is a function
    of ``x_k mod 256`` only: ``y_{k+1} = (a*y_k + c) mod 256``.  The output
    byte ``k`` is ``y_{k+1}``.  Hence the output is periodic as soon as the
    mod-256 recurrence returns to its start value ``y_0 = 1``; this is
    checked below (Hull-Dobell: c odd, a = 1 mod 4, so the period is 256).
    """
    y = 1
    block = bytearray()
    for _ in range(256):
        y = (y * _LCG_A + _LCG_C) & 0xFF
        block.append(y)
    if y != 1:  # the state after 256 steps must equal the start state
        raise AssertionError("LCG low byte does not have period 256")
    return bytes(block)


_LCG_BLOCK = _lcg_period_block()


def lcg(n: int) -> bytes:
    """``LCG(n)`` of spec 05 §1 / 10 §1, fast.

    Same bytes as :func:`lcg_naive` (first 16 bytes
    ``a6e7943d328300397edf2cf58afb1871``), computed by repeating the
    256-byte period of the low byte (see ``_lcg_period_block``).
    Raises ValueError for ``n < 0``.
    """
    _check_n(n)
    reps = n // 256 + 1
    return (_LCG_BLOCK * reps)[:n]


def zeros(n: int) -> bytes:
    """``ZEROS(n)``: ``n`` zero bytes. Raises ValueError for ``n < 0``."""
    _check_n(n)
    return bytes(n)


def const(n: int, value: int) -> bytes:
    """``n`` bytes all equal to ``value`` (0..255). ValueError otherwise."""
    _check_n(n)
    if not 0 <= value <= 255:
        raise ValueError("value must be a byte value 0..255")
    return bytes([value]) * n
