"""Scan cases with arbitrary masks (issue 12): the scan contract takes any u64 mask
(spec 02 §4, 03 §5, 06 §7.2), not only the contiguous ones of the parameter rules, and a
kernel's lane algebra may mishandle a mask bit it never sees set. Every sparse mask here has
bit 63 and bit 31 set (bit 31 only for the 32-bit legacy buzhash) plus random others.

* ``sparse``: 2 to 12 bits, random spans up to MAX_SPAN bytes: frequent hits.
* ``planted``: 13 to 24 bits (8 to 14 for 32-bit states), which random data would practically
  never match: the mask is built from the zero bits of the hash (the cut value for the AES
  chunkers) at a chosen span position, so the first hit lands exactly there (lanes 0..7 of
  the first blocks, and later positions).
* ``wide-planted`` (not AES, whose cut values no state controls): contiguous masks of 32 to
  48 bits, the widest the rules allow, hit at a chosen position through the start state: the
  hash at position j is linear in it (fastcdc: ``state * 2**(j+1) + h_j(0)``, spec 02 §4;
  buzhash: ``rotl(state, j+1) ^ h_j(0)``, spec 03 §5, 04 A).
* ``lane-limits`` (fastcdc, buzhash64: the families with lane kernels): contiguous masks
  whose top bit is below bit 63, planted at every lane of a block with bit 63 of the hash set
  (see _lane_limits).

Part of every scan family's catalogue (common.common_cases); cases stay within the
model's span limit, so the reference kernel is compared with the model on each of them.
"""

from __future__ import annotations

import random

from chunkers.families import FAMILIES as TABLE
from conformance.cases.kernels import reference_result, suite
from conformance.cases.scan import mask_of

MAX_SPAN = 600
"""Longest span (bytes); scan.MODEL_MAX_SPAN bounds the model comparison."""

SPARSE_BITS = (2, 3, 4, 6, 8, 12)
PLANTED_BITS = {64: (13, 16, 20, 24), 32: (8, 10, 12, 14)}
"""Set bits of the planted sparse masks, per state width: about half the bits of a hash are zero."""
PLANTED_POSITIONS = (0, 1, 7, 8, 13, 15, 16, 21, 31, 40, 63, 100)
WIDE_BITS = (32, 40, 47, 48)
LIMIT_DROPS = (1, 2, 7)
LIMIT_BITS = (13, 24)
"""Top-bit distances below bit 63 and widths of the ``mask-lane-limits`` masks (fastcdc needs the
mask's lowest bit above the planted position: 63 - 7 - 24 + 1 > 23)."""


def _word(family: str) -> int:
    return suite(family).bits


def sparse_mask(rng: random.Random, bits: int, word: int, avoid: int = 0) -> int:
    """A mask of ``bits`` set bits in a ``word``-bit word: bit word-1 and bit 31, the rest random
    among the bits clear in ``avoid`` (ValueError if avoid has bit word-1 or 31 set)."""
    required = {word - 1, 31}
    if any(avoid >> b & 1 for b in required):
        raise ValueError("a required mask bit is set in the planted value")
    free = [b for b in range(word) if b not in required and not avoid >> b & 1]
    chosen = required | set(rng.sample(free, min(bits - len(required), len(free))))
    return sum(1 << b for b in chosen)


def _span_start(case) -> int:
    """Index in ``case.data`` of the span's first byte (after a window or the AES history)."""
    return suite(case.family).window(case)


def _value_at(case, j: int) -> int | None:
    """The value the mask is tested against at span position ``j``, from the family's reference kernel
    with an all-ones mask (None if that stops early, on a zero value). The windowed families test
    before they roll: position j holds the state after j rolls (spec 03 §5)."""
    windowed = TABLE[case.family].hash == "cyclic"
    steps = j if windowed else j + 1
    ones = (1 << _word(case.family)) - 1
    pos, state = reference_result(case._replace(data=case.data[:_span_start(case) + steps], mask=ones))
    if pos != (j if windowed else -1):
        return None
    if TABLE[case.family].hash == "uhf":       # the cut value: the digest's AES block (spec 06 §7.2)
        return int.from_bytes(suite(case.family).table(case.key).encrypt(state)[:8], "little")
    return state


def _rotl(x: int, k: int, word: int) -> int:
    k %= word
    return ((x << k) | (x >> (word - k))) & ((1 << word) - 1)


