"""Long scan spans from short fuzzer inputs (issue 32): the cases that reach the segment-parallel
kernels' geometry (fastcdc, buzhash64 and buzhash ``seg4``, chunkers/csrc/seg_roll.h; the AES
``*-seg`` paths, chunkers/csrc/aes/segments.h).

A long span is described, not carried: its length counted in rounds of the family's segment
geometry (:class:`Geometry`: full rounds, then a last round that is none, the shortest one that
is still split, a full one or any length, +-8 positions), its bytes from a seeded generator
(SHA-CTR or LCG streams of ``vectors.generators``, or a repeated 1..8-byte unit), then up to 4
fuzzer byte edits and up to 3 planted hits at positions counted from an edge (:func:`step`:
"segment k of round r, offset d", the middle of a segment (the AES vaes-seg half chains), the end
of the span). A planted hit clears the mask bits of the exact state at its step (the family's
``plant``, fuzz/scan_case.py), so several plants give hits in several segments at once: a later
segment that hits at an earlier step than chain 0, the rescan between them.

Positions are steps (fastcdc: bytes; windowed families: window steps; AES: span positions); the
reference kernel is the oracle (these spans are longer than any model check's limit).
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple

from conformance.cases.guard import GuardedArena

# Bytes of a long span's buffer (window and history included): three fastcdc rounds and a fourth
# (64 KiB), two rounds of the windowed families and most of a third (4 x 16384 steps each); a case
# costs the kernels ~3 ns per position each under the sanitizers.
LONG_MAX = 1 << 18
MAX_EDITS, EDIT_BYTES = 4, 8
MAX_PLANTS = 3
NEAR = 80                   # an edge offset's reach: the 64-byte warm-ups, the 8- and 16-step blocks
DELTA = 8                   # a length's reach around its round threshold: every tail of 0..3 steps, groups of 8
SEEDS = 8                   # generator seeds (each stream built once per process)
LAST = ("shortest", "none", "full", "any")
EDGES = ("segment", "middle", "end")

_arena = GuardedArena(LONG_MAX + 64)


class Geometry(NamedTuple):
    """A family's segment geometry (positions): ``chains`` segments per round, ``seg_len`` per segment
    of a full round, ``seg_min`` the fewest per segment of a split last round, ``max_rounds`` the most
    full rounds a case asks for, ``rounds(n) -> [(first position, segment length), ...]`` as the
    kernel cuts a span of n positions (conformance.cases.segments.rounds; the AES blocks)."""

    chains: int
    seg_len: int
    seg_min: int
    max_rounds: int
    rounds: Callable


def rolling(family: str, window: int = 0) -> Geometry:
    """The ``seg4`` geometry of fastcdc (window 0) or a windowed family for ``window``
    (conformance/cases/segments.py mirrors the kernels)."""
    from conformance.cases import segments
    seg_len, seg_min = segments.geometry(family, window)
    return Geometry(segments.CHAINS, seg_len, seg_min, 3 if window == 0 else 2,
                    functools.partial(segments.rounds, family, window=window))


@functools.cache
def aes() -> Geometry:
    """The AES segment paths' blocks: K segments of L positions, only whole blocks (the rest serial)."""
    from chunkers.aes import SEGMENTS
    k, seg = SEGMENTS
    return Geometry(k, seg, seg, 4, lambda n: [(b, seg) for b in range(0, n - k * seg + 1, k * seg)])


def length(inp, g: Geometry, cap: int) -> int:
    """Positions of a long span: ``long_rounds`` full rounds, then the last round (``long_last``:
    the shortest split one (chains x seg_min), none, a full one, or ``long_last_len`` positions),
    plus ``long_delta`` -DELTA..DELTA; clipped to 0..cap."""
    full = g.chains * g.seg_len
    n = inp.int("long_rounds", 0, g.max_rounds) * full
    last = inp.choice("long_last", LAST)
    if last == "any":
        n += inp.int("long_last_len", 0, full)
    else:
        n += {"shortest": g.chains * g.seg_min, "none": 0, "full": full}[last]
    return max(0, min(cap, n + inp.int("long_delta", 0, 2 * DELTA) - DELTA))


