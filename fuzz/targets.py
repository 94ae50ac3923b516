"""The fuzz targets: one file each in fuzz/, and their campaign settings.

A new target is a module ``fuzz/<name>.py`` with ``TestOneInput``, ``decode``
and ``seeds()`` (see fuzz/harness.py) plus one entry here. A scan target is a
ScanFamily entry (fuzz/scan_<family>.py, or fuzz/scan_diff.py's default) and a three-line
module like fuzz/scan_diff_fastcdc.py.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import NamedTuple

FUZZ_DIR = Path(__file__).resolve().parent


class Target(NamedTuple):
    """Campaign settings: ``max_len`` (libFuzzer -max_len, bytes; every seed fits), an optional
    dictionary file in fuzz/dict/, and ``pymalloc``: keep Python's small-object allocator
    (as OSS-Fuzz's launcher does) instead of PYTHONMALLOC=malloc. The scan targets take it:
    their kernels read only the guarded span (conformance/cases/guard.py) and C copies of the tables, no
    Python object ASan would have to watch, and Python's allocations through ASan's malloc
    cost them most of their time."""

    max_len: int = 4096
    dictionary: str | None = None
    pymalloc: bool = False
    impl: bool = False      # fuzzes the implementation --impl names (impls), not only ours
    custom_mutator: bool = False    # hands atheris a custom mutator (fuzz.build.with_custom_mutator)


TARGETS = {
    # scan cases: a header of fields, then data up to the longest span a case scans
    # (scan_case.MAX_POSITIONS; buzhash64 plus its 4095-byte window; AES: scan_aes.MAX_SPAN)
    "scan_diff_fastcdc": Target(max_len=1280, pymalloc=True),
    "scan_diff_buzhash64": Target(max_len=5376, pymalloc=True),
    "scan_diff_buzhash": Target(max_len=5376, pymalloc=True),
    "scan_diff_rabin_aes": Target(max_len=1408, pymalloc=True),
    "scan_diff_goldilocks_aes": Target(max_len=1408, pymalloc=True),
    "scan_diff_toeplitz_aes": Target(max_len=1408, pymalloc=True),
    "chunker_stream": Target(max_len=8192),
    "params_parse": Target(max_len=2048, dictionary="params_parse.dict"),
    "vectors_load": Target(max_len=512),
    # --impl X: every kernel of X against our reference chunkers (fuzz/impl_chunks.py)
    "impl_chunks": Target(max_len=8192, impl=True, pymalloc=True, custom_mutator=True),
}


# A scan target of a family without an entry above: its script alone (fuzz/scan_diff_<family>.py,
# fuzz/scan_diff.py's default decode, window-less spans of up to MAX_POSITIONS bytes).
TARGETS.update({p.stem: Target(max_len=1280, pymalloc=True) for p in sorted(FUZZ_DIR.glob("scan_diff_*.py"))
                if p.stem not in TARGETS})


def path(name: str) -> Path:
    """The target's script (runnable as a libFuzzer target)."""
    return FUZZ_DIR / f"{name}.py"


def load(name: str):
    """Import the target module ``fuzz.<name>`` (KeyError for an unknown name)."""
    if name not in TARGETS:
        raise KeyError(f"unknown fuzz target {name!r}; known: {', '.join(TARGETS)}")
    return importlib.import_module(f"fuzz.{name}")
