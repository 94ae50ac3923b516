"""Fuzzer bytes to typed values, and back (for seeds and regressions).

A harness reads its case from :class:`Input` field by field, front to back.
Each field has a name; :class:`Script` runs the same harness decoder with
chosen values per name and records the bytes that decode to them, so seed
inputs are written as field values and never depend on the byte layout.
Regressions are stored the same way (:func:`to_json` / :func:`from_json`), so
they keep their meaning when a harness adds or reorders fields. Choice
options are plain values (str, int, bytes, None). Running out of bytes is not
an error: missing bytes read as zero.
"""

from __future__ import annotations


def _width(span: int) -> int:
    return (span.bit_length() + 7) // 8


class Input:
    """Decoder over one fuzzer input ``data`` (bytes). With ``record``, the
    decoded ``(name, value)`` pairs are kept in :attr:`fields`.

    The methods run once per field of every fuzzer execution, so each reads
    its bytes inline (no helper calls; a scan target decodes ~15 fields per
    execution) with the same byte semantics as the helpers."""

    def __init__(self, data: bytes, record: bool = False):
        self._data = bytes(data)
        self._pos = 0
        self.fields = [] if record else None

    def _take(self, k: int) -> bytes:
        b = self._data[self._pos:self._pos + k]
        self._pos += k
        return b

    def _note(self, name: str, value):
        if self.fields is not None:
            self.fields.append((name, value))
        return value

    def _index(self, lo: int, hi: int) -> int:
        span = hi - lo
        pos, k = self._pos, (span.bit_length() + 7) >> 3
        self._pos = pos + k
        return lo + int.from_bytes(self._data[pos:pos + k], "little") % (span + 1)

    def int(self, name: str, lo: int, hi: int) -> int:
        """An int in ``[lo, hi]`` (inclusive) from ceil(bits(hi - lo) / 8) little-endian bytes."""
        v = self._index(lo, hi)
        if self.fields is not None:
            self.fields.append((name, v))
        return v

    def bool(self, name: str) -> bool:
        pos = self._pos                         # one byte, odd = True (_index(0, 1) == 1)
        self._pos = pos + 1
        v = pos < len(self._data) and self._data[pos] & 1 == 1
        if self.fields is not None:
            self.fields.append((name, v))
        return v

    def choice(self, name: str, options):
        """One element of the sequence ``options``."""
        v = options[self._index(0, len(options) - 1)]
        if self.fields is not None:
            self.fields.append((name, v))
        return v

    def bytes(self, name: str, n: int) -> bytes:
        """Exactly ``n`` bytes (zero padded when the input runs out)."""
        b = self._take(n)
        return self._note(name, b + bytes(n - len(b)))

    def rest(self, name: str) -> bytes:
        """All remaining bytes (the last field of a case)."""
        b = self._data[self._pos:]
        self._pos = len(self._data)
        return self._note(name, b)


class Script(Input):
    """Seed builder: answers each field with the scripted value for its name
    (a list gives successive values for a repeated name, the last one
    repeating; a missing name gets the lowest value) and records the
    encoding; :meth:`encoded` returns it.

    ``Input(script.encoded())`` then decodes to the same values. Raises
    ValueError for a value the decoder cannot produce.
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

    def _put(self, index: int, lo: int, hi: int, name: str) -> None:
        if not lo <= index <= hi:
            raise ValueError(f"field {name}={index} outside [{lo}, {hi}]")
        self._out += (index - lo).to_bytes(_width(hi - lo), "little")

    def int(self, name: str, lo: int, hi: int) -> int:
        v = self._next(name, lo)
        self._put(v, lo, hi, name)
        return v

    def bool(self, name: str) -> bool:
        v = bool(self._next(name, False))
        self._put(int(v), 0, 1, name)
        return v

    def choice(self, name: str, options):
        v = self._next(name, options[0])
        if v not in options:
            raise ValueError(f"field {name}={v!r} is not one of {options!r}")
        self._put(list(options).index(v), 0, len(options) - 1, name)
        return v

    def bytes(self, name: str, n: int) -> bytes:
        v = bytes(self._next(name, bytes(n)))
        if len(v) != n:
            raise ValueError(f"field {name} must be {n} bytes, got {len(v)}")
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


def script_values(fields) -> dict:
    """Recorded ``(name, value)`` pairs (``Input(..., record=True).fields``) as :func:`script`'s
    keyword values: each name with its values in the order they were read."""
    values: dict = {}
    for n, v in fields:
        values.setdefault(n, []).append(v)
    return values


def to_json(fields: list) -> list:
    """Recorded ``(name, value)`` pairs as JSON data (bytes become ``{"hex": ...}``)."""
    return [[n, {"hex": v.hex()} if isinstance(v, bytes) else v] for n, v in fields]


def from_json(decode, pairs: list) -> bytes:
    """The input bytes that make ``decode`` read the fields of :func:`to_json`
    output again, in the current byte layout."""
    return script(decode, **script_values((n, bytes.fromhex(v["hex"]) if isinstance(v, dict) else v)
                                          for n, v in pairs))
