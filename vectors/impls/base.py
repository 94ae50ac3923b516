"""The adapter interface every implementation under test is seen through (see the impls package)."""

from __future__ import annotations

import collections
import contextlib
import io
import os


class Implementation:
    """The adapter interface. Subclasses implement ``kernels`` and ``chunks``.

    ``params`` is always a borg params tuple (``("fastcdc", 6, 12, 8, 2)``,
    ``("buzhash", 6, 12, 8, 65)``, ``("fixed", 4096, 0)``, ...), ``key`` 32
    bytes (keyed chunkers), ``seed`` a C int (legacy buzhash), ``kernel`` a
    name from :meth:`kernels` or None (the implementation's default),
    ``normal_size`` bytes (0 = automatic).
    """

    name = "?"

    sparse = False
    """Whether :meth:`chunks` takes ``sparse=True``: file holes (SEEK_DATA / SEEK_HOLE) read as zeros
    (spec 01 §8). The read-path rows (conformance.run.readpath) say so when it does not."""

    kept_chunks = False
    """Whether a chunk's ``data`` stays valid after later chunks and streams (ours: views into read
    buffers that are never refilled while a chunk refers to them); borg's is valid only until its
    next chunk."""

    reads_whole = False
    """Whether :meth:`chunks` reads a file source whole into memory before chunking it (the model): the
    read-path row of large files (conformance.run.readpath) is then not about it and is skipped."""

    construction_seconds = 0.0
    """Seconds this adapter has spent constructing chunkers (its own reused chunkers' misses; 0 when
    construction is not worth counting). A fuzz campaign steers by it (fuzz.impl_chunks.Steering)."""

    selectors: dict = {}
    """family -> the environment variable that selects its kernel (a demand, spec 01 §11.1); empty
    when the implementation has no kernel selection (see :meth:`selected_kernel`)."""

    def unavailable(self) -> str | None:
        """None if the implementation can run here, else why not (the checks are then skipped)."""
        return None

    def kernels(self, family: str) -> list[tuple[str, str | None]]:
        """``(kernel, reason)`` for every kernel of ``family`` known here; reason is None when it runs.
        Empty when the implementation lacks the family."""
        raise NotImplementedError

    def chunks(self, params: tuple, source, *, key: bytes, seed: int, kernel: str | None, normal_size: int = 0,
               sparse: bool = False):
        """Iterate ``(size, data)`` per chunk of ``source`` (bytes-like, binary file object or file
        descriptor), in stream order; ``data`` is the chunk's bytes (bytes-like) or None for an
        all-zero chunk. ``sparse`` only where :attr:`sparse` is true."""
        raise NotImplementedError

    def chunk_views(self, params: tuple, source, **kw):
        """Iterate ``(size, data)`` as :meth:`chunks` does (same keywords), except that ``data`` may be
        valid only until the next chunk is asked for: no copy where the implementation hands out views
        into a buffer it reuses (borg). For a caller that compares each chunk as it comes (the
        impl_chunks fuzz target: under the sanitizers a copy per chunk is a malloc and a memcpy)."""
        return self.chunks(params, source, **kw)

    def selected_kernel(self, family: str, value: str | None) -> str:
        """The ``kernel`` a new chunker of ``family`` reports when its selector (:attr:`selectors`)
        is set to ``value`` (None: unset, the default); ValueError when the implementation refuses
        the name. Only for families in :attr:`selectors`."""
        raise NotImplementedError

    def chunk_sizes(self, params: tuple, source, **kw) -> list[int]:
        """The chunk sizes in bytes of ``source`` (keywords as for :meth:`chunks`)."""
        return [size for size, _ in self.chunks(params, source, **kw)]


def as_file(source):
    """``source`` as a binary file object (bytes-like ones wrapped; a descriptor as an unbuffered
    file object that leaves it open)."""
    if isinstance(source, int):
        return open(source, "rb", buffering=0, closefd=False)
    return source if hasattr(source, "read") else io.BytesIO(bytes(source))


@contextlib.contextmanager
def env(var: str, value: str | None):
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


def reuse(cache: collections.OrderedDict, key, make, size: int):
    """The value ``cache`` holds for ``key``, else ``make()``'s, kept there with at most ``size``
    entries, least recently used out: the chunkers an adapter (Borg) or a fuzz target
    (fuzz.chunker_stream.make) made, reused for the same arguments. A ``make`` that raises keeps
    nothing, so those arguments are tried again next time."""
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = cache[key] = make()
    while len(cache) > size:
        cache.popitem(last=False)
    return value
