"""Scan cases of the AES chunkers rabin-aes, goldilocks-aes and toeplitz-aes
(spec 06 §7.2-8, 07-09): one :class:`~fuzz.scan_case.ScanFamily` per
chunker, every AES scan path compared with ``evp`` (fuzz/scan_diff.py runs
them as the targets ``scan_diff_<chunker>_aes``).

A case is ``AESContext.scan(buf, start, n, state, mask, kernel)`` with the
span ending at the guard page (``n = len(buf) - start``), so it covers:

* key material: one of four fixed keys (most inputs), a fuzzer key (key
  expansion runs), or fuzzer material through ``AESContext.from_material``
  (A, and goldilocks K incl. 0, 1, p-1; any degree-64 rabin P, irreducible or
  not; the toeplitz T of a fixed key with up to 4 entries overwritten).
  rabin-aes takes its fuzzer keys and its material's A from 256 derived ones
  (SEEDED_KEYS: its contexts cost milliseconds to build under the sanitizers).
  Contexts are cached: the kernels only read them;
* a low-bit mask of 0..64 bits (the chunkers use 1..48), or any u64;
* the start state: the exact digest of the 64 bytes before ``start``, any
  u64, or for goldilocks a non-canonical value in [p, 2^64) (the roll
  reduces any u64 state, spec 09 §5, so every path and the model must agree
  on it too);
* ``start`` 64..128 and any length, including 0 and the group (8) and
  evp batch (512) boundaries, and a cut planted at a chosen position up to
  1023 from either end (the mask minus the bits of that position's cut
  value).

The model (model.aes) checks ``evp`` on spans of at most
MODEL_MAX positions when its context is cheap: the fixed keys (expanded
once), any goldilocks key or material; not rabin / toeplitz fuzzer keys or
material (6 to 66 ms of pure-Python table building per case, far more under
the sanitizers), where the paths are still compared with each other.
"""

from __future__ import annotations

import functools
import hashlib

from fuzz import long_span
from fuzz.input import Input
from fuzz.scan_case import SPAN_KINDS, KEYS, U64, ScanFamily, data, place, plant, plant_at, plant_steps

WINDOW = 64                 # spec 06 §1
# Bytes per case: the window, two evp batches (512 positions each) and the farthest plant (1023) + 1.
MAX_SPAN = WINDOW + 1088
# Spans up to this many positions are also checked against the model (pure-Python AES per position):
# every group split (8), the two-lane start and the tails of the first groups.
MODEL_MAX = 40
GOLDILOCKS_P = (1 << 64) - (1 << 32) + 1
SPECIAL_K = (0, 1, 2, GOLDILOCKS_P - 1, GOLDILOCKS_P - 2, 1 << 32, (1 << 32) - 1, 1 << 63)
KEY_KINDS = ("fixed", "fixed", "fixed", "key", "material")     # fixed keys for 3 of 5 choices (not a family)
# rabin-aes: a context from a fresh key costs ~2 ms under the fuzz build's sanitizers (the irreducible-P
# search and the C table set-up), from fresh material ~0.9 ms (the tables of P), 5-10x a whole case, and
# libFuzzer mutates key bytes often (a new key is new coverage of the search loop): they took over half
# of the target's time. So its fuzzer keys, and the AES key A of its material, are one of 256 derived
# from a fuzzer byte (a context is built once per process, then cached); P stays any fuzzer u64.
SEEDED_KEYS = ("rabin-aes",)
# Span lengths that matter: 0, the group size 8 and the two-lane start G + 2, multiples of 8 +-1..2,
# the 4-position walk of evp, its 512-position batches.
LENGTHS = tuple(sorted({*range(0, 20), *(g + d for g in (16, 24, 32, 40, 64) for d in (-2, -1, 0, 1, 2)),
                        100, 255, 256, 257, *(b + d for b in (512, 1024) for d in (-2, -1, 0, 1, 2))}))


