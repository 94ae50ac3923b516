"""x86-64 kernels this CPU cannot run, executed bit-exactly in the Bochs CPU model.

Each entry of :data:`FREESTANDING` names a kernel's C file (the same file the
extension is built from) and its function, from the kernel's row of its family's
kernel list (chunkers/csrc/<family>/kernels.def, the freestanding column). That file is compiled a second time
as a freestanding image (:mod:`.blob`), loaded into an emulated CPU with
AVX-512 and VAES (:mod:`.machine`, PyPI ``bochscpu-python==0.3.1``), and run on
the scan catalogue's cases (conformance.cases.families) through :func:`runner`, so
conformance.run.engine compares it with the native reference kernel exactly as it
compares a native one.

Adding a family: its freestanding kernels' rows say so, and one binder in
:data:`.bind.BINDERS` lays a ScanCase out in guest memory and calls the kernel.
"""

from __future__ import annotations

import importlib.util
import platform
import shutil

from .inventory import FREESTANDING

EMULATOR = "bochscpu"
"""Name of the emulator, as shown in coverage reports (``emulated (bochscpu)``)."""


def unavailable() -> str | None:
    """None if emulated runs work on this host, else why not (missing package or tool)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return f"the freestanding x86-64 build needs an x86-64 host, not {platform.machine()}"
    if importlib.util.find_spec("bochscpu") is None:
        return "bochscpu is not installed (pip install bochscpu-python==0.3.1)"
    from .blob import CC, CSRC
    if not CSRC.is_dir():
        return f"kernel sources not found at {CSRC} (emulation needs a source checkout)"
    missing = [tool for tool in (CC, "ld", "objcopy", "nm") if shutil.which(tool) is None]
    return f"missing build tools: {', '.join(missing)}" if missing else None


def covers(family: str, kernel: str) -> bool:
    """True if ``kernel`` of ``family`` has a freestanding entry and the emulator works here."""
    return kernel in FREESTANDING.get(family, {}) and unavailable() is None


def runner(family: str, kernel: str):
    """The emulated kernel as ``run(case) -> result`` for conformance.run.engine.scan_mismatches:
    a ScanCase of conformance.cases.families in, what the family's native ``run`` returns out.

    The case's bytes are placed so that they end right before an unmapped page
    (a read past the span traps); their start alignment is therefore set by
    their length, not by ``case.align``. Raises KeyError for a kernel without a
    freestanding entry, RuntimeError (with the reason) when emulation is
    unavailable here, BuildError when the freestanding build fails. A kernel
    that traps (EmulatorFault) makes ``run`` return the fault's text instead of
    a result, so the comparison reports it as a mismatch.
    """
    entry = FREESTANDING[family][kernel]
    reason = unavailable()
    if reason:
        raise RuntimeError(f"cannot emulate {family}/{kernel}: {reason}")
    from . import bind          # here, not at the top: bind imports bochscpu, absent where unavailable() says so
    return bind.runner(family, entry.symbol, kernel)


def register():
    """Declare this emulator to chunkers.registry (done when this module is imported: the product
    never imports the suite, so ``chunkers.kernels()`` reports emulated coverage only after that)."""
    from chunkers.registry import register_emulator
    register_emulator(EMULATOR, covers)


register()
