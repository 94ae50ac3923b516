"""``python -m chunkers bench --against borg``: our kernels and borg's side by side.

Every family x kernel of ours and of the importable ``borg.chunkers`` (borg
2.0.0b25's interface, used as a black box: classes, ``BORG_*_KERNEL``
variables, ``chunker.kernel``) chunks the same seeded random data, fed two
ways: from memory (an ``io.BytesIO``, borg's in-memory feed) and from a file
(a temporary file, on /dev/shm where it exists, passed by file descriptor).
All runs are interleaved: each round runs every (implementation, chunker,
kernel, feed) once in turn, and the best of the rounds counts, so a loaded
machine slows both sides alike. Ratios are ours / borg's: per kernel that
both have, and best kernel against best kernel. Results in MB/s (10**6 B/s).

Scan-every-byte figures (our kernels alone over every byte, chunkers.bench)
are printed against the single sequential chain: ``scalar`` for fastcdc and
buzhash64, and for the AES paths each ``-seg`` kernel against its serial tier.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import random
import tempfile
import time

import chunkers
from chunkers.families import CHUNKERS as TABLE, FAMILIES, family_of

CHUNKERS = {c.name: (c.bench, c.borg, FAMILIES[c.family].borg_env)
            for c in sorted(TABLE.values(), key=lambda c: FAMILIES[c.family].borg_env is None) if c.borg}
"""Chunker -> (our params string, borg class, borg's kernel variable or None for single kernels),
from the family table (chunkers.families); those with a choice of kernels first."""
FEEDS = ("memory", "file")
KEY = bytes(32)


def borg_module():
    """borg.chunkers, or raise ImportError with how to get it."""
    try:
        return importlib.import_module("borg.chunkers")
    except ImportError as e:
        raise ImportError(f"--against borg needs borg importable here ({e}); run with the Python of a borg "
                          "2.0.0b25 venv and this project on PYTHONPATH") from None


@contextlib.contextmanager
def _env(var, value):
    old = os.environ.pop(var, None) if var else None
    if var and value is not None:
        os.environ[var] = value
    try:
        yield
    finally:
        if var:
            os.environ.pop(var, None)
            if old is not None:
                os.environ[var] = old


def _borg_args(name: str):
    nums = tuple(int(x) for x in CHUNKERS[name][0].split(",")[1:])
    return {"key": (KEY,), "seed": (0,), None: ()}[TABLE[name].credential] + nums


def borg_chunkers(mod, name: str) -> list:
    """[(kernel, make)] of borg's kernels for chunker ``name`` that construct here."""
    _, cls, var = CHUNKERS[name]
    klass = getattr(mod, cls, None)
    if klass is None:
        return []
    if var is None:
        return [("single", lambda: klass(*_borg_args(name)))]
    out = []
    for k in FAMILIES[family_of(name)].borg_kernels:
        with _env(var, k):
            try:
                c = klass(*_borg_args(name))
            except ValueError:
                continue
        if getattr(c, "kernel", k) == k:
            out.append((k, lambda k=k: _make_borg(klass, name, var, k)))
    return out


def _make_borg(klass, name, var, kernel):
    with _env(var, kernel):
        return klass(*_borg_args(name))


def chunkers_of(families) -> list[str] | None:
    """The chunker names of ``families`` (``bench --family``), in CHUNKERS order; None for all."""
    return [n for n in CHUNKERS if family_of(n) in families] if families else None


def our_chunkers(name: str) -> list:
    """[(kernel, make)] of our runnable kernels for chunker ``name``."""
    params = CHUNKERS[name][0]
    return [(k.kernel, lambda k=k.kernel: chunkers.make_chunker(params, kernel=k))
            for k in chunkers.kernels() if k.family == family_of(name) and k.runs]


def _consume_ours(chunker, feed, data, f):
    if feed == "memory":
        src = io.BytesIO(data)
    else:
        f.seek(0)
        src = f.fileno()
    for _ in chunker.chunkify(src):
        pass


def _consume_borg(chunker, feed, data, f):
    if feed == "memory":
        it = chunker.chunkify(io.BytesIO(data))
    else:
        f.seek(0)
        it = chunker.chunkify(f, f.fileno())      # borg: the file object and its OS-level handle
    for _ in it:
        pass


def measure(size: int = 64 << 20, rounds: int = 5, seed: int = 0, names=None, progress=None) -> list[dict]:
    """Rows {chunker, impl, kernel, feed, mb_s}: best of ``rounds`` interleaved rounds."""
    mod = borg_module()
    data = random.Random(seed).randbytes(size)
    runs = []
    for name in names or CHUNKERS:
        for impl, table, consume in (("ours", our_chunkers(name), _consume_ours),
                                     ("borg", borg_chunkers(mod, name), _consume_borg)):
            for kernel, make in table:
                for feed in FEEDS:
                    runs.append((name, impl, kernel, feed, make, consume))
    tmpdir = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.NamedTemporaryFile(dir=tmpdir) as f:
        f.write(data)
        f.flush()
        with open(f.name, "rb", buffering=0) as fobj:
            best = [float("inf")] * len(runs)
            for r in range(rounds):
                for i, (name, impl, kernel, feed, make, consume) in enumerate(runs):
                    if progress:
                        progress(f"round {r + 1}/{rounds}: {impl} {name} {kernel} {feed}")
                    chunker = make()
                    t = time.perf_counter()
                    consume(chunker, feed, data, fobj)
                    best[i] = min(best[i], time.perf_counter() - t)
    return [{"chunker": n, "impl": i, "kernel": k, "feed": fe, "mb_s": size / b / 1e6}
            for (n, i, k, fe, _, _), b in zip(runs, best)]


def ratios(rows: list[dict]) -> list[dict]:
    """Per chunker and feed: ours / borg per kernel both have, and best / best."""
    out = []
    by = {(r["chunker"], r["impl"], r["kernel"], r["feed"]): r["mb_s"] for r in rows}
    for name in dict.fromkeys(r["chunker"] for r in rows):
        for feed in FEEDS:
            ours = {k: v for (n, i, k, f), v in by.items() if n == name and i == "ours" and f == feed}
            borg = {k: v for (n, i, k, f), v in by.items() if n == name and i == "borg" and f == feed}
            for k in ours:
                if k in borg:
                    out.append({"chunker": name, "feed": feed, "ours": k, "borg": k, "ours_mb_s": ours[k],
                                "borg_mb_s": borg[k], "ratio": ours[k] / borg[k]})
            if ours and borg:
                ko, kb = max(ours, key=ours.get), max(borg, key=borg.get)
                out.append({"chunker": name, "feed": feed, "ours": f"best: {ko}", "borg": f"best: {kb}",
                            "ours_mb_s": ours[ko], "borg_mb_s": borg[kb], "ratio": ours[ko] / borg[kb]})
    return out


def sequential(family: str, kernel: str) -> str:
    """The kernel ``kernel``'s scan rate is compared with: a segmented AES form's (``-seg``) own
    serial kernel; in a family of such forms, itself (the serial AES kernels are not forms of one
    sequential loop: no ratio); else the family's reference kernel (its kernel list's reference row)."""
    from chunkers import registry
    if kernel.endswith("-seg"):
        return kernel[:-4]
    if any(k.name.endswith("-seg") for k in registry.rows(family)):
        return kernel
    return registry.reference(family)


def scan_vs_sequential(rows: list[dict]) -> list[dict]:
    """chunkers.bench scan-mode rows as ratios against the single sequential chain."""
    scan = {(r["family"], r["kernel"], r["params"]): r["mb_s"] for r in rows if r["mode"] == "scan"}
    out = []
    for (family, kernel, params), v in scan.items():
        ref = sequential(family, kernel)
        if (family, ref, params) in scan and ref != kernel:
            out.append({"family": family, "params": params, "kernel": kernel, "sequential": ref, "mb_s": v,
                        "sequential_mb_s": scan[family, ref, params], "ratio": v / scan[family, ref, params]})
    return out
