"""AES scan cases for the segment-parallel paths (issue 13; chunkers/csrc/aes/segments.h).

A span of at least one block (``K * L`` positions, :data:`chunkers.aes.SEGMENTS`)
is scanned as K chains of L positions each, chain k >= 1 warmed up on the 64
bytes before its segment. These cases put first hits exactly where that can go
wrong: at every segment's first, second and last position, inside the warm-up
bytes of the next segment, in the second block, several segments hitting at
once (the earliest position must win even when a later segment hits at an
earlier step), for toeplitz-aes and goldilocks-aes the half segments their vaes-seg path chains
(:func:`half_cases`), spans just below and above one, two and three blocks with no hit
(the exit digest), and untrue start states (which must give the serial answer),
among them the true digest with one bit flipped (bits 0, 31, 32, 63).

Hits are planted, not searched for: a 64-byte window W that hits under
``PLANT_MASK`` is found once per chunker and key on the reference kernel, then
copied so that it ends at each planted position of random filler. Each case is
kept only if the reference kernel confirms every plant is a hit and the first
hit is the earliest plant (else new filler is drawn), so a case tests what its
group names. The oracle stays the reference kernel (and the model behind it).
"""

from __future__ import annotations

import functools
import random

from conformance.cases import aes_kernels
from conformance.cases.aes_kernels import HISTORY, digest
from conformance.cases.scan import ScanCase

PLANT_MASK = (1 << 20) - 1
"""Mask of planted cases: one position in 2**20 hits, so random filler of a few blocks rarely does."""
NO_HIT_MASK = (1 << 48) - 1
"""Mask of the no-hit spans (a hit there would still be compared, just not planted)."""


def geometry() -> tuple[int, int]:
    """(K chains, L positions per segment) of the compiled segment-parallel paths."""
    from chunkers.aes import SEGMENTS
    return SEGMENTS


@functools.lru_cache(maxsize=None)
def hit_window(key: str) -> bytes:
    """A 64-byte window whose digest hits under PLANT_MASK for ``key`` (found on the reference kernel)."""
    rng = random.Random(key)
    while True:
        buf = rng.randbytes(HISTORY + (8 << 20))
        r, _ = aes_kernels.context(key).scan(buf, HISTORY, len(buf) - HISTORY, digest(key, buf[:HISTORY]), PLANT_MASK,
                                            aes_kernels.REFERENCE)
        if r >= 0:
            return buf[r + 1:r + 1 + HISTORY]          # the window ending at span position r


def _hits(key: str, data: bytes, j: int) -> bool:
    """True if span position j of data (history + span) is a hit under PLANT_MASK."""
    return aes_kernels.context(key).scan(data, HISTORY + j, 1, digest(key, data[j:j + HISTORY]), PLANT_MASK,
                                        aes_kernels.REFERENCE)[0] == 0


def planted(rng: random.Random, group: str, key: str, n: int, plants: list) -> ScanCase:
    """A true-state case of an n-position span with W ending at each span position in ``plants``
    (each >= 0, at least 64 apart, so no plant overwrites another); the reference confirms each plant and that the first wins."""
    w = hit_window(key)
    for _ in range(50):
        data = bytearray(rng.randbytes(HISTORY + n))
        for j in plants:
            data[j + 1:j + 1 + HISTORY] = w
        data = bytes(data)
        case = ScanCase("aes", group, key, data, rng.randrange(64), digest(key, data[:HISTORY]), PLANT_MASK)
        first = aes_kernels.run(case, aes_kernels.REFERENCE)[0]
        if first == min(plants) and all(_hits(key, data, j) for j in plants):
            return case
    raise RuntimeError(f"could not plant {plants} in {n} positions for {key}")


VECTOR_CHAINS = ("toeplitz-aes", "goldilocks-aes")
"""The AES chunkers whose vaes-seg path steps vector chains over half segments (chunkers/csrc/aes/vaes-seg.c)."""


def half_cases(rng: random.Random, key: str, n: int, K: int, L: int) -> list:
    """toeplitz-aes and goldilocks-aes on vaes-seg step 16 vector chains, each segment's two halves
    of L // 2 positions (chunkers/csrc/aes/vaes-seg.c, V_HALF), the second warmed up on the first's last
    64 bytes: first hits at every second half's first two positions and the first half's last,
    and a second half hitting at a later step than the next segment's first half (and the
    reverse), where position order and step order disagree."""
    H, out = L // 2, []
    for k in range(K):
        s = k * L
        for j in (s + H - 1, s + H, s + H + 1):
            out.append(planted(rng, f"seg-half-{k}", key, n, [j]))
    for plants in ([H + 5, L + 2], [10, H + 3], [H - 1, 3 * L + H], [7 * L + H + 1, K * L + H]):
        out.append(planted(rng, "seg-half-several", key, n, plants))
    return out


def cases(seed: int) -> list:
    """The segment cases for each AES chunker (a random key per chunker from the seed)."""
    rng = random.Random(seed + 13)
    K, L = geometry()
    B = K * L
    out = []
    for chunker in aes_kernels.CHUNKERS:
        key = f"{chunker}/{rng.choice(('Z', 'KS', 'R1'))}"
        n = 2 * B + 100
        for k in range(K):                      # each segment's edges, in the first and second block
            s = k * L
            for j in (s, s + L - 1, B + s) + ((s + 1, B + s + L - 1) if k < 2 else ()):
                out.append(planted(rng, f"seg-edge-{k}", key, n, [j]))
        for k in range(1, K):                   # the last warm-up byte of chain k is chain k-1's last position
            out.append(planted(rng, f"seg-warmup-{k}", key, B + 10, [k * L - 1 - rng.randrange(2) * 32]))
        # a later segment hitting at an earlier step, two at the same step, adjacent segments, two blocks;
        # a hit that must lose to an earlier one found at an earlier step (the same segment again, and a
        # later segment at a later step: the kernel's "not earlier than the first so far" outcome)
        for plants in ([2 * L - 1, 3 * L + 5], [2 * L + L // 2, 6 * L], [100, 3 * L + 100], [L - 1, L + 64],
                       [5 * L + 7, B + 70], [L // 2, 5 * L - 1, 7 * L], [L + 5, L + 70], [L + 5, 3 * L + 10]):
            out.append(planted(rng, "seg-several", key, n, sorted(plants)))
        if chunker in VECTOR_CHAINS:
            out += half_cases(rng, key, n, K, L)
        for m in (B - 1, B, B + 1, B + 2, 2 * B - 1, 2 * B, 2 * B + 1, 3 * B + 5):    # no hit: the exit digest
            data = rng.randbytes(HISTORY + m)
            out.append(ScanCase("aes", "seg-span", key, data, rng.randrange(64), digest(key, data[:HISTORY]),
                                NO_HIT_MASK))
        for state in (0, digest(key, rng.randbytes(HISTORY))):    # untrue states: the serial answer
            data = rng.randbytes(HISTORY + 2 * B + 3)
            out.append(ScanCase("aes", "seg-untrue-state", key, data, rng.randrange(64), state,
                                rng.choice((NO_HIT_MASK, (1 << 12) - 1))))
        for bit in (0, 31, 32, 63):     # the state check at its boundary: one bit off the true digest
            data = rng.randbytes(HISTORY + 2 * B + 3)
            out.append(ScanCase("aes", "seg-untrue-state", key, data, rng.randrange(64),
                                digest(key, data[:HISTORY]) ^ (1 << bit), NO_HIT_MASK))
    return out
