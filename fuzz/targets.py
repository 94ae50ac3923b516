"""The fuzz targets: one file each in fuzz/, and their campaign settings.

A new target is a module ``fuzz/<name>.py`` with ``TestOneInput``, ``decode``
and ``seeds()`` (see fuzz/harness.py) plus one entry here. A scan target is a
ScanFamily entry (fuzz/scan_diff.py, fuzz/scan_aes.py) and a three-line
module like fuzz/scan_diff_fastcdc.py.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import NamedTuple

FUZZ_DIR = Path(__file__).resolve().parent


class Target(NamedTuple):
    """Campaign settings: ``max_len`` (libFuzzer -max_len, bytes) and an optional dictionary file in fuzz/dict/."""

    max_len: int = 4096
    dictionary: str | None = None


TARGETS = {
    "scan_diff_fastcdc": Target(max_len=4096),
    "scan_diff_buzhash64": Target(max_len=4096),
    "scan_diff_rabin_aes": Target(max_len=4096),
    "scan_diff_goldilocks_aes": Target(max_len=4096),
    "scan_diff_toeplitz_aes": Target(max_len=4096),
    "chunker_stream": Target(max_len=8192),
    "params_parse": Target(max_len=256, dictionary="params_parse.dict"),
    "vectors_load": Target(max_len=512),
}


def path(name: str) -> Path:
    """The target's script (runnable as a libFuzzer target)."""
    return FUZZ_DIR / f"{name}.py"


def load(name: str):
    """Import the target module ``fuzz.<name>`` (KeyError for an unknown name)."""
    if name not in TARGETS:
        raise KeyError(f"unknown fuzz target {name!r}; known: {', '.join(TARGETS)}")
    return importlib.import_module(f"fuzz.{name}")
