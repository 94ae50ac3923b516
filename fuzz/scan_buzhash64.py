"""The buzhash64 scan target's cases (spec 03 §5-7.4): window w, the span holds pr[0 .. n+w-1];
state = hash of the window at pr[0] (fuzz/scan_diff.py runs them as ``scan_diff_buzhash64``)."""

from __future__ import annotations

import functools
from array import array

from fuzz import long_span
from fuzz.scan_case import KEYS, U64, ScanFamily, table, windowed_decode, windowed_run


@functools.lru_cache(maxsize=len(KEYS))
def _bz_table(key: bytes) -> array:
    from chunkers.buzhash64 import table as bz_table
    return array("Q", bz_table(key))


class _ModelRotated:
    """The model's Trot[x] = rotl64(T[x], w) (spec 03 §4), computed per lookup:
    a short model scan reads a few entries, building all 256 costs more."""

    def __init__(self, mod, t, w: int):
        self.rotl64, self.t, self.w = mod.buzhash64.rotl64, t, w

    def __getitem__(self, x: int) -> int:
        return self.rotl64(self.t[x], self.w)


def _buzhash64_model(mod, case):
    t, w, span, state, m = case
    return mod.buzhash64.scan(t, _ModelRotated(mod, t, w), bytes(span), w, state, m)


def buzhash64_seeds():
    from vectors import generators
    out = []
    for w in (1, 2, 63, 64, 65):
        for n in (0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 33, 100):
            out.append(dict(mask_kind="low", mask_bits=6, special_window=True, window=w,
                            data=generators.sha_ctr(w + n)))
    for bits in (1, 8, 9, 20, 48, 64):
        out.append(dict(mask_kind="low", mask_bits=bits, special_window=True, window=4095,
                        data=generators.lcg(4200)))
    out.append(dict(mask_kind="low", mask_bits=8, state_kind="match", state=U64, data=generators.sha_ctr(50)))
    # a cut planted at each lane of the first block and at each of the last 16 steps, for every
    # span length 16..31 (all block / tail splits of the 8- and 16-step loops)
    for n in range(16, 32):
        for k in range(16):
            out.append(dict(mask_kind="low", mask_bits=40, special_window=True, window=64, plant=True,
                            plant_from_end=True, plant_pos=k, data=generators.sha_ctr(64 + n)))
    for k in range(8):
        out.append(dict(mask_kind="low", mask_bits=40, special_window=True, window=3, plant=True, plant_pos=k,
                        data=generators.sha_ctr(50)))
    for byte in (0x00, 0x41, 0xFF):
        out.append(dict(mask_kind="low", mask_bits=8, window_any=64, repeat=30, data=bytes([byte]) * 100))
    # long spans (seg4's rounds, split last round, later segments, rescan) for a one-word window; for
    # windows that change the geometry (1; 200: 2w > 256 steps per segment at least; 4095: 16w per
    # segment) no hit over two rounds and the split last round, and the rescan
    long = dict(span_kind="long", mask_kind="low", mask_bits=64, special_window=True)
    fields = long_span.seed_fields(long_span.rolling("buzhash64", 64))
    out += [dict(f, **long, window=64) for f in fields]
    for w in (1, 200, 4095):
        fields = long_span.seed_fields(long_span.rolling("buzhash64", w))
        out += [dict(f, **dict(long, special_window=w != 200), window=w, window_any=w) for f in (fields[1], fields[-2])]
    return out


FAMILIES = {"buzhash64": ScanFamily("buzhash64", windowed_decode("buzhash64", 64, lambda inp: table(inp, _bz_table)),
                                    windowed_run("buzhash64"), _buzhash64_model, lambda case: len(case[2]) - case[1],
                                    buzhash64_seeds)}
