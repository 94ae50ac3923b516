"""Limit-boundary scan cases (issue 35): every lane comparison of a kernel that tests a lane
against a limit, at its boundary.

Which kernels compare against a limit (read from every csrc/<family>/*.c): only fastcdc
``neon`` (neon.c). Its lane j (0..7) of the 8-byte block at span offset i holds the Gear
state after byte i + j shifted left by s = 7 - j, H_j = fp << s (mod 2^64), and is a
candidate when H_j <= ~(m << s) (unsigned). In terms of the state that is

    fp mod 2^(64-s)  <=  L_j = ~m mod 2^(64-s)

(the top s bits of fp are shifted out). The other lane kernels (fastcdc avx2, avx512,
blockwise; buzhash64 neon, avx2, avx512, blockwise; the AES group tests) test
``(H & M) == 0`` exactly, which the mask catalogues (mask_shapes) drive bit by bit.

For each lane j of the first block and of the last full block of a span, and each of
``below`` (fp mod 2^(64-s) = L_j - 1), ``equal`` (= L_j) and ``above`` (= L_j + 1, the
mask's lowest bit: no hit), with the top s bits zero (so below and equal are true hits of
the high mask, spec 02 §3) or, for ``equal-top``, random (a candidate that is no hit),
the case plants that state at exactly that byte and accepts it only when no other lane
of that block is a candidate and no byte before it is a hit, so the lane's own
comparison alone decides whether the block is rescanned: a ``<`` for ``<=`` (equal at
lane 7, where s = 0 and H_j can equal its limit) or a ``<=`` for ``<`` is seen. For
s > 0 the low s bits of H_j are 0 and of the limit 1, so ``equal`` is the largest H_j
still a candidate there.

Planting (spec 02 §3-4: fp after byte p is sum_k G[b_k] << (p - k) + state << (p + 1)):
bit k of the state after byte p depends on the bytes p - k .. p only, and byte p - k
sets it through bit 0 of its table entry (the lower bytes' sum has no carry into it),
so the bytes are chosen back to front among those whose entry has the needed bit 0;
bits above p come from the start state. Every case stays within the model's span limit.
"""

from __future__ import annotations

import random

from conformance.cases.fastcdc_kernels import model_table
from conformance.cases.kernels import reference_result
from conformance.cases.scan import ScanCase, mask_of

FAMILY = "fastcdc"
"""The family these cases are for (its neon kernel)."""
M64 = (1 << 64) - 1
WIDTHS = (13, 24, 40)
"""High-mask widths (fastcdc's masks, spec 02 §3): the lowest mask bit 64 - w stays above every
lane shift (w > 7)."""
RELATIONS = ("below", "equal", "above", "equal-top")
TRIES = 200


def lane_limit(m: int, lane: int) -> tuple[int, int]:
    """(L, bits): neon's lane ``lane`` (0..7) is a candidate when fp mod 2^bits <= L (module doc)."""
    bits = 64 - (7 - lane)
    return ~m & ((1 << bits) - 1), bits


def neon_candidate(fp: int, m: int, lane: int) -> bool:
    """fastcdc neon's lane test for the state ``fp`` after the lane's byte (neon.c: H_j <= ~M_j)."""
    s = 7 - lane
    return (fp << s) & M64 <= ~(m << s) & M64


def _target(rng: random.Random, m: int, lane: int, relation: str) -> int:
    limit, bits = lane_limit(m, lane)
    low = (limit + {"below": -1, "equal": 0, "above": 1, "equal-top": 0}[relation]) % (1 << bits)
    top = rng.getrandbits(64 - bits) | 1 if relation == "equal-top" and bits < 64 else 0
    return top << bits | low


def _plant(rng: random.Random, gear: list, n: int, p: int, target: int) -> tuple[bytes, int]:
    """(span of ``n`` bytes, start state) whose Gear state after byte ``p`` is ``target``."""
    data = bytearray(rng.randbytes(n))
    by_bit = [[b for b in range(256) if gear[b] & 1 == v] for v in (0, 1)]
    acc = 0                                     # sum of G[b_{p-i}] << i over the bytes chosen
    for k in range(min(p + 1, 64)):
        b = rng.choice(by_bit[(target >> k ^ acc >> k) & 1])
        data[p - k] = b
        acc = (acc + (gear[b] << k)) & M64
    state = ((target - acc) & M64) >> (p + 1) if p < 63 else rng.getrandbits(64)
    return bytes(data), state


def _states(gear: list, data: bytes, state: int) -> list:
    out = []
    for b in data:
        state = ((state << 1) + gear[b]) & M64
        out.append(state)
    return out


def _sound(gear: list, data: bytes, state: int, m: int, p: int, relation: str) -> bool:
    """The planted lane alone decides its block, and nothing before it is a hit."""
    fp = _states(gear, data, state)
    block = p - p % 8
    if any(fp[q] & m == 0 for q in range(p)):
        return False
    if any(neon_candidate(fp[q], m, q % 8) for q in range(block, block + 8) if q != p):
        return False
    hit = fp[p] & m == 0
    return hit == (relation in ("below", "equal"))


def cases(seed: int) -> list:
    """The fastcdc limit-boundary cases: group ``limit-boundary/<first|last>/lane<j>/<relation>``."""
    rng = random.Random(f"limits/fastcdc/{seed}")
    keys = ["Z", "KS", f"R{seed}"]
    out = []
    for width in WIDTHS:
        m = mask_of(width, True)
        for where in ("first", "last"):
            for lane in range(8):
                for relation in RELATIONS[:3] if lane == 7 else RELATIONS:    # lane 7 has no top bits
                    for _ in range(TRIES):
                        key = rng.choice(keys)
                        gear = model_table(key)
                        n = rng.randrange(8, 40) if where == "first" else rng.randrange(64, 600)
                        p = lane if where == "first" else n // 8 * 8 - 8 + lane
                        data, state = _plant(rng, gear, n, p, _target(rng, m, lane, relation))
                        if not _sound(gear, data, state, m, p, relation):
                            continue
                        case = ScanCase(FAMILY, f"limit-boundary/{where}/lane{lane}/{relation}", key, data,
                                        rng.randrange(64), state, m)
                        if (reference_result(case)[0] == p) == (relation in ("below", "equal")):
                            out.append(case)
                            break
    return out
