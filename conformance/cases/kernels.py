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
from conformance.cases import aes_kernels
from conformance.cases.scan import ScanCase, aligned, key_bytes, seed_of


class Kernels(NamedTuple):
    """How a family's scan cases run: its reference kernel, any named kernel, the model."""

    reference: str                                   # kernel every other kernel is compared with
    run: Callable[[ScanCase, str], tuple]            # (case, kernel) -> result
    model: Callable[[ScanCase], tuple]               # case -> result, from the pure-Python model


_TABLES: dict = {}


def _model_table(family: str, key: bytes):
    from vectors.model import buzhash64, fastcdc
    return {"fastcdc": fastcdc.gear_table, "buzhash64": buzhash64.table}[family](key)


def table(kind: str, key: str):
    """The table of ``kind`` (``fastcdc``, ``buzhash64``: the extension's, from the family's scan
    adapter; ``model-fastcdc``, ``model-buzhash64``: the model's) for the key called ``key``, cached."""
    if (kind, key) not in _TABLES:
        family = kind.removeprefix("model-")
        make = scanner(family).table if family == kind else lambda k: _model_table(family, k)
        _TABLES[kind, key] = make(key_bytes(key))
    return _TABLES[kind, key]


def fastcdc_model(case: ScanCase) -> tuple:
    from vectors.model import fastcdc
    return fastcdc.scan(table("model-fastcdc", case.key), case.data, case.state, case.mask)


def buzhash64_model(case: ScanCase) -> tuple:
    from vectors.model import buzhash64
    t = table("model-buzhash64", case.key)
    return buzhash64.scan(t, buzhash64.rotated(t, case.window), case.data, case.window, case.state, case.mask)


def buzhash_model(case: ScanCase) -> tuple:
    from vectors.model import buzhash
    t = buzhash.table(seed_of(case.key))
    return buzhash.scan(t, buzhash.rotated(t, case.window), case.data, case.window, case.state, case.mask)


class Suite(NamedTuple):
    """The suite's side of a family's scan adapter (chunkers.scanners): what a case's key names (its
    scan table), the window before its span, and the model's run of it."""

    table: Callable[[str], object]                  # case key -> the adapter's table
    window: Callable[[ScanCase], int]               # case -> bytes before the first position scanned
    model: Callable[[ScanCase], tuple]


SUITE: dict[str, Suite] = {
    "fastcdc": Suite(lambda key: table("fastcdc", key), lambda case: 0, fastcdc_model),
    "buzhash64": Suite(lambda key: table("buzhash64", key), lambda case: case.window, buzhash64_model),
    "buzhash": Suite(seed_of, lambda case: case.window, buzhash_model),
    "aes": Suite(aes_kernels.context, lambda case: aes_kernels.HISTORY, aes_kernels.model),
}
"""Scan family -> its Suite (fixed has no scan level); a family without an entry: :func:`own_suite`."""


def own_suite(family: str) -> Suite:
    """The Suite of a window-less scan family through its model module's scan adapter: ``model.<family>``
    defines ``scan_table(key)`` and ``scan_window(table, window, data, state, mask)`` as the family's
    extension does (chunkers.scanners), tables cached per key name."""
    import importlib
    mod = importlib.import_module(f"model.{family}")
    model_table = functools.lru_cache(maxsize=None)(lambda key: mod.scan_table(key_bytes(key)))
    product_table = functools.lru_cache(maxsize=None)(lambda key: scanner(family).table(key_bytes(key)))
    return Suite(product_table, lambda case: case.window,
                 lambda case: mod.scan_window(model_table(case.key), case.window, case.data, case.state, case.mask))


def _run(family: str) -> Callable[[ScanCase, str], tuple]:
    """``run(case, kernel)``: the family's scan adapter on the case's span, aligned as the case says."""
    scan, suite = scanner(family).scan, SUITE[family] if family in SUITE else own_suite(family)

    def run(case: ScanCase, kernel: str) -> tuple:
        return scan(suite.table(case.key), suite.window(case), aligned(case.data, case.align), case.state,
                    case.mask, kernel)
    return run


KERNELS: dict[str, Kernels] = {name: Kernels(reference(name), _run(name),
                                       (SUITE[name] if name in SUITE else own_suite(name)).model)
                               for name in scan_families()}
"""The scan families' runs (chunkers.families: every family with a scan kernel)."""


def reference_result(case: ScanCase) -> tuple:
    """The result of ``case`` on its family's reference kernel."""
    k = KERNELS[case.family]
    return k.run(case, k.reference)
