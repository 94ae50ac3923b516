"""The instructions are the tier's: a static check of the compiled extensions.

For every row of a family's C registry (``<family>_kernels`` in the extension,
read from the ELF file itself: name, function, declared CPU feature bits) the
kernel's function and every local function it calls or jumps to are
disassembled (binutils objdump) and each instruction is mapped to the CPU
features it needs (:func:`x86_needs`, :func:`arm_needs`). Two rules:

* **contains its ISA**: every declared feature not implied by another
  declared one appears (``avx512f``: an EVEX, zmm or k-register instruction;
  ``avx2``: a VEX instruction on ymm; ``vaes``: vaesenc/vaesenclast on ymm or
  zmm; ``aes``: aesenc; ``neon``: a vector-register instruction;
  ``arm-aes``: aese/aesmc);
* **nothing above its features**: no instruction needs a feature the kernel
  does not declare (or imply, :data:`IMPLIES`): an avx2 kernel with a zmm
  instruction would die with SIGILL on an AVX2-only CPU.

A third rule reads the DWARF debug information (setup.py builds with -g): each row's function
is **its own file's code**, compiled from the row's ``csrc/<family>/<kernel>.c`` and calling
no other row's file but those its freestanding column names (:func:`source_problems`; an
extension without debug info is reported "not checked: no debug info").

Driven by the registry alone, so a new kernel row is covered without edits.
Works on x86-64 and aarch64 extensions from any host (``ci/cross-aarch64``
runs it on the cross build with ``aarch64-linux-gnu-objdump``). Baselines:
x86-64 is SSE2; on aarch64 Advanced SIMD is part of the Linux ABI, so
portable kernels may be auto-vectorized with it.
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib.machinery
import os
import re
import shutil
import subprocess
from typing import NamedTuple

from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from chunkers.families import kernel_families
from chunkers.clihelp import ArgumentParser

CHUNKERS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "chunkers")       # the repository root is three levels up
REGISTRIES = kernel_families()
"""Extensions (chunkers/<name>.*.so) holding a kernel registry ``<name>_kernels`` (chunkers.families)."""

IMPLIES = {"avx512f": {"avx2"}, "avx2": {"avx", "sse4.1"}, "vaes": {"aes"}, "arm-aes": {"neon"}}  # not a family
"""Features a declared feature implies: every AVX-512 CPU has AVX2 (and gcc's target("avx512f")
enables it), AVX2 needs AVX, VAES is the wide form of AES-NI, the ARM crypto extension extends NEON."""


class Kernel(NamedTuple):
    """A registry row as compiled: its name, function symbol and declared feature names."""

    name: str
    symbol: str | None      # None: not compiled into this build (fn == NULL)
    features: tuple
    address: int = 0        # its function's address in the file (0: not compiled)


def _feature_names() -> list[str]:
    # the bit order of csrc/cpu.h is the order of cpu.c's feature_names table
    src = open(os.path.join(CHUNKERS, "csrc", "cpu.c")).read()
    table = re.search(r"feature_names\[[^]]*\]\s*=\s*\{([^}]*)\}", src).group(1)
    return re.findall(r'"([^"]+)"', table)


def extension(name: str) -> str:
    """Path of the extension ``chunkers.<name>`` this interpreter loads (not a cross build lying
    next to it); FileNotFoundError if it is not built."""
    path = os.path.join(CHUNKERS, name + importlib.machinery.EXTENSION_SUFFIXES[0])
    if not os.path.exists(path):
        raise FileNotFoundError(f"{os.path.relpath(path)} is not built")
    return path


def registry(path: str, family: str) -> tuple[str, list[Kernel]]:
    """The machine (``x86_64``/``aarch64``) of the extension at ``path`` and its registry rows of
    that build target."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        symtab = elf.get_section_by_name(".symtab") or elf.get_section_by_name(".dynsym")
        syms = {s.name: s for s in symtab.iter_symbols()}
        funcs = {}      # address -> function name, a global name winning over a local alias
        for s in sorted(symtab.iter_symbols(), key=lambda s: s["st_info"]["bind"] == "STB_GLOBAL"):
            if s["st_info"]["type"] == "STT_FUNC" and s["st_value"]:
                funcs[s["st_value"]] = s.name
        relocs = {}
        for sec in elf.iter_sections():
            if isinstance(sec, RelocationSection) and sec.is_RELA():
                dynsym = elf.get_section(sec["sh_link"])
                for r in sec.iter_relocations():
                    value = dynsym.get_symbol(r["r_info_sym"])["st_value"] if r["r_info_sym"] else 0
                    relocs[r["r_offset"]] = value + r["r_addend"]

        def read(addr: int, n: int) -> bytes:
            for seg in elf.iter_segments():
                if seg["p_type"] == "PT_LOAD" and seg["p_vaddr"] <= addr < seg["p_vaddr"] + seg["p_filesz"]:
                    return seg.data()[addr - seg["p_vaddr"]:addr - seg["p_vaddr"] + n]
            raise ValueError(f"{path}: address {addr:#x} is not in the file")

        def pointer(addr: int) -> int:
            return relocs[addr] if addr in relocs else int.from_bytes(read(addr, 8), "little" if elf.little_endian else "big")

        order = "little" if elf.little_endian else "big"
        count = int.from_bytes(read(syms[f"{family}_kernel_count"]["st_value"], 8), order)
        table, names = syms[f"{family}_kernels"], _feature_names()
        rows = []
        for i in range(count):
            # ck_kernel (csrc/kernel.h, LP64): name pointer, function pointer, unsigned bits, int here, ...
            row = table["st_value"] + table["st_size"] // count * i
            if not int.from_bytes(read(row + 20, 4), order):
                continue                # another build target's row (fn == NULL)
            name = read(pointer(row), 64).split(b"\0")[0].decode()
            fn = pointer(row + 8)
            bits = int.from_bytes(read(row + 16, 4), order)
            rows.append(Kernel(name, funcs.get(fn, f"?{fn:#x}") if fn else None,
                               tuple(n for b, n in enumerate(names) if bits >> b & 1), fn))
        return {"EM_X86_64": "x86_64", "EM_AARCH64": "aarch64"}.get(elf["e_machine"], elf["e_machine"]), rows


