"""Differential scan targets: every kernel of a family against its portable
reference (scalar; evp for the AES chunkers), and the reference against the
model on small spans (spec 02 §4-5.6, 03 §5-7.4, 06 §7.2-8).

Each family is one :class:`~fuzz.scan_case.ScanFamily` entry: how a fuzzer
input becomes a scan case (table or key, data span, start state, mask, ...)
and how a kernel runs on it. The target ``scan_diff_<family>`` runs the case
through every kernel this machine can run and requires the same (position,
exit state) from all of them. The span ends right before a no-access page
(conformance/cases/guard.py), so a read past its end faults. Kernels this machine cannot
run are reported on stderr when the target loads.

A family's entries are defined in its module fuzz/scan_<family>.py
(scan_fastcdc.py, scan_buzhash64.py, scan_buzhash.py; scan_aes.py: one per AES
chunker); a window-less family without one gets :func:`_own_family`'s. A case
runs on a kernel through the family's scan adapter (chunkers.scanners). Adding
a family: a three-line fuzz/scan_diff_<family>.py like scan_diff_fastcdc.py and,
for cases of its own, a fuzz/scan_<family>.py whose ``FAMILIES`` reuses
fuzz/scan_case.py as far as it fits (a windowed family: windowed_decode); the
kernels come from ``chunkers.kernels()`` (chunkers.registry).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util

from chunkers.families import scan_families
from chunkers.scanners import scanner
from fuzz.harness import Finding, kernel_inventory, model, report_not_run
from fuzz.input import Input, script
from fuzz.scan_case import KEYS, MAX_POSITIONS, U64, ScanFamily, data, mask, plant, plant_at


def _own_family(family: str) -> ScanFamily:
    """The scan target of a window-less family of the table (chunkers.families) without a module of its own:
    one of KEYS, any mask and start state, an optional planted cut, through its scan adapter
    (chunkers.scanners) and its model module's (``model.<family>``: scan_table, scan_window)."""
    adapter = scanner(family)
    keyed = functools.lru_cache(maxsize=len(KEYS))(adapter.table)

    def decode(inp: Input):
        from chunkers.registry import reference
        key = inp.choice("key_index", KEYS)
        t, m, state = keyed(key), mask(inp), inp.int("state", 0, U64)
        where = plant_at(inp)
        span = data(inp, MAX_POSITIONS)
        m = plant(m, where, len(span), lambda q: adapter.scan(t, 0, span[:q + 1], state, U64, reference(family))[1])
        return key, t, span, state, m

    def run(case, kernel):
        _, t, span, state, m = case
        return adapter.scan(t, 0, span, state, m, kernel)

    def model_of(mod, case):
        key, _, span, state, m = case
        own = importlib.import_module(f"{mod.__name__}.{family}")     # the package imports only its own
        return own.scan_window(own.scan_table(key), 0, bytes(span), state, m)

    def seeds():
        from vectors import generators
        out = [dict(mask_kind="high", mask_bits=8, data=generators.sha_ctr(n)) for n in (0, 1, 7, 8, 9, 33, 100, 1024)]
        out += [dict(mask_kind="low", mask_bits=bits, state=0x0123456789ABCDEF, data=generators.lcg(300))
                for bits in (1, 8, 20, 64)]
        out += [dict(mask_kind="high", mask_bits=40, plant=True, plant_pos=k, data=generators.sha_ctr(40)) for k in range(8)]
        return out

    return ScanFamily(family, decode, run, model_of, lambda case: len(case[2]), seeds)


def _families() -> dict:
    """Every scan family's entries, in the table's order: those of its module fuzz/scan_<family>.py
    (its ``FAMILIES``) where it has one, else :func:`_own_family`'s."""
    out = {}
    for family in scan_families():
        if importlib.util.find_spec(f"fuzz.scan_{family}") is not None:
            out.update(importlib.import_module(f"fuzz.scan_{family}").FAMILIES)
        else:
            out[family] = _own_family(family)
    return out


FAMILIES = _families()


def _resolve_once() -> None:
    """Let chunkers' ``scan`` functions resolve each kernel name once per process.

    They call chunkers.registry.resolve on every call (CPU features and the
    environment again: ~10 us under the sanitizers, a tenth of a small case's
    cost). A target runs with a fixed environment, so a memo gives the same
    answers (errors are not memoized)."""
    from chunkers import registry
    memo = functools.lru_cache(maxsize=None)(registry.resolve)
    for family in scan_families():
        importlib.import_module(f"chunkers.{family}").resolve = memo


def target(family: str):
    """``(TestOneInput, decode, seeds)`` of the target ``scan_diff_<family>``."""
    fam = FAMILIES[family]
    name = f"scan_diff_{family}"
    _resolve_once()
    report_not_run(name, fam.registry_family)
    kernels = [k for k in kernel_inventory(fam.registry_family)[0] if k != fam.reference]
    ref_name = fam.reference

    decode, run, span_of, model_max, model_of = fam.decode, fam.run, fam.span, fam.model_max, fam.model
    mod = model()

    def test_one_input(raw: bytes) -> None:
        # Runs once per fuzzer execution: names bound once above, no closures unless a check fails.
        case = decode(Input(raw))
        ref = run(case, ref_name)
        for k in kernels:
            got = run(case, k)
            if got != ref:
                raise Finding(f"{name}: kernel {k!r} gave {got}, {ref_name} gave {ref} "
                              f"(span {span_of(case)} positions)")
        if mod is not None and span_of(case) <= model_max:
            want = model_of(mod, case)
            if want is not None and tuple(want) != tuple(ref):
                raise Finding(f"{name}: {ref_name} gave {ref}, the model {want}")

    def seeds() -> list[bytes]:
        return [script(fam.decode, **values) for values in fam.seeds()]

    return test_one_input, fam.decode, seeds
