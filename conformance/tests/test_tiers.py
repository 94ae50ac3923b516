"""Kernel tiers this CPU cannot run, verified in emulators, and the coverage report.

x86-64 kernels run in bochscpu from a freestanding build of their own source
(conformance.emulate); aarch64 and big-endian s390x builds run under
qemu-user (ci/cross-run, with --tiers all). Each verified tier is compared
with the reference kernel over the scan catalogue (conformance.families,
spec 02 §5.6, 03 §7.4).
"""

import shutil
import struct

import pytest

import chunkers
from chunkers.registry import HIDE_ENV, NATIVE, NOT_COVERED, why_not
from conformance import emulate, tiers

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


@needs_emulator
def test_emulator_faults_on_read_past_the_input():
    """The input ends at an unmapped page: a kernel told to read one byte more traps."""
    from conformance.emulate.bind import machine as the_machine
    from conformance.emulate.machine import ARGS, EmulatorFault
    machine = the_machine()
    machine.write(ARGS, struct.pack("<257Q", *[1] * 256, 0))   # gear all 1: fp is never 0, no hit
    p = machine.put_input(bytes(40))
    with pytest.raises(EmulatorFault, match="page fault"):
        machine.call("fastcdc_scan_avx512", ARGS, p, 41, ARGS + 2048, (1 << 64) - 1)


@pytest.mark.skipif(shutil.which(emulate.blob.CC) is None, reason="needs gcc")
def test_freestanding_build_rejects_libc_calls(tmp_path):
    src = tmp_path / "k.c"
    src.write_text("#include <string.h>\nvoid k(char *d, const char *s, unsigned long n) { memcpy(d, s, n); }\n")
    with pytest.raises(emulate.blob.BuildError, match="memcpy"):
        emulate.blob.build([str(src)])


def test_every_kernel_reports_its_coverage(monkeypatch):
    """Hiding AVX-512F makes the avx512 kernels emulated (bochscpu) or not covered, never native."""
    monkeypatch.setenv(HIDE_ENV, "avx512f")
    for st in chunkers.kernels():
        assert st.coverage == NATIVE if st.runs else st.coverage in (f"emulated ({emulate.EMULATOR})", NOT_COVERED)
        if st.kernel == "avx512":
            assert not st.runs
            assert st.coverage == (NOT_COVERED if emulate.unavailable() else f"emulated ({emulate.EMULATOR})")


def test_matrix_names_every_tier_of_every_target():
    rows = tiers.matrix(run=False)
    seen = {(r.family, r.kernel) for r in rows}
    assert {(f, k) for f, kernels in tiers.ALL_KERNELS.items() for k in kernels} <= seen
    assert all(r.coverage == NATIVE or r.coverage == NOT_COVERED or r.coverage.startswith("emulated (")
               for r in rows)


@pytest.mark.parametrize("arch", list(tiers.CROSS))
def test_cross_architecture(arch, tiers_option, record_tier):
    if tiers_option != "all":
        pytest.skip(f"qemu-user run: --tiers all, or ci/cross-{arch}")
    missing = [t for t in (*CROSS_TOOLS[arch], "debootstrap") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not covered: missing {', '.join(missing)}")
    rows = tiers.run_cross(arch)
    for row in rows:
        record_tier(row)
    assert all(r.result == "passed" for r in rows), tiers.format_rows(r for r in rows if r.result != "passed")
