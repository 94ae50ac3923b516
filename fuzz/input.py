"""Fuzzer bytes to typed values, and back (for seeds).

A harness reads its case from :class:`Input` field by field, front to back.
Each field has a name; :class:`Script` runs the same harness decoder with
chosen values per name and records the bytes that decode to them, so seed
inputs are written as field values and never depend on the byte layout.
Running out of bytes is not an error: missing bytes read as zero.
"""

from __future__ import annotations


def _width(span: int) -> int:
    return (span.bit_length() + 7) // 8


class Input:
    """Decoder over one fuzzer input ``data`` (bytes)."""

    def __init__(self, data: bytes):
        self._data = bytes(data)
        self._pos = 0

    def _take(self, k: int) -> bytes:
        b = self._data[self._pos:self._pos + k]
        self._pos += k
        return b

    def int(self, name: str, lo: int, hi: int) -> int:
        """An int in ``[lo, hi]`` (inclusive) from ceil(bits(hi - lo) / 8) little-endian bytes."""
        span = hi - lo
        return lo + int.from_bytes(self._take(_width(span)), "little") % (span + 1)

    def bool(self, name: str) -> bool:
        return self.int(name, 0, 1) == 1

    def choice(self, name: str, options):
        """One element of the sequence ``options``."""
        return options[self.int(name, 0, len(options) - 1)]

    def bytes(self, name: str, n: int) -> bytes:
        """Exactly ``n`` bytes (zero padded when the input runs out)."""
        b = self._take(n)
        return b + bytes(n - len(b))

    def rest(self, name: str) -> bytes:
        """All remaining bytes (the last field of a case)."""
        b = self._data[self._pos:]
        self._pos = len(self._data)
        return b


class Script(Input):
    """Seed builder: answers each field with the scripted value for its name
    (a list gives successive values for a repeated name; a missing name gets
    the lowest value) and records the encoding; :meth:`encoded` returns it.

    ``Input(script.encoded())`` then decodes to the same values.
    """

    def __init__(self, **values):
        super().__init__(b"")
        self._values = {k: list(v) if isinstance(v, list) else [v] for k, v in values.items()}
        self._out = bytearray()

    def _next(self, name: str, default):
        vals = self._values.get(name)
        if not vals:
            return default
        return vals.pop(0) if len(vals) > 1 else vals[0]

    def int(self, name: str, lo: int, hi: int) -> int:
        v = self._next(name, lo)
        if not lo <= v <= hi:
            raise ValueError(f"seed field {name}={v} outside [{lo}, {hi}]")
        self._out += (v - lo).to_bytes(_width(hi - lo), "little")
        return v

    def choice(self, name: str, options):
        v = self._next(name, options[0])
        self._out += list(options).index(v).to_bytes(_width(len(options) - 1), "little")
        return v

    def bytes(self, name: str, n: int) -> bytes:
        v = bytes(self._next(name, bytes(n)))
        if len(v) != n:
            raise ValueError(f"seed field {name} must be {n} bytes, got {len(v)}")
        self._out += v
        return v

    def rest(self, name: str) -> bytes:
        v = bytes(self._next(name, b""))
        self._out += v
        return v

    def encoded(self) -> bytes:
        return bytes(self._out)


def script(decode, **values) -> bytes:
    """The input bytes that make ``decode(Input)`` read ``values`` (see :class:`Script`)."""
    s = Script(**values)
    decode(s)
    return s.encoded()
