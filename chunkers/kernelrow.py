"""The row type of a family's kernel list (chunkers/csrc/<family>/kernels.def), apart from selection.

chunkers.kerneltable builds these rows from the compiled lists and chunkers.registry selects among them;
both import this module, which imports neither (chunkers.registry re-exports its names).
"""

from __future__ import annotations

from typing import NamedTuple

PORTABLE = "portable"
"""The target of a kernel built for every architecture (a Kernel.target; the others are "x86-64", "aarch64")."""
RANKED = ("x86_64", "aarch64", "*")
"""The machines (platform.machine(), "*" for any other) of the rank columns of a kernel list, in order."""


class Kernel(NamedTuple):
    """One row of a family's kernel list (chunkers/csrc/<family>/kernels.def) as compiled: the
    only place a kernel is named. Every build target's rows are exported, so that the suite knows
    the kernels it cannot run here."""

    name: str
    symbol: str | None          # its C function (None for a single implementation in Python)
    source: str | None          # its C file, relative to chunkers/csrc
    target: str                 # "x86-64", "aarch64" or PORTABLE
    here: bool                  # a kernel of this build target
    built: bool                 # compiled into this build (False for another target's, or an old compiler)
    cpu: tuple                  # CPU feature names (chunkers.cpu_features) it needs at run time
    freestanding: tuple | None  # None: verified natively only; else the kernels whose files its
                                # freestanding emulator image also needs (conformance.tools.emulate)
    rank: dict                  # RANKED machine -> its place in the default order (1 first, 0 never)
    reference: bool             # the family's reference kernel (one row of each list: portable, no CPU
                                # feature; the one the others are checked against)
