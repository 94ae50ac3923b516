"""``borg``: BorgBackup 2.0's ``borg.chunkers`` when installed (its checks are skipped otherwise)."""

from __future__ import annotations

import collections
import importlib
import io
import time

from chunkers.registry import SINGLE

from vectors.impls.base import SINGLE_FAMILIES, Implementation, as_file, env
from vectors.impls.families import family_of


class Borg(Implementation):
    """BorgBackup 2.0's ``borg.chunkers`` (checked against 2.0.0b25's interface).

    Kernels are chosen through borg's environment variables and confirmed by
    the chunker's ``kernel`` attribute; ``Chunker`` is the legacy buzhash,
    ``ChunkerFixed`` the fixed chunker (single implementations).
    """

    name = "borg"
    sparse = True       # its constructors take sparse=; holes are found on chunkify's fh (SEEK_DATA / SEEK_HOLE)
    CLASSES = {"fastcdc": "ChunkerFastCDC", "buzhash64": "ChunkerBuzHash64", "rabin-aes": "ChunkerRabinAES",
               "goldilocks-aes": "ChunkerGoldilocksAES", "toeplitz-aes": "ChunkerToeplitzAES",
               "buzhash": "Chunker", "fixed": "ChunkerFixed"}
    ENV = {"fastcdc": "BORG_FASTCDC_KERNEL", "buzhash64": "BORG_BUZHASH64_KERNEL", "aes": "BORG_AES_CHUNKER_KERNEL"}
    KERNEL_NAMES = {"fastcdc": ("avx512", "avx2", "neon", "blockwise", "scalar"),
                    "buzhash64": ("avx512", "avx2", "neon", "blockwise", "scalar"),
                    "aes": ("vaes", "aes-ni", "aes-arm64", "evp")}
    selectors = ENV
    PROBE = {"fastcdc": ("fastcdc", 6, 12, 8, 0), "buzhash64": ("buzhash64", 6, 12, 8, 65, 0),
             "aes": ("rabin-aes", 6, 12, 8, 0)}
    cache_size = 64
    """Chunkers kept for reuse (see _chunker); fuzz/impl_chunks.py raises it for a campaign's corpus."""

    def _module(self):
        return importlib.import_module("borg.chunkers")

    def unavailable(self):
        try:
            self._module()
        except ImportError as e:
            return f"borg is not installed here ({e}); install borg 2.0.0b25 to check it"
        return None

    def kernels(self, family):
        if family in SINGLE_FAMILIES:
            return [(SINGLE, None)] if hasattr(self._module(), self.CLASSES[family]) else []
        if family not in self.ENV:
            return []
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
        if algo == "buzhash":
            return cls(seed, *args, **opt)
        if algo == "fixed":
            return cls(*args, **opt)
        extra = {"normal_size": normal_size, **opt} if normal_size else opt
        with env(self.ENV[family_of(algo)], kernel):
            return cls(key, *args, **extra)

    def _chunker(self, params, key, seed, kernel, normal_size, sparse=False):
        """A chunker for these arguments, reused across calls as borg reuses one per backup run:
        borg's AES chunkers take ~50 ms to construct (key-derived tables), which made the suite's
        thousands of short cases (test_input_classes) take minutes per kernel. A chunker whose
        state leaked from one chunkify() into the next would be a borg bug this then shows."""
        cache = self.__dict__.setdefault("_chunkers", collections.OrderedDict())
        k = (tuple(params), None if key is None else bytes(key), seed, kernel, normal_size, sparse)
        if k in cache:
            cache.move_to_end(k)
            return cache[k]
        start = time.perf_counter()
        try:
            chunker = cache[k] = self._make(params, key, seed, kernel, normal_size, sparse)
        finally:
            self.construction_seconds += time.perf_counter() - start
        if len(cache) > self.cache_size:
            cache.popitem(last=False)
        return chunker

    def chunks(self, params, source, *, key, seed, kernel, normal_size=0, sparse=False):
        chunker = self._chunker(params, key, seed, kernel, normal_size, sparse)
        if kernel not in (None, SINGLE) and chunker.kernel != kernel:
            raise RuntimeError(f"borg {params[0]}: asked for kernel {kernel!r}, got {chunker.kernel!r}")
        f = as_file(source)
        # borg reads holes only through the OS-level handle (fh); other file objects have none
        fh = f.fileno() if isinstance(getattr(f, "raw", f), io.FileIO) else -1
        for c in chunker.chunkify(f, fh):
            # borg's data is a view into its buffer, valid only until the next chunk
            yield c.meta["size"], None if c.data is None else bytes(c.data)
