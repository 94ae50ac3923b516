"""Spans handed to kernels end at a no-access page: reading one byte too far faults."""

import os
import subprocess
import sys

from conformance.cases.guard import GuardedArena


def test_place_copies_to_the_end():
    arena = GuardedArena(100)
    v = arena.place(b"abc")
    assert bytes(v) == b"abc" and len(v) == 3
    assert bytes(arena.place(b"")) == b""


def test_read_past_the_end_faults():
    code = ("import ctypes; from conformance.cases.guard import GuardedArena; v = GuardedArena(64).place(b'abc');"
            "a = ctypes.addressof(ctypes.c_char.from_buffer(v)); print(ctypes.string_at(a, 3), flush=True);"
            "ctypes.string_at(a, 4)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "b'abc'"     # the span itself is readable
    assert r.returncode == -11              # SIGSEGV on the byte after it


def test_a_forked_process_has_its_own_arena():
    """The main job's --jobs workers are forked: an arena made before the fork must not be shared."""
    arena = GuardedArena(64)
    v = arena.place(b"parent")
    pid = os.fork()
    if pid == 0:
        arena.place(b"child!")
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    assert bytes(v) == b"parent"