def objdump_for(machine: str) -> str | None:
    """An objdump that disassembles ``machine`` code here, or None."""
    host = os.uname().machine
    names = ["objdump"] if machine == host else []
    names += [f"{machine}-linux-gnu-objdump", "llvm-objdump-14", "llvm-objdump"]
    return next((shutil.which(n) for n in names if shutil.which(n)), None)


class Disassembly(dict):
    """function key -> list of (hex bytes, mnemonic, operands). The key is the function's name, or
    ``name@address`` for a name that several functions share (static helpers of different tier
    files, e.g. two ``load_gear``, kept apart when a build does not inline them); ``starts`` maps
    each function's address to its key, so that calls resolve by address, not by name."""

    starts: dict


@functools.lru_cache(maxsize=None)
def disassembly(path: str, machine: str) -> Disassembly:
    """Every function in the ``.text`` of ``path`` (see Disassembly)."""
    tool = objdump_for(machine)
    if tool is None:
        raise FileNotFoundError(f"no objdump for {machine} (binutils-{machine}-linux-gnu)")
    out = subprocess.run([tool, "-d", "-w", "-j", ".text", path], check=True, capture_output=True, text=True).stdout
    heads = re.findall(r"^([0-9a-f]+) <(.+)>:$", out, re.M)
    count = collections.Counter(name for _addr, name in heads)
    funcs, cur = Disassembly(), None
    funcs.starts = {}
    for line in out.splitlines():
        head = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if head:
            addr, name = int(head.group(1), 16), head.group(2)
            key = name if count[name] == 1 else f"{name}@{addr:#x}"
            funcs.starts[addr] = key
            cur = funcs.setdefault(key, [])
            continue
        parts = line.split("\t")
        if cur is not None and len(parts) >= 3 and parts[2].strip():
            mnem, _, ops = " ".join(p.strip() for p in parts[2:]).partition(" ")
            cur.append((parts[1].strip(), mnem, ops.strip()))
    return funcs


_TARGET = re.compile(r"([0-9a-f]+) <([^+>]+)>$")


