"""The adapter interface every implementation under test is seen through (see the impls package)."""

from __future__ import annotations

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


def as_file(source):
    """``source`` as a binary file object (bytes-like ones wrapped)."""
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
