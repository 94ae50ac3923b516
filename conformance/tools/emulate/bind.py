"""Binders: a family's ScanCase laid out in guest memory and its kernel called there.

A binder takes the machine and the kernel's symbol and returns ``call(case)``
giving what the family's native ``run`` (conformance.cases.kernels) returns, from
the same tables (the extension's, cached by conformance.cases.kernels).
"""

from __future__ import annotations

import functools
import struct

from conformance.cases.aes_kernels import HISTORY, context
from conformance.cases.kernels import table
from vectors.model.buzhash64 import rotated

from .blob import build
from .inventory import FREESTANDING
from .machine import ARGS, EmulatorFault, Machine


def _u64(b: bytes) -> int:
    return struct.unpack("<Q", b)[0]


def _i64(v: int) -> int:
    return struct.unpack("<q", struct.pack("<Q", v))[0]


def fastcdc(m: Machine, symbol: str):
    """``scan(gear, p, n, &fp, mask)`` (spec 02 §4): gear and fp in the argument area."""
    def call(case):
        m.write(ARGS, struct.pack("<257Q", *table("fastcdc", case.key), case.state))
        p = m.put_input(case.data)
        r = m.call(symbol, ARGS, p, len(case.data), ARGS + 2048, case.mask)
        return _i64(r), _u64(m.read(ARGS + 2048, 8))
    return call


def buzhash64(m: Machine, symbol: str):
    """``scan(T, Trot, pr, pa, n, &sum, mask)`` (spec 03 §5): pa = pr + window, n steps."""
    def call(case):
        t = table("buzhash64", case.key)
        m.write(ARGS, struct.pack("<513Q", *t, *rotated(t, case.window), case.state))
        p = m.put_input(case.data)
        j = m.call(symbol, ARGS, ARGS + 2048, p, p + case.window, len(case.data) - case.window, ARGS + 4096,
                   case.mask)
        return j, _u64(m.read(ARGS + 4096, 8))
    return call


def aes(m: Machine, symbol: str):
    """``scan(ctx, p, n, &st, mask)`` (spec 06 §7.2): the context's bytes as the kernel reads them
    (chunkers.aes.AESContext.context_bytes: UHF tables, round keys) and st in the argument area,
    p just past the case's 64-byte history."""
    def call(case):
        ctx = context(case.key).context_bytes()
        st = ARGS + len(ctx)
        m.write(ARGS, ctx + struct.pack("<Q", case.state))
        p = m.put_input(case.data)
        r = m.call(symbol, ARGS, p + HISTORY, len(case.data) - HISTORY, st, case.mask)
        return _i64(r), _u64(m.read(st, 8))
    return call


BINDERS = {"fastcdc": fastcdc, "buzhash64": buzhash64, "aes": aes}


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
    call = BINDERS[family](m, symbol)

    def run(case):
        m.take_provenance()
        try:
            result = call(case)
        except EmulatorFault as e:
            return f"EmulatorFault: {e}"
        text = wrong_code(family, kernel, m.take_provenance(), "emulated ", m.provenance_source())
        return f"ProvenanceError: {text}" if text else result
    return run
