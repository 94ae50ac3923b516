"""The suite measuring itself: mutation testing (mutants/), the build matrix (builds, buildtree), C coverage,
the instruction check (isa), the tier matrix (tiers) and the CPU emulator behind its emulated rows (emulate/);
and the kernels' speed against what it could be: predicted on other CPUs (mca), measured ceilings of this
one (ceilings)."""

import signal
import subprocess
from pathlib import Path


def failure_line(tool: str, e: subprocess.CalledProcessError) -> str:
    """The one line a tool prints for a command of its that failed (exit 2 follows): the program,
    the file it was given last (if any), and the first line the command wrote to standard error,
    else its exit status or the signal that ended it."""
    said = (e.stderr or "").strip().splitlines()
    if said:
        why = said[0]
    elif e.returncode < 0:
        try:
            why = f"killed by {signal.Signals(-e.returncode).name}"
        except ValueError:
            why = f"killed by signal {-e.returncode}"
    else:
        why = f"exit {e.returncode}"
    cmd = [str(c) for c in e.cmd]
    on = f" on {Path(cmd[-1]).name}" if len(cmd) > 1 else ""
    return f"{tool}: {Path(cmd[0]).name} failed{on}: {why}"
