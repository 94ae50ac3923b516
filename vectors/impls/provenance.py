"""Provenance: proof that the kernel asked for is the code that ran.

A dispatch fault (a registry row pointing at another tier's function) gives
output identical to the reference by construction, so comparing outputs
cannot see it. Every kernel function therefore records its own registry name
on entry (``CK_PROVENANCE`` in chunkers/csrc/kernel.h) in a per-thread slot
of its extension, with the source file it was compiled from (``last_kernel_source()``, the
image's ``ck_ran_file``: two rows with their functions swapped record their own names but each
other's files); the scan entry points expose the name as ``last_kernel()`` of the
family's module, a chunker as ``ran_kernel``, the emulator image as the
symbol ``ck_ran``. This module compares that record with the kernel that was
asked for, for the scan comparisons (conformance.run.engine), the chunk-level runs
and golden vectors of ``ours`` (impls) and the emulated runs
(conformance.tools.emulate.bind); conformance.tools.isa checks the instructions.
"""

from __future__ import annotations

import collections
import importlib

from chunkers.families import kernel_families

MODULES = {name: f"chunkers.{name}" for name in kernel_families()}
"""Conformance family -> the extension whose kernels record provenance (chunkers.families: every
family with a kernel list; fixed, the one pure-Python family, has no dispatch to prove)."""

OWN_CODE = "own code"
SINGLE = "single implementation: nothing dispatched"

PROVEN: collections.Counter = collections.Counter()
"""(family, kernel) -> runs in this process whose recorded name was checked equal to the kernel."""


class ProvenanceError(AssertionError):
    """A run recorded another kernel's name than the one asked for (a dispatch fault)."""

    def __init__(self, family: str, kernel: str, text: str):
        super().__init__(text)
        self.family, self.kernel = family, kernel


def wrong_code(family: str, kernel: str, ran: str | None, how: str = "", source: str | None = None) -> str | None:
    """None if a run of ``family``/``kernel`` that recorded ``ran`` ran the kernel's own code (or
    recorded nothing: no kernel call, e.g. an empty span), else the failure text naming both. Counts
    proven runs in :data:`PROVEN`. ``how`` qualifies the code in the text (``"emulated "``).
    ``source``: the file the code that recorded ``ran`` was compiled from (:func:`source`), which
    must be the row's own ``chunkers/csrc/<family>/<kernel>.c``; None: not known (emulated runs)."""
    if ran is None:
        return None
    if ran != kernel:
        return f"asked for {family}/{kernel}, the {how}code that ran is {family}/{ran}'s"
    own = f"chunkers/csrc/{family}/{kernel}.c"
    if source is not None and not source.replace("\\", "/").endswith(own):
        return (f"asked for {family}/{kernel}, the {how}code that ran records its name but was compiled from "
                f"{source}, not {own}")
    PROVEN[family, kernel] += 1
    return None


def take(family: str) -> str | None:
    """The name the last kernel of ``family`` run in this thread recorded since the previous take
    (None if none ran, or the family has no kernels); clears it."""
    module = MODULES.get(family)
    return importlib.import_module(module).last_kernel() if module else None


def source(family: str) -> str | None:
    """The source file of the code of the last kernel of ``family`` run in this thread (as given to
    the compiler, csrc/kernel.h CK_RECORD); None if none ran or the family has no kernels. Not
    cleared by :func:`take`: read it right after the run it belongs to."""
    module = MODULES.get(family)
    return importlib.import_module(module).last_kernel_source() if module else None


def check_chunker(family: str, asked: str | None, chunker) -> None:
    """After a chunk run of ``chunker`` (asked for kernel ``asked``, None = the default): raise
    ProvenanceError if the chunker reports another kernel than asked or its last scan ran other code."""
    name = getattr(chunker, "kernel", None)
    if asked and asked.strip() and name is not None and name != asked.strip().lower():
        raise ProvenanceError(family, asked, f"asked for {family}/{asked}, the chunker reports kernel {name!r}")
    text = wrong_code(family, name, getattr(chunker, "ran_kernel", None),
                      source=getattr(chunker, "ran_kernel_source", None))
    if text:
        raise ProvenanceError(family, name, text)


def note(impl: str, family: str, kernel: str, failed: bool) -> str:
    """The matrix's "ran" entry for a cell of implementation ``impl``: what its runs proved."""
    if impl == "borg":
        return "not proven: borg exposes only its .kernel attribute (checked)"
    if impl != "ours":
        return f"not proven: {impl} records no provenance"
    if family not in MODULES:
        return SINGLE
    if failed:
        return "other code (see mismatches)"
    runs = PROVEN[family, kernel]
    return f"{OWN_CODE}, {runs} runs" if runs else "not proven: no run recorded a kernel"
