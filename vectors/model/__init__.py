"""Independent pure-Python reference model of BorgBackup 2.0's chunkers.

Written from the specification in ``shared/spec`` (01-10) only.  Clarity over
speed.  Single entry point :func:`chunk_sizes`; the per-family modules are
exported too:

* :mod:`.csprng` (01 §9), :mod:`.masks` (01 §3-4), :mod:`.driver` (01 §5.3,
  03 §6.2), :mod:`.fastcdc` (02), :mod:`.buzhash64` (03), :mod:`.buzhash`
  (04 A), :mod:`.fixed` (04 B), :mod:`.aes` (06) with the UHFs
  :mod:`.toeplitz` (07), :mod:`.rabin` (08), :mod:`.goldilocks` (09) and the
  GF(2)[x] helpers :mod:`.gf2`.
"""

from __future__ import annotations

import importlib

from . import (aes, buzhash, buzhash64, csprng, driver, fastcdc, fixed, gf2,
               goldilocks, masks, rabin, toeplitz)

__all__ = ["chunk_sizes", "ZERO_KEY", "aes", "buzhash", "buzhash64", "csprng",
           "driver", "fastcdc", "fixed", "gf2", "goldilocks", "masks", "rabin",
           "toeplitz"]

#: The key used when none is given (01 §10: "no key object" -> 32 zero bytes).
ZERO_KEY = bytes(32)


def _fields(params, algo, lo, hi):
    if not lo <= len(params) <= hi:
        raise ValueError("%s params tuple needs %d..%d fields, got %r"
                         % (algo, lo, hi, tuple(params)))
    return tuple(params[1:])


def chunk_sizes(params: tuple, data: bytes, *, key: bytes | None = None,
                seed: int = 0, normal_size: int = 0) -> list:
    """Chunk sizes (bytes, in stream order, summing to ``len(data)``) of
    ``data`` for a borg params tuple.

    Accepted tuples (01 §2; a trailing ``nc_level`` may be omitted = 0, a
    ``fixed`` header may be omitted = 0):

    * ``("fastcdc", min_exp, max_exp, mask_bits, nc_level)``
    * ``("buzhash64", min_exp, max_exp, mask_bits, window, nc_level)``
    * ``("buzhash", min_exp, max_exp, mask_bits, window)`` -- uses ``seed``
    * ``("fixed", block_size, header_size)``
    * ``("rabin-aes" | "goldilocks-aes" | "toeplitz-aes", min_exp, max_exp,
      mask_bits, nc_level)``

    ``key``: 32-byte chunker key for the keyed chunkers (None = 32 zero
    bytes); ``seed``: legacy buzhash seed (C int); ``normal_size``: keyword
    of fastcdc / buzhash64 / AES chunkers (0 = automatic, ignored with nc 0).
    Errors: ValueError for an unknown algorithm or wrong tuple length, plus
    whatever the chunker model raises (AssertionError for constructor
    checks, TypeError / ValueError for bad keys).
    """
    if not params:
        raise ValueError("empty params tuple")
    algo = params[0]
    if key is None:
        key = ZERO_KEY
    data = bytes(data)
    if algo == "fastcdc":
        f = _fields(params, algo, 4, 5)
        mn, mx, mb = f[:3]
        nc = f[3] if len(f) > 3 else 0
        return fastcdc.chunk_sizes(key, mn, mx, mb, nc, normal_size, data)
    if algo == "buzhash64":
        f = _fields(params, algo, 5, 6)
        mn, mx, mb, w = f[:4]
        nc = f[4] if len(f) > 4 else 0
        return buzhash64.chunk_sizes(key, mn, mx, mb, w, nc, normal_size, data)
    if algo == "buzhash":
        mn, mx, mb, w = _fields(params, algo, 5, 5)
        return buzhash.chunk_sizes(seed, mn, mx, mb, w, data)
    if algo == "fixed":
        f = _fields(params, algo, 2, 3)
        block = f[0]
        header = f[1] if len(f) > 1 else 0
        return fixed.chunk_sizes(block, header, len(data))
    if algo in aes.NAMES:
        f = _fields(params, algo, 4, 5)
        mn, mx, mb = f[:3]
        nc = f[3] if len(f) > 3 else 0
        return aes.chunk_sizes(algo, key, mn, mx, mb, nc, normal_size, data)
    module = _own_module(algo)
    if module is not None:
        return module.chunk_params(params, data, key=key, seed=seed, normal_size=normal_size)
    raise ValueError("unknown chunker algorithm %r" % (algo,))


def _own_module(algo):
    """The model module ``model.<algo>`` (dashes as underscores) of a chunker that dispatches itself
    through its ``chunk_params(params, data, *, key, seed, normal_size)``; None if there is none."""
    name = algo.replace("-", "_") if isinstance(algo, str) else ""
    if not name.isidentifier():
        return None
    try:
        module = importlib.import_module("." + name, __name__)
    except ImportError:
        return None
    return module if hasattr(module, "chunk_params") else None
