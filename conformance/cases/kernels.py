"""A scan case run on a named kernel of its family and on the pure-Python model, per family.

The case catalogues plant their hits with these runs (on the family's reference
kernel); conformance.cases.families pairs them with the catalogues.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple

from chunkers.families import scan_families
from chunkers.registry import reference
from chunkers.scanners import scanner
from conformance.cases import aes_kernels, buzhash64_kernels, buzhash_kernels, fastcdc_kernels
from conformance.cases.scan import ScanCase, aligned, key_bytes


class Kernels(NamedTuple):
    """How a family's scan cases run: its reference kernel, any named kernel, the model."""

    reference: str                                   # kernel every other kernel is compared with
    run: Callable[[ScanCase, str], tuple]            # (case, kernel) -> result
    model: Callable[[ScanCase], tuple]               # case -> result, from the pure-Python model


class Suite(NamedTuple):
    """The suite's side of a family's scan adapter (chunkers.scanners): what a case's key names (its
    scan table), the window before its span, the model's run of it and the bits of its state."""

    table: Callable[[str], object]                  # case key -> the adapter's table
    window: Callable[[ScanCase], int]               # case -> bytes before the first position scanned
    model: Callable[[ScanCase], tuple]
    bits: int = 64                                  # bits of the scan state


OWN_KERNELS = {m.FAMILY: m for m in (fastcdc_kernels, buzhash64_kernels, buzhash_kernels, aes_kernels)}
"""Scan family -> the module of its side of the scan adapter (FAMILY, BITS, table, window, model);
a family without one: :func:`own_suite`."""

SUITE: dict[str, Suite] = {name: Suite(m.table, m.window, m.model, m.BITS) for name, m in OWN_KERNELS.items()}
"""Scan family -> its Suite (fixed has no scan level); a family without an entry: :func:`own_suite`."""


def table(kind: str, key: str):
    """The table of ``kind`` (a family of OWN_KERNELS: the extension's, from the family's scan
    adapter; ``model-<family>``: the model's, where the family's module gives ``model_table``) for
    the key called ``key``, cached by the family's module."""
    family = kind.removeprefix("model-")
    mod = OWN_KERNELS[family]
    return mod.table(key) if family == kind else mod.model_table(key)


def own_suite(family: str) -> Suite:
    """The Suite of a window-less scan family through its model module's scan adapter: ``vectors.model.<family>``
    defines ``scan_table(key)`` and ``scan_window(table, window, data, state, mask)`` as the family's
    extension does (chunkers.scanners), tables cached per key name."""
    import importlib
    mod = importlib.import_module(f"vectors.model.{family}")
    model_table = functools.lru_cache(maxsize=None)(lambda key: mod.scan_table(key_bytes(key)))
    product_table = functools.lru_cache(maxsize=None)(lambda key: scanner(family).table(key_bytes(key)))
    return Suite(product_table, lambda case: case.window,
                 lambda case: mod.scan_window(model_table(case.key), case.window, case.data, case.state, case.mask))


def suite(family: str) -> Suite:
    """The Suite of the scan family ``family``: SUITE's entry, else :func:`own_suite`."""
    return SUITE[family] if family in SUITE else own_suite(family)


def _run(family: str) -> Callable[[ScanCase, str], tuple]:
    """``run(case, kernel)``: the family's scan adapter on the case's span, aligned as the case says."""
    scan, own = scanner(family).scan, suite(family)

    def run(case: ScanCase, kernel: str) -> tuple:
        return scan(own.table(case.key), own.window(case), aligned(case.data, case.align), case.state,
                    case.mask, kernel)
    return run


KERNELS: dict[str, Kernels] = {name: Kernels(reference(name), _run(name), suite(name).model)
                               for name in scan_families()}
"""The scan families' runs (chunkers.families: every family with a scan kernel)."""


def reference_result(case: ScanCase) -> tuple:
    """The result of ``case`` on its family's reference kernel."""
    k = KERNELS[case.family]
    return k.run(case, k.reference)