def _planting_state(case, j: int, word: int, target: int = 0) -> int | None:
    """A start state whose hash at span position ``j`` is ``target`` (see module doc; fastcdc: only its
    bits above j, the low j + 1 come from the data), or None."""
    if TABLE[case.family].hash == "gear":
        h0 = _value_at(case._replace(state=0), j)
        if h0 is None:
            return None
        low = (1 << (j + 1)) - 1
        return (((target & ~low) | (h0 & low)) - h0) % (1 << word) >> (j + 1)     # h_j = h0 + state * 2**(j+1)
    h1 = _value_at(case._replace(state=1), j)       # state 0 would match on entry
    return None if h1 is None else _rotl(h1 ^ _rotl(1, j, word) ^ target, -j, word)


def _planted(family: str, rng: random.Random, keys: list, make) -> list:
    word = _word(family)
    out = []
    for bits in PLANTED_BITS[word]:
        for j in PLANTED_POSITIONS:
            for _ in range(200):
                case = make("mask-planted", rng.choice(keys), rng.randbytes(rng.randrange(j + 1, MAX_SPAN)),
                            rng.randrange(64), rng.getrandbits(64), 1)
                value = _value_at(case, j)
                if value is None or value >> (word - 1) & 1 or value >> 31 & 1 or \
                        word - bin(value).count("1") < bits:
                    continue
                case = case._replace(mask=sparse_mask(rng, bits, word, value))
                if reference_result(case)[0] == j:
                    out.append(case)
                    break
    if TABLE[family].hash == "uhf":
        return out
    for width in WIDE_BITS:
        gear = TABLE[family].hash == "gear"         # high masks (spec 02 §3)
        mask = mask_of(width, gear) & ((1 << word) - 1) or (1 << word) - 1
        for j in PLANTED_POSITIONS:
            if gear and j + 1 > 64 - width:
                continue            # the state reaches only the bits above j
            out += _state_planted("mask-wide-planted", rng, keys, make, mask, j, word, lambda: 0)
    return out


def _state_planted(group: str, rng: random.Random, keys: list, make, mask: int, j: int, word: int,
                   target) -> list:
    """[case] of ``group`` with ``mask`` whose hash at span position ``j`` is ``target()`` (a fresh
    value per try) through its start state, so the reference kernel's first hit is at ``j``;
    [] when 20 tries find none."""
    for _ in range(20):
        case = make(group, rng.choice(keys), rng.randbytes(rng.randrange(j + 1, MAX_SPAN)), rng.randrange(64), 0,
                    mask)
        state = _planting_state(case, j, word, target())
        if state is None:
            continue
        case = case._replace(state=state)
        if reference_result(case)[0] == j:
            return [case]
    return []


def _lane_limits(family: str, rng: random.Random, keys: list, make) -> list:
    """``mask-lane-limits``: contiguous masks whose top bit is LIMIT_DROPS below bit 63, hit at every
    lane of the second and third 8-byte block through the start state, with bit 63 of the hash
    set there and random bits elsewhere (only the mask's bits clear). A lane test of the form
    ``H <= ~(mask << shift)`` (neon) or ``H & (mask << shift) == 0`` taken with another lane's
    shift then rejects the hit while the other lanes of the block are no candidates either; the
    planted hashes of the other groups are 0 above the mask or have a high mask, which hides it."""
    out = []
    for drop in LIMIT_DROPS:
        for width in LIMIT_BITS:
            mask = mask_of(width, True) >> drop
            for j in range(8, 24):
                out += _state_planted("mask-lane-limits", rng, keys, make, mask, j, 64,
                                      lambda: (rng.getrandbits(64) | 1 << 63) & ~mask)
    return out


def cases(family: str, seed: int, make) -> list:
    """The sparse, planted and wide-planted mask cases of ``family`` (``make`` as in
    common.common_cases)."""
    rng = random.Random(f"masks/{family}/{seed}")
    keys = ["Z", "KS", f"R{seed}"]
    out = []
    for bits in SPARSE_BITS:
        for n in (rng.randrange(1, 64), rng.randrange(64, MAX_SPAN), 8 * rng.randrange(1, 60) + 1, MAX_SPAN):
            out.append(make("mask-sparse", rng.choice(keys), rng.randbytes(n), rng.randrange(64),
                            rng.getrandbits(64), sparse_mask(rng, bits, 64)))
    out += _planted(family, rng, keys, make)
    return out + (_lane_limits(family, rng, keys, make) if _lane_limited(family) else [])


def _lane_limited(family: str) -> bool:
    """Whether ``family`` gets the lane-limit cases: a 64-bit state planted through its start state
    (the table's ``hash``: Gear or cyclic, not the AES cut value) - fastcdc and buzhash64, the families
    with lane kernels."""
    return TABLE[family].hash in ("gear", "cyclic") and suite(family).bits == 64
