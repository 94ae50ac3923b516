"""One emulated x86-64 CPU (bochscpu) that calls functions of a freestanding image.

The guest runs in 64-bit user mode (CPL 3) with SSE, AVX, AVX-512 and VAES
state enabled (CR4.OSFXSR/OSXMMEXCPT/OSXSAVE, XCR0 = x87|SSE|AVX|opmask|ZMM).
Every call starts from a fresh register state with the System V arguments in
rdi, rsi, rdx, rcx, r8, r9 (then the stack) and returns into the image's
``hlt`` stub, which at CPL 3 raises #GP: that exception, at that address,
with the stack pointer back where it started, is the normal end. Any other
exception (#UD: an instruction the model lacks; #PF: an access outside
mapped memory) is reported as :class:`EmulatorFault`.

Guest memory: the image at ``blob.base``; a stack; an argument area for
tables and in/out words; and an input area whose last byte is followed by an
unmapped guard page, so a kernel that reads past the end of its input faults.
"""

from __future__ import annotations

import struct

import bochscpu
import bochscpu.cpu
import bochscpu.memory as memory

from .blob import HALT, PROVENANCE, Blob

PAGE = 0x1000
STACK, STACK_PAGES = 0x7000_0000, 16
ARGS, ARGS_PAGES = 0x1000_0000, 16
INPUT, INPUT_PAGES = 0x2000_0000, 256          # 1 MiB; INPUT_END is not mapped
INPUT_END = INPUT + INPUT_PAGES * PAGE
PML4 = 0x0800_0000                             # guest-physical address of the page tables
XCR0_AVX512 = 0xE7
"""x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM state enabled: every instruction the emulated CPU has."""
XCR0_AVX = 0x07
"""x87, SSE, AVX only: an OS without AVX-512 state, where any EVEX instruction raises #UD."""
MAX_BRANCHES = 1 << 22                         # taken branches per call before it counts as a hang

_REGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
_VECTOR_NAMES = {6: "#UD invalid opcode", 13: "#GP general protection", 14: "#PF page fault"}


class EmulatorFault(RuntimeError):
    """The emulated call ended in a CPU exception other than the final halt, or hung."""

    def __init__(self, symbol: str, vector: int | None, rip: int, address: int = 0):
        what = _VECTOR_NAMES.get(vector, f"vector {vector}") if vector is not None else "no return (hang)"
        where = f" accessing {address:#x}" if vector == 14 else ""
        super().__init__(f"{symbol}: {what} at rip {rip:#x}{where}")
        self.vector, self.rip, self.address = vector, rip, address


def _segment(selector: int, attr: int) -> bochscpu.Segment:
    s = bochscpu.Segment()
    s.present, s.selector, s.base, s.limit, s.attr = True, selector, 0, 0xFFFFFFFF, attr
    return s


