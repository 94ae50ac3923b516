"""The scan-kernel registry: inventory and selection (spec 01 §11, 06 §8.5).

A kernel is chosen per chunker family by the ``kernel=`` argument or, when
that is None, by the family's environment variable; unset or empty means the
family's default for this platform. A named kernel is a demand: if it cannot
run here, :func:`resolve` raises ValueError saying which of three reasons
applies, and never falls back.
"""

from __future__ import annotations

import functools
import os
import platform
from typing import NamedTuple

UNKNOWN = "not a kernel of this build"
NOT_BUILT = "not compiled into this build (needs a newer compiler)"
NO_CPU = "this CPU does not support it"

NATIVE = "native"
NOT_COVERED = "not covered"


SINGLE = "single"
"""The ``kernel`` of a chunker with a single implementation (fixed), and of borg's own loop where a
family has more (the legacy buzhash: ``single`` and ``seg4``)."""


PORTABLE = "portable"
"""The target of a kernel built for every architecture (a Kernel.target; the others are "x86-64", "aarch64")."""
RANKED = ("x86_64", "aarch64", "*")
"""The machines (platform.machine(), "*" for any other) of the rank columns of a kernel list, in order."""


class Kernel(NamedTuple):
    """One row of a family's kernel list (chunkers/csrc/<family>/kernels.def) as compiled: the
    only place a kernel is named. Every build target's rows are exported, so that the suite knows
    the kernels it cannot run here."""

    name: str
    symbol: str | None          # its C function (None for a single implementation in Python)
    source: str | None          # its C file, relative to chunkers/csrc
    target: str                 # "x86-64", "aarch64" or PORTABLE
    here: bool                  # a kernel of this build target
    built: bool                 # compiled into this build (False for another target's, or an old compiler)
    cpu: tuple                  # CPU feature names (chunkers.cpu_features) it needs at run time
    freestanding: tuple | None  # None: verified natively only; else the kernels whose files its
                                # freestanding emulator image also needs (conformance.emulate)
    rank: dict                  # RANKED machine -> its place in the default order (1 first, 0 never)


class Family(NamedTuple):
    """A chunker family's kernel registry."""

    name: str
    env_var: str | None    # None: a single implementation, not selectable
    kernels: list          # (name, built, required CPU features) of this target, in the order shown in errors
    defaults: dict         # platform.machine() (or "*" for any other) -> preference tuple, first runnable wins
    rows: tuple = ()       # every Kernel of the family's list, of every build target

    @classmethod
    def of(cls, name: str, env_var: str | None, rows) -> Family:
        """The family whose kernels and defaults are those of its kernel list ``rows``."""
        kernels = [(k.name, k.built, k.cpu) for k in rows if k.here]
        defaults = {m: tuple(k.name for k in sorted(rows, key=lambda k: k.rank[m]) if k.rank[m]) for m in RANKED}
        return cls(name, env_var, kernels, defaults, tuple(rows))


class KernelStatus(NamedTuple):
    """One row of :func:`kernels`: can ``kernel`` of ``family`` run here, and if not, why."""

    family: str
    kernel: str
    runs: bool
    reason: str | None     # None when it runs; else UNKNOWN / NOT_BUILT / NO_CPU text with detail
    default: bool          # the kernel used when none is named
    coverage: str = NATIVE  # how it is verified here: native, "emulated (<emulator>)" or not covered


_FAMILIES: dict[str, Family] = {}
_EMULATORS: list = []      # (name, covers(family, kernel) -> bool), see register_emulator


def register(family: Family) -> None:
    """Add a family's registry (called by each chunker module at import)."""
    _FAMILIES[family.name] = family


def register_single(name: str) -> None:
    """Add a chunker family that has a single implementation, listed as the kernel SINGLE."""
    register(Family.of(name, None, [Kernel(SINGLE, None, None, PORTABLE, True, True, (), None,
                                           dict.fromkeys(RANKED, 1))]))


def families() -> list[str]:
    """Names of the registered chunker families (single-implementation ones included)."""
    import chunkers  # noqa: F401  (importing the package registers every family)
    return list(_FAMILIES)


def rows(family: str) -> tuple:
    """Every :class:`Kernel` of ``family``'s kernel list, of every build target, in its order."""
    return _family(family).rows


def all_names() -> tuple:
    """Every kernel name of every family and build target, each once, in family and list order:
    the same on every host (the kernel lists are)."""
    return tuple(dict.fromkeys(k.name for family in families() for k in rows(family)))


def _family(name: str) -> Family:
    families()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown chunker family {name!r}; known: {', '.join(_FAMILIES)}") from None


HIDE_ENV = "CHUNKERS_CPU_HIDE"
"""Testing knob: comma-separated CPU feature names (see chunkers.cpu_features) that kernel
selection and :func:`kernels` treat as absent, to reproduce a smaller CPU on this one. An unknown
name raises ValueError wherever kernels are resolved or listed."""


