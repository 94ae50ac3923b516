"""x86-64 kernels this CPU cannot run, executed bit-exactly in the Bochs CPU model.

Each entry of :data:`FREESTANDING` names a kernel's C file (the same file the
extension is built from) and its function. That file is compiled a second time
as a freestanding image (:mod:`.blob`), loaded into an emulated CPU with
AVX-512 and VAES (:mod:`.machine`, PyPI ``bochscpu-python==0.3.1``), and run on
the scan catalogue's cases (conformance.families) through :func:`runner`, so
conformance.engine compares it with the native reference kernel exactly as it
compares a native one.

Adding a family: one row in :data:`FREESTANDING` per kernel and one binder in
:data:`.bind.BINDERS` that lays a ScanCase out in guest memory and calls the kernel.
"""

from __future__ import annotations

import importlib.util
import platform
import shutil
from typing import NamedTuple

EMULATOR = "bochscpu"
"""Name of the emulator, as shown in coverage reports (``emulated (bochscpu)``)."""


class Entry(NamedTuple):
    """A kernel that can run emulated: its C files under chunkers/csrc (the kernel's own file
    first, then any file defining functions it calls) and its function."""

    sources: tuple
    symbol: str


FREESTANDING = {
    "fastcdc": {
        "avx512": Entry(("fastcdc/avx512.c",), "fastcdc_scan_avx512"),
        "avx2": Entry(("fastcdc/avx2.c",), "fastcdc_scan_avx2"),
    },
    "buzhash64": {
        "avx512": Entry(("buzhash64/avx512.c",), "buzhash64_scan_avx512"),
        "avx2": Entry(("buzhash64/avx2.c",), "buzhash64_scan_avx2"),
    },
    "aes": {
        "vaes": Entry(("aes/vaes.c",), "aes_scan_vaes"),
        "vaes256": Entry(("aes/vaes256.c",), "aes_scan_vaes256"),
        "aes-ni": Entry(("aes/aesni.c",), "aes_scan_aesni"),
        "vaes-seg": Entry(("aes/vaes_seg.c", "aes/vaes.c"), "aes_scan_vaes_seg"),
        "vaes256-seg": Entry(("aes/vaes256_seg.c", "aes/vaes256.c"), "aes_scan_vaes256_seg"),
        "aes-ni-seg": Entry(("aes/aesni_seg.c", "aes/aesni.c"), "aes_scan_aesni_seg"),
    },
}
"""family -> kernel -> Entry, for every x86-64 kernel the emulator can run."""


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
    """The emulated kernel as ``run(case) -> result`` for conformance.engine.scan_mismatches:
    a ScanCase of conformance.families in, what the family's native ``run`` returns out.

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
    from . import bind
    return bind.runner(family, entry.symbol, kernel)


def register():
    """Declare this emulator to chunkers.registry (done when this module is imported: the product
    never imports the suite, so ``chunkers.kernels()`` reports emulated coverage only after that)."""
    from chunkers.registry import register_emulator
    register_emulator(EMULATOR, covers)


register()
