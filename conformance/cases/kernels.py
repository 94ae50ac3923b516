"""A scan case run on a named kernel of its family and on the pure-Python model, per family.

The case catalogues plant their hits with these runs (on the family's reference
kernel); conformance.cases.families pairs them with the catalogues.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from chunkers.registry import reference
from conformance.cases import aes_kernels
from conformance.cases.scan import ScanCase, aligned, key_bytes, seed_of


class Kernels(NamedTuple):
    """How a family's scan cases run: its reference kernel, any named kernel, the model."""

    reference: str                                   # kernel every other kernel is compared with
    run: Callable[[ScanCase, str], tuple]            # (case, kernel) -> result
    model: Callable[[ScanCase], tuple]               # case -> result, from the pure-Python model


_TABLES: dict = {}


def table(kind: str, key: str):
    """The table of ``kind`` (``fastcdc``, ``buzhash64``: the extension's; ``model-fastcdc``,
    ``model-buzhash64``: the model's) for the key called ``key``, cached."""
    if (kind, key) not in _TABLES:
        if kind == "fastcdc":
            from chunkers.fastcdc import gear_table
            _TABLES[kind, key] = gear_table(key_bytes(key))
        elif kind == "buzhash64":
            from chunkers.buzhash64 import table as buzhash64_table
            _TABLES[kind, key] = buzhash64_table(key_bytes(key))
        elif kind == "model-fastcdc":
            from vectors.model import fastcdc
            _TABLES[kind, key] = fastcdc.gear_table(key_bytes(key))
        else:
            from vectors.model import buzhash64
            _TABLES[kind, key] = buzhash64.table(key_bytes(key))
    return _TABLES[kind, key]


def fastcdc_run(case: ScanCase, kernel: str) -> tuple:
    from chunkers.fastcdc import scan
    return scan(table("fastcdc", case.key), aligned(case.data, case.align), case.state, case.mask, kernel)


def fastcdc_model(case: ScanCase) -> tuple:
    from vectors.model import fastcdc
    return fastcdc.scan(table("model-fastcdc", case.key), case.data, case.state, case.mask)


def buzhash64_run(case: ScanCase, kernel: str) -> tuple:
    from chunkers.buzhash64 import scan
    return scan(table("buzhash64", case.key), case.window, aligned(case.data, case.align), case.state,
                case.mask, kernel)


def buzhash64_model(case: ScanCase) -> tuple:
    from vectors.model import buzhash64
    t = table("model-buzhash64", case.key)
    return buzhash64.scan(t, buzhash64.rotated(t, case.window), case.data, case.window, case.state, case.mask)


def buzhash_run(case: ScanCase, kernel: str) -> tuple:
    from chunkers.buzhash import scan
    return scan(seed_of(case.key), case.window, aligned(case.data, case.align), case.state, case.mask, kernel)


def buzhash_model(case: ScanCase) -> tuple:
    from vectors.model import buzhash
    t = buzhash.table(seed_of(case.key))
    return buzhash.scan(t, buzhash.rotated(t, case.window), case.data, case.window, case.state, case.mask)


KERNELS: dict[str, Kernels] = {
    "fastcdc": Kernels(reference("fastcdc"), fastcdc_run, fastcdc_model),
    "buzhash64": Kernels(reference("buzhash64"), buzhash64_run, buzhash64_model),
    "buzhash": Kernels(reference("buzhash"), buzhash_run, buzhash_model),
    "aes": Kernels(aes_kernels.REFERENCE, aes_kernels.run, aes_kernels.model),
}
"""The scan families' runs (fixed has no scan level)."""


def reference_result(case: ScanCase) -> tuple:
    """The result of ``case`` on its family's reference kernel."""
    k = KERNELS[case.family]
    return k.run(case, k.reference)
