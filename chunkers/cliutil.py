"""Checks shared by the command lines (chunkers.cli and chunkers.bench_cli, which import this
module and not each other): the usage error, free memory, a writable output file."""

from __future__ import annotations

import os


class UsageError(Exception):
    """A bad command-line value: reported on stderr with exit status 2."""


def unwritable(path: str) -> str | None:
    """Why ``path`` cannot be written as a file (checked before a long run, not after it), or None."""
    if not path:
        return "an empty name"
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or path.endswith(os.sep):
        return "a directory"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else "no write permission"
    return None if os.path.isdir(folder) and os.access(folder, os.W_OK) else "its folder cannot be written"


def memory_available() -> int | None:
    """Bytes of memory available to a new allocation (Linux: MemAvailable of /proc/meminfo), or None
    where that is not known (then nothing is checked)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def short_of_memory(need: int) -> str | None:
    """"needs about N MiB of memory; M MiB are available here" when ``need`` bytes exceed the memory
    available here (with overcommit a MemoryError never comes: the kernel kills the process), else None."""
    avail = memory_available()
    if avail is None or need <= avail:
        return None
    return f"needs about {need >> 20} MiB of memory; {avail >> 20} MiB are available here"


def check_memory(command: str, mib: int, copies: int) -> None:
    """UsageError when ``copies`` x ``mib`` MiB (a benchmark's data and its copies) exceed the memory
    available here (short_of_memory)."""
    why = short_of_memory(copies * (mib << 20))
    if why:
        raise UsageError(f"{command} --size {mib} {why}")