@functools.lru_cache(maxsize=1024)       # a libFuzzer corpus holds a few hundred keys: evictions rebuilt them
def _context(name: str, source: tuple):
    from chunkers.aes import AESContext
    if source[0] == "key":
        return AESContext(name, source[1])
    _, A, material = source
    if name == "toeplitz-aes":
        return AESContext.from_material(name, A, T=list(material))
    if name == "rabin-aes":
        return AESContext.from_material(name, A, P=material)
    return AESContext.from_material(name, A, K=material)


@functools.lru_cache(maxsize=64)
def _model_context(m, name: str, source: tuple):
    """The model's key context for ``source``, or None where building it costs too much (see above)."""
    if source[0] == "key":
        if source[1] in KEYS or name == "goldilocks-aes":
            return m.aes.expand_key(name, source[1])
        return None
    if name == "goldilocks-aes":
        return m.aes.from_uhf(name, source[1], m.goldilocks.Goldilocks(source[2]))
    return None


@functools.lru_cache(maxsize=256)
def _seeded_key(seed: int) -> bytes:
    return hashlib.sha256(b"scan_aes key %d" % seed).digest()


def _source(inp: Input, name: str) -> tuple:
    """``("key", 32 bytes)`` or ``("material", A, T tuple / P / K)``."""
    kind = inp.choice("key_kind", KEY_KINDS)
    if kind == "fixed":     # a fixed key, not a family
        return "key", inp.choice("key_index", KEYS)
    if kind == "key":
        if name in SEEDED_KEYS:
            return "key", _seeded_key(inp.int("key_seed", 0, 255))
        return "key", inp.bytes("key", 32)
    A = _seeded_key(inp.int("A_seed", 0, 255))[:16] if name in SEEDED_KEYS else inp.bytes("A", 16)
    if name == "goldilocks-aes":
        K = inp.choice("K_special", SPECIAL_K) if inp.bool("special_K") else inp.int("K", 0, GOLDILOCKS_P - 1)
        return "material", A, K
    if name == "rabin-aes":
        return "material", A, (1 << 64) | inp.int("P", 0, U64) | 1
    T = list(_context(name, ("key", inp.choice("key_index", KEYS))).material)
    for _ in range(inp.int("overrides", 0, 4)):
        T[inp.int("override_index", 0, 255)] = inp.int("override_value", 0, U64)
    return "material", A, tuple(T)


def _mask(inp: Input) -> int:
    if inp.choice("mask_kind", ("low", "any")) == "any":
        return inp.int("mask", 0, U64)
    return (1 << inp.int("mask_bits", 0, 64)) - 1


def _decode(name: str):
    def decode(inp: Input):
        from chunkers.registry import reference
        source = _source(inp, name)
        ctx = _context(name, source)
        m = _mask(inp)
        state_kind = inp.choice("state_kind", ("window", "any", "noncanonical"))
        state = inp.int("state", 0, U64)
        start = WINDOW + inp.int("skip", 0, 64)
        long = inp.choice("span_kind", SPAN_KINDS) == "long"
        if long:                                # position q's window ends at buf[start + q]
            buf, n, steps = long_span.decode(inp, long_span.aes(), start, start)
        else:
            where = plant_at(inp, far=1023)
            buf = data(inp, MAX_SPAN)
            if len(buf) < start:                # the window before start must exist: zeros in front
                buf = place(bytes(start - len(buf)) + bytes(buf))
            n = len(buf) - start
        if state_kind == "window":
            state = ctx.digest(buf[start - WINDOW:start])
        elif state_kind == "noncanonical" and name == "goldilocks-aes":
            state = GOLDILOCKS_P + state % (U64 + 1 - GOLDILOCKS_P)

        def cut_value_at(q: int) -> int:        # the reference's digest at start + q (best effort: no earlier hit)
            if state_kind == "window" and q >= WINDOW:      # a true digest: the window's alone (cheap)
                return ctx.cut_value(ctx.digest(buf[start + q - WINDOW + 1:start + q + 1]))
            return ctx.cut_value(ctx.scan(buf, start, q + 1, state, U64, reference("aes"))[1])

        m = plant_steps(m, steps, cut_value_at) if long else plant(m, where, n, cut_value_at)
        return name, source, ctx, buf, start, n, state, m
    return decode


