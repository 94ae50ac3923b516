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
    """A Console that raises BrokenPipeError when its output is closed (``finish=False``), or goes
    quiet and lets the caller finish (``finish=True``)."""

    def __init__(self, *args, finish: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.finish = finish

    def on_broken_pipe(self) -> None:
        self.quiet = True
        to_devnull(sys.stderr if self.stderr else sys.stdout)
        if not self.finish:
            raise BrokenPipeError(errno.EPIPE, f"standard {'error' if self.stderr else 'output'} closed")


def to_devnull(stream) -> None:
    """Point the descriptor of ``stream`` (a closed pipe) at /dev/null, so that later writes and the
    interpreter's final flush go nowhere instead of failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)
