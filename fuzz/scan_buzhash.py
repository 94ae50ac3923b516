"""The legacy buzhash scan target's cases (spec 04 A.3): its table is its seed (a C int), 32-bit
states and masks, buzhash64's window cases (fuzz/scan_diff.py runs them as ``scan_diff_buzhash``)."""

from __future__ import annotations

from fuzz.input import Input
from fuzz.scan_buzhash64 import buzhash64_seeds
from fuzz.scan_case import ScanFamily, windowed_decode, windowed_run

SEEDS = (0, 1, -1, 0x7FFFFFFF, -0x80000000)


def _buzhash_seed(inp: Input) -> int:
    """One of SEEDS, or any C int."""
    return inp.int("seed", -(1 << 31), (1 << 31) - 1) if inp.bool("custom_seed") else inp.choice("seed_index", SEEDS)


def _buzhash_model(mod, case):
    seed, w, span, state, m = case
    t = mod.buzhash.table(seed)
    return mod.buzhash.scan(t, mod.buzhash.rotated(t, w), bytes(span), w, state, m)


def _buzhash_seeds():
    """buzhash64's seeds (their masks cut to 32 bits by the decode; those with a wider start state
    left out), the window sizes around the 32-bit rotation wrap (w mod 32 = 31, 0, 1) and a fuzzer seed."""
    out = [values for values in buzhash64_seeds() if values.get("state", 0) <= 0xFFFFFFFF]
    from vectors import generators
    for w in (31, 32, 33, 4095):
        out.append(dict(mask_kind="low", mask_bits=6, special_window=True, window=w, data=generators.sha_ctr(w + 40)))
    out.append(dict(custom_seed=True, seed=-12345, mask_kind="low", mask_bits=4, special_window=True, window=65,
                    data=generators.lcg(300)))
    return out


FAMILIES = {"buzhash": ScanFamily("buzhash", windowed_decode("buzhash", 32, _buzhash_seed), windowed_run("buzhash"),
                                  _buzhash_model, lambda case: len(case[2]) - case[1], _buzhash_seeds)}
