"""Per-family scan-level conformance: case catalogues, kernel runs, the model.

A ScanCase (conformance.cases.scan) is one call of a family's scan kernel (spec 02 §4,
03 §5): data, span alignment, start state, mask and window. Each family knows
how to build its adversarial case catalogue from a seed, run a case on a
named kernel, and run it on the pure-Python model. Kernel results are
compared with the family's reference kernel; the reference is compared with
the model. This module is the registry on top of the catalogue modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from conformance.cases import aes_family, buzhash64_family, buzhash_family, fastcdc_family, fixed_family
from conformance.cases.common import common_cases, lane_cases
from conformance.cases.kernels import KERNELS
from conformance.cases.scan import ScanCase
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


OWN_CASES = {m.FAMILY: m for m in (fastcdc_family, buzhash64_family, buzhash_family, fixed_family, aes_family)}
"""Family -> the module of its own cases: CHUNK_PARAMS and, for a scan family, ``cases(seed)``."""


def _own_family(name: str) -> Family:
    """The Family of a family of the table (chunkers.families) with a module of its own cases
    (OWN_CASES), or else: chunk-level checks on its chunkers' bench params and, for those of the
    fastcdc shape, small ones at every NC level; a scan family gets the shared window-less scan
    catalogue (conformance.cases.common) through its scan adapter (conformance.cases.kernels.own_suite)."""
    own = OWN_CASES.get(name)
    if own is not None:
        cases, params = getattr(own, "cases", None), own.CHUNK_PARAMS
    else:
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


FAMILIES: dict[str, Family] = {name: _own_family(name) for name in TABLE}
"""Every family of the table, in its order."""


def scan_families() -> list[str]:
    """The families with scan-level checks (a scan entry point and a model scan)."""
    return [name for name, fam in FAMILIES.items() if fam.cases]
