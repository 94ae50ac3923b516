"""Chunkers from parameter tuples, and the one-call ``chunk_sizes``."""

from __future__ import annotations

import importlib

from chunkers.families import CHUNKERS
from chunkers.params import ParamsError, parse_params, resolved

ZERO_KEY = bytes(32)
"""The key used when none is given (spec 01 §10: no key object)."""


def credential(params) -> str | None:
    """What the chunker of ``params`` is seeded with: ``"key"`` (the keyed chunkers), ``"seed"``
    (the legacy buzhash) or None (fixed). Raises ParamsError for invalid params."""
    algo = parse_params(params)[0]
    return CHUNKERS[algo].credential if algo in CHUNKERS else "key"


def check_credentials(params, key, seed, *, flags: bool = False) -> None:
    """ParamsError when ``key`` or ``seed`` (None: not given) is given to the chunker of ``params``
    and it does not take it (see credential). ``flags``: the command line's wording (--key, --seed).
    The one check of make_chunker and of ``python -m chunkers cut``."""
    algo = parse_params(params)[0]
    takes = credential(params)
    if key is not None and takes != "key":
        it_takes = ("--seed" if flags else "a seed") if takes == "seed" else None
        raise ParamsError(("--key: " if flags else "") + f"{algo} takes no key" +
                          (f" (it takes {it_takes})" if it_takes else ""))
    if seed is not None and takes != "seed":
        raise ParamsError(("--seed: " if flags else "") + f"only the legacy buzhash takes a seed, not {algo}")


def make_chunker(params, *, key: bytes | None = None, seed: int | None = None, kernel: str | None = None,
                 normal_size: int = 0, sparse: bool = False):
    """A chunker for ``params`` (a borg params string or tuple, see parse_params).

    ``key``: 32 bytes, None = 32 zero bytes (keyed chunkers only). ``seed``:
    the legacy buzhash seed, a C int, None = 0 (spec 01 §10; buzhash only). A
    key or seed given to a chunker that does not take it raises ParamsError,
    as the command line does.
    ``kernel``: scan kernel name or None (environment / default;
    ``chunkers.kernels()`` lists them); fixed, with one implementation,
    accepts None or ``"single"``. ``normal_size``: bytes, 0 = automatic (fastcdc, buzhash64).
    ``sparse``: read file holes as zeros (spec 01 §8). Raises ParamsError
    (ValueError) for invalid or unsupported params and whatever the
    chunker's constructor raises.
    """
    p = resolved(parse_params(params))
    algo = p[0]
    check_credentials(p, key, seed)
    key = ZERO_KEY if key is None else key
    seed = 0 if seed is None else seed
    row = CHUNKERS.get(algo)
    if row is None or not len(row.fields) - row.optional <= len(p) - 1 <= len(row.fields):
        raise ParamsError(f"unsupported chunker params: {p!r}")
    cls = getattr(importlib.import_module(f"chunkers.{row.family}"), row.cls)
    normalized = "nc_level" in row.fields
    if normal_size and not normalized:
        raise ParamsError(f"{algo} has no normal_size (no normalized chunking)")
    first = {"key": (key,), "seed": (seed,), None: ()}[row.credential]
    extra = (normal_size,) if normalized else ()
    return cls(*first, *p[1:], *extra, kernel=kernel, sparse=sparse)


def chunk_sizes(params, data, *, key: bytes | None = None, seed: int | None = None,
                kernel: str | None = None) -> list[int]:
    """Chunk sizes in bytes, in stream order, of ``data`` under ``params``.

    ``params``: a borg params string such as ``"fastcdc,19,23,21,2"`` (or a
    params tuple); ``data``: bytes-like, binary file object or fd; ``key``: 32
    bytes, None = 32 zero bytes; ``seed``: legacy buzhash seed (a key or seed
    the chunker does not take is a ParamsError); ``kernel``:
    scan kernel name or None. The sizes sum to the input length; empty input
    gives ``[]``.
    """
    return make_chunker(params, key=key, seed=seed, kernel=kernel).chunk_sizes(data)
