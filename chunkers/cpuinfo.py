"""The CPU's identity (/proc/cpuinfo's first processor: vendor, x86 family and model, flags) and
the one CPU class whose measured built-in defaults differ from the ranks of the kernel lists
(docs/kernels.md "Built-in defaults").

Imports nothing of the package: chunkers.registry and chunkers.tune read it.
"""

from __future__ import annotations

import functools
import platform
from typing import NamedTuple

CPUINFO = "/proc/cpuinfo"


class Identity(NamedTuple):
    """What /proc/cpuinfo says of the first processor ('' / None / empty where it says nothing)."""

    name: str               # "model name"
    vendor: str             # "vendor_id", e.g. "GenuineIntel", "AuthenticAMD"
    family: int | None      # "cpu family" (x86)
    model: int | None       # "model" (x86)
    flags: frozenset        # "flags" (x86 feature names as Linux spells them, e.g. "avx512_fp16")


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


@functools.lru_cache(maxsize=1)
def identity(path: str = CPUINFO) -> Identity | None:
    """The first processor's block of ``path``; None where it cannot be read (not Linux). Cached: the
    CPU does not change under a process."""
    fields: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break           # the first processor's block is enough
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        return None
    return Identity(fields.get("model name", ""), fields.get("vendor_id", ""), _int(fields.get("cpu family")),
                    _int(fields.get("model")), frozenset(fields.get("flags", "").split()))


def cpu_model() -> str:
    """The CPU model name with its x86 family and model numbers (a VM may name only the vendor:
    "AMD EPYC (family 25, model 17)" is a Zen 4); platform.processor() where /proc/cpuinfo says
    nothing; '' if unknown."""
    ident = identity()
    if ident is None:
        return platform.processor()
    if ident.name and ident.family is not None and ident.model is not None:
        return f"{ident.name} (family {ident.family}, model {ident.model})"
    return ident.name or platform.processor()


SEQUENTIAL_FIRST = (("GenuineIntel", 6, "avx512f", "avx512_fp16"),)
"""(vendor, x86 family, a flag it has, a flag it lacks) of the CPUs whose Gear family (fastcdc,
chunkers.registry.SEQUENTIAL_HASHES) defaults to its sequential loop (the family's reference
kernel) rather than its kernel list's first rank (``seg4``): Intel cores with AVX-512 before
AVX512-FP16 (Skylake-SP to Ice Lake, Tiger and Rocket Lake) have two load ports, which bound the
Gear loop there, sequential or in chains. Measured on an Intel Xeon (family 6, model 106): 4 Gear
chains scan no faster than the sequential loop (0.96 bytes a cycle each), and the sequential loop
chunks 3-6 % faster than ``seg4`` (``tune``, ``bench --against borg``; docs/benchmarks.md). The
Intel Xeon with AVX512-FP16 measured (family 6, model 167: three load ports) keeps ``seg4``, 2.7x
the sequential loop there."""


def sequential_first(ident: Identity | None = None, classes=SEQUENTIAL_FIRST) -> bool:
    """True when ``ident`` (default: this CPU's) is of one of ``classes`` (vendor, x86 family, a flag
    it has, a flag it lacks; default SEQUENTIAL_FIRST)."""
    ident = identity() if ident is None else ident
    if ident is None:
        return False
    return any(ident.vendor == vendor and ident.family == family and has in ident.flags and lacks not in ident.flags
               for vendor, family, has, lacks in classes)
