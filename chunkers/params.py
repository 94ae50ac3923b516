"""Chunker parameters: masks, normalized chunking, validation, parsing.

Implements spec 01 §3 (masks and the normal size), §4.1 (constructor checks)
and §4.2 (the ``--chunker-params`` string syntax of borg 2.0.0b25). One
deliberate difference: a numeric field must be ASCII decimal digits (with an
optional sign), where borg's ChunkerParams also reads ``1_9`` as 19 and the digits of
other scripts.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from chunkers.families import CHUNKERS, DEFAULT_PARAMS

MAX_DATA_SIZE = 20_971_479
"""Largest permitted max_size in bytes (borg's MAX_DATA_SIZE, spec 01 §4.1)."""

# The params shapes of spec 01 §4.2, as the family table's Chunker.fields: parse_params dispatches on
# the shape of the chunker a string names.
_CDC = ("chunk_min", "chunk_max", "chunk_mask")
_CDC_NC = _CDC + ("nc_level",)
_WINDOWED = _CDC + ("window_size",)
_WINDOWED_NC = _CDC + ("window_size", "nc_level")
_BLOCKS = ("block_size", "header_size")
NAMELESS = next(c.name for c in CHUNKERS.values() if c.fields == _WINDOWED)
"""The chunker of borg 1.x's nameless ``chunk_min,chunk_max,chunk_mask,window_size`` (the legacy
buzhash, the table's one chunker of that shape)."""

_U64 = (1 << 64) - 1


class ParamsError(ValueError):
    """A chunker parameter string or constructor argument breaks a rule of spec 01 §4."""


def mask(bits: int, high: bool) -> int:
    """The u64 mask of ``bits`` bits (spec 01 §3.1).

    ``bits <= 0`` gives 0, ``bits >= 64`` all ones; otherwise the ``bits`` low
    bits, or with ``high`` the ``bits`` most significant bits.
    """
    if bits <= 0:
        return 0
    if bits >= 64:
        return _U64
    low = (1 << bits) - 1
    return (low << (64 - bits)) & _U64 if high else low


class Masks(NamedTuple):
    """The strict and loose masks and the normal size in bytes (spec 01 §3.2)."""

    strict: int
    loose: int
    normal_size: int


def nc_masks(hash_mask_bits: int, nc_level: int, normal_size: int, high: bool) -> Masks:
    """Masks for normalized chunking level ``nc_level`` (spec 01 §3.2).

    With ``nc_level == 0`` both masks are ``mask(hash_mask_bits)`` and the
    normal size is forced to 0 (``normal_size`` is ignored). Otherwise strict
    has ``hash_mask_bits + nc_level`` bits, loose ``hash_mask_bits - nc_level``,
    and a zero ``normal_size`` becomes ``2**b - 2**(b - nc_level)`` (mod 2**64).
    """
    if nc_level == 0:
        m = mask(hash_mask_bits, high)
        return Masks(m, m, 0)
    if not normal_size:
        normal_size = ((1 << hash_mask_bits) - (1 << (hash_mask_bits - nc_level))) & _U64
    return Masks(mask(hash_mask_bits + nc_level, high), mask(hash_mask_bits - nc_level, high), normal_size)


def _require_int(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise ParamsError(f"{name}={value} is out of range [{low}, {high}]")
    return value


def check_common(chunk_min_exp: int, chunk_max_exp: int, hash_mask_bits: int, nc_level: int,
                 normal_size: int = 0) -> tuple[int, int]:
    """The common constructor checks of spec 01 §4.1, in its order.

    Returns ``(min_size, max_size)`` in bytes. Raises TypeError for non-int
    arguments and ParamsError (a ValueError) naming the broken rule.
    """
    _require_int("chunk_min_exp", chunk_min_exp, 0, 62)
    _require_int("chunk_max_exp", chunk_max_exp, 0, 62)
    _require_int("hash_mask_bits", hash_mask_bits, -(1 << 31), (1 << 31) - 1)
    _require_int("nc_level", nc_level, -(1 << 31), (1 << 31) - 1)
    _require_int("normal_size", normal_size, 0, _U64)
    min_size, max_size = 1 << chunk_min_exp, 1 << chunk_max_exp
    if max_size > MAX_DATA_SIZE:
        raise ParamsError(f"max size 2**{chunk_max_exp} exceeds {MAX_DATA_SIZE} bytes (chunk_max_exp <= 24)")
    if min_size + 1 > max_size:
        raise ParamsError(f"min size 2**{chunk_min_exp} + 1 must not exceed max size 2**{chunk_max_exp}")
    if nc_level < 0:
        raise ParamsError(f"nc_level={nc_level} must be >= 0")
    if hash_mask_bits - nc_level < 1:
        raise ParamsError(f"hash_mask_bits - nc_level = {hash_mask_bits - nc_level} must be >= 1")
    if hash_mask_bits + nc_level > 48:
        raise ParamsError(f"hash_mask_bits + nc_level = {hash_mask_bits + nc_level} must be <= 48")
    return min_size, max_size


def check_window(hash_window_size: int, chunk_min_exp: int, chunk_max_exp: int) -> None:
    """The windowed chunkers' first check: ``w + min_size + 1 <= max_size`` (spec 03 §1, 04 A.2).

    Windows below 1 are rejected too (borg leaves them undefined).
    """
    _require_int("hash_window_size", hash_window_size, 1, MAX_DATA_SIZE)
    _require_int("chunk_min_exp", chunk_min_exp, 0, 62)
    _require_int("chunk_max_exp", chunk_max_exp, 0, 62)
    if hash_window_size + (1 << chunk_min_exp) + 1 > (1 << chunk_max_exp):
        raise ParamsError(f"window {hash_window_size} + min size 2**{chunk_min_exp} + 1 "
                          f"must not exceed max size 2**{chunk_max_exp}")


def check_seed(seed) -> int:
    """A legacy buzhash seed is a C int, -2**31 .. 2**31-1 (spec 04 A.2); returns ``seed mod 2**32``.

    Raises TypeError for a non-int and OverflowError out of range (as borg does).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    if not -(1 << 31) <= seed < (1 << 31):
        raise OverflowError(f"seed={seed} does not fit a C int (-2**31 .. 2**31-1)")
    return seed & 0xFFFFFFFF


def check_fixed(block_size: int, header_size: int) -> None:
    """The fixed chunker's constructor limits: 1 <= block_size <= MAX_DATA_SIZE, header_size <=
    MAX_DATA_SIZE (zero or negative: no header). Borg validates nothing here; these bounds keep a
    nonsense value from looping forever or exhausting memory. TypeError / ParamsError otherwise."""
    _require_int("block_size", block_size, 1, MAX_DATA_SIZE)
    _require_int("header_size", header_size, -(1 << 63), MAX_DATA_SIZE)


def check_key(key) -> bytes:
    """A chunker key must be ``bytes`` of length 32 (spec 01 §9): TypeError / ValueError otherwise."""
    if not isinstance(key, bytes):
        raise TypeError(f"key must be bytes, not {type(key).__name__}")
    if len(key) != 32:
        raise ValueError(f"key must be 32 bytes (256 bits), got {len(key)}")
    return key


_DECIMAL = re.compile(r"\s*[+-]?[0-9]+\s*", re.ASCII)
"""A params field: ASCII decimal digits, ASCII white space around. int() alone also takes '1_9'
(as 19) and other scripts' digits, which a typo must not turn into a silently different chunk size;
re.ASCII because Unicode \\s also matches '\\x1c'..'\\x1f', which int() refuses (ValueError, not
ParamsError: found by the params_parse fuzzer)."""


def decimal(text: str) -> int:
    """The integer ``text`` writes as a params field does (_DECIMAL: ASCII digits, an optional
    sign, ASCII white space around); ValueError otherwise, also past int()'s 4300 digits. The
    command lines' integer options use it too (argparse: "invalid decimal value: '...'"), so
    '\u0665' (an Arabic-Indic 5) is not taken for 5 there either."""
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        raise ValueError(f"not a decimal integer: {text!r}")
    return int(text)


def _ints(fields: list[str]) -> list[int]:
    try:
        return [decimal(f) for f in fields]
    except ValueError:
        text = ",".join(fields)
        shown = repr(text) if len(text) <= 80 else f"{text[:60]!r}... ({len(text)} characters)"
        raise ParamsError(f"chunker params must be decimal integers of at most 4300 digits: {shown}") from None


def _check_cdc(name: str, lo: int, hi: int, mask_bits: int) -> None:
    if not lo <= mask_bits <= hi:
        raise ParamsError(f"{name}: need chunk_min <= chunk_mask <= chunk_max, got {lo}, {mask_bits}, {hi}")
    if lo < 6:
        raise ParamsError(f"{name}: chunk_min must be >= 6, got {lo}")
    if hi > 23:
        raise ParamsError(f"{name}: chunk_max must be <= 23, got {hi}")


def _check_nc(name: str, mask_bits: int, nc: int) -> None:
    if nc < 0 or mask_bits - nc < 1 or mask_bits + nc > 48:
        raise ParamsError(f"{name}: need nc_level >= 0, chunk_mask - nc_level >= 1 and "
                          f"chunk_mask + nc_level <= 48, got chunk_mask={mask_bits}, nc_level={nc}")


def _named(name: str, check, *args) -> None:
    """Run a constructor check on parsed params; its ParamsError names the chunker."""
    try:
        check(*args)
    except ParamsError as e:
        raise ParamsError(f"{name}: {e}") from None


def _syntax(name: str) -> str:
    """``name,field,...`` of the table's chunker ``name``, its optional trailing fields in brackets."""
    c = CHUNKERS[name]
    required = len(c.fields) - c.optional
    return ",".join([name, *c.fields[:required]]) + "".join(f"[,{f}]" for f in c.fields[required:])


def resolved(params: tuple) -> tuple:
    """``params`` with ``("default",)`` replaced by DEFAULT_PARAMS (chunkers.families)."""
    return DEFAULT_PARAMS if params == ("default",) else params


def parse_params(s) -> tuple:
    """Parse borg's ``--chunker-params`` syntax (spec 01 §4.2) into a params tuple.

    ``"fastcdc,19,23,21,2"`` gives ``("fastcdc", 19, 23, 21, 2)``; the other
    forms are ``buzhash64,min,max,mask,window,nc``, ``buzhash,min,max,mask,window``
    (or the nameless borg 1.x form ``min,max,mask,window``),
    ``rabin-aes|goldilocks-aes|toeplitz-aes,min,max,mask,nc``,
    ``fixed,block[,header]``, ``fail,block,map`` and ``default``. A list or
    tuple is returned unchanged as a tuple. Raises ParamsError (a ValueError)
    naming the first broken rule, in the spec's order. Every constructor rule is checked too
    (check_common, check_window, check_fixed), so an accepted string always constructs (but
    ``fail``, borg's test chunker, which make_chunker refuses as unsupported); the
    constructors keep borg's wider surface (even buzhash windows, exponents below 6: spec 04 A.4
    and the golden vectors use them), which the string syntax does not reach.
    """
    if isinstance(s, (list, tuple)):
        if not s or not isinstance(s[0], str):
            raise ParamsError(f"a params tuple starts with the chunker name, got {tuple(s)!r}")
        return tuple(s)
    if not isinstance(s, str):
        raise TypeError(f"chunker params must be a str, not {type(s).__name__}")
    fields = s.strip().split(",")
    count = len(fields)
    name = fields[0].lower()
    shape = CHUNKERS[name].fields if name in CHUNKERS else None
    if name == "fail" and count == 3:
        return ("fail", _ints(fields[1:2])[0], fields[2])
    if shape == _BLOCKS and count in (2, 3):
        block_size, header_size = _ints(fields[1:]) + [0] * (3 - count)
        if block_size < 64:
            raise ParamsError(f"{name}: block_size must be >= 64, got {block_size}")
        if block_size > MAX_DATA_SIZE:
            raise ParamsError(f"{name}: block_size must be <= {MAX_DATA_SIZE}, got {block_size}")
        if header_size > MAX_DATA_SIZE:
            raise ParamsError(f"{name}: header_size must be <= {MAX_DATA_SIZE}, got {header_size}")
        _named(name, check_fixed, block_size, header_size)
        return (name, block_size, header_size)
    if name == "default" and count == 1:
        return ("default",)
    if shape == _WINDOWED_NC:
        if count != 6:
            raise ParamsError(f"{name} params must be {_syntax(name)}")
        lo, hi, mask_bits, window, nc = _ints(fields[1:])
        _check_cdc(name, lo, hi, mask_bits)
        if window + (1 << lo) + 1 > (1 << hi):
            raise ParamsError(f"{name}: need window_size + 2**chunk_min + 1 <= 2**chunk_max, got "
                              f"window_size={window}")
        _check_nc(name, mask_bits, nc)
        _named(name, check_window, window, lo, hi)
        _named(name, check_common, lo, hi, mask_bits, nc)
        return (name, lo, hi, mask_bits, window, nc)
    if shape == _CDC_NC:
        if count != 5:
            raise ParamsError(f"{name} params must be {_syntax(name)}")
        lo, hi, mask_bits, nc = _ints(fields[1:])
        _check_cdc(name, lo, hi, mask_bits)
        if lo >= hi:
            raise ParamsError(f"{name}: need chunk_min < chunk_max, got {lo}, {hi}")
        _check_nc(name, mask_bits, nc)
        _named(name, check_common, lo, hi, mask_bits, nc)
        return (name, lo, hi, mask_bits, nc)
    if (shape == _WINDOWED and count == 5) or (count == 4 and all(f.strip().isdecimal() for f in fields)):
        name = name if count == 5 else NAMELESS
        lo, hi, mask_bits, window = _ints(fields[-4:])
        _check_cdc(name, lo, hi, mask_bits)
        if window % 2 == 0:
            raise ParamsError(f"{name}: window_size must be odd, got {window}")
        _named(name, check_window, window, lo, hi)
        _named(name, check_common, lo, hi, mask_bits, 0)
        return (name, lo, hi, mask_bits, window)
    if shape is not None:
        raise ParamsError(f"{name} params must be {_syntax(name)}")
    raise ParamsError(f"invalid chunker params: {s!r} (expected {', '.join(CHUNKERS)} or default, then "
                      f"comma-separated integers)")
