"""The family table: every chunker and its kernel family, as csrc/<family>/kernels.def is for kernels.

The one place that names the chunkers and their families; the registry, the
parameter parser, bench and tune, setup.py, the adapters (impls), the vectors,
the suite and the fuzz targets read it. A chunker is what a params string names
(spec 01 §4.2: ``fastcdc,19,23,21,2``); its kernel family is the kernel list
that runs it (the three AES chunkers share one, spec 06 §8.5). Adding a family:
docs/adding-a-family.md.

This module imports nothing, so that setup.py can load it before anything is
built (by path, without running the package's __init__).
"""

from __future__ import annotations

from typing import NamedTuple


class Family(NamedTuple):
    """A kernel family: ``chunkers/<name>.pyx`` with csrc/<name>/ (its kernels.def), one kernel
    selector for all its chunkers."""

    name: str
    env_var: str | None         # the variable naming its kernel; None: a single implementation
    sources: tuple              # setup.py: csrc/ files compiled into the extension besides csrc/<name>/*.c;
    libraries: tuple = ()       # None for a pure-Python family (no extension)
    tune: str | None = None     # params of tune's chunk-mode run deciding its default; None: no choice
    streamed: bool = False      # bench reads a stream over the data (in memory it would only slice)
    scan: bool = True           # has a scan entry point (chunkers.scanners), a scan fuzz target, a bench scan mode
    hash: str = ""              # its rolling hash: "gear" (shift-add, high masks, spec 02), "cyclic" (rotate-xor
                                # over a window, low masks, spec 03, 04 A), "uhf" (AES of a UHF digest, spec 06)
    borg_env: str | None = None  # borg 2.0.0b25's variable naming the kernel (bench --against borg, impls.borg)
    borg_kernels: tuple = ()    # the kernel names borg's build may list (impls.borg when borg does not say)


class Chunker(NamedTuple):
    """A chunker: the first field of a params string and what the rest means."""

    name: str
    family: str                 # the Family that runs it
    cls: str                    # its class in chunkers.<family>
    fields: tuple               # the params string's fields after the name (spec 01 §4.2)
    credential: str | None      # what it is seeded with: "key" (32 bytes), "seed" (a C int) or None
    bench: str                  # params of bench's chunk mode (and of bench --against borg)
    optional: int = 0           # trailing fields a params tuple may leave out (fixed's header_size)
    borg: str = ""              # its class in borg 2.0.0b25's borg.chunkers ("": borg has none)
    note: str = ""              # what --help adds to its params example


_CDC = ("chunk_min", "chunk_max", "chunk_mask")
_COMMON = ("cpu.c", "csprng.c", "provenance.c")
_BORG_HASHES = ("avx512", "avx2", "neon", "blockwise", "scalar")

FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("fastcdc", "CHUNKERS_FASTCDC_KERNEL", _COMMON, ("crypto",), tune="fastcdc,19,23,21,2", hash="gear",
           borg_env="BORG_FASTCDC_KERNEL", borg_kernels=_BORG_HASHES),
    Family("buzhash64", "CHUNKERS_BUZHASH64_KERNEL", _COMMON, ("crypto",), tune="buzhash64,19,23,21,4095,2",
           hash="cyclic", borg_env="BORG_BUZHASH64_KERNEL", borg_kernels=_BORG_HASHES),
    Family("buzhash", "CHUNKERS_BUZHASH_KERNEL", ("provenance.c",), tune="buzhash,19,23,21,4095", hash="cyclic"),
    Family("fixed", None, None, streamed=True, scan=False),
    # the AES kernels serve all three AES chunkers; rabin-aes is the middle one in cost
    Family("aes", "CHUNKERS_AES_KERNEL", _COMMON, ("crypto",), tune="rabin-aes,19,23,21,2", hash="uhf",
           borg_env="BORG_AES_CHUNKER_KERNEL", borg_kernels=("vaes", "aes-ni", "aes-arm64", "evp")),
)}
"""Kernel family name -> Family, in the order families are listed (kernels, bench, the suite)."""

CHUNKERS: dict[str, Chunker] = {c.name: c for c in (
    Chunker("fastcdc", "fastcdc", "FastCDC", _CDC + ("nc_level",), "key", "fastcdc,19,23,21,2",
            borg="ChunkerFastCDC"),
    Chunker("buzhash64", "buzhash64", "BuzHash64", _CDC + ("window_size", "nc_level"), "key",
            "buzhash64,19,23,21,4095,2", borg="ChunkerBuzHash64"),
    Chunker("buzhash", "buzhash", "BuzHash", _CDC + ("window_size",), "seed", "buzhash,19,23,21,4095",
            borg="Chunker", note="odd WINDOW; the name may be left out"),
    Chunker("fixed", "fixed", "Fixed", ("block_size", "header_size"), None, "fixed,4194304", 1,
            borg="ChunkerFixed", note="sizes in bytes, BLOCK >= 64"),
    Chunker("rabin-aes", "aes", "RabinAES", _CDC + ("nc_level",), "key", "rabin-aes,19,23,21,2",
            borg="ChunkerRabinAES"),
    Chunker("goldilocks-aes", "aes", "GoldilocksAES", _CDC + ("nc_level",), "key", "goldilocks-aes,19,23,21,2",
            borg="ChunkerGoldilocksAES"),
    Chunker("toeplitz-aes", "aes", "ToeplitzAES", _CDC + ("nc_level",), "key", "toeplitz-aes,19,23,21,2",
            borg="ChunkerToeplitzAES"),
)}
"""Chunker name -> Chunker, families in FAMILIES order."""


def family_of(chunker: str) -> str:
    """The kernel family running the chunker called ``chunker`` (e.g. ``rabin-aes`` -> ``aes``);
    ValueError if there is none."""
    try:
        return CHUNKERS[chunker].family
    except (KeyError, TypeError):
        raise ValueError(f"no chunker family runs the chunker {chunker!r}; known: {', '.join(CHUNKERS)}") from None


def chunkers_of(family: str) -> tuple:
    """The names of the chunkers ``family`` runs, in CHUNKERS order (empty for an unknown family)."""
    return tuple(c.name for c in CHUNKERS.values() if c.family == family)


def scan_families() -> tuple:
    """The families with a scan entry point, in FAMILIES order."""
    return tuple(f.name for f in FAMILIES.values() if f.scan)


def kernel_families() -> tuple:
    """The families with a kernel list (a compiled extension), in FAMILIES order."""
    return tuple(f.name for f in FAMILIES.values() if f.sources is not None)


DEFAULT_PARAMS = ("fastcdc", 19, 23, 21, 2)
"""The params tuple the params string ``default`` stands for: borg 2.0.0b25's file-content
default chunker (spec 01 §2, §4.2)."""
