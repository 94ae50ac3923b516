"""The rich consoles of the command lines (``chunkers bench`` / ``tune``, the conformance job).

rich's own answer to a closed standard output (``| head``) is SystemExit(1), the
exit status of a failure. Here a closed output either raises BrokenPipeError,
which ``python -m chunkers`` turns into exit status 141 as for every other
command, or, for a job whose verdict matters more than its text, makes the
console quiet so that the caller finishes, writes its report and exits with
its verdict. Either way the descriptor is pointed at /dev/null so that the
interpreter's final flush cannot fail again.
"""

from __future__ import annotations

import errno
import os
import sys

from rich.console import Console


class PipeConsole(Console):
    """A Console that raises BrokenPipeError when its output is closed or cannot be written (a full
    disk: ``> /dev/full``) (``finish=False``), or goes quiet and lets the caller finish
    (``finish=True``)."""

    def __init__(self, *args, finish: bool = False, **kwargs):
        if kwargs.get("file") is None:
            kwargs["file"] = _Output(bool(kwargs.get("stderr")))
        super().__init__(*args, **kwargs)
        self.finish = finish

    def on_broken_pipe(self) -> None:
        self.quiet = True
        to_devnull(sys.stderr if self.stderr else sys.stdout)
        if not self.finish:
            raise BrokenPipeError(errno.EPIPE, f"standard {'error' if self.stderr else 'output'} closed")


class _Output:
    """The stream a PipeConsole writes to, sys.stdout or sys.stderr as it is at each write (as
    rich's own default): an OSError writing or flushing it (ENOSPC, EIO) is raised as
    BrokenPipeError, which rich hands to on_broken_pipe, as for a closed pipe: the output is lost
    either way, and the report or file the command was for must still be written."""

    def __init__(self, stderr: bool):
        self.stderr = stderr

    @property
    def stream(self):
        stream = sys.stderr if self.stderr else sys.stdout
        return _NOWHERE if stream is None else stream      # started with `>&-`

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as e:
            raise _as_closed(e) from e

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as e:
            raise _as_closed(e) from e

    def __getattr__(self, name):        # isatty, fileno, encoding: rich's terminal detection
        return getattr(self.stream, name)


class _Nowhere:
    """A closed standard stream (None): text written to it goes nowhere."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


_NOWHERE = _Nowhere()


def _as_closed(e: OSError) -> BrokenPipeError:
    return e if isinstance(e, BrokenPipeError) else BrokenPipeError(e.errno, e.strerror)


def to_devnull(stream) -> None:
    """Point the descriptor of ``stream`` (a closed pipe) at /dev/null, so that later writes and the
    interpreter's final flush go nowhere instead of failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)
