"""The scan-kernel registry: inventory and selection (spec 01 §11, 06 §8.5), the one place a
kernel is chosen: the argument, the family's variable, the measured defaults file
(CHUNKERS_DEFAULTS, loaded and checked here; chunkers.tune writes it) and the per-machine ranks
of the kernel lists (chunkers.kernelrow rows).

A kernel is chosen per chunker family by the ``kernel=`` argument or, when
that is None, by the family's environment variable; unset or empty means the
family's default for this platform. A named kernel is a demand: if it cannot
run here, :func:`resolve` raises ValueError saying which of three reasons
applies, and never falls back.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import stat
from typing import NamedTuple

from chunkers.cpuinfo import sequential_first
from chunkers.families import FAMILIES as TABLE
from chunkers.kernelrow import PORTABLE, RANKED, Kernel  # noqa: F401  (re-exported: chunkers.registry.Kernel)

UNKNOWN = "not a kernel of this build"
NOT_BUILT = "not compiled into this build (needs a newer compiler)"
NO_CPU = "this CPU does not support it"

NATIVE = "native"
NOT_COVERED = "not covered"


SINGLE = "single"
"""The ``kernel`` of a chunker with a single implementation (fixed), and of borg's own loop where a
family has more (the legacy buzhash: ``single`` and ``seg4``)."""


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
        refs = [k for k in rows if k.reference]
        if len(refs) != 1 or refs[0].target != PORTABLE or refs[0].cpu:
            raise ValueError(f"{name}: a kernel list needs exactly one reference row, portable and needing no CPU "
                             f"feature (has {', '.join(k.name for k in refs) or 'none'})")
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


def register_kernels(name: str, rows) -> None:
    """Add the family ``name`` of the family table (chunkers.families), its kernels those of its
    kernel list ``rows``, selected by its variable (called by each family's module at import)."""
    register(Family.of(name, TABLE[name].env_var, rows))


def register_single(name: str) -> None:
    """Add a chunker family that has a single implementation, listed as the kernel SINGLE."""
    register(Family.of(name, None, [Kernel(SINGLE, None, None, PORTABLE, True, True, (), None,
                                           dict.fromkeys(RANKED, 1), True)]))


def families() -> list[str]:
    """Names of the registered chunker families (single-implementation ones included). Every family
    is registered by then: importing chunkers.registry runs the package's __init__ first, which
    imports every chunker module (no import back into the package from here)."""
    return list(_FAMILIES)


def rows(family: str) -> tuple:
    """Every :class:`Kernel` of ``family``'s kernel list, of every build target, in its order."""
    return _family(family).rows


def segment_form(kernel: str) -> bool:
    """True for the name of a segment-parallel form of its family's scan (the naming rule of the
    kernel lists, docs/kernels.md: ``seg<N>`` for the rolling hashes, ``<tier>-seg`` for the AES
    paths): the kernels that scan several segments of a span at once instead of one chain."""
    return kernel.startswith("seg") or kernel.endswith("-seg")


def reference(family: str) -> str:
    """The name of ``family``'s reference kernel: the row of its kernel list marked reference
    (kernels.def; SINGLE for a single implementation), portable and needing no CPU feature, so it
    runs everywhere: the kernel the others are checked against (the sequential loop; for aes
    OpenSSL's batched evp)."""
    return next(k.name for k in rows(family) if k.reference)


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
    from chunkers.kerneltable import cpu_features
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
    list for this machine and CPU (:func:`preference`; measured defaults, docs/kernels.md
    "Built-in defaults"), or the kernel that a defaults file
    named by CHUNKERS_DEFAULTS sets (see requested(); ValueError if it cannot run here)."""
    fam = _family(family)
    name = requested(family)     # checked by load: it runs here
    if name is not None:
        return name
    for name in preference(family):
        if why_not(family, name) is None:
            return name
    raise AssertionError(f"{family}: no runnable default kernel")  # each list ranks a portable one


SEQUENTIAL_HASHES = ("gear",)
"""The rolling hashes (the family table's ``hash``) whose families default to their sequential loop
on a chunkers.cpuinfo.SEQUENTIAL_FIRST CPU: the Gear hash (fastcdc). The cyclic hashes' first rank
there is ``stride4``, faster than their sequential loops."""


def preference(family: str) -> tuple:
    """``family``'s built-in preference order here, first runnable wins: its kernel list's ranks for
    this machine, with the family's reference kernel (the sequential loop) moved first on a CPU of
    chunkers.cpuinfo.SEQUENTIAL_FIRST when its hash is one of SEQUENTIAL_HASHES (docs/kernels.md
    "Built-in defaults")."""
    defaults = _family(family).defaults
    order = defaults.get(_machine(), defaults["*"])
    if TABLE[family].hash in SEQUENTIAL_HASHES and sequential_first():
        ref = reference(family)
        return (ref, *(k for k in order if k != ref))
    return order


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


# The measured defaults file (written by `python -m chunkers tune`, chunkers.tune), honoured only when asked.
#
# default() uses it only when the environment variable CHUNKERS_DEFAULTS names it (or the CLI's
# --defaults FILE sets that); there is no silent run-time guess. A named kernel (kernel= or the
# family's variable) still wins over the file. The file must come from this machine kind: a
# malformed file, a family without a choice of kernels, or a default that cannot run here (for any
# family, not only the one in use) is an error when the file is loaded (ValueError with the path and
# the reason), never ignored. Format::
#
#     {"format": "chunkers-defaults/1", "cpu": "<model name>", "machine": "x86_64",
#      "features": [...], "defaults": {"fastcdc": "scalar", "aes": "vaes256-seg", ...},
#      "mb_s": {"fastcdc": {"scalar": 4645.0, ...}, ...}}

DEFAULTS_ENV = "CHUNKERS_DEFAULTS"
"""Environment variable naming a defaults file written by ``python -m chunkers tune``."""
FORMAT = "chunkers-defaults/1"

TUNE_PARAMS = {f.name: f.tune for f in TABLE.values() if f.tune}
"""Family -> params of the chunk-mode run that decides its default (chunkers.families: Family.tune)."""


MAX_FILE = 1 << 20
"""Bytes a defaults file may hold (tune writes about 1 KiB): a device or a huge file is refused
before it is read."""


def load(path: str, source: str = DEFAULTS_ENV) -> dict:
    """family -> kernel (names stripped and lowercased, as for kernel= and the variables) from a
    defaults file; ValueError (with the path) if it is not a regular file of at most MAX_FILE bytes
    (a FIFO would block, /dev/zero never end), unreadable or malformed, names a family outside
    TUNE_PARAMS or, for any family, a kernel that cannot run here. ``source``: what named the file
    (the variable, or the command line's --defaults), the start of every message."""
    where = f"{source}={path!r}"
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE:
            raise ValueError(f"not a regular file of at most {MAX_FILE} bytes")
        with open(path, "rb") as f:
            doc = json.loads(f.read(MAX_FILE + 1))
    except (OSError, ValueError, RecursionError) as e:     # RecursionError: JSON nested too deep
        raise ValueError(f"{where}: cannot read the defaults file ({e})") from None
    defaults = doc.get("defaults") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(defaults, dict) or \
            not all(isinstance(k, str) and isinstance(v, str) for k, v in defaults.items()):
        raise ValueError(f"{where}: not a {FORMAT} file (write one with `python -m chunkers tune`)")
    defaults = {family: kernel.strip().lower() for family, kernel in defaults.items()}
    for family, kernel in defaults.items():     # every entry, not only the family in use: a typo must not pass
        if family not in TUNE_PARAMS:
            raise ValueError(f"{where}: {family!r} is not a family with a choice of kernels "
                             f"({', '.join(TUNE_PARAMS)})")
        reason = why_not(family, kernel)
        if reason is not None:
            raise ValueError(f"{where}: the {family} default {kernel!r}: {reason}")
    return defaults


_loaded: dict = {}
"""path -> (the file's identity, its defaults): a chunker made per file must not reread and recheck it."""


def loaded(path: str, source: str = DEFAULTS_ENV) -> dict:
    """load(path, source), again only when the file's identity (device, inode, size, mtime) or
    CHUNKERS_CPU_HIDE changed since the last call, so an edited or replaced file, or a feature
    hidden since, is checked anew; ValueError as load()."""
    try:
        st = os.stat(path)      # with the hidden features: load() checks that every default runs here
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, os.environ.get(HIDE_ENV, ""))
    except OSError:
        identity = None     # load() reports why it cannot be read
    cached = _loaded.get(path)
    if identity is None or cached is None or cached[0] != identity:
        cached = _loaded[path] = (identity, load(path, source))
    return cached[1]


def requested(family: str) -> str | None:
    """The kernel the file named by CHUNKERS_DEFAULTS sets for ``family`` (see loaded()), or None when
    the variable is unset or empty or the file does not mention the family."""
    path = os.environ.get(DEFAULTS_ENV, "")
    return loaded(path).get(family) if path else None
