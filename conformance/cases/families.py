"""Per-family scan-level conformance: case catalogues, kernel runs, the model.

A ScanCase (conformance.cases.scan) is one call of a family's scan kernel (spec 02 §4,
03 §5): data, span alignment, start state, mask and window. Each family knows
how to build its adversarial case catalogue from a seed, run a case on a
named kernel, and run it on the pure-Python model. Kernel results are
compared with the family's reference kernel; the reference is compared with
the model. This module is the registry on top of the catalogue modules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from conformance.cases import aes_family, fastcdc_limits, segments
from conformance.cases.common import common_cases, lane_cases
from conformance.cases.kernels import KERNELS
from conformance.cases.scan import ScanCase, mask_of
from chunkers.registry import reference
from chunkers.families import CHUNKERS, FAMILIES as TABLE
from vectors.impls.families import FAMILY_CHUNKERS


@dataclass
class Family:
    """A chunker family as the conformance suite sees it (no scan callables: chunk level only)."""

    name: str
    reference: str                                   # kernel every other kernel is compared with
    cases: Callable[[int], list] | None              # seed -> list[ScanCase]
    run: Callable[[ScanCase, str], tuple] | None     # (case, kernel) -> result
    model: Callable[[ScanCase], tuple] | None        # case -> result, from the pure-Python model
    chunk_params: list = field(default_factory=list)  # params strings/tuples for chunk-level checks
    chunkers: tuple = ()                             # chunker names whose params belong to this family


def _scan(family: str, cases) -> tuple:
    """(reference, cases, run, model) of a scan family: its catalogue and its runs (conformance.cases.kernels)."""
    return KERNELS[family].reference, cases, KERNELS[family].run, KERNELS[family].model


def _fastcdc_cases(seed: int) -> list:
    def make(group, key, data, align, state, mask):
        return ScanCase("fastcdc", group, key, data, align, state, mask)
    return (common_cases("fastcdc", seed, make) + lane_cases("fastcdc", seed, make) + segments.cases("fastcdc", seed)
            + fastcdc_limits.cases(seed))


BUZHASH64_WINDOWS = (1, 2, 63, 64, 65, 4095)
"""Windows of the scan catalogue; the last one only in the 'windows' group."""


def _windowed_cases(family: str, seed: int, windows: tuple, bits: int) -> list:
    """The catalogue of a windowed family with ``bits``-bit states: 64-bit high masks are moved to the
    top of ``bits`` bits; the window in front of each span repeats the span's pattern."""
    rng = random.Random(seed + {64: 2, 32: 3}[bits])
    word = (1 << bits) - 1

    def make(group, key, data, align, state, mask):
        w = rng.choice(windows[:-1])
        prefix = (data * (w // len(data) + 1))[:w] if data else rng.randbytes(w)
        return ScanCase(family, group, key, prefix + data, align, state & word, (mask & word) or mask >> bits, w)

    out = common_cases(family, seed, make) + lane_cases(family, seed, make)
    for w in windows:
        for n in (0, 1, 7, 8, 9, 15, 16, 17, 100, 1000):
            for state in (0, rng.getrandbits(bits)):     # state 0 matches every mask on entry
                out.append(ScanCase(family, "windows", rng.choice(["Z", "KS"]), rng.randbytes(w + n),
                                    rng.randrange(64), state, mask_of(rng.choice((4, 6, 8, 10)), False), w))
    return out


def _buzhash64_cases(seed: int) -> list:
    return _windowed_cases("buzhash64", seed, BUZHASH64_WINDOWS, 64) + segments.cases("buzhash64", seed)


BUZHASH_WINDOWS = (1, 2, 31, 32, 33, 63, 64, 65, 4095)
"""Windows around the 32-bit rotation wrap (w mod 32 = 31, 0, 1); the last one only in the 'windows' group."""


def _buzhash_cases(seed: int) -> list:
    return _windowed_cases("buzhash", seed, BUZHASH_WINDOWS, 32) + segments.cases("buzhash", seed)


FAMILIES: dict[str, Family] = {
    "fastcdc": Family("fastcdc", *_scan("fastcdc", _fastcdc_cases),
                      ["fastcdc,6,12,8,0", "fastcdc,6,12,8,1", "fastcdc,6,12,8,2", "fastcdc,6,12,8,3",
                       "fastcdc,10,16,12,2", "fastcdc,19,23,21,2"], FAMILY_CHUNKERS["fastcdc"]),
    "buzhash64": Family("buzhash64", *_scan("buzhash64", _buzhash64_cases),
                        ["buzhash64,6,12,8,64,0", "buzhash64,6,12,8,63,1", "buzhash64,6,12,8,63,2",
                         "buzhash64,6,12,8,65,3", "buzhash64,10,16,12,4095,2", "buzhash64,19,23,21,4095,2"],
                        FAMILY_CHUNKERS["buzhash64"]),
    "buzhash": Family("buzhash", *_scan("buzhash", _buzhash_cases),
                      ["buzhash,6,12,8,65", "buzhash,6,12,8,63", ("buzhash", 6, 12, 4, 1), "buzhash,10,16,12,4095",
                       "buzhash,19,23,21,4095"], FAMILY_CHUNKERS["buzhash"]),
    "fixed": Family("fixed", reference("fixed"), None, None, None,
                    ["fixed,64", "fixed,4096,123", "fixed,1000,-5", "fixed,65536,100000"], FAMILY_CHUNKERS["fixed"]),
    "aes": Family("aes", *_scan("aes", aes_family.cases),
                  ["toeplitz-aes,6,12,8,0", "rabin-aes,6,12,8,1", "goldilocks-aes,6,12,8,2", "toeplitz-aes,6,12,8,3",
                   "rabin-aes,10,16,12,2", "goldilocks-aes,19,23,21,2"],
                  FAMILY_CHUNKERS["aes"]),
}


def _own_family(name: str) -> Family:
    """The Family of a family of the table (chunkers.families) without an entry above: chunk-level
    checks on its chunkers' bench params and, for those of the fastcdc shape, small ones at every NC
    level; a scan family gets the shared window-less scan catalogue (conformance.cases.common) through
    its scan adapter (conformance.cases.kernels.own_suite)."""
    params = []
    for c in CHUNKERS.values():
        if c.family == name:
            if c.fields == ("chunk_min", "chunk_max", "chunk_mask", "nc_level"):
                params += [f"{c.name},6,12,8,{nc}" for nc in range(4)]
            params.append(c.bench)

    def cases(seed: int) -> list:
        def make(group, key, data, align, state, mask):
            return ScanCase(name, group, key, data, align, state, mask)
        return common_cases(name, seed, make) + lane_cases(name, seed, make)

    if name in KERNELS:
        return Family(name, *_scan(name, cases), params, FAMILY_CHUNKERS[name])
    return Family(name, reference(name), None, None, None, params, FAMILY_CHUNKERS[name])


FAMILIES.update({name: _own_family(name) for name in TABLE if name not in FAMILIES})


def scan_families() -> list[str]:
    """The families with scan-level checks (a scan entry point and a model scan)."""
    return [name for name, fam in FAMILIES.items() if fam.cases]