def _run(case, kernel):
    _, _, ctx, buf, start, n, state, m = case
    return ctx.scan(buf, start, n, state, m, kernel)


def _model(mod, case):
    name, source, _, buf, start, n, state, m = case
    mctx = _model_context(mod, name, source)
    return None if mctx is None else mod.aes.scan(mctx, bytes(buf), start, n, state, m)


def _seeds(name: str):
    def seeds():
        from vectors import generators
        out = []
        for n in LENGTHS:
            for bits in (4, 12):
                out.append(dict(mask_bits=bits, data=generators.sha_ctr(WINDOW + n)))
        for bits in (0, 1, 2, 8, 20, 40, 48, 64):
            out.append(dict(mask_bits=bits, state_kind="any", state=0x0123456789ABCDEF, skip=7,
                            data=generators.lcg(600)))
        out.append(dict(mask_kind="any", mask=0xF0F0F0F00000000F, data=generators.lcg(MAX_SPAN)))
        # a cut planted at every position of the last two groups and the tail, for every length
        # 8..35 (group starts at 10, 18, 26, 34 positions), and at each lane of the first groups
        for n in range(8, 36):
            for k in range(18):
                out.append(dict(mask_bits=40, plant=True, plant_from_end=True, plant_pos=k,
                                data=generators.sha_ctr(WINDOW + n)))
        for k in range(18):
            out.append(dict(mask_bits=40, plant=True, plant_pos=k, data=generators.sha_ctr(WINDOW + 60)))
        # evp batch boundaries: the last position of a batch and the first of the next
        for n, k in ((512, 511), (513, 512), (1030, 511), (1030, 512), (1030, 1023)):
            out.append(dict(mask_bits=40, plant=True, plant_far=True, plant_far_pos=k,
                            data=generators.sha_ctr(WINDOW + n)))
        for byte in (0x00, 0xFF):
            out.append(dict(mask_bits=6, repeat=64, data=bytes([byte]) * 70))
        out.append(dict(key_kind="key", key=bytes(range(100, 132)), mask_bits=6, data=generators.sha_ctr(300)))
        out += _material_seeds(name)
        # long spans: several K x L blocks of the segment paths, hits in later segments and half
        # segments, the earliest of two hits, the serial tail after the blocks
        out += [dict(f, span_kind="long", mask_bits=64) for f in long_span.seed_fields(long_span.aes())]
        if name == "goldilocks-aes":
            for state in (0, 1, U64, (1 << 32) - 2):
                out.append(dict(state_kind="noncanonical", state=state, mask_bits=5, data=generators.sha_ctr(200)))
                out.append(dict(state_kind="noncanonical", state=state, mask_bits=40, plant=True,
                                data=generators.sha_ctr(WINDOW + 30)))
        return out
    return seeds


def _material_seeds(name: str) -> list:
    from vectors import generators
    base = dict(key_kind="material", A=bytes(range(16)), mask_bits=5, data=generators.sha_ctr(400))
    if name == "goldilocks-aes":
        return [dict(base, special_K=True, K_special=k) for k in SPECIAL_K]
    if name == "rabin-aes":
        return [dict(base, P=p) for p in (0, 1 << 63, U64, 0x1B)]   # x^64 + 1 and others (reducible too)
    return [dict(base, overrides=2, override_index=[0, 255], override_value=[0, U64]),
            dict(base, overrides=1, override_index=17, override_value=1)]


FAMILIES = {
    chunker.replace("-", "_"): ScanFamily(chunker.replace("-", "_"), _decode(chunker), _run, _model,
                                          lambda case: case[5], _seeds(chunker), kernels="aes",
                                          model_max=MODEL_MAX)
    for chunker in ("rabin-aes", "goldilocks-aes", "toeplitz-aes")
}
