"""Measuring kernel defaults for this machine (``python -m chunkers tune``); chunkers.registry loads them.

``tune`` measures every runnable kernel of each family interleaved and
repeated (:func:`measure`: rounds of one run per kernel in turn, best run per
kernel, so a loaded machine slows every kernel alike rather than one) and
writes a JSON defaults file::

    {"format": "chunkers-defaults/1", "cpu": "<model name>", "machine": "x86_64",
     "features": [...], "defaults": {"fastcdc": "scalar", "aes": "vaes256-seg", ...},
     "mb_s": {"fastcdc": {"scalar": 4645.0, ...}, ...}}

Selection (chunkers.registry: default, load, loaded) uses the file only when
the environment variable CHUNKERS_DEFAULTS names it (or the CLI's ``--defaults
FILE`` sets that), and checks it there; this module only measures and writes,
and imports selection, never the reverse.
"""

from __future__ import annotations

import json
import platform
import random
import time

from chunkers.cpuinfo import cpu_model
from chunkers.registry import FORMAT, TUNE_PARAMS


def measure(size: int = 16 << 20, rounds: int = 7, seed: int = 0, families=None, progress=None) -> dict:
    """family -> kernel -> best MB/s of chunking ``size`` seeded random bytes in memory,
    over ``rounds`` interleaved rounds (each round runs every kernel once, in turn)."""
    import chunkers
    data = memoryview(random.Random(seed).randbytes(size))
    runs = [(k.family, k.kernel) for k in chunkers.kernels()
            if k.runs and k.family in TUNE_PARAMS and (not families or k.family in families)]
    made = {fk: chunkers.make_chunker(TUNE_PARAMS[fk[0]], kernel=fk[1]) for fk in runs}
    best = {fk: float("inf") for fk in runs}
    for r in range(rounds):
        if progress:
            progress(f"round {r + 1}/{rounds}")
        for fk in runs:
            t = time.perf_counter()
            for _ in made[fk].chunkify(data):
                pass
            best[fk] = min(best[fk], time.perf_counter() - t)
    out: dict = {}
    for (family, kernel), secs in best.items():
        out.setdefault(family, {})[kernel] = round(size / secs / 1e6, 1)
    return out


def document(mb_s: dict) -> dict:
    """The defaults file for measurements ``mb_s`` (the fastest kernel per family)."""
    from chunkers.kerneltable import cpu_features
    return {"format": FORMAT, "cpu": cpu_model(), "machine": platform.machine(),
            "features": sorted(cpu_features()),
            "defaults": {f: max(ks, key=ks.get) for f, ks in sorted(mb_s.items())}, "mb_s": mb_s}


def write(path: str, doc: dict) -> None:
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
