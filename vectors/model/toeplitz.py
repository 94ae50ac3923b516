"""toeplitz-aes UHF: tabulated LFSR/Toeplitz hash over GF(2)[x] mod
``P_T = x^64 + x^4 + x^3 + x + 1`` (spec 07).  Digests are u64."""

from __future__ import annotations

import struct

from .gf2 import clmul, polymod
from .masks import M64

__all__ = ["P_T", "mulx", "mulx2", "Toeplitz"]

#: The fixed public modulus, as a 65-bit integer (07 §2).
P_T = (1 << 64) | 0x1B


def mulx(d: int) -> int:
    """Multiply the u64 ``d`` by x modulo P_T (07 §4): shift left, fold bit 63
    (taken before the shift) back as 0x1B."""
    return ((d << 1) & M64) ^ (0x1B if d >> 63 else 0)


def mulx2(d: int) -> int:
    """Multiply by x^2 modulo P_T (07 §6): 0x36 for bit 63, 0x1B for bit 62."""
    return (((d << 2) & M64) ^ (0x36 if (d >> 63) & 1 else 0)
            ^ (0x1B if (d >> 62) & 1 else 0))


class Toeplitz:
    """toeplitz-aes hash with secret table ``T`` (256 u64, indexed by byte value).

    Attributes: ``T``, ``IN1`` (x*T), ``OUT64`` (x^64*T), ``OUT65`` (x^65*T),
    all mod P_T (07 §5-6).  ``candidates_rejected`` is always 0.
    """

    name = "toeplitz-aes"

    def __init__(self, T):
        T = list(T)
        if len(T) != 256 or not all(0 <= t <= M64 for t in T):
            raise ValueError("T must be 256 u64 values")
        self.T = T
        self.IN1 = [mulx(t) for t in T]
        out64 = []
        for t in T:
            v = t
            for _ in range(64):
                v = mulx(v)
            out64.append(v)
        self.OUT64 = out64
        self.OUT65 = [mulx(v) for v in out64]
        self.candidates_rejected = 0

    @classmethod
    def from_stream(cls, stream):
        """Read the table from a keystream positioned at ``Z[16]`` (07 §3):
        2048 bytes, ``T[t] = LE64(Z[16+8t .. 16+8t+7])``."""
        return cls(struct.unpack("<256Q", stream.random_bytes(2048)))

    def tables(self) -> dict:
        """Tables in borg's order ``[T, IN1, OUT64, OUT65]`` (dict by name)."""
        return {"T": self.T, "IN1": self.IN1, "OUT64": self.OUT64, "OUT65": self.OUT65}

    def digest(self, window) -> int:
        """Full 64-byte digest, Horner form (07 §4): ``d = mulx(d) ^ T[w_j]``.
        ValueError unless ``len(window) == 64``."""
        if len(window) != 64:
            raise ValueError("window must be 64 bytes")
        d = 0
        for b in window:
            d = mulx(d) ^ self.T[b]
        return d

    def digest_direct(self, window) -> int:
        """Digest by the definition ``(sum_j x^(63-j) T[w_j]) mod P_T`` with
        big-integer polynomial arithmetic (07 §4), for cross-checks."""
        if len(window) != 64:
            raise ValueError("window must be 64 bytes")
        acc = 0
        for j, b in enumerate(window):
            acc ^= clmul(1 << (63 - j), self.T[b])
        return polymod(acc, P_T)

    def roll(self, d: int, out_byte: int, in_byte: int) -> int:
        """One-byte update (07 §5): ``mulx(d) ^ OUT64[out] ^ T[in]``."""
        return ((d << 1) & M64) ^ (0x1B if d >> 63 else 0) ^ self.OUT64[out_byte] ^ self.T[in_byte]

    def roll2(self, d: int, o0: int, o1: int, i0: int, i1: int) -> int:
        """Two-byte update (07 §6):
        ``mulx2(d) ^ OUT65[o0] ^ OUT64[o1] ^ IN1[i0] ^ T[i1]``."""
        return mulx2(d) ^ self.OUT65[o0] ^ self.OUT64[o1] ^ self.IN1[i0] ^ self.T[i1]
