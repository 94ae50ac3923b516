"""``borg``: BorgBackup 2.0's ``borg.chunkers`` when installed (its checks are skipped otherwise)."""

from __future__ import annotations

import collections
import importlib
import io
import time

from chunkers.families import CHUNKERS, FAMILIES, chunkers_of, family_of
from chunkers.registry import SINGLE

from vectors.impls.base import Implementation, as_file, env, reuse


_PROBE_FIELDS = {"chunk_min": 6, "chunk_max": 12, "chunk_mask": 8, "window_size": 65, "nc_level": 0}


def _probe(chunker: str) -> tuple:
    """Small valid params of ``chunker`` that every borg kernel constructs (the kernel probe)."""
    return (chunker, *(_PROBE_FIELDS[f] for f in CHUNKERS[chunker].fields))


class Borg(Implementation):
    """BorgBackup 2.0's ``borg.chunkers`` (checked against 2.0.0b25's interface).

    Kernels are chosen through borg's environment variables and confirmed by
    the chunker's ``kernel`` attribute; ``Chunker`` is the legacy buzhash,
    ``ChunkerFixed`` the fixed chunker (single implementations).
    """

    name = "borg"
    sparse = True       # its constructors take sparse=; holes are found on chunkify's fh (SEEK_DATA / SEEK_HOLE)
    CLASSES = {c.name: c.borg for c in CHUNKERS.values() if c.borg}
    """Chunker -> its class in borg.chunkers (chunkers.families: Chunker.borg)."""
    ENV = {f.name: f.borg_env for f in FAMILIES.values() if f.borg_env}
    """Family -> borg's variable naming its kernel (Family.borg_env); the others are single implementations."""
    KERNEL_NAMES = {f.name: f.borg_kernels for f in FAMILIES.values() if f.borg_env}
    PROBE = {f.name: _probe(f.tune.partition(",")[0]) for f in FAMILIES.values() if f.borg_env}
    selectors = ENV
    cache_size = 64
    """Chunkers kept for reuse per chunker name (see _chunker); fuzz/impl_chunks.py raises it for a
    campaign's corpus."""

    def _module(self):
        return importlib.import_module("borg.chunkers")

    def unavailable(self):
        try:
            self._module()
        except ImportError as e:
            return f"borg is not installed here ({e}); install borg 2.0.0b25 to check it"
        return None

    def kernels(self, family):
        if family not in FAMILIES:
            return []
        if family not in self.ENV:      # a single implementation in borg
            return [(SINGLE, None)] if all(c in self.CLASSES and hasattr(self._module(), self.CLASSES[c])
                                           for c in chunkers_of(family)) else []
        try:
            names = self._build_kernels(family)
        except AttributeError:
            return []                           # this borg lacks the chunker
        rows = []
        for name in names:
            try:
                self._make(self.PROBE[family], bytes(32), 0, name)
            except ValueError as e:
                rows.append((name, str(e)))
                continue
            rows.append((name, None))           # a wrong ``kernel`` attribute fails in chunks()
        return rows

    def _build_kernels(self, family) -> tuple:
        """The kernel names borg's build lists (its error for an unknown name ends in
        ``Valid values: a,b,c``); KERNEL_NAMES if the message does not say."""
        try:
            self._make(self.PROBE[family], bytes(32), 0, "no-such-kernel")
        except ValueError as e:
            _, found, listed = str(e).rpartition("Valid values:")
            if found and listed.strip():
                return tuple(n.strip() for n in listed.split(",") if n.strip())
        return self.KERNEL_NAMES[family]

    def selected_kernel(self, family, value):
        return self._make(self.PROBE[family], bytes(32), 0, value).kernel

    def _make(self, params, key, seed, kernel, normal_size=0, sparse=False):
        algo, args = params[0], tuple(params[1:])
        cls = getattr(self._module(), self.CLASSES[algo])
        opt = {"sparse": True} if sparse else {}       # left out when false: an adapter-level default
        credential = CHUNKERS[algo].credential
        if credential != "key":
            return cls(*((seed,) if credential == "seed" else ()), *args, **opt)
        extra = {"normal_size": normal_size, **opt} if normal_size else opt
        with env(self.ENV[family_of(algo)], kernel):
            return cls(key, *args, **extra)

    def _chunker(self, params, key, seed, kernel, normal_size, sparse=False):
        """A chunker for these arguments, reused across calls as borg reuses one per backup run:
        borg's rabin-aes chunkers take ~16 ms to construct (key-derived tables; buzhash64 ~3 ms,
        fastcdc 10 us), which made the suite's thousands of short cases (test_input_classes) take
        minutes per kernel. Kept per chunker name, cache_size each: many new chunkers that are cheap
        to make do not push out those that are not. A chunker whose state leaked from one
        chunkify() into the next would be a borg bug this then shows."""
        def made():
            start = time.perf_counter()
            try:
                return self._make(params, key, seed, kernel, normal_size, sparse)
            finally:
                self.construction_seconds += time.perf_counter() - start
        k = (tuple(params), None if key is None else bytes(key), seed, kernel, normal_size, sparse)
        kept = self.__dict__.setdefault("_chunkers", {}).setdefault(params[0], collections.OrderedDict())
        return reuse(kept, k, made, self.cache_size)

    def chunk_views(self, params, source, *, key, seed, kernel, normal_size=0, sparse=False):
        chunker = self._chunker(params, key, seed, kernel, normal_size, sparse)
        if kernel not in (None, SINGLE) and chunker.kernel != kernel:
            raise RuntimeError(f"borg {params[0]}: asked for kernel {kernel!r}, got {chunker.kernel!r}")
        f = as_file(source)
        # borg reads holes only through the OS-level handle (fh); other file objects have none
        fh = f.fileno() if isinstance(getattr(f, "raw", f), io.FileIO) else -1
        for c in chunker.chunkify(f, fh):
            yield c.meta["size"], c.data        # a view into borg's buffer, valid until its next chunk

    def chunks(self, params, source, **kw):
        for size, data in self.chunk_views(params, source, **kw):
            yield size, None if data is None else bytes(data)
