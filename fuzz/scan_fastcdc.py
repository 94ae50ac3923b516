"""The fastcdc scan target's cases (spec 02 §4-5.6): state fp, high masks in the chunker, but
kernels must take any mask (fuzz/scan_diff.py runs them as ``scan_diff_fastcdc``)."""

from __future__ import annotations

from fuzz import long_span
from fuzz.input import Input
from fuzz.scan_case import (MAX_POSITIONS, SPAN_KINDS, U64, ScanFamily, data, gear_of, mask, plant, plant_at,
                            plant_steps, table)


def _fastcdc_state_at(gear, span, state, q) -> int:
    """fp after byte q by the reference kernel with the full mask (stops early only at fp == 0:
    the plant is best effort, any mask is a valid case). Past byte 63 only the last 64 bytes
    are fed, from 0: each step shifts the state left by one, so the start state is gone (spec 02
    §4) and a plant in a long span costs 64 steps, not q."""
    from chunkers.fastcdc import scan
    from chunkers.registry import reference
    lo = max(0, q - 63)
    return scan(gear, span[lo:q + 1], state if lo == 0 else 0, U64, reference("fastcdc"))[1]


def _fastcdc_decode(inp: Input):
    gear = table(inp, gear_of)
    m = mask(inp)
    state = inp.int("state", 0, U64)
    if inp.choice("span_kind", SPAN_KINDS) == "long":     # the state after byte q is fp at step q
        span, _, steps = long_span.decode(inp, long_span.rolling("fastcdc"), 0, 0)
        return gear, span, state, plant_steps(m, steps, lambda q: _fastcdc_state_at(gear, span, state, q))
    where = plant_at(inp)
    span = data(inp, MAX_POSITIONS)
    m = plant(m, where, len(span), lambda q: _fastcdc_state_at(gear, span, state, q))
    return gear, span, state, m


def _fastcdc_run(case, kernel):
    from chunkers.fastcdc import scan
    gear, span, state, m = case
    return scan(gear, span, state, m, kernel)


def _fastcdc_model(mod, case):
    gear, span, state, m = case
    return mod.fastcdc.scan(gear, bytes(span), state, m)


def _fastcdc_seeds():
    from vectors import generators
    out = []
    for n in (0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 100, 1023, 1024):
        out.append(dict(mask_kind="high", mask_bits=8, data=generators.sha_ctr(n)))
    for bits in (1, 6, 7, 8, 9, 13, 20, 48, 64):
        out.append(dict(mask_kind="high", mask_bits=bits, state=0x0123456789ABCDEF, data=generators.lcg(300)))
        out.append(dict(mask_kind="low", mask_bits=bits, data=generators.sha_ctr(200)))
    for byte in (0x00, 0x41, 0xFF):
        out.append(dict(mask_kind="high", mask_bits=8, repeat=40, data=bytes([byte]) * 100))
    # a cut planted at each lane of the first block and at each of the last 16 bytes, for every
    # span length 16..31 (all block / tail splits of the 8- and 16-byte loops)
    for n in range(16, 32):
        for k in range(16):
            out.append(dict(mask_kind="high", mask_bits=40, plant=True, plant_from_end=True, plant_pos=k,
                            data=generators.sha_ctr(n)))
    for k in range(8):
        out.append(dict(mask_kind="high", mask_bits=40, plant=True, plant_pos=k, data=generators.sha_ctr(40)))
    # a zero table entry makes every lane a true hit
    out.append(dict(overrides=1, override_index=0, override_value=0, mask_kind="high", mask_bits=30,
                    offset=5, data=bytes(40)))
    # long spans: several rounds of seg4, its split last round, hits in later segments, the rescan
    out += [dict(f, span_kind="long", mask_kind="high", mask_bits=64)
            for f in long_span.seed_fields(long_span.rolling("fastcdc"))]
    return out


FAMILIES = {"fastcdc": ScanFamily("fastcdc", _fastcdc_decode, _fastcdc_run, _fastcdc_model,
                                  lambda case: len(case[1]), _fastcdc_seeds)}
