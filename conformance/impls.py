"""Implementations under test, seen through a small adapter interface.

The golden vectors and the chunk-level checks reach an implementation only
through :class:`Implementation`: which kernels it has per conformance family
(``fastcdc``, ``buzhash64``, ``buzhash``, ``fixed``, ...), and the chunks it
cuts from a bytes-like input or a binary file object. Shipped adapters:

* ``ours`` (default): this project's chunkers, every kernel of chunkers.kernels();
* ``borg``: BorgBackup's ``borg.chunkers`` when installed (skipped otherwise);
* ``model``: the pure-Python model (conformance.model), one "kernel" ``model``.

:func:`get` also accepts ``module:attribute`` naming an Implementation
subclass or instance, for adapters that live elsewhere.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import importlib
import io
import os

from chunkers.registry import SINGLE

SINGLE_FAMILIES = ("buzhash", "fixed")
"""Families with a single implementation (no kernel selection, spec 01 §11.4)."""


class Implementation:
    """The adapter interface. Subclasses implement ``kernels`` and ``chunks``.

    ``params`` is always a borg params tuple (``("fastcdc", 6, 12, 8, 2)``,
    ``("buzhash", 6, 12, 8, 65)``, ``("fixed", 4096, 0)``, ...), ``key`` 32
    bytes (keyed chunkers), ``seed`` a C int (legacy buzhash), ``kernel`` a
    name from :meth:`kernels` or None (the implementation's default),
    ``normal_size`` bytes (0 = automatic).
    """

    name = "?"

    def unavailable(self) -> str | None:
        """None if the implementation can run here, else why not (the checks are then skipped)."""
        return None

    def kernels(self, family: str) -> list[tuple[str, str | None]]:
        """``(kernel, reason)`` for every kernel of ``family`` known here; reason is None when it runs.
        Empty when the implementation lacks the family."""
        raise NotImplementedError

    def chunks(self, params: tuple, source, *, key: bytes, seed: int, kernel: str | None, normal_size: int = 0):
        """Iterate ``(size, data)`` per chunk of ``source`` (bytes-like or binary file object), in
        stream order; ``data`` is the chunk's bytes (bytes-like) or None for an all-zero chunk."""
        raise NotImplementedError

    def chunk_sizes(self, params: tuple, source, **kw) -> list[int]:
        """The chunk sizes in bytes of ``source`` (keywords as for :meth:`chunks`)."""
        return [size for size, _ in self.chunks(params, source, **kw)]


def _as_file(source):
    return source if hasattr(source, "read") else io.BytesIO(bytes(source))


class Ours(Implementation):
    """This project's chunkers (chunkers.make_chunker), every kernel of the inventory."""

    name = "ours"

    def kernels(self, family):
        import chunkers
        return [(r.kernel, r.reason) for r in chunkers.kernels() if r.family == family]

    def chunks(self, params, source, *, key, seed, kernel, normal_size=0):
        chunker = _chunker(params, key, seed, kernel, normal_size)
        for c in chunker.chunkify(source):
            yield c.size, c.data
        _check_provenance(params, kernel, chunker)

    def chunk_sizes(self, params, source, *, key, seed, kernel, normal_size=0):
        chunker = _chunker(params, key, seed, kernel, normal_size)
        sizes = chunker.chunk_sizes(source)
        _check_provenance(params, kernel, chunker)
        return sizes


def _check_provenance(params, kernel, chunker):
    # raises conformance.provenance.ProvenanceError when the code that ran is not the kernel's own
    from conformance.cases.families import family_of
    from conformance.provenance import check_chunker
    check_chunker(family_of(params[0]), kernel, chunker)


@functools.lru_cache(maxsize=256)
def _chunker(params, key, seed, kernel, normal_size):
    # cached: chunkers are reusable, and table derivation costs more than a short run
    from chunkers.api import credential, make_chunker
    takes = credential(params)      # each chunker gets only what it takes (make_chunker refuses the rest)
    return make_chunker(params, key=key if takes == "key" else None, seed=seed if takes == "seed" else None,
                        kernel=kernel, normal_size=normal_size)


class Model(Implementation):
    """The independent pure-Python model (conformance.model): sizes only, chunks are slices."""

    name = "model"

    def kernels(self, family):
        from conformance.cases.families import FAMILIES
        return [("model", None)] if family in FAMILIES else []

    def chunk_sizes(self, params, source, *, key, seed, kernel=None, normal_size=0):
        from conformance import model
        data = source.read() if hasattr(source, "read") else bytes(source)
        if params[0] in model.aes.NAMES and len(params) == 5:     # reuse the (slow) AES key expansion
            ctx = _aes_key(params[0], model.ZERO_KEY if key is None else key)
            return model.aes.chunk_sizes(params[0], None, *params[1:], normal_size, data, ctx=ctx)
        return model.chunk_sizes(tuple(params), data, key=key, seed=seed, normal_size=normal_size)

    def chunks(self, params, source, *, key, seed, kernel=None, normal_size=0):
        data = source.read() if hasattr(source, "read") else bytes(source)
        pos = 0
        for size in self.chunk_sizes(params, data, key=key, seed=seed, normal_size=normal_size):
            piece = data[pos:pos + size]
            yield size, None if piece.count(0) == size else piece
            pos += size


@functools.lru_cache(maxsize=16)
def _aes_key(name: str, key: bytes):
    from conformance.model import aes
    return aes.expand_key(name, key)


class Borg(Implementation):
    """BorgBackup 2.0's ``borg.chunkers`` (checked against 2.0.0b25's interface).

    Kernels are chosen through borg's environment variables and confirmed by
    the chunker's ``kernel`` attribute; ``Chunker`` is the legacy buzhash,
    ``ChunkerFixed`` the fixed chunker (single implementations).
    """

    name = "borg"
    CLASSES = {"fastcdc": "ChunkerFastCDC", "buzhash64": "ChunkerBuzHash64", "rabin-aes": "ChunkerRabinAES",
               "goldilocks-aes": "ChunkerGoldilocksAES", "toeplitz-aes": "ChunkerToeplitzAES",
               "buzhash": "Chunker", "fixed": "ChunkerFixed"}
    ENV = {"fastcdc": "BORG_FASTCDC_KERNEL", "buzhash64": "BORG_BUZHASH64_KERNEL", "aes": "BORG_AES_CHUNKER_KERNEL"}
    KERNEL_NAMES = {"fastcdc": ("avx512", "avx2", "neon", "blockwise", "scalar"),
                    "buzhash64": ("avx512", "avx2", "neon", "blockwise", "scalar"),
                    "aes": ("vaes", "aes-ni", "aes-arm64", "evp")}
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

    def _make(self, params, key, seed, kernel, normal_size=0):
        from conformance.cases.families import family_of
        algo, args = params[0], tuple(params[1:])
        cls = getattr(self._module(), self.CLASSES[algo])
        if algo == "buzhash":
            return cls(seed, *args)
        if algo == "fixed":
            return cls(*args)
        extra = {"normal_size": normal_size} if normal_size else {}
        with _env(self.ENV[family_of(algo)], kernel):
            return cls(key, *args, **extra)

    def _chunker(self, params, key, seed, kernel, normal_size):
        """A chunker for these arguments, reused across calls as borg reuses one per backup run:
        borg's AES chunkers take ~50 ms to construct (key-derived tables), which made the suite's
        thousands of short cases (test_input_classes) take minutes per kernel. A chunker whose
        state leaked from one chunkify() into the next would be a borg bug this then shows."""
        cache = self.__dict__.setdefault("_chunkers", collections.OrderedDict())
        k = (tuple(params), None if key is None else bytes(key), seed, kernel, normal_size)
        if k in cache:
            cache.move_to_end(k)
            return cache[k]
        chunker = cache[k] = self._make(params, key, seed, kernel, normal_size)
        if len(cache) > self.cache_size:
            cache.popitem(last=False)
        return chunker

    def chunks(self, params, source, *, key, seed, kernel, normal_size=0):
        chunker = self._chunker(params, key, seed, kernel, normal_size)
        if kernel not in (None, SINGLE) and chunker.kernel != kernel:
            raise RuntimeError(f"borg {params[0]}: asked for kernel {kernel!r}, got {chunker.kernel!r}")
        for c in chunker.chunkify(_as_file(source)):
            # borg's data is a view into its buffer, valid only until the next chunk
            yield c.meta["size"], None if c.data is None else bytes(c.data)


@contextlib.contextmanager
def _env(var: str, value: str | None):
    """Set (or, for None, unset) an environment variable for the duration of the block."""
    old = os.environ.pop(var, None)
    if value is not None:
        os.environ[var] = value
    try:
        yield
    finally:
        os.environ.pop(var, None)
        if old is not None:
            os.environ[var] = old


REGISTRY = {"ours": Ours, "borg": Borg, "model": Model}
"""The shipped adapters by name."""


def get(name: str) -> Implementation:
    """The implementation called ``name`` (see REGISTRY) or given as ``module:attribute``.

    Raises ValueError for an unknown name or an attribute that is not an Implementation.
    """
    if name in REGISTRY:
        return REGISTRY[name]()
    if ":" not in name:
        raise ValueError(f"unknown implementation {name!r}; known: {', '.join(REGISTRY)} or module:attribute")
    module, _, attr = name.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    impl = obj() if isinstance(obj, type) else obj
    if not isinstance(impl, Implementation):
        raise ValueError(f"{name} is not a conformance.impls.Implementation")
    if type(impl).kernels is Implementation.kernels or type(impl).chunks is Implementation.chunks:
        raise ValueError(f"{name} does not implement kernels() and chunks() (an abstract adapter)")
    return impl


class LoadError(LookupError):
    """Why ``--impl NAME`` cannot be used, as one line starting ``--impl NAME:``."""


def load(name: str, available: bool = True) -> Implementation:
    """:func:`get` as every ``--impl`` option uses it (the main job, pytest, conformance.cross, the
    fuzz targets): LoadError (one line) when ``name`` cannot be loaded and, with ``available``,
    when the implementation is unavailable here (``unavailable()``; the callers that offer
    --allow-missing ask with ``available=False`` and decide themselves)."""
    try:
        impl = get(name)
    except (ValueError, ImportError, AttributeError) as e:
        raise LoadError(f"--impl {name}: {e}".replace("\n", " ")) from None
    reason = impl.unavailable() if available else None
    if reason:
        raise LoadError(f"--impl {name}: {reason}")
    return impl
