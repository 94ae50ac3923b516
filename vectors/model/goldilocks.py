"""goldilocks-aes UHF: polynomial evaluation hash over GF(p),
``p = 2^64 - 2^32 + 1`` (spec 09).  Digests are canonical, in ``[0, p)``."""

from __future__ import annotations

import struct

__all__ = ["P", "Goldilocks"]

#: The field prime (09 §1).
P = (1 << 64) - (1 << 32) + 1


class Goldilocks:
    """goldilocks-aes hash with evaluation point ``K`` (``0 <= K < p``,
    ValueError otherwise; K may be injected directly, spec 10 §3.1).

    Attributes (09 §4): ``K``, ``K2 = K^2``, ``K64 = K^64``, ``NOUT64[b] =
    -b*K^64``, ``NOUT65[b] = -b*K^65``, ``IN1[b] = b*K``, all mod p and
    canonical; ``candidates_rejected`` from :meth:`from_stream`.
    """

    name = "goldilocks-aes"

    def __init__(self, K: int, candidates_rejected: int = 0):
        if not 0 <= K < P:
            raise ValueError("K must be a canonical field element, 0 <= K < p")
        self.K = K
        self.K2 = K * K % P
        self.K64 = pow(K, 64, P)
        k65 = self.K64 * K % P
        self.NOUT64 = [(-b * self.K64) % P for b in range(256)]
        self.NOUT65 = [(-b * k65) % P for b in range(256)]
        self.IN1 = [(b * K) % P for b in range(256)]
        self.candidates_rejected = candidates_rejected

    @classmethod
    def from_stream(cls, stream):
        """Rejection-sample K from a keystream positioned at ``Z[16]`` (09 §2):
        read 8-byte LE64 candidates, accept the first ``v < p`` (never reduce)."""
        r = 0
        while True:
            (v,) = struct.unpack("<Q", stream.random_bytes(8))
            if v < P:
                return cls(v, candidates_rejected=r)
            r += 1

    def tables(self) -> dict:
        """Tables in borg's order ``[NOUT64, NOUT65, IN1]`` (dict by name)."""
        return {"NOUT64": self.NOUT64, "NOUT65": self.NOUT65, "IN1": self.IN1}

    def digest(self, window) -> int:
        """Full digest, Horner (09 §3): ``d = (d*K + w_j) mod p``; bytes 0..255
        with no offset.  ValueError unless ``len(window) == 64``."""
        if len(window) != 64:
            raise ValueError("window must be 64 bytes")
        d = 0
        K = self.K
        for w in window:
            d = (d * K + w) % P
        return d

    def digest_direct(self, window) -> int:
        """Digest by the definition ``sum_j w_j K^(63-j) mod p`` (09 §3)."""
        if len(window) != 64:
            raise ValueError("window must be 64 bytes")
        return sum(w * pow(self.K, 63 - j, P) for j, w in enumerate(window)) % P

    def roll(self, d: int, out_byte: int, in_byte: int) -> int:
        """One-byte update (09 §5): ``(d*K + NOUT64[out] + in) mod p``."""
        return (d * self.K + self.NOUT64[out_byte] + in_byte) % P

    def roll2(self, d: int, o0: int, o1: int, i0: int, i1: int) -> int:
        """Two-byte update (09 §6):
        ``(d*K2 + NOUT65[o0] + NOUT64[o1] + IN1[i0] + i1) mod p``."""
        return (d * self.K2 + self.NOUT65[o0] + self.NOUT64[o1] + self.IN1[i0] + i1) % P