def closure(funcs: Disassembly, symbol: str) -> list[str]:
    """``symbol`` and every function of the file it reaches by call or jump (not through the PLT)
    or whose address it takes (a call through a pointer), as keys of ``funcs``."""
    seen, todo = [], [symbol]
    while todo:
        name = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen.append(name)
        for _bytes, mnem, ops in funcs[name]:
            m = _TARGET.search(ops)
            if not m or "@plt" in m.group(2):
                continue
            if mnem.startswith(("call", "j", "b")) or mnem == "bl":
                todo.append(funcs.starts.get(int(m.group(1), 16), m.group(2)))
            elif int(m.group(1), 16) in funcs.starts:   # a function's address taken (lea/adr): an
                todo.append(funcs.starts[int(m.group(1), 16)])  # indirect call, as -O0 builds make
    return seen


_SSE41 = set("""pblendvb pblendw blendps blendpd blendvps blendvpd pcmpeqq pextrb pextrd pextrq pinsrb pinsrd pinsrq
pmaxsb pmaxsd pmaxud pmaxuw pminsb pminsd pminud pminuw pmovsxbw pmovsxbd pmovsxbq pmovsxwd pmovsxwq pmovsxdq
pmovzxbw pmovzxbd pmovzxbq pmovzxwd pmovzxwq pmovzxdq pmuldq pmulld ptest roundps roundpd roundss roundsd dpps dppd
insertps extractps mpsadbw phminposuw packusdw movntdqa pshufb palignr phaddw phaddd phaddsw phsubw phsubd phsubsw
pabsb pabsw pabsd pmaddubsw pmulhrsw psignb psignw psignd""".split())
"""SSSE3 and SSE4.1 (declared together as sse4.1: every SSE4.1 CPU has SSSE3)."""
_OTHER_X86 = {
    **dict.fromkeys("pcmpgtq pcmpestri pcmpestrm pcmpistri pcmpistrm crc32".split(), "sse4.2"),
    "popcnt": "popcnt", "lzcnt": "lzcnt",
    **dict.fromkeys("andn bextr blsi blsmsk blsr".split(), "bmi1"),
    **dict.fromkeys("bzhi pdep pext mulx rorx sarx shlx shrx".split(), "bmi2"),
    "adcx": "adx", "adox": "adx", "pclmulqdq": "pclmulqdq",
}
_AVX512BW = re.compile(r"^(vpadd[bw]|vpadds[bw]|vpaddus[bw]|vpsub[bw]|vpsubs[bw]|vpsubus[bw]|vpcmpu?[bw]|"
                       r"vpcmp(eq|gt)[bw]|vpshufb|vpermw|vpermi2w|vpermt2w|vpmov[bw]2m|vpmovm2[bw]|vpm(in|ax)[su][bw]|"
                       r"vpsadbw|vpabs[bw]|vpalignr|vpunpck[hl](bw|wd)|vpmull?h?w|vps[lr]l?a?v?w|vpblendm[bw]|"
                       r"vmovdqu(8|16)|vptestn?m[bw]|kmov[dq]|kadd[dq]|kunpck(dq|wd)|k(and|andn|or|xor|xnor|not|"
                       r"ortest|test|shiftl|shiftr)[dq])$")
_AVX512DQ = re.compile(r"^(vpmullq|kmovb|vpmov[dq]2m|vpmovm2[dq]|v(extract|insert)[if](64x2|32x8)|"
                       r"vbroadcast[if](64x2|32x8)|vfpclass\w+|vrange\w+|vreduce\w+|vcvt\w*qq\w*|"
                       r"k(and|andn|or|xor|xnor|not|ortest|shiftl|shiftr)b|k(test|add)[bw])$")
"""AVX512DQ: the byte forms of the mask instructions, and ktestw/kaddw; kandw, korw, kortestw,
kshiftlw ... are AVX512F (SDM vol. 2, each instruction's CPUID column)."""
_SCALAR = re.compile(r"^(vmov[dq]|vpextr[bwdq]|vpinsr[bwdq]|vmovs[sd]|vcvt\w*s[sid]\w*|"
                     r"v(add|sub|mul|div|min|max|sqrt|cmp|u?comi|rcp14|rsqrt14|getexp|getmant|rndscale|scalef)s[sd]|"
                     r"vfn?m(add|sub)\d+s[sd])$")
"""EVEX forms that the SDM lists under AVX512F alone although their operands are xmm registers."""
_PREFIXES = {0x66, 0x67, 0xF2, 0xF3, 0x2E, 0x3E, 0x26, 0x64, 0x65, 0x36, 0xF0}