def _cpu_features() -> frozenset:
    return _features_hiding(os.environ.get(HIDE_ENV, ""))


@functools.lru_cache(maxsize=8)
def _features_hiding(hide: str) -> frozenset:
    """The usable features less those named in ``hide`` (a HIDE_ENV value). Cached: the CPU does
    not change under a process, and resolving a kernel per chunker made the CPUID probe a fifth
    of a conformance run (profiled: 309k calls, 19 s of 165 s)."""
    from chunkers.driver import cpu_features
    hidden = {f.strip().lower() for f in hide.split(",")} - {""}
    if hidden - cpu_features(known=True):     # a misspelt name would hide nothing, silently
        raise ValueError(f"{HIDE_ENV}: unknown CPU feature {', '.join(sorted(hidden - cpu_features(known=True)))}; "
                         f"known: {', '.join(sorted(cpu_features(known=True)))}")
    return cpu_features() - hidden


def why_not(family: str, kernel: str) -> str | None:
    """None if ``kernel`` of ``family`` can run here, else the reason (with detail)."""
    fam = _family(family)
    present = _cpu_features()       # validates CHUNKERS_CPU_HIDE for every family, single ones too
    for name, built, needs in fam.kernels:
        if name == kernel:
            if not built:
                return NOT_BUILT
            missing = [f for f in needs if f not in present]
            return f"{NO_CPU} (lacks {', '.join(missing)})" if missing else None
    return f"{UNKNOWN} ({platform.machine()})"


def _machine() -> str:
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def default(family: str) -> str:
    """The kernel used when none is named: the first runnable of the family's preference
    list for this machine (measured defaults, see README), or the kernel that a defaults file
    named by CHUNKERS_DEFAULTS sets (chunkers.defaults; ValueError if it cannot run here)."""
    fam = _family(family)
    from chunkers import defaults as measured
    name = measured.requested(family)     # checked by measured.load: it runs here
    if name is not None:
        return name
    for name in fam.defaults.get(_machine(), fam.defaults["*"]):
        if why_not(family, name) is None:
            return name
    raise AssertionError(f"{family}: no runnable default kernel")  # each list ranks a portable one


def resolve(family: str, requested: str | None = None) -> str:
    """The kernel to use for ``family``: ``requested``, else the env var, else the default.

    Names are stripped and lowercased. Raises ValueError naming the source
    (argument or variable), the value in repr form, the reason (not a kernel
    of this build / not compiled into this build / this CPU does not support
    it) and the names that run here, when the named kernel cannot run here.
    """
    fam = _family(family)
    source = "kernel"
    if requested is None:
        requested = os.environ.get(fam.env_var, "") if fam.env_var else ""
        source = fam.env_var
    if not isinstance(requested, str):
        raise TypeError(f"kernel must be a str or None, not {type(requested).__name__}")
    name = requested.strip().lower()
    if not name:
        return default(family)
    reason = why_not(family, name)
    if reason is not None:
        valid = ", ".join(k[0] for k in fam.kernels if why_not(family, k[0]) is None)
        raise ValueError(f"{source}={requested!r}: {reason}. Valid values here: {valid}")
    return name


def register_emulator(name: str, covers) -> None:
    """Declare an emulator that executes kernels this CPU cannot run, for verification only.

    ``covers(family, kernel) -> bool`` says whether it can run that kernel on
    this host. The conformance package registers its CPU emulator (bochscpu)
    this way; chunking itself never uses an emulator.
    """
    if all(n != name for n, _ in _EMULATORS):
        _EMULATORS.append((name, covers))


def emulators() -> list[str]:
    """Names of the registered emulators (none unless the conformance suite has been imported)."""
    return [name for name, _ in _EMULATORS]


def coverage(family: str, kernel: str) -> str:
    """How ``kernel`` of ``family`` can be verified on this host: ``"native"`` if it runs
    here, ``"emulated (<emulator>)"`` if a registered emulator runs it, else ``"not covered"``.
    Emulators register themselves (the conformance suite does when imported); this product
    never imports the suite."""
    if why_not(family, kernel) is None:
        return NATIVE
    for name, covers in _EMULATORS:
        if covers(family, kernel):
            return f"emulated ({name})"
    return NOT_COVERED


def kernels() -> list[KernelStatus]:
    """The inventory: every family and every kernel name known on this architecture,
    whether it runs here, if not why, and how it is verified here (see :func:`coverage`)."""
    rows = []
    for fam in families():
        dflt = default(fam)
        for name, _built, _needs in _FAMILIES[fam].kernels:
            reason = why_not(fam, name)
            rows.append(KernelStatus(fam, name, reason is None, reason, name == dflt, coverage(fam, name)))
    return rows
