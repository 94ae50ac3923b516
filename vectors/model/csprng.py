"""Keyed CSPRNG shared by the table derivations (spec 01 §9, 06 §2.1).

The keystream ``Z`` is AES-256 in counter mode under the 32-byte key, with an
all-zero 16-byte initial counter block incremented as one 128-bit big-endian
integer (``Z = AES256_k(BE128(0)) || AES256_k(BE128(1)) || ...``).
"""

from __future__ import annotations

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

__all__ = ["KeyStream", "ByteStream", "check_key"]


def check_key(key) -> None:
    """Validate a chunker key (spec 01 §9, 06 §9.1 step 3).

    Raises TypeError if ``key`` is not a ``bytes`` object (``bytearray`` and
    ``None`` are rejected too) and ValueError if its length is not 32.
    """
    if not isinstance(key, bytes):
        raise TypeError("key must be a bytes object, got %s" % type(key).__name__)
    if len(key) != 32:
        raise ValueError("seed key must be 32 bytes (256 bits), got %d" % len(key))


class _DrawMixin:
    """``random_int`` / ``shuffle`` on top of a ``random_bytes`` method."""

    def random_int(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` (spec 01 §9 ``random_int``).

        * ``n <= 0``: ValueError.  ``n == 1``: returns 0 and consumes nothing.
        * Otherwise ``bits = bitlen(n-1)``, ``nb = ceil(bits/8)``,
          ``mask = 2^bits - 1``; up to 1000 attempts read ``nb`` bytes,
          interpret them **big-endian**, AND with ``mask`` and accept if
          ``< n``.  After 1000 rejections read ``nb`` more bytes and return the
          big-endian value modulo ``n`` (no masking).
        """
        if not isinstance(n, int):
            raise TypeError("n must be an int")
        if n <= 0:
            raise ValueError("random_int: n must be > 0")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        nb = (bits + 7) // 8
        mask = (1 << bits) - 1
        for _ in range(1000):
            v = int.from_bytes(self.random_bytes(nb), "big") & mask
            if v < n:
                return v
        return int.from_bytes(self.random_bytes(nb), "big") % n

    def shuffle(self, lst: list) -> None:
        """Shuffle ``lst`` in place (spec 01 §9): for ``i = m-1`` down to 1,
        ``j = random_int(i+1)``, swap ``lst[i]`` and ``lst[j]``.  Lists with
        at most one element draw nothing.  Returns None."""
        for i in range(len(lst) - 1, 0, -1):
            j = self.random_int(i + 1)
            lst[i], lst[j] = lst[j], lst[i]


class KeyStream(_DrawMixin):
    """AES-256-CTR keystream generator (spec 01 §9, 06 §2.1).

    ``KeyStream(key)``: ``key`` must be ``bytes`` of length 32 (TypeError for
    non-bytes, ValueError for another length).  All draws share one position
    in ``Z``; ``consumed`` is the number of keystream bytes handed out so far.
    """

    def __init__(self, key: bytes):
        check_key(key)
        self._enc = Cipher(algorithms.AES(key), modes.CTR(bytes(16))).encryptor()
        self.consumed = 0

    def random_bytes(self, n: int) -> bytes:
        """Return the next ``n`` keystream bytes (``n >= 0``; ValueError if
        negative).  Equivalent to encrypting ``n`` zero bytes in CTR mode."""
        if n < 0:
            raise ValueError("random_bytes: n must be >= 0")
        self.consumed += n
        return self._enc.update(bytes(n))


class ByteStream(_DrawMixin):
    """A fixed byte string posing as a keystream (for injection in tests,
    e.g. the goldilocks rejection branch, spec 09 §2).

    ``random_bytes(n)`` returns the next ``n`` bytes; EOFError if the string
    is exhausted.  Same ``random_int``/``shuffle``/``consumed`` as KeyStream.
    """

    def __init__(self, data: bytes):
        self._data = bytes(data)
        self.consumed = 0

    def random_bytes(self, n: int) -> bytes:
        """Next ``n`` bytes of the injected string (EOFError when exhausted,
        ValueError for ``n < 0``)."""
        if n < 0:
            raise ValueError("random_bytes: n must be >= 0")
        if self.consumed + n > len(self._data):
            raise EOFError("injected keystream exhausted")
        out = self._data[self.consumed:self.consumed + n]
        self.consumed += n
        return out