class Machine:
    """A guest with ``blob`` loaded; call its functions with :meth:`call`."""

    def __init__(self, blob: Blob):
        self.blob = blob
        self._next_pa = 0x10_0000
        tables = memory.PageMapLevel4Table()
        code_pages = -(-len(blob.image) // PAGE)
        # the image is writable: it holds the kernels' provenance slot ck_ran (csrc/kernel.h)
        for base, pages, writable in ((blob.base, code_pages, 1), (STACK, STACK_PAGES, 1),
                                      (ARGS, ARGS_PAGES, 1), (INPUT, INPUT_PAGES, 1)):
            for i in range(pages):
                tables.insert(base + i * PAGE, self._host_page(), writable)
        for hva, gpa in tables.commit(PML4):
            memory.page_insert(gpa, hva)
        self._tables = tables       # owns the page-table pages: keep it alive with the machine
        self.write(blob.base, blob.image)
        self._halt = blob.symbols[HALT]
        self.xcr0 = XCR0_AVX512     # XCR0_AVX: run as on a CPU without AVX-512 (feature-gating checks)

    def _host_page(self) -> int:
        pa, self._next_pa = self._next_pa, self._next_pa + PAGE
        memory.page_insert(pa, memory.allocate_host_page())
        return pa

    def write(self, va: int, data: bytes) -> None:
        """Copy ``data`` into guest memory at ``va`` (which must be mapped)."""
        if data and not memory.virt_write(PML4, va, list(data)):
            raise ValueError(f"guest address {va:#x}+{len(data)} is not mapped")

    def read(self, va: int, n: int) -> bytes:
        """``n`` bytes of guest memory at ``va``."""
        return bytes(memory.virt_read(PML4, va, n))

    def take_provenance(self) -> str | None:
        """The registry name the last kernel run recorded (CK_PROVENANCE, csrc/kernel.h), None if
        no kernel ran since the previous take; clears it."""
        slot = self.blob.symbols[PROVENANCE]
        ptr = struct.unpack("<Q", self.read(slot, 8))[0]
        self.write(slot, bytes(8))
        return self.read(ptr, 64).split(b"\0")[0].decode() if ptr else None

    def provenance_source(self) -> str | None:
        """The source file the code of the last kernel run was compiled from (CK_RECORD's
        ck_ran_file, csrc/kernel.h; not cleared by take_provenance), None if none ran."""
        slot = self.blob.symbols.get(PROVENANCE + "_file")
        ptr = struct.unpack("<Q", self.read(slot, 8))[0] if slot else 0
        return self.read(ptr, 256).split(b"\0")[0].decode() if ptr else None

    def put_input(self, data: bytes) -> int:
        """Place ``data`` so that it ends at the guard page; returns its guest address."""
        if len(data) > INPUT_END - INPUT:
            raise ValueError(f"input of {len(data)} bytes exceeds the emulated input area ({INPUT_END - INPUT})")
        va = INPUT_END - len(data)
        self.write(va, data)
        return va

    def _state(self, entry: int, args) -> tuple[bochscpu.State, int]:
        st = bochscpu.State()
        bochscpu.cpu.set_long_mode(st)
        st.cr4 |= (1 << 9) | (1 << 10) | (1 << 18)    # OSFXSR, OSXMMEXCPT, OSXSAVE
        st.xcr0 = self.xcr0
        st.mxcsr = 0x1F80
        st.fpcw = 0x37F
        st.cr3 = PML4
        st.cs = _segment(0x33, 0x22FB)                  # 64-bit user code
        st.ss = st.ds = st.es = st.fs = st.gs = _segment(0x2B, 0xCF3)
        st.rflags = 0x202
        for reg, value in zip(_REGS, args):
            setattr(st, reg, value)
        # at entry rsp % 16 == 8: [rsp] is the return address, stack arguments follow it
        rsp = STACK + STACK_PAGES * PAGE - 0x108
        self.write(rsp, struct.pack(f"<{1 + len(args[6:])}Q", self._halt, *args[6:]))
        st.rsp, st.rip = rsp, entry
        return st, rsp

    def call(self, symbol: str, *args: int) -> int:
        """Call the image's function ``symbol`` with integer ``args``; returns rax.

        Arguments are u64 (pass pointers as guest addresses). Raises
        EmulatorFault if the call does not return normally, KeyError for an
        unknown symbol.
        """
        st, rsp = self._state(self.blob.symbols[symbol], [a & (2**64 - 1) for a in args])
        end = {}
        branches = 0

        def on_exception(sess, _cpu, vector, _error):
            end.update(vector=vector, rip=sess.cpu.rip, rsp=sess.cpu.rsp, cr2=sess.cpu.cr2, rax=sess.cpu.rax)
            sess.stop()

        def on_branch(sess, *_):
            nonlocal branches
            branches += 1
            if branches > MAX_BRANCHES:
                end.update(vector=None, rip=sess.cpu.rip)
                sess.stop()

        hook = bochscpu.Hook()
        hook.exception = on_exception
        hook.cnear_branch_taken = on_branch
        session = bochscpu.Session()
        session.cpu.state = st
        session.run([hook])
        del hook, session           # the hooks hold Python callables: release them now, not at exit
        # the exception hook sees rip already past the hlt
        if end.get("vector") != 13 or end["rip"] not in (self._halt, self._halt + 1) or end["rsp"] != rsp + 8:
            raise EmulatorFault(symbol, end.get("vector"), end.get("rip", 0), end.get("cr2", 0))
        return end["rax"]
