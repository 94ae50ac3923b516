"""AES scan cases run on a kernel and on the model (spec 06-10): the ``aes`` kernel family, whose
one kernel selector serves rabin-aes, goldilocks-aes and toeplitz-aes.

A case's ``key`` names the chunker and its key material as
``<chunker>/<key>``: ``<key>`` is a key name of :func:`scan.key_bytes`
(``Z``, ``KS``, ``R<seed>``) or, for goldilocks-aes, ``K=<hex>``: an
evaluation point set directly (spec 10 §3.1) with A = 16 zero bytes. A case's
``data`` is the 64 bytes of history before the span (the window of the
position before it), then the span; the scan tests every span position.
"""

from __future__ import annotations

import functools

from chunkers.registry import reference
from conformance.cases.scan import ScanCase, aligned, key_bytes

FAMILY = "aes"
BITS = 64
"""Bits of the scan state (the UHF digest)."""
REFERENCE = reference(FAMILY)
"""The AES reference kernel (its kernel list's reference row): plants are found on it."""
CHUNKERS = ("rabin-aes", "goldilocks-aes", "toeplitz-aes")
UHF_KINDS = ("toeplitz-aes", "rabin-aes", "goldilocks-aes")
"""The AES chunkers by UHF kind (aes.h: AES_TOEPLITZ = 0, AES_RABIN = 1, AES_GOLDILOCKS = 2), the
tag of the AES loops' marks (conformance.tools.mca): every AES kernel file holds one instance of
its loop per kind."""
HISTORY = 64
P = (1 << 64) - (1 << 32) + 1
"""The goldilocks prime."""


def split_key(key: str) -> tuple[str, str]:
    chunker, _, material = key.partition("/")
    return chunker, material


@functools.lru_cache(maxsize=None)
def context(key: str):
    """Our AESContext for a case key."""
    from chunkers.aes import AESContext
    chunker, material = split_key(key)
    if material.startswith("K="):
        return AESContext.from_material(chunker, bytes(16), K=int(material[2:], 16))
    return AESContext(chunker, key_bytes(material))


@functools.lru_cache(maxsize=None)
def model_context(key: str):
    """The pure-Python model's context for a case key."""
    from vectors.model import aes, goldilocks
    chunker, material = split_key(key)
    if material.startswith("K="):
        return aes.from_uhf(chunker, bytes(16), goldilocks.Goldilocks(int(material[2:], 16)))
    return aes.expand_key(chunker, key_bytes(material))


def run(case: ScanCase, kernel: str) -> tuple:
    """(position, exit digest) of ``kernel`` on the case's span."""
    return context(case.key).scan(aligned(case.data, case.align), HISTORY, len(case.data) - HISTORY, case.state,
                                  case.mask, kernel)


def model(case: ScanCase) -> tuple:
    """(position, exit digest) of the model on the case's span."""
    from vectors.model import aes
    return aes.scan(model_context(case.key), case.data, HISTORY, len(case.data) - HISTORY, case.state, case.mask)


def digest(key: str, window: bytes) -> int:
    """The digest of a 64-byte window (the true state before a span)."""
    return context(key).digest(window)


table = context
"""The scan adapter's table of a case key: our AESContext."""


def window(case: ScanCase) -> int:
    """The history in front of the span."""
    return HISTORY
