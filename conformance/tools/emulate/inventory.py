"""The x86-64 kernels the emulator can run: their freestanding sources and functions, from the
kernel lists (chunkers/csrc/<family>/kernels.def, the freestanding column)."""

from __future__ import annotations

from typing import NamedTuple

from chunkers.registry import families, rows


class Entry(NamedTuple):
    """A kernel that can run emulated: its C files under chunkers/csrc (the kernel's own file
    first, then any file defining functions it calls) and its function."""

    sources: tuple
    symbol: str


def _freestanding() -> dict:
    out = {}
    for family in families():
        source = {k.name: k.source for k in rows(family)}
        for k in rows(family):
            if k.freestanding is not None:
                out.setdefault(family, {})[k.name] = Entry((k.source, *(source[c] for c in k.freestanding)), k.symbol)
    return out


FREESTANDING = _freestanding()
"""family -> kernel -> Entry, for every x86-64 kernel the emulator can run (its row's freestanding column)."""
