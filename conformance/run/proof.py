"""Per-kernel proof of the main job: whose code ran, whose instructions, from which file, which features gate it.

For each matrix cell of ``ours`` (conformance.run.job): the provenance of its runs
(impls.provenance), the static instruction check of its compiled
function (conformance.tools.isa), the source file its function is compiled from (the
extension's DWARF: the row's own csrc/<family>/<kernel>.c) and the feature gating (hiding each CPU feature it
declares with CHUNKERS_CPU_HIDE makes it refused with the "this CPU does not
support it" error). The pytest suite runs the same checks
(conformance/tests/test_provenance.py).
"""

from __future__ import annotations

import functools

from chunkers.registry import HIDE_ENV, NO_CPU, resolve, rows
from vectors.impls import provenance
from conformance.run.engine import Mismatch
from vectors.impls.base import env


@functools.lru_cache(maxsize=1)
def isa_problems() -> tuple[dict, str | None]:
    """(family, kernel) -> instruction-rule violations of every compiled kernel
    (conformance.tools.isa.all_problems), and None; or ({}, why the check cannot run here)."""
    try:
        from conformance.tools import isa
        return isa.all_problems(), None
    except (ImportError, FileNotFoundError) as e:
        return {}, f"instructions not checked: {e}"


@functools.lru_cache(maxsize=1)
def source_problems() -> tuple[dict, str | None]:
    """(family, kernel) -> the texts saying its row's function is not its own file's code
    (conformance.tools.isa.all_source_problems, from the extensions' DWARF), and None; or ({}, why
    it cannot be checked here: "not checked: no debug info", never a silent pass)."""
    try:
        from conformance.tools import isa
    except ImportError as e:
        return {}, f"source not checked: {e}"
    try:
        return isa.all_source_problems(), None
    except isa.NoDebugInfo:
        return {}, "source " + isa.NO_DEBUG_INFO
    except FileNotFoundError as e:
        return {}, f"source not checked: {e}"


def declared(family: str) -> dict[str, tuple]:
    """kernel -> (built, declared CPU feature names) of this build target, from the family's registry."""
    return {k.name: (k.built, k.cpu) for k in rows(family) if k.here}


def gating_problems(family: str, kernel: str) -> list[str]:
    """For each CPU feature ``kernel`` declares: a text if hiding it does not make the kernel
    refused with the NO_CPU reason naming the feature (kernels not built here are left out)."""
    built, needs = declared(family).get(kernel, (False, ()))
    out = []
    for feature in needs if built else ():
        with env(HIDE_ENV, feature):
            try:
                resolve(family, kernel)
                out.append(f"{family}/{kernel}: still selectable with {HIDE_ENV}={feature}")
            except ValueError as e:
                if NO_CPU not in str(e) or feature not in str(e):
                    out.append(f"{family}/{kernel}: {HIDE_ENV}={feature} gives {e}, not the {NO_CPU!r} error")
    return out


def kernel_checks(impl: str, family: str, kernel: str) -> list[Mismatch]:
    """The static checks of one cell of implementation ``impl`` (only ``ours`` has any)."""
    if impl != "ours" or family not in provenance.MODULES:
        return []
    problems = isa_problems()[0].get((family, kernel), []) + gating_problems(family, kernel)
    out = [Mismatch("instructions / feature gating", p, "the tier's own ISA, gated by its features", "")
           for p in problems]
    return out + [Mismatch("source file", p, "the row's function compiled from its own csrc/<family>/<kernel>.c", "")
                  for p in source_problems()[0].get((family, kernel), [])]


def ran_note(impl: str, cell) -> str:
    """The matrix's "ran" column: whose code ran (provenance.note) and the instruction check."""
    failed = any(m.what == "provenance" or "ProvenanceError" in str(m.got) for m in cell.mismatches)
    text = provenance.note(impl, cell.family, cell.kernel, failed)
    if impl == "ours" and cell.family in provenance.MODULES:
        table, why = isa_problems()
        if why:
            text += f"; {why}"
        elif (cell.family, cell.kernel) in table:
            text += "; ISA " + ("bad" if table[cell.family, cell.kernel] else "ok")
        sources, why = source_problems()
        if why:
            text += f"; {why}"
        elif (cell.family, cell.kernel) in sources:
            text += "; source " + ("bad" if sources[cell.family, cell.kernel] else "ok")
    return text
