"""Real input files for the main job: the walk, bounded reads and files that change mid-run.

A real file is never mapped or held whole: it is split into pieces of at most
``PIECE`` bytes, each a source of its own that is read again (``pread``) for
every run and dropped afterwards, so memory stays bounded whatever the size
of the tree or of one file. Every kernel sees the same pieces, so the
differential comparison is unaffected by the split.

A file can change while the job runs (a log growing, a file truncated or
deleted). Before each run the piece is checked against the size, mtime and
inode recorded by the walk; a file that no longer matches, vanished or became
unreadable raises :class:`FileChanged` and is listed as skipped with the
reason (never compared on different bytes, never silently dropped).
"""

from __future__ import annotations

import os
import random
import stat
from dataclasses import dataclass

PIECE = 16 << 20
"""Bytes per piece of a real file (bounds the memory the job holds for one input)."""


class FileChanged(Exception):
    """A real file changed, vanished or became unreadable during the run; ``str()`` is the reason."""


@dataclass(frozen=True)
class Snapshot:
    """What the walk saw of a regular file: its identity, size in bytes and mtime (ns)."""

    path: str
    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str, st: os.stat_result) -> "Snapshot":
        return cls(path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def changes(self, st: os.stat_result) -> str | None:
        """None if ``st`` is the same file as seen by the walk, else what changed."""
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            return "replaced during the run"
        if st.st_size != self.size:
            verb = "shrank" if st.st_size < self.size else "grew"
            return f"{verb} during the run ({self.size} -> {st.st_size} bytes)"
        if st.st_mtime_ns != self.mtime_ns:
            return "modified during the run"
        return None


class FilePiece:
    """Bytes ``[offset, offset + length)`` of a real file, read on demand (see :meth:`load`)."""

    real = True

    def __init__(self, snap: Snapshot, offset: int, length: int):
        self.snap, self.offset, self.length = snap, offset, length
        whole = offset == 0 and length == snap.size
        self.name = snap.path if whole else f"{snap.path}[{offset}:{offset + length}]"

    def load(self) -> bytes:
        """The piece's bytes, checked against the walk's snapshot before and after the read.
        Raises FileChanged (with the reason) if the file is gone, unreadable or no longer the same."""
        try:
            fd = os.open(self.snap.path, os.O_RDONLY)
        except FileNotFoundError:
            raise FileChanged("vanished during the run") from None
        except OSError as e:
            raise FileChanged(f"unreadable: {e.strerror or e}") from None
        try:
            why = self.snap.changes(os.fstat(fd))
            if why is None:
                data = _pread_all(fd, self.length, self.offset)
                why = self.snap.changes(os.fstat(fd))
                if why is None and len(data) != self.length:
                    why = f"shrank during the run (read {len(data)} of {self.length} bytes)"
        except OSError as e:
            raise FileChanged(f"unreadable: {e.strerror or e}") from None
        finally:
            os.close(fd)
        if why:
            raise FileChanged(why)
        return data


def _pread_all(fd: int, length: int, offset: int) -> bytes:
    """Up to ``length`` bytes at ``offset`` (fewer only at the end of the file)."""
    parts, got = [], 0
    while got < length:
        b = os.pread(fd, min(length - got, 1 << 24), offset + got)
        if not b:
            break
        parts.append(b)
        got += len(b)
    return b"".join(parts)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def check_path(path: str) -> str | None:
    """None if ``path`` (a command-line argument) is a regular file or a directory, else why not
    (used to refuse it with exit status 2 before any work)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"no such file or directory: {path}"
    except OSError as e:
        return f"cannot stat {path}: {e.strerror or e}"
    if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
        return None
    return f"{path} is {_kind(st.st_mode)}, not a regular file or directory"


def walk(paths) -> tuple[list[Snapshot], dict[str, str]]:
    """Every regular file under ``paths`` (files, or directories walked without following
    symlinked directories), sorted by path; and ``{path: reason}`` for every other entry met
    (FIFO, socket, device, dangling symlink, symlinked directory, unreadable directory or file),
    which is skipped."""
    found, skipped = [], {}

    def visit(path: str) -> None:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            skipped[path] = "dangling symlink" if os.path.islink(path) else "vanished"
            return
        except OSError as e:
            skipped[path] = f"unreadable: {e.strerror or e}"
            return
        if stat.S_ISREG(st.st_mode):
            if os.access(path, os.R_OK):
                found.append(Snapshot.of(path, st))
            else:
                skipped[path] = "unreadable: Permission denied"
        elif not stat.S_ISDIR(st.st_mode):
            skipped[path] = _kind(st.st_mode)

    def onerror(e: OSError) -> None:
        skipped[e.filename] = f"unreadable directory: {e.strerror or e}"

    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p, onerror=onerror):
                for d in dirs:      # a symlink to a directory is not followed (loops, trees counted twice)
                    full = os.path.join(root, d)
                    if os.path.islink(full):
                        skipped[full] = "symlink to a directory (not followed)"
                for f in names:
                    visit(os.path.join(root, f))
        else:
            visit(p)
    found.sort(key=lambda s: s.path)
    return found, dict(sorted(skipped.items()))


def select(files: list[Snapshot], *, sample: int | None = None, max_bytes: int | None = None,
           seed: int = 1) -> tuple[list[Snapshot], int]:
    """The files to run: a seeded random sample of ``sample`` files (all if None), then the first
    ones in path order up to ``max_bytes`` bytes in all (a file is cut short to fit, see
    :func:`pieces`); returns them with the number of files left out."""
    chosen = files
    if sample is not None and sample < len(files):
        chosen = sorted(random.Random(seed).sample(files, sample), key=lambda s: s.path)
    if max_bytes is not None:
        kept, total = [], 0
        for s in chosen:
            if total >= max_bytes:
                break
            kept.append(s)
            total += s.size
        chosen = kept
    return chosen, len(files) - len(chosen)


def pieces(files: list[Snapshot], max_bytes: int | None = None, piece: int = PIECE) -> list[FilePiece]:
    """The sources of the run: each file split into pieces of at most ``piece`` bytes (an empty
    file is one empty piece); with ``max_bytes``, no more than that many bytes in all."""
    out, budget = [], max_bytes if max_bytes is not None else float("inf")
    for s in files:
        size = int(min(s.size, budget))
        if s.size == 0:
            out.append(FilePiece(s, 0, 0))
        for off in range(0, size, piece):
            out.append(FilePiece(s, off, min(piece, size - off)))
        budget -= size
        if budget <= 0:
            break
    return out
