"""x86-64 kernels this CPU cannot run, executed bit-exactly in the Bochs CPU model.

Each entry of :data:`FREESTANDING` names a kernel's C file (the same file the
extension is built from) and its function. That file is compiled a second time
as a freestanding image (:mod:`.blob`), loaded into an emulated CPU with
AVX-512 and VAES (:mod:`.machine`, PyPI ``bochscpu-python==0.3.1``), and called
with the same arguments as the extension's ``scan()`` entry point, so the
conformance tests compare the emulated kernel with the native scalar kernel
exactly as they compare a native one.

Adding a family: one row in :data:`FREESTANDING` per kernel and one binder in
:data:`_BINDERS` that lays the family's ``scan()`` arguments out in guest memory.
"""

from __future__ import annotations

import functools
import importlib.util
import platform
import shutil
import struct
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


@functools.cache
def _machine():
    # bochscpu's guest-physical memory is process-wide, so one machine holds every kernel
    from .blob import build
    from .machine import Machine
    return Machine(build(sorted({src for kernels in FREESTANDING.values() for e in kernels.values() for src in e.sources})))


def scan(family: str, kernel: str):
    """The emulated kernel as a callable taking the arguments of ``chunkers.<family>.scan``
    without ``kernel`` and returning what that function returns.

    Raises KeyError for a kernel without a freestanding entry, RuntimeError
    (with the reason) when emulation is unavailable here, BuildError when the
    freestanding build fails; the callable raises EmulatorFault when the
    kernel traps (for example a read past the end of its input).
    """
    entry = FREESTANDING[family][kernel]
    reason = unavailable()
    if reason:
        raise RuntimeError(f"cannot emulate {family}/{kernel}: {reason}")
    return _BINDERS[family](_machine(), entry.symbol)


def _u64(b: bytes) -> int:
    return struct.unpack("<Q", b)[0]


def _fastcdc(m, symbol):
    from .machine import ARGS

    def scan(gear, data, state, mask):
        m.write(ARGS, struct.pack("<257Q", *gear, state))
        p = m.put_input(bytes(data))
        r = m.call(symbol, ARGS, p, len(data), ARGS + 2048, mask)
        return struct.unpack("<q", struct.pack("<Q", r))[0], _u64(m.read(ARGS + 2048, 8))
    return scan


def _buzhash64(m, symbol):
    from .machine import ARGS
    from conformance.model.buzhash64 import rotated

    def scan(table, window, data, state, mask):
        m.write(ARGS, struct.pack("<513Q", *table, *rotated(table, window), state))
        p = m.put_input(bytes(data))
        j = m.call(symbol, ARGS, ARGS + 2048, p, p + window, len(data) - window, ARGS + 4096, mask)
        return j, _u64(m.read(ARGS + 4096, 8))
    return scan


_BINDERS = {"fastcdc": _fastcdc, "buzhash64": _buzhash64}


def _register():
    from chunkers.kernels import register_emulator
    register_emulator(EMULATOR, covers)


_register()
