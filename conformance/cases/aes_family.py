"""The AES chunkers' scan catalogue (spec 06-10) for the ``aes`` kernel family, whose one kernel
selector serves rabin-aes, goldilocks-aes and toeplitz-aes. Case keys and data are laid out as
conformance.cases.aes_kernels describes; the runs and the model are there too.
"""

from __future__ import annotations

import random

from conformance.cases import aes_segments
from conformance.cases.aes_kernels import CHUNKERS, HISTORY, P, REFERENCE, digest, run
from conformance.cases.catalogue import SPAN_LENGTHS
from conformance.cases.common import common_cases, lane_cases
from conformance.cases.scan import ScanCase

FAMILY = "aes"

ZERO_PARAMS = [("rabin-aes", 12, 14, 13, 0), ("goldilocks-aes", 6, 12, 8, 2), ("toeplitz-aes", 6, 12, 8, 1)]
"""The all-zero classification's params (conformance.cases.classes): min size 4096 (every short input
one chunk), then params cutting the periodic inputs into many short chunks, one per AES chunker."""

CHUNK_PARAMS = ["toeplitz-aes,6,12,8,0", "rabin-aes,6,12,8,1", "goldilocks-aes,6,12,8,2", "toeplitz-aes,6,12,8,3",
                "rabin-aes,10,16,12,2", "goldilocks-aes,19,23,21,2"]
"""Params of the chunk-level checks (conformance.cases.families): every NC level at small sizes, the
three chunkers in turn, then larger ones."""

EDGE_K = (0, 1, (1 << 32) - 1, 1 << 32, P - 2, P - 1)
"""Goldilocks evaluation points at the edges of the field (spec 10 §3.1, plus 0: 09 §2 accepts it)."""


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
                if run(case, REFERENCE)[0] == j:
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
    for i, n in enumerate(SPAN_LENGTHS):
        chunker = CHUNKERS[i % 3]
        key = f"{chunker}/{('Z', 'KS', 'R1')[i % 3]}"
        history, span = rng.randbytes(HISTORY), rng.randbytes(n)
        out.append(_case("true-state", key, history, span, rng.randrange(64), digest(key, history),
                         (1 << rng.choice((4, 6, 8, 10, 14, 48))) - 1))
    return out


def cases(seed: int) -> list:
    """The AES scan catalogue: the shared adversarial groups (spans, alignments, masks 1..48, patterns,
    lanes 0..7, last byte) over the three chunkers, plus first hits at every lane 0..33 from odd and even
    starts, goldilocks edge points, true start states and the segment cases (conformance.cases.aes_segments)."""
    rng = random.Random(seed + 3)

    def make(group, key, data, align, state, mask):
        chunker = CHUNKERS[rng.randrange(3)]
        # the history continues the span's pattern, so constant spans have constant windows
        history = ((data or b"\0") * (HISTORY // max(len(data), 1) + 1))[:HISTORY]
        return _case(group, f"{chunker}/{key}", history, data, align, state, mask)

    out = common_cases("aes", seed, make) + lane_cases("aes", seed, make)
    for chunker in CHUNKERS:
        out += _plant_lanes(rng, chunker)
    return out + _edge_k(rng) + _true_states(rng) + aes_segments.cases(seed)