def x86_needs(raw: str, mnem: str, ops: str) -> set[str]:
    """CPU features (csrc/cpu.c names, plus names no kernel can declare) an x86-64 instruction
    needs: ``raw`` its bytes in hex as objdump prints them, ``mnem``/``ops`` AT&T syntax."""
    code = [int(b, 16) for b in raw.split()]
    i = 0
    while i < len(code) - 1 and code[i] in _PREFIXES:
        i += 1
    first = code[i] if code else 0
    evex, vex = first == 0x62, first in (0xC4, 0xC5)
    zmm, ymm, xmm = "%zmm" in ops, "%ymm" in ops, "%xmm" in ops
    need = set()
    vector = not _SCALAR.match(mnem)     # EVEX scalar and GPR-move forms are AVX-512F even on xmm16-31
    if evex or zmm or re.search(r"%k[0-7]\b", ops) or mnem.startswith("k"):
        need.add("avx512f")
        if evex and vector and not zmm and (ymm or xmm):
            need.add("avx512vl")
        if _AVX512BW.match(mnem):
            need.add("avx512bw")
        if _AVX512DQ.match(mnem):
            need.add("avx512dq")
    elif vex:
        need.add("avx2" if ymm else "avx")
    if vector and re.search(r"%[xy]mm(1[6-9]|2\d|3[01])\b", ops):
        need.add("avx512vl")
    base = mnem[1:] if (evex or vex) and mnem.startswith("v") else mnem
    if base in ("aesenc", "aesenclast", "aesdec", "aesdeclast", "aesimc", "aeskeygenassist"):
        need.add("vaes" if ymm or zmm else "aes")     # the CPU feature: not a family
    elif base in _SSE41 or _OTHER_X86.get(base) == "sse4.2":
        if not (evex or vex):   # the VEX/EVEX forms need only AVX/AVX2/AVX-512 (added above), per the SDM
            need.add("sse4.1" if base in _SSE41 else "sse4.2")
    elif base in _OTHER_X86:
        need.add(_OTHER_X86[base] if base != "pclmulqdq" or not (ymm or zmm) else "vpclmulqdq")
    elif base.startswith(("sha1", "sha256")):
        need.add("sha")
    elif base.startswith("gf2p8"):
        need.add("gfni")
    elif base.startswith(("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")) or base.startswith(("fmadd", "fmsub")):
        need.add("fma")
    # tzcnt (F3 0F BC) runs as bsf on CPUs without BMI1; compilers emit it for nonzero inputs only
    return need


def arm_needs(raw: str, mnem: str, ops: str) -> set[str]:
    """CPU features an aarch64 instruction needs (Advanced SIMD is baseline, reported as neon)."""
    del raw
    if mnem in ("aese", "aesd", "aesmc", "aesimc"):
        return {"arm-aes"}
    if mnem.startswith("pmull"):
        return {"arm-pmull"}
    if mnem.startswith(("sha1", "sha256", "sha512", "sha3")):
        return {"arm-sha"}
    if re.search(r"\bz\d+\.|\bp\d+/|\bp\d+\.", ops) or mnem in ("ptrue", "whilelo", "whilelt"):
        return {"sve"}
    if re.search(r"\bv\d+\.|\bq\d+\b", ops):
        return {"neon"}
    return set()


BASELINE = {"x86_64": set(), "aarch64": {"neon"}}
"""Features every kernel may use on the machine without declaring them (nothing beyond SSE2 on
x86-64; Advanced SIMD on aarch64, mandatory in its Linux ABI)."""


def _implied(features) -> set[str]:
    out, todo = set(), list(features)
    while todo:
        f = todo.pop()
        if f not in out:
            out.add(f)
            todo += IMPLIES.get(f, ())
    return out


