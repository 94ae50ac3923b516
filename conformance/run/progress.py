"""Progress of the main job: what runs, inputs and bytes done, rate and ETA.

On a terminal the line is shown in a live status display; otherwise (piped
into a file or a CI log) it is printed as a plain line on stderr every
``interval`` seconds, so a long run over a real tree is never silent.
"""

from __future__ import annotations

import sys
import time


def _si(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def _duration(s: float) -> str:
    s = int(s)
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    """Counts work done against the planned total and reports it.

    ``emit(line)``: where a line goes (a status display, a print); ``interval``: seconds
    between two lines (0: a line on every update); ``clock``: seconds, monotonic (injectable
    for tests). Work is counted in input bytes run through a chunker (one byte once per
    chunker params set, key and kernel); ``plan(total, inputs)`` sets the totals."""

    def __init__(self, emit, interval: float = 10.0, clock=time.monotonic, prefix: str = ""):
        self.emit, self.interval, self.clock, self.prefix = emit, interval, clock, prefix
        self.total = self.done = 0
        self.inputs = self.inputs_done = 0
        self.label = ""
        self.start = self.last = clock()

    def plan(self, total_bytes: int, inputs: int) -> None:
        """The whole run: ``total_bytes`` of work over ``inputs`` inputs (per kernel)."""
        self.total, self.inputs = total_bytes, inputs

    def __call__(self, label: str) -> None:
        """The job moves on to ``label`` (family/kernel); always reported."""
        self.label, self.inputs_done = label, 0
        self._report(force=True)

    def advance(self, nbytes: int) -> None:
        """One input of the current kernel is done: ``nbytes`` bytes of work."""
        self.done += nbytes
        self.inputs_done += 1
        self._report()

    def tick(self) -> None:
        """Work without input bytes goes on (e.g. emulated scan cases): a line if one is due."""
        self._report()

    def skip(self, nbytes: int) -> None:
        """Planned work of ``nbytes`` bytes will not be done (an input left out): off the total."""
        self.total -= nbytes

    def line(self) -> str:
        elapsed = max(self.clock() - self.start, 1e-9)
        rate = self.done / elapsed
        eta = _duration((self.total - self.done) / rate) if rate > 0 and self.total >= self.done else "?"
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        return (f"{self.prefix}{self.label}: input {self.inputs_done}/{self.inputs}, {_si(self.done)} of "
                f"{_si(self.total)}{pct}, {_si(rate)}/s, elapsed {_duration(elapsed)}, ETA {eta}")

    def _report(self, force: bool = False) -> None:
        now = self.clock()
        if force or now - self.last >= self.interval:
            self.last = now
            self.emit(self.line())


def plain(interval: float = 10.0, prefix: str = "") -> Progress:
    """A Progress printing plain lines on stderr (for a non-terminal)."""
    return Progress(lambda s: print(s, file=sys.stderr, flush=True), interval, prefix=prefix)
