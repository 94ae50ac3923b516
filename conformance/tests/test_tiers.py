"""Kernel tiers this CPU cannot run, verified in emulators, and the coverage report.

x86-64 kernels run in bochscpu from a freestanding build of their own source
(conformance.tools.emulate); aarch64 and big-endian s390x builds run under
qemu-user (ci/cross-run, with --tiers all). Each verified tier is compared
with the reference kernel over the scan catalogue (conformance.cases.families,
spec 02 §5.6, 03 §7.4, 06 §8.6).
"""

import shutil
import struct

import pytest

import chunkers
from chunkers.registry import HIDE_ENV, NATIVE, NOT_COVERED, why_not
from conformance.tools import emulate, tiers
from conformance.cases.families import FAMILIES

EMULATED = [(f, k) for f, kernels in emulate.FREESTANDING.items() for k in kernels]
CROSS_TOOLS = {"aarch64": ("qemu-aarch64", "aarch64-linux-gnu-gcc"), "s390x": ("qemu-s390x", "s390x-linux-gnu-gcc")}

needs_emulator = pytest.mark.skipif(emulate.unavailable() is not None,
                                    reason=f"not covered: {emulate.unavailable()}")


@pytest.mark.parametrize(("family", "kernel"), EMULATED)
def test_emulated_kernel_identity(family, kernel, tiers_option, record_tier):
    if why_not(family, kernel) is None and tiers_option != "all":
        pytest.skip("runs natively here (the native identity tests cover it); --tiers all emulates it too")
    if emulate.unavailable():
        pytest.skip(f"not covered: {emulate.unavailable()}")
    row = tiers.checked(family, kernel, tiers.host_target(), f"emulated ({emulate.EMULATOR})",
                        emulate.runner(family, kernel))
    record_tier(row)
    assert row.result == "passed", row.detail


@pytest.mark.parametrize(("family", "kernel"), EMULATED)
def test_emulator_agrees_with_this_cpu(family, kernel, tiers_option):
    """The emulator as the oracle for CPUs without a kernel's instructions is itself checked where
    this CPU has them: emulated and native runs of the same kernel agree case by case (with AVX-512
    and VAES: 512-bit and 256-bit vaesenc, the lane tests and extraction)."""
    if tiers_option != "all":
        pytest.skip("--tiers all: checks the emulator against this CPU")
    if why_not(family, kernel) is not None:
        pytest.skip(f"no native run to compare with: {why_not(family, kernel)}")
    if emulate.unavailable():
        pytest.skip(f"not covered: {emulate.unavailable()}")
    fam, run = FAMILIES[family], emulate.runner(family, kernel)
    differ = [case for case in fam.cases(tiers.SEED) if run(case) != fam.run(case, kernel)]
    assert not differ, f"{len(differ)} cases differ, first: {differ[0].describe()}"


@needs_emulator
def test_emulator_faults_on_read_past_the_input():
    """The input ends at an unmapped page: a kernel told to read one byte more traps."""
    from conformance.tools.emulate.bind import machine as the_machine
    from conformance.tools.emulate.machine import ARGS, EmulatorFault
    machine = the_machine()
    machine.write(ARGS, struct.pack("<257Q", *[1] * 256, 0))   # gear all 1: fp is never 0, no hit
    p = machine.put_input(bytes(40))
    with pytest.raises(EmulatorFault, match="page fault"):
        machine.call("fastcdc_scan_avx512", ARGS, p, 41, ARGS + 2048, (1 << 64) - 1)


def test_aes_context_bytes_carry_the_key_material():
    """What the emulated AES kernels read (AESContext.context_bytes, laid out as csrc/aes/aes.h's
    aes_ctx): the UHF tables first, the round keys once, and no host pointer (the last member)."""
    from chunkers.aes import AESContext
    ctx = AESContext("toeplitz-aes", bytes(range(32)))
    raw, t = ctx.context_bytes(), ctx.tables()
    assert raw.startswith(struct.pack("=1024Q", *t["T"], *t["IN1"], *t["OUT64"], *t["OUT65"]))
    assert raw.count(b"".join(ctx.round_keys())) == 1
    assert raw[-8:] == bytes(8)
    with pytest.raises(TypeError):
        AESContext.__new__(AESContext).context_bytes()


@pytest.mark.skipif(shutil.which(emulate.blob.CC) is None, reason="needs gcc")
def test_freestanding_build_rejects_libc_calls(tmp_path):
    src = tmp_path / "k.c"
    src.write_text("#include <string.h>\nvoid k(char *d, const char *s, unsigned long n) { memcpy(d, s, n); }\n")
    with pytest.raises(emulate.blob.BuildError, match="memcpy"):
        emulate.blob.build([str(src)])


AVX512_KERNELS = {("fastcdc", "avx512"), ("buzhash64", "avx512"), ("aes", "vaes")}
"""The x86-64 kernels that need AVX-512F (spec 01 §11.2, 06 §8.4)."""


def test_every_kernel_reports_its_coverage(monkeypatch):
    """Hiding AVX-512F makes the AVX-512 kernels emulated (bochscpu) or not covered, never native."""
    monkeypatch.setenv(HIDE_ENV, "avx512f")
    rows = chunkers.kernels()
    for st in rows:
        assert st.coverage == NATIVE if st.runs else st.coverage in (f"emulated ({emulate.EMULATOR})", NOT_COVERED)
        if (st.family, st.kernel) in AVX512_KERNELS:
            assert not st.runs
            assert st.coverage == (NOT_COVERED if emulate.unavailable() else f"emulated ({emulate.EMULATOR})")
    if tiers.host_target() == "x86-64":
        assert AVX512_KERNELS <= {(st.family, st.kernel) for st in rows}


def test_matrix_names_every_tier_of_every_target():
    rows = tiers.matrix(run=False)
    seen = {(r.family, r.kernel) for r in rows}
    assert {(f, k) for f, kernels in tiers.ALL_KERNELS.items() for k in kernels} <= seen
    assert all(r.coverage == NATIVE or r.coverage == NOT_COVERED or r.coverage.startswith("emulated (")
               for r in rows)


@pytest.mark.timeout(1200)     # a Debian root, a cross build and the qemu run: about 4 minutes from scratch
@pytest.mark.parametrize("arch", list(tiers.CROSS))
def test_cross_architecture(arch, tiers_option, record_tier):
    if tiers_option != "all":
        pytest.skip(f"qemu-user run: --tiers all, or ci/cross-{arch}")
    missing = [t for t in (*CROSS_TOOLS[arch], "debootstrap") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not covered: missing {', '.join(missing)}")
    rows = tiers.run_cross([arch])
    for row in rows:
        record_tier(row)
    assert all(r.result == "passed" for r in rows), tiers.format_rows(r for r in rows if r.result != "passed")
    assert set(tiers.required(tiers.CROSS[arch])) <= {(r.family, r.kernel) for r in rows}
