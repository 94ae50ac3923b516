"""The suite measuring itself: mutation testing (mutants/), the build matrix (builds, buildtree), C coverage,
the instruction check (isa), the tier matrix (tiers) and the CPU emulator behind its emulated rows (emulate/);
and the kernels' speed against what it could be: predicted on other CPUs (mca), measured ceilings of this
one (ceilings)."""

import subprocess
from pathlib import Path


def failure_line(tool: str, e: subprocess.CalledProcessError) -> str:
    """The one line a tool prints for a command of its that failed (exit 2 follows): the program,
    the file it was given last, and the first line the command wrote to standard error (else its
    exit status)."""
    said = (e.stderr or "").strip().splitlines()
    return f"{tool}: {Path(e.cmd[0]).name} failed on {Path(e.cmd[-1]).name}: {said[0] if said else f'exit {e.returncode}'}"
