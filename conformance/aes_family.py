"""The AES chunkers in the conformance suite (spec 06-10): scan cases, kernel
runs and the model for the ``aes`` kernel family, whose one kernel selector
serves rabin-aes, goldilocks-aes and toeplitz-aes.

A case's ``key`` names the chunker and its key material as
``<chunker>/<key>``: ``<key>`` is a key name of :func:`families.key_bytes`
(``Z``, ``KS``, ``R<seed>``) or, for goldilocks-aes, ``K=<hex>``: an
evaluation point set directly (spec 10 §3.1) with A = 16 zero bytes. A case's
``data`` is the 64 bytes of history before the span (the window of the
position before it), then the span; the scan tests every span position.
"""

from __future__ import annotations

import functools
import random

from conformance import families
from conformance.families import ScanCase, aligned, key_bytes

CHUNKERS = ("rabin-aes", "goldilocks-aes", "toeplitz-aes")
HISTORY = 64
P = (1 << 64) - (1 << 32) + 1
"""The goldilocks prime."""

EDGE_K = (0, 1, (1 << 32) - 1, 1 << 32, P - 2, P - 1)
"""Goldilocks evaluation points at the edges of the field (spec 10 §3.1, plus 0: 09 §2 accepts it)."""


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
    from conformance.model import aes, goldilocks
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
    from conformance.model import aes
    return aes.scan(model_context(case.key), case.data, HISTORY, len(case.data) - HISTORY, case.state, case.mask)


def digest(key: str, window: bytes) -> int:
    """The digest of a 64-byte window (the true state before a span)."""
    return context(key).digest(window)


def _case(group, key, history, span, align, state, mask) -> ScanCase:
    return ScanCase("aes", group, key, history + span, align, state, mask)


def _plant_lanes(rng: random.Random, chunker: str) -> list:
    """A first hit planted at every position 0..33 of a span (every lane of a group of up to 32, and the
    tail), from even and odd buffer alignments, with true start states; found on the reference kernel."""
    out = []
    for j in range(34):
        for parity in (0, 1):
            key = f"{chunker}/{rng.choice(('Z', 'KS'))}"
            for _ in range(20000):
                history, span = rng.randbytes(HISTORY), rng.randbytes(rng.randrange(max(j + 1, 34), 100))
                case = _case(f"aes-lane-{j}", key, history, span, 2 * rng.randrange(32) + parity,
                             digest(key, history), (1 << rng.choice((3, 4, 5))) - 1)
                if run(case, "evp")[0] == j:
                    out.append(case)
                    break
    return out


def _edge_k(rng: random.Random) -> list:
    """goldilocks-aes at the field's edge points: constant and ramp inputs whose sums pass p before the
    reduction, and start states 0, 1, p-2, p-1 and (outside the contract, still reduced alike) >= p."""
    out = []
    for k in EDGE_K:
        key = f"goldilocks-aes/K={k:x}"
        for pattern in (b"\xff", b"\x00", bytes(range(256)), None):
            for state in (0, 1, P - 2, P - 1, P + rng.randrange(1 << 32), (1 << 64) - 1):
                n = rng.choice((1, 2, 9, 17, 33, 100))
                data = rng.randbytes(HISTORY + n) if pattern is None else (pattern * 200)[:HISTORY + n]
                out.append(_case("goldilocks-edge", key, data[:HISTORY], data[HISTORY:], rng.randrange(64), state,
                                 (1 << rng.randrange(1, 13)) - 1))
    return out


def _true_states(rng: random.Random) -> list:
    """Spans of every catalogue length after their true 64-byte history, each chunker and a random key."""
    out = []
    for i, n in enumerate(families.SPAN_LENGTHS):
        chunker = CHUNKERS[i % 3]
        key = f"{chunker}/{('Z', 'KS', 'R1')[i % 3]}"
        history, span = rng.randbytes(HISTORY), rng.randbytes(n)
        out.append(_case("true-state", key, history, span, rng.randrange(64), digest(key, history),
                         (1 << rng.choice((4, 6, 8, 10, 14, 48))) - 1))
    return out


def cases(seed: int) -> list:
    """The AES scan catalogue: the shared adversarial groups (spans, alignments, masks 1..48, patterns,
    lanes 0..7, last byte) over the three chunkers, plus first hits at every lane 0..33 from odd and even
    starts, goldilocks edge points, true start states and the segment cases (conformance.aes_segments)."""
    rng = random.Random(seed + 3)

    def make(group, key, data, align, state, mask):
        chunker = CHUNKERS[rng.randrange(3)]
        # the history continues the span's pattern, so constant spans have constant windows
        history = ((data or b"\0") * (HISTORY // max(len(data), 1) + 1))[:HISTORY]
        return _case(group, f"{chunker}/{key}", history, data, align, state, mask)

    out = families._common_cases("aes", seed, make) + families._lane_cases("aes", seed, make)
    for chunker in CHUNKERS:
        out += _plant_lanes(rng, chunker)
    from conformance import aes_segments
    return out + _edge_k(rng) + _true_states(rng) + aes_segments.cases(seed)
