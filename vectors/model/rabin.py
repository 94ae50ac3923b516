"""rabin-aes UHF: Rabin fingerprint of the 64-byte window modulo a secret
irreducible degree-64 polynomial P (spec 08).  Digests are u64 remainders."""

from __future__ import annotations

import struct

from .gf2 import is_irreducible_deg64, polymod
from .masks import M64

__all__ = ["candidate_poly", "Rabin"]


def candidate_poly(v: int) -> int:
    """Candidate ``P_r = 2^64 | (v & 0xFFFFFFFFFFFFFFFE) | 1`` (08 §2)."""
    return (1 << 64) | (v & 0xFFFFFFFFFFFFFFFE) | 1


class Rabin:
    """rabin-aes hash for the 65-bit polynomial ``P`` (bit 64 set).

    Tables (08 §5, each 256 u64): ``RED`` (t*x^64), ``OUT`` (b*x^504),
    ``W1`` (t*x^72), ``OUT8`` (b*x^512), ``OUT16`` (b*x^520), all mod P.
    ``candidates_rejected``: number of candidates skipped by
    :meth:`from_stream` (0 when built directly).  ValueError if ``P`` does not
    have degree exactly 64 (irreducibility is not checked here).
    """

    name = "rabin-aes"

    def __init__(self, P: int, candidates_rejected: int = 0):
        if P.bit_length() != 65:
            raise ValueError("P must have degree exactly 64")
        self.P = P
        self.RED = [polymod(t << 64, P) for t in range(256)]
        self.OUT = [polymod(b << 504, P) for b in range(256)]
        self.W1 = [polymod(t << 72, P) for t in range(256)]
        self.OUT8 = [polymod(b << 512, P) for b in range(256)]
        self.OUT16 = [polymod(b << 520, P) for b in range(256)]
        self.candidates_rejected = candidates_rejected

    @classmethod
    def from_stream(cls, stream):
        """Sample P from a keystream positioned at ``Z[16]`` (08 §2): read 8-byte
        LE64 candidates until :func:`candidate_poly` is irreducible (08 §3)."""
        r = 0
        while True:
            (v,) = struct.unpack("<Q", stream.random_bytes(8))
            P = candidate_poly(v)
            if is_irreducible_deg64(P):
                return cls(P, candidates_rejected=r)
            r += 1

    def tables(self) -> dict:
        """Tables in borg's order ``[OUT, RED, W1, OUT8, OUT16]`` (dict by name)."""
        return {"OUT": self.OUT, "RED": self.RED, "W1": self.W1,
                "OUT8": self.OUT8, "OUT16": self.OUT16}

    def digest(self, window) -> int:
        """Full digest by table-driven Horner (08 §6).  ValueError unless
        ``len(window) == 64``."""
        if len(window) != 64:
            raise ValueError("window must be 64 bytes")
        d = 0
        RED = self.RED
        for w in window:
            t = d >> 56
            d = (((d << 8) & M64) | w) ^ RED[t]
        return d

    def digest_direct(self, window) -> int:
        """Digest by the definition (08 §4): the window as a 512-bit big-endian
        number, reduced modulo P in GF(2)[x]."""
        if len(window) != 64:
            raise ValueError("window must be 64 bytes")
        return polymod(int.from_bytes(bytes(window), "big"), self.P)

    def roll(self, d: int, out_byte: int, in_byte: int) -> int:
        """One-byte update (08 §7): ``e = d ^ OUT[out]``; ``t = e >> 56``;
        ``((e << 8) | in) ^ RED[t]``."""
        e = d ^ self.OUT[out_byte]
        return (((e << 8) & M64) | in_byte) ^ self.RED[e >> 56]

    def roll2(self, d: int, o0: int, o1: int, i0: int, i1: int) -> int:
        """Two-byte update (08 §8)."""
        return (((d << 16) & M64) ^ self.RED[(d >> 48) & 0xFF] ^ self.W1[d >> 56]
                ^ self.OUT16[o0] ^ self.OUT8[o1] ^ (i0 << 8) ^ i1)
