"""The static hot-loop analysis (conformance.tools.mca): which loop it takes, what a pass of it
runs, and that every byte-scanning kernel marks its hot loop (a new kernel without a
CK_MCA_LOOP mark fails here, not silently in the prediction table)."""

import shutil
import subprocess

import pytest

from chunkers.registry import PORTABLE, rows
from conformance.tools import mca

ASM = """\
f:
\tmovq\t%rdi, %rax
.L2:
#APP
\t# ck-mca-loop 8
#NO_APP
\tmovzbl\t(%rsi,%rax), %ecx
\ttestq\t%rcx, %rdx
\tje\t.L9
\tcmpq\t$3, %rcx
\tjne\t.L3
\taddq\t$100, %r8
\taddq\t$101, %r8
.L3:
\taddq\t$1, %rax
\tcmpq\t%rax, %r10
\tjne\t.L2
\tret
.L5:
\taddq\t$1, %r9
\tjne\t.L5
.L9:
\tret
"""
"""A marked loop with an exit (je .L9: leaves the loop), a skipped if-body (jne .L3: a label
inside it) and an unmarked loop after it."""


def test_a_pass_skips_if_bodies_and_stays_on_after_exits():
    """The pass takes a branch to a label inside the loop (the if-body is the rare path) and
    falls through one that leaves it; the unmarked loop is not a candidate."""
    (loop,) = mca.loops(ASM)
    insns = [line.split()[0] for line in loop.lines]
    assert loop.label == ".L2" and loop.bytes == 8
    assert insns == ["movzbl", "testq", "je", "cmpq", "jne", "addq", "cmpq", "jne"]


def test_the_loop_scanning_most_bytes_per_pass_is_the_hot_one():
    """A file with a kernel's own loop and the sequential tail it shares: the one naming more
    bytes per pass wins; two marks in one pass (an unrolled body) add up; of two loops with the
    same mark, the one with fewer instructions."""
    tail = ".L20:\n#APP\n\t# ck-mca-loop 1\n#NO_APP\n\taddq\t$1, %rax\n\tjne\t.L20\n"
    unrolled = ASM.replace("\tcmpq\t%rax, %r10\n", "#APP\n\t# ck-mca-loop 8\n#NO_APP\n\tcmpq\t%rax, %r10\n")
    assert mca.hot_loop(ASM + tail).bytes == 8
    assert mca.hot_loop(unrolled + tail).bytes == 16
    assert mca.hot_loop(tail).bytes == 1
    assert mca.hot_loop("f:\n\tret\n") is None
    # the same mark in a copy laid out around a rare path (more instructions): the short one is hot
    rare = ".L30:\n#APP\n\t# ck-mca-loop 8\n#NO_APP\n" + "\taesenc\t%xmm1, %xmm0\n" * 20 + "\tjne\t.L30\n"
    assert len(mca.hot_loop(rare + ASM).lines) == 8


def test_the_mark_is_nothing_in_the_shipped_build():
    """Without -DCK_MCA (setup.py's build) the mark leaves no trace in the code."""
    if not shutil.which("gcc"):
        pytest.skip("gcc not on PATH")
    src = mca.CSRC / "fastcdc" / "seg4.c"
    plain = subprocess.run(["gcc", *mca.setup_cflags(), f"-I{mca.CSRC}", "-S", "-o", "-", str(src)],
                           capture_output=True, text=True, check=True).stdout
    assert "ck-mca-loop" not in plain
    assert "ck-mca-loop" in mca.compile_asm(src)


@pytest.mark.parametrize("family", mca.FAMILIES)
def test_every_kernel_marks_its_hot_loop(family):
    """Each x86-64 and portable kernel of the byte-scanning families has a marked loop that
    scans at least one byte per pass (its CK_MCA_LOOP), found in its own C file."""
    if not shutil.which("gcc"):
        pytest.skip("gcc not on PATH")
    kernels = mca.targets(family)
    assert kernels
    for row in kernels:
        loop = mca.hot_loop(mca.compile_asm(mca.CSRC / row.source))
        assert loop is not None and loop.bytes >= 1 and loop.lines, (family, row.name)


def test_predictions_for_both_cpu_kinds():
    """With an llvm-mca that knows Zen 4, every kernel gets a positive prediction per CPU."""
    try:
        tool = mca.find_mca()
    except LookupError as e:
        pytest.skip(str(e))
    found = mca.analyse(families=("fastcdc",), mca=tool)
    assert {r["kernel"] for r in found} == {r.name for r in rows("fastcdc") if r.target in ("x86-64", PORTABLE)}
    for r in found:
        for cpu in mca.MCPUS:
            assert r["cpus"][cpu]["cycles_per_byte"] > 0


def test_bad_cpu_name_is_one_line_and_exit_2(capsys):
    """An --mcpu llvm-mca does not know (it would only warn and model a generic CPU) is refused."""
    try:
        mca.find_mca()
    except LookupError as e:
        pytest.skip(str(e))
    assert mca.main(["--mcpu", "nosuchcpu", "--family", "buzhash"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mca: ") and "-mcpu=nosuchcpu" in err and "\n" not in err
