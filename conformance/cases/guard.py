"""Input placement that makes a read past the end of a span fault at once.

The bytes handed to a kernel end exactly at a page that is mapped without
access rights, so reading ``p[n]`` is a SIGSEGV in every build (with or
without sanitizers; pymalloc would hide such a read inside its arenas, and
bytes objects carry a trailing NUL). One arena is mapped per process and
reused for every input.
"""

from __future__ import annotations

import ctypes
import mmap

PAGE = mmap.PAGESIZE
PROT_NONE = 0
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)


class GuardedArena:
    """``capacity`` usable bytes (rounded up to pages) followed by one PROT_NONE page."""

    def __init__(self, capacity: int):
        self.size = -(-capacity // PAGE) * PAGE
        # private: a forked process (the main job's --jobs workers) gets its own copy, never a
        # shared arena another process writes its inputs into
        self._map = mmap.mmap(-1, self.size + PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(self._map))
        if _libc.mprotect(addr + self.size, PAGE, PROT_NONE) != 0:
            raise OSError(ctypes.get_errno(), "mprotect of the guard page failed")
        self._view = memoryview(self._map)[:self.size]

    def place(self, data: bytes) -> memoryview:
        """A view of ``data`` copied so that its last byte is the last byte before the guard page.

        Raises ValueError if ``data`` is longer than the arena.
        """
        n = len(data)
        if n > self.size:
            raise ValueError(f"{n} bytes do not fit a {self.size}-byte arena")
        v = self._view[self.size - n:]
        v[:] = data
        return v
