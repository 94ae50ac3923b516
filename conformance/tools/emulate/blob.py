"""Freestanding x86-64 build of kernel sources for the emulator.

The kernel's own C file (the one compiled into the extension) is compiled a
second time without libc or position-independent code, linked at a fixed
address with a one-instruction ``hlt`` stub that every call returns into, and
flattened into one image: code and constants in a single section, no
relocations, no imports. A source that needs anything from outside (a libc
call such as ``memcpy`` that the compiler may emit) is rejected.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import NamedTuple

CSRC = Path(__file__).resolve().parents[3] / "chunkers" / "csrc"
"""Root of the kernel sources (the extension's csrc directory)."""

BASE = 0x400000
"""Guest address of the image's first byte."""

HALT = "ck_emu_halt"
"""Symbol of the ``hlt`` stub: the return address of every emulated call."""

PROVENANCE = "ck_ran"
"""Symbol of the kernels' provenance slot in a freestanding image (csrc/kernel.h, CK_PROVENANCE)."""

CC = os.environ.get("CHUNKERS_EMU_CC", "gcc")
CFLAGS = (
    "-std=c11", "-O3", "-Wall", "-Wextra",
    # no libc, no PLT/GOT, no stack canary or CET prologue, no red zone (the emulated
    # code runs with a bare stack), no unwind tables (nothing to unwind into)
    "-ffreestanding", "-fno-builtin", "-fno-pic", "-fno-pie", "-mno-red-zone",
    "-fno-stack-protector", "-fcf-protection=none", "-fno-asynchronous-unwind-tables",
)

_LINKER_SCRIPT = f"""
ENTRY({HALT})
SECTIONS {{
  . = {BASE:#x};
  .image : {{ *(.text .text.*) *(.rodata .rodata.*) *(.data .data.*) *(.bss .bss.* COMMON) }}
  /DISCARD/ : {{ *(.comment) *(.note .note.*) *(.eh_frame*) }}
}}
"""
_HALT_ASM = f".text\n.globl {HALT}\n{HALT}: hlt\n.section .note.GNU-stack,\"\",@progbits\n"


class BuildError(RuntimeError):
    """The freestanding build failed or a source is not freestanding."""


class Blob(NamedTuple):
    """A linked image: ``image`` is loaded at guest address ``base``; ``symbols`` maps names to addresses."""

    image: bytes
    base: int
    symbols: dict


def _run(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError as e:
        raise BuildError(f"{cmd[0]} not found (the freestanding build needs gcc and binutils)") from e
    except subprocess.CalledProcessError as e:
        raise BuildError(f"{' '.join(cmd)} failed:\n{e.stderr}") from e


def build(sources) -> Blob:
    """Compile ``sources`` (paths relative to chunkers/csrc) into one freestanding image.

    Raises BuildError when a tool is missing, a compile or link step fails,
    or an object file refers to a symbol it does not define (a libc call).
    """
    with tempfile.TemporaryDirectory(prefix="chunkers-emu-") as tmp:
        tmp = Path(tmp)
        (tmp / "halt.s").write_text(_HALT_ASM)
        (tmp / "image.ld").write_text(_LINKER_SCRIPT)
        objects = [tmp / "halt.o"]
        _run(CC, "-c", str(tmp / "halt.s"), "-o", str(objects[0]))
        defined = set()
        for i, src in enumerate(sources):
            obj = tmp / f"{i}.o"
            _run(CC, *CFLAGS, "-c", str(CSRC / src), "-o", str(obj))
            defined |= {line.split()[-1] for line in _run("nm", "--defined-only", str(obj)).splitlines()}
            objects.append(obj)
        for src, obj in zip(sources, objects[1:]):      # calls between the listed sources are fine
            undefined = [name for name in _run("nm", "-u", str(obj)).split()[1::2] if name not in defined]
            if undefined:
                raise BuildError(f"{src} is not freestanding: it refers to {', '.join(undefined)}")
        elf, raw = tmp / "image.elf", tmp / "image.bin"
        _run("ld", "-static", "-nostdlib", "-T", str(tmp / "image.ld"), "-o", str(elf), *map(str, objects))
        _run("objcopy", "-O", "binary", "-j", ".image", str(elf), str(raw))
        symbols = {}
        for line in _run("nm", "--defined-only", str(elf)).splitlines():
            addr, _kind, name = line.split()
            symbols[name] = int(addr, 16)
        return Blob(raw.read_bytes(), BASE, symbols)