def problems(path: str, family: str) -> dict[str, list[str]]:
    """kernel name -> the rule violations of its compiled code in the extension at ``path``
    (empty lists when it is sound; kernels not compiled into this build are left out)."""
    machine, rows = registry(path, family)
    funcs = disassembly(path, machine)
    needs_of = {"x86_64": x86_needs, "aarch64": arm_needs}.get(machine)
    if needs_of is None:
        raise ValueError(f"{path}: no instruction classes for {machine} (x86_64 and aarch64 only)")
    out = {}
    for k in rows:
        if k.symbol is None:
            continue
        if k.symbol not in funcs:
            out[k.name] = [f"{family}/{k.name}: its function {k.symbol} is not in the disassembly"]
            continue
        allowed = _implied(k.features) | BASELINE.get(machine, set())
        used: dict[str, str] = {}
        for fn in closure(funcs, k.symbol):
            for raw, mnem, ops in funcs[fn]:
                for f in needs_of(raw, mnem, ops):
                    used.setdefault(f, f"{mnem} {ops} (in {fn})")
        bad = [f"{family}/{k.name} ({k.symbol}) uses {f}, which it does not declare: {used[f]}"
               for f in sorted(used) if f not in allowed]
        top = set(k.features) - set().union(*(_implied([f]) - {f} for f in k.features))
        bad += [f"{family}/{k.name} ({k.symbol}) declares {f} but contains no {f} instruction"
                for f in sorted(top) if f not in used]
        out[k.name] = bad
    return out


NO_DEBUG_INFO = "not checked: no debug info"
"""The source check's one line for an extension built without DWARF (-g): never a silent pass."""


class NoDebugInfo(Exception):
    """The extension has no DWARF debug information: its functions' source files cannot be read."""


@functools.lru_cache(maxsize=None)
def defining_files(path: str) -> dict[int, tuple[str, str]]:
    """Function address -> (its compilation unit's source file, the file its definition is in:
    DW_AT_decl_file) for every function with code in the extension at ``path``, read from its
    DWARF (``.debug_info`` and the line programs' file tables; DWARF 2-5). Paths are as the
    compiler was given them (``chunkers/csrc/fastcdc/scalar.c``). NoDebugInfo without DWARF."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        if not elf.has_dwarf_info() or elf.get_section_by_name(".debug_info") is None:
            raise NoDebugInfo(f"{path}: no DWARF debug information (built without -g, or stripped)")
        dwarf = elf.get_dwarf_info()
        out = {}
        for cu in dwarf.iter_CUs():
            top = cu.get_top_DIE()
            unit = _text(top.attributes["DW_AT_name"].value) if "DW_AT_name" in top.attributes else "?"
            lines = dwarf.line_program_for_CU(cu)
            for die in cu.iter_DIEs():
                if die.tag != "DW_TAG_subprogram" or "DW_AT_low_pc" not in die.attributes:
                    continue
                decl = die
                for ref in ("DW_AT_specification", "DW_AT_abstract_origin"):   # an out-of-line instance
                    if "DW_AT_decl_file" not in decl.attributes and ref in decl.attributes:
                        decl = decl.get_DIE_from_attribute(ref)
                index = decl.attributes["DW_AT_decl_file"].value if "DW_AT_decl_file" in decl.attributes else None
                out[die.attributes["DW_AT_low_pc"].value] = (unit, _file_name(lines, index))
        return out


def _text(value) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _file_name(lines, index: int | None) -> str:
    """Entry ``index`` of a line program's file table as a path (DWARF 5 counts from 0, earlier from 1)."""
    if lines is None or index is None:
        return "?"
    entries = lines["file_entry"]
    pos = index if lines.header["version"] >= 5 else index - 1
    if not 0 <= pos < len(entries):
        return "?"
    entry, dirs = entries[pos], lines["include_directory"]
    d = entry.dir_index if lines.header["version"] >= 5 else entry.dir_index - 1
    name = _text(entry.name)
    if 0 <= d < len(dirs) and not os.path.isabs(name) and (entry.dir_index or lines.header["version"] < 5):
        name = os.path.join(_text(dirs[d]), name)
    return os.path.normpath(name)


def own_source(family: str, kernel: str) -> str:
    """The file a kernel row's function must be defined in, relative to ``chunkers/``: its row's own
    ``csrc/<family>/<kernel>.c`` (csrc/kernel.h: "symbol ... defined in <family>/<name>.c")."""
    return f"csrc/{family}/{kernel}.c"


def _is(path: str, source: str) -> bool:
    return path.replace(os.sep, "/").endswith("chunkers/" + source)


