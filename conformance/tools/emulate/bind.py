"""Binders: a family's ScanCase laid out in guest memory and its kernel called there.

A binder, per rolling hash (the family table's ``hash``), takes the machine, the kernel's symbol
and the family and returns ``call(case)``
giving what the family's native ``run`` (conformance.cases.kernels) returns, from
the same tables (the extension's, cached by conformance.cases.kernels).
"""

from __future__ import annotations

import functools
import struct

from chunkers.families import FAMILIES as TABLE
from conformance.cases.kernels import suite
from vectors.model.buzhash64 import rotated

from .blob import build
from .inventory import FREESTANDING
from .machine import ARGS, EmulatorFault, Machine


def _u64(b: bytes) -> int:
    return struct.unpack("<Q", b)[0]


def _i64(v: int) -> int:
    return struct.unpack("<q", struct.pack("<Q", v))[0]


def gear(m: Machine, symbol: str, family: str):
    """``scan(gear, p, n, &fp, mask)`` (spec 02 §4, fastcdc): gear and fp in the argument area."""
    table = suite(family).table

    def call(case):
        m.write(ARGS, struct.pack("<257Q", *table(case.key), case.state))
        p = m.put_input(case.data)
        r = m.call(symbol, ARGS, p, len(case.data), ARGS + 2048, case.mask)
        return _i64(r), _u64(m.read(ARGS + 2048, 8))
    return call


def cyclic(m: Machine, symbol: str, family: str):
    """``scan(T, Trot, pr, pa, n, &sum, mask)`` (spec 03 §5, buzhash64: 64-bit tables): pa = pr + window,
    n steps."""
    table = suite(family).table

    def call(case):
        t = table(case.key)
        m.write(ARGS, struct.pack("<513Q", *t, *rotated(t, case.window), case.state))
        p = m.put_input(case.data)
        j = m.call(symbol, ARGS, ARGS + 2048, p, p + case.window, len(case.data) - case.window, ARGS + 4096,
                   case.mask)
        return j, _u64(m.read(ARGS + 4096, 8))
    return call


def uhf(m: Machine, symbol: str, family: str):
    """``scan(ctx, p, n, &st, mask)`` (spec 06 §7.2, the AES chunkers): the context's bytes as the kernel
    reads them (chunkers.aes.AESContext.context_bytes: UHF tables, round keys) and st in the argument
    area, p just past the case's history."""
    table, window = suite(family).table, suite(family).window

    def call(case):
        ctx = table(case.key).context_bytes()
        history = window(case)
        st = ARGS + len(ctx)
        m.write(ARGS, ctx + struct.pack("<Q", case.state))
        p = m.put_input(case.data)
        r = m.call(symbol, ARGS, p + history, len(case.data) - history, st, case.mask)
        return _i64(r), _u64(m.read(st, 8))
    return call


BINDERS = {"gear": gear, "cyclic": cyclic, "uhf": uhf}
"""The table's ``hash`` of a family -> its binder (the layout its scan kernels take; ``cyclic``:
64-bit tables, buzhash64's)."""


@functools.cache
def machine() -> Machine:
    """The one machine, with every FREESTANDING source loaded (bochscpu's guest-physical
    memory is process-wide, so a second machine would share it)."""
    return Machine(build(sorted({src for kernels in FREESTANDING.values() for e in kernels.values()
                                 for src in e.sources})))


def runner(family: str, symbol: str, kernel: str):
    """``run(case)``: the family's binder on ``symbol``; a trap, or a run whose code recorded
    another kernel's name than ``kernel`` (impls.provenance), becomes a text that differs
    from every real result."""
    from vectors.impls.provenance import wrong_code
    m = machine()
    call = BINDERS[TABLE[family].hash](m, symbol, family)

    def run(case):
        m.take_provenance()
        try:
            result = call(case)
        except EmulatorFault as e:
            return f"EmulatorFault: {e}"
        text = wrong_code(family, kernel, m.take_provenance(), "emulated ", m.provenance_source())
        return f"ProvenanceError: {text}" if text else result
    return run
