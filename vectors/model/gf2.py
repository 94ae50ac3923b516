"""Arithmetic on binary polynomials GF(2)[x] held in Python ints
(bit k = coefficient of x^k), used by toeplitz-aes and rabin-aes (07, 08)."""

from __future__ import annotations

__all__ = ["clmul", "polymod", "polygcd", "is_irreducible_deg64"]


def clmul(a: int, b: int) -> int:
    """Carry-less product ``a * b`` in GF(2)[x] (no reduction)."""
    r = 0
    while b:
        low = b & -b
        r ^= a << (low.bit_length() - 1)
        b ^= low
    return r


def polymod(a: int, m: int) -> int:
    """Remainder of ``a`` modulo ``m`` in GF(2)[x] (``m != 0``; ZeroDivisionError
    otherwise).  The result has degree < deg(m)."""
    if m == 0:
        raise ZeroDivisionError("polynomial modulus 0")
    dm = m.bit_length() - 1
    while a and a.bit_length() - 1 >= dm:
        a ^= m << (a.bit_length() - 1 - dm)
    return a


def polygcd(a: int, b: int) -> int:
    """Greatest common divisor in GF(2)[x] (Euclid); ``gcd(a, 0) = a``."""
    while b:
        a, b = b, polymod(a, b)
    return a


def is_irreducible_deg64(P: int) -> bool:
    """Rabin's irreducibility test for a degree-64 polynomial (spec 08 §3).

    ``P`` must have bit 64 set and no higher bit (ValueError otherwise).
    Squares ``r_0 = x`` 64 times mod P; irreducible iff ``r_64 == x`` and
    ``gcd(P, r_32 ^ x) == 1`` (``r_32 ^ x == 0`` gives gcd P, i.e. reducible).
    """
    if P.bit_length() != 65:
        raise ValueError("P must have degree exactly 64")
    r = 2
    r32 = None
    for k in range(1, 65):
        r = polymod(clmul(r, r), P)
        if k == 32:
            r32 = r
    if r != 2:
        return False
    return polygcd(P, r32 ^ 2) == 1