def _list_rows(family: str) -> dict[str, tuple]:
    """kernel name -> the kernels its row's freestanding column names (whose files its code may
    call: the -seg forms' serial tails), read from csrc/<family>/kernels.def, whatever the
    build target of the extension checked."""
    text = open(os.path.join(CHUNKERS, "csrc", family, "kernels.def")).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {}
    for row in re.findall(r"CK_KERNEL\((.*?)\)\s*(?=CK_KERNEL|$)", text, re.S):
        name, rest = re.match(r'\s*"([^"]+)"(.*)', row, re.S).groups()
        freestanding = re.search(r'"([^"]*)"', rest)
        out[name] = tuple(freestanding.group(1).split()) if freestanding else ()
    return out


def source_problems(path: str, family: str) -> dict[str, list[str]]:
    """kernel name -> the texts saying its row's function is not compiled from its own source file
    (:func:`own_source`: the compilation unit of its DWARF entry), or is defined in another C file
    (its DW_AT_decl_file; a header is the body its own file instantiates, e.g. seg_roll.h), or
    calls (:func:`closure`) a function compiled from another row's file that its freestanding
    column does not name; empty lists when it is (kernels not compiled into this build are left
    out). NoDebugInfo without DWARF. Two rows of one list with their functions swapped give
    identical output and identical instruction classes; this is where they differ."""
    machine, rows = registry(path, family)
    files = defining_files(path)
    funcs = disassembly(path, machine)
    address = {key: a for a, key in funcs.starts.items()}
    listed = _list_rows(family)
    out = {}
    for k in rows:
        if k.symbol is None:
            continue
        want = own_source(family, k.name)
        if k.address not in files:
            out[k.name] = [f"{family}/{k.name}: its function {k.symbol} has no DWARF entry"]
            continue
        unit, decl = files[k.address]
        bad = [f"is compiled from {unit}, not chunkers/{want}"] if not _is(unit, want) else []
        if not (_is(decl, want) or decl.endswith(".h")):   # a shared body (seg_roll.h) instantiated by the row's file
            bad.append(f"is defined in {decl}, not chunkers/{want}")
        # what it calls for its scan loop: no other row's file, but those its freestanding column names
        others = [own_source(family, n) for n in listed if n != k.name and n not in listed.get(k.name, ())]
        for fn in closure(funcs, k.symbol)[1:] if k.symbol in funcs else []:
            unit_of = files.get(address.get(fn), ("?", "?"))[0]
            if any(_is(unit_of, o) for o in others):
                bad.append(f"calls {fn}, compiled from another row's file {unit_of}")
        out[k.name] = [f"{family}/{k.name}: its function {k.symbol} {b}" for b in bad]
    return out


def all_source_problems() -> dict[tuple[str, str], list[str]]:
    """(family, kernel) -> :func:`source_problems` for every registry of this build's extensions;
    NoDebugInfo if one of them has no DWARF."""
    return {(fam, k): v for fam in REGISTRIES for k, v in source_problems(extension(fam), fam).items()}


def all_problems() -> dict[tuple[str, str], list[str]]:
    """(family, kernel) -> :func:`problems` for every registry of this build's extensions."""
    return {(fam, k): v for fam in REGISTRIES for k, v in problems(extension(fam), fam).items()}


def main(argv=None) -> int:
    """``python -m conformance.tools.isa [EXTENSION ...]``: check the given extensions (default: this
    build's); prints one line per kernel, exit status 1 on any violation."""
    ap = ArgumentParser(prog="python -m conformance.tools.isa", description=main.__doc__.split(":")[0])
    ap.add_argument("extensions", nargs="*", help="chunkers/<family>.*.so files (any architecture objdump reads)")
    args = ap.parse_args(argv)
    paths = args.extensions or [extension(f) for f in REGISTRIES]
    failed = False
    for path in paths:
        family = os.path.basename(path).split(".")[0]
        if family not in REGISTRIES:
            ap.error(f"{path}: not one of the extensions with a kernel registry ({', '.join(REGISTRIES)})")
        machine, _rows = registry(path, family)
        try:
            sources = source_problems(path, family)
        except NoDebugInfo:
            sources = None
        for kernel, bad in problems(path, family).items():
            where = sources.get(kernel, []) if sources is not None else []
            failed |= bool(bad or where)
            source = "source " + NO_DEBUG_INFO if sources is None else "source ok" if not where else "source bad"
            print(f"{machine:8} {family:10} {kernel:10} " + ("FAILED\n  " + "\n  ".join(bad + where) if bad or where
                                                            else f"ISA ok, {source} ({own_source(family, kernel)})"))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