def step(inp, g: Geometry, layout: list, n: int) -> int:
    """A position in 0..n-1 counted from an edge of ``layout`` (the span's rounds, ``g.rounds(n)``):
    ``edge`` (the start of segment ``segment`` of round ``round``, its middle, or the span's end,
    counted back), then ``far`` (an offset anywhere in a segment, ``far_offset``) or ``offset``
    -NEAR..NEAR. A round past the last is the last; a span without rounds counts from 0 in
    segments of n / chains. 0 for an empty span."""
    edge = inp.choice("edge", EDGES)
    r = inp.int("round", 0, g.max_rounds + 1)
    k = inp.int("segment", 0, g.chains - 1)
    base, seg = layout[min(r, len(layout) - 1)] if layout else (0, max(1, n // g.chains))
    d = inp.int("far_offset", 0, seg - 1) if inp.bool("far") else inp.int("offset", 0, 2 * NEAR) - NEAR
    q = n - 1 - abs(d) if edge == "end" else base + k * seg + (seg // 2 if edge == "middle" else 0) + d
    return max(0, min(n - 1, q))


@functools.lru_cache(maxsize=2 * SEEDS)
def _stream(gen: str, seed: int) -> bytes:
    """LONG_MAX bytes of ``gen`` ("sha": SHA-CTR with a label of its own per seed; "lcg": the LCG
    stream from offset seed x 4099)."""
    from vectors import generators
    if gen == "sha":
        return generators.sha_ctr(LONG_MAX, label=b"fuzz long span %d" % seed)
    return generators.lcg(LONG_MAX + SEEDS * 4099)[seed * 4099:][:LONG_MAX]


def fill(inp, size: int):
    """``size`` (<= LONG_MAX) bytes (a buffer, not copied: a slice of a cached stream):
    ``long_gen`` ("sha", "lcg": a stream of seed ``long_seed``; "unit": the first ``unit_len`` of
    ``unit`` repeated)."""
    gen = inp.choice("long_gen", ("sha", "lcg", "unit"))
    if gen == "unit":
        unit = inp.bytes("unit", 8)[:inp.int("unit_len", 1, 8)]
        return memoryview(unit * (size // len(unit) + 1))[:size]
    return memoryview(_stream(gen, inp.int("long_seed", 0, SEEDS - 1)))[:size]


def decode(inp, g: Geometry, extra: int, lead: int, cap: int = LONG_MAX) -> tuple:
    """``(span, n, planted steps)``: a long span of n positions in a buffer of ``n + extra`` bytes
    (at most ``cap``) ending at a guard page, after the edits (``edits`` of them, each
    ``edit_bytes`` written to end at byte ``lead + step``: the newest byte of the state at that
    step); the ``plants`` steps for the caller's plant (fuzz.scan_case.plant_steps)."""
    n = length(inp, g, cap - extra)
    layout = g.rounds(n)
    span = _arena.place(fill(inp, n + extra))       # one copy, into the arena; edits go there
    for _ in range(inp.int("edits", 0, MAX_EDITS)):
        end = min(len(span), lead + step(inp, g, layout, n) + 1)
        start = max(0, end - EDIT_BYTES)
        span[start:end] = inp.bytes("edit_bytes", EDIT_BYTES)[EDIT_BYTES - (end - start):]
    plants = [step(inp, g, layout, n) for _ in range(inp.int("plants", 0, MAX_PLANTS))] if n else []
    return span, n, plants


def seed_fields(g: Geometry) -> list[dict]:
    """Long-span field values (fuzz.input.Script) a family's seeds add to its own (a mask that a
    random state rarely meets, the span kind): no hit over two full rounds and the shortest split
    last round (three rounds) with tails of 0..3 positions; a full last round plus one position;
    an odd split (one round, then segments of an odd length and a tail of 1; AES: a block less
    one, serial) and a hit at the last step of each later segment there; a hit planted at the start, middle and end of every segment of the second round,
    in the split last round and in the tail; two hits in the first round, segment 2 at step 10 and
    chain 0 at step 200 (chain 0 must win: the rescan); a constant span."""
    out = [dict(long_rounds=2, long_last="shortest", long_delta=DELTA + d) for d in (-1, 0, 1, 3)]
    out.append(dict(long_rounds=1, long_last="full", long_delta=DELTA + 1))
    odd_len = min(g.chains * (g.seg_min + 1), g.chains * g.seg_len - 1)
    odd = dict(long_rounds=1, long_last="any", long_last_len=odd_len, long_delta=DELTA + 1)
    out.append(odd)
    if g.seg_min < g.seg_len:   # a hit at the odd last step of each later segment of that split round
        out += [dict(odd, plants=1, edge="segment", round=1, segment=k, far=True, far_offset=g.seg_min)
                for k in range(1, g.chains)]
    for k in range(g.chains):
        for edge, d in (("segment", 0), ("middle", 0), ("segment", -1)):
            out.append(dict(long_rounds=2, long_last="shortest", plants=1, edge=edge, round=1, segment=k,
                            offset=NEAR + d))
    last = dict(long_rounds=1, long_last="shortest", long_delta=DELTA + 3, plants=1)
    out.append(dict(last, edge="segment", round=1, segment=g.chains - 1, offset=NEAR + 5))
    out.append(dict(last, edge="end", offset=NEAR))
    out.append(dict(long_rounds=2, long_last="none", plants=2, edge="segment", round=0, segment=[2, 0], far=True,
                    far_offset=[10, 200]))
    out.append(dict(long_rounds=1, long_last="shortest", long_gen="unit", unit=b"\x5a" * 8, unit_len=1))
    return out
