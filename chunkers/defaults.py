"""Measured kernel defaults for this machine (``python -m chunkers tune``), honoured only when asked.

``tune`` measures every runnable kernel of each family interleaved and
repeated (:func:`measure`: rounds of one run per kernel in turn, best run per
kernel, so a loaded machine slows every kernel alike rather than one) and
writes a JSON defaults file::

    {"format": "chunkers-defaults/1", "cpu": "<model name>", "machine": "x86_64",
     "features": [...], "defaults": {"fastcdc": "scalar", "aes": "vaes256-seg", ...},
     "mb_s": {"fastcdc": {"scalar": 4645.0, ...}, ...}}

Selection (chunkers.registry.default) uses the file only when the environment
variable CHUNKERS_DEFAULTS names it (or the CLI's ``--defaults FILE`` sets
that); there is no silent run-time guess. A named kernel (``kernel=`` or the
family's variable) still wins over the file. The file must come from this
machine kind: a malformed file, a family without a choice of kernels, or a
default that cannot run here (for any family, not only the one in use) is an
error when the file is loaded (ValueError with the path and the reason), never
ignored.
"""

from __future__ import annotations

import json
import os
import platform
import random
import stat
import time

ENV = "CHUNKERS_DEFAULTS"
"""Environment variable naming a defaults file written by ``python -m chunkers tune``."""
FORMAT = "chunkers-defaults/1"

TUNE_PARAMS = {
    "fastcdc": "fastcdc,19,23,21,2",
    "buzhash64": "buzhash64,19,23,21,4095,2",
    "buzhash": "buzhash,19,23,21,4095",
    "aes": "rabin-aes,19,23,21,2",
}
"""Family -> params of the chunk-mode run that decides its default (the AES kernels serve all
three AES chunkers; rabin-aes is the middle one in cost)."""


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (platform.processor() elsewhere), '' if unknown."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


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
    from chunkers.driver import cpu_features
    return {"format": FORMAT, "cpu": cpu_model(), "machine": platform.machine(),
            "features": sorted(cpu_features()),
            "defaults": {f: max(ks, key=ks.get) for f, ks in sorted(mb_s.items())}, "mb_s": mb_s}


def write(path: str, doc: dict) -> None:
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


MAX_FILE = 1 << 20
"""Bytes a defaults file may hold (tune writes about 1 KiB): a device or a huge file is refused
before it is read."""


def load(path: str, source: str = ENV) -> dict:
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
    from chunkers import registry
    for family, kernel in defaults.items():     # every entry, not only the family in use: a typo must not pass
        if family not in TUNE_PARAMS:
            raise ValueError(f"{where}: {family!r} is not a family with a choice of kernels "
                             f"({', '.join(TUNE_PARAMS)})")
        reason = registry.why_not(family, kernel)
        if reason is not None:
            raise ValueError(f"{where}: the {family} default {kernel!r}: {reason}")
    return defaults


_loaded: dict = {}
"""path -> (the file's identity, its defaults): a chunker made per file must not reread and recheck it."""


def loaded(path: str, source: str = ENV) -> dict:
    """load(path, source), again only when the file's identity (device, inode, size, mtime) or
    CHUNKERS_CPU_HIDE changed since the last call, so an edited or replaced file, or a feature
    hidden since, is checked anew; ValueError as load()."""
    from chunkers.registry import HIDE_ENV
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
    path = os.environ.get(ENV, "")
    return loaded(path).get(family) if path else None
