"""The kernel asked for is the code that ran (provenance), its instructions are its tier's
(conformance.tools.isa), and hiding a feature it declares refuses it (feature gating).

A dispatch fault gives output identical to the reference, so the identity
checks cannot see it: these tests read what the kernel function itself
recorded (csrc/kernel.h, CK_PROVENANCE) and what the compiled function contains.
"""

import random

import pytest

import chunkers
from chunkers.families import CHUNKERS, chunkers_of, kernel_families
from chunkers.registry import HIDE_ENV, NO_CPU
from conformance.run import proof
from conformance.tools import emulate, isa
from vectors.impls import provenance
from conformance.cases.families import FAMILIES
from conformance.tests.params import kernel_params

pytestmark = pytest.mark.ours_only

PROVEN = kernel_params(list(provenance.MODULES))
PARAMS = {"fastcdc": "fastcdc,6,12,8,2", "buzhash64": "buzhash64,6,12,8,65,2", "buzhash": "buzhash,6,12,8,65",
          "aes": "rabin-aes,6,12,8,2"}
_SMALL = {"chunk_min": 6, "chunk_max": 12, "chunk_mask": 8, "window_size": 65, "nc_level": 2}
PARAMS.update({f: ",".join([c, *(str(_SMALL[x]) for x in CHUNKERS[c].fields)])   # a family of the table not above
               for f in kernel_families() if f not in PARAMS for c in chunkers_of(f)[:1]})


def _case(family: str):
    # the shortest span of the family's scan catalogue (seed 1) with at least 512 steps, with the
    # all-ones mask: a hit is then all but impossible, so every block of the kernel runs
    case = min((c for c in FAMILIES[family].cases(1) if len(c.data) >= 512 + c.window + 64), key=lambda c: len(c.data))
    return case._replace(mask=(1 << (32 if family == "buzhash" else 64)) - 1)   # buzhash: u32 hashes


@pytest.mark.parametrize("family_kernel", PROVEN)
def test_scan_records_its_own_kernel(family_kernel, record_provenance):
    family, kernel = family_kernel
    provenance.take(family)
    FAMILIES[family].run(_case(family), kernel)
    ran = provenance.take(family)
    assert ran == kernel, f"{family}/{kernel}: the scan ran {family}/{ran}'s code"
    record_provenance(family, kernel, "ran: own code (scan)")


@pytest.mark.parametrize("family_kernel", PROVEN)
def test_chunker_reports_the_kernel_that_scanned(family_kernel, record_provenance):
    family, kernel = family_kernel
    chunker = chunkers.make_chunker(PARAMS[family], kernel=kernel)
    assert chunker.ran_kernel is None                    # nothing scanned yet
    chunker.chunk_sizes(random.Random(14).randbytes(1 << 16))
    assert (chunker.kernel, chunker.ran_kernel) == (kernel, kernel), f"{family}/{kernel}: other code ran"
    record_provenance(family, kernel, "ran: own code (chunks)")


def test_single_implementation_has_nothing_to_prove():
    assert "fixed" not in provenance.MODULES
    assert provenance.note("ours", "fixed", "single", False) == provenance.SINGLE


@pytest.mark.parametrize("family", list(emulate.FREESTANDING))
def test_emulated_kernels_record_their_own_kernel(family, record_provenance):
    if emulate.unavailable():
        pytest.skip(emulate.unavailable())
    case = _case(family)
    for kernel in emulate.FREESTANDING[family]:
        before = provenance.PROVEN[family, kernel]
        got = emulate.runner(family, kernel)(case)
        assert not isinstance(got, str), got
        assert provenance.PROVEN[family, kernel] == before + 1, f"{family}/{kernel}: the emulated run recorded nothing"
        record_provenance(family, kernel, f"ran: own code ({emulate.EMULATOR})")


@pytest.mark.parametrize("family", list(emulate.FREESTANDING))
def test_emulated_kernels_without_avx512_state(family, record_provenance):
    # AVX-512 disabled in the emulated CPU (XCR0 without opmask/zmm state: any EVEX instruction
    # raises #UD): kernels that do not declare avx512f still run and agree with the reference,
    # and those that declare it fault (which shows the knob works)
    if emulate.unavailable():
        pytest.skip(emulate.unavailable())
    from conformance.tools.emulate import bind, machine
    case, fam = _case(family), FAMILIES[family]
    m = bind.machine()
    m.xcr0 = machine.XCR0_AVX
    try:
        for kernel in emulate.FREESTANDING[family]:
            got = emulate.runner(family, kernel)(case)
            if "avx512f" in proof.declared(family)[kernel][1]:
                assert isinstance(got, str) and "#UD" in got, f"{family}/{kernel} ran without AVX-512 state"
            else:
                assert got == fam.run(case, fam.reference), f"{family}/{kernel} needs AVX-512 state: {got}"
                record_provenance(family, kernel, "runs without AVX-512 (bochscpu)")
    finally:
        m.xcr0 = machine.XCR0_AVX512


def test_wrong_code_names_both_kernels():
    assert provenance.wrong_code("fastcdc", "avx512", "avx512") is None
    assert provenance.wrong_code("fastcdc", "avx512", None) is None      # no kernel call: nothing to prove
    text = provenance.wrong_code("fastcdc", "avx512", "avx2")
    assert "fastcdc/avx512" in text and "fastcdc/avx2" in text


@pytest.mark.parametrize("family", list(isa.REGISTRIES))
def test_instructions_are_the_tiers(family, record_provenance):
    machine, rows = isa.registry(isa.extension(family), family)
    # the rows read from the ELF file are the registry the running extension reports
    assert {k.name: (k.symbol is not None, k.features) for k in rows} == proof.declared(family)
    problems = isa.problems(isa.extension(family), family)
    assert problems, f"{family}: no compiled kernel found in the registry"
    assert not [p for ps in problems.values() for p in ps], "\n".join(p for ps in problems.values() for p in ps)
    for kernel in problems:
        record_provenance(family, kernel, f"ISA ok ({machine})")


@pytest.mark.parametrize("raw, mnem, ops, needs", [
    ("62 f1 fd 48 6f 05 00 00 00 00", "vmovdqa64", "0x0(%rip),%zmm0", {"avx512f"}),
    ("c5 fd 6f 00", "vmovdqa", "(%rax),%ymm0", {"avx2"}),
    ("c5 f9 6f 00", "vmovdqa", "(%rax),%xmm0", {"avx"}),
    ("66 0f 38 dc c1", "aesenc", "%xmm1,%xmm0", {"aes"}),
    ("c4 e2 7d dc c1", "vaesenc", "%ymm1,%ymm0,%ymm0", {"vaes", "avx2"}),
    ("62 f2 7d 48 dc c1", "vaesenc", "%zmm1,%zmm0,%zmm0", {"vaes", "avx512f"}),
    ("62 f1 fd 28 d4 c1", "vpaddq", "%ymm1,%ymm0,%ymm0", {"avx512f", "avx512vl"}),
    ("62 61 fd 08 6e e7", "vmovq", "%r15,%xmm28", {"avx512f"}),
    ("66 0f 38 29 c1", "pcmpeqq", "%xmm1,%xmm0", {"sse4.1"}),
    ("66 0f d4 c1", "paddq", "%xmm1,%xmm0", set()),
    ("f3 48 0f b8 c0", "popcnt", "%rax,%rax", {"popcnt"}),
    ("c5 f8 93 c1", "kmovw", "%k1,%eax", {"avx512f"}),
    # VEX forms of SSE4.x instructions need AVX/AVX2 only (clang -O2 emits vpcmpgtq in vaes256-seg)
    ("66 0f 38 37 c1", "pcmpgtq", "%xmm1,%xmm0", {"sse4.2"}),
    ("c4 e2 79 37 c1", "vpcmpgtq", "%xmm1,%xmm0,%xmm0", {"avx"}),
    ("c4 e2 7d 37 c1", "vpcmpgtq", "%ymm1,%ymm0,%ymm0", {"avx2"}),
    ("c4 e2 7d 00 c1", "vpshufb", "%ymm1,%ymm0,%ymm0", {"avx2"}),
    # mask instructions: word forms AVX512F (clang -O2 emits kandw in vaes-seg), byte forms AVX512DQ
    ("c5 fc 41 c1", "kandw", "%k1,%k0,%k0", {"avx512f"}),
    ("c5 fd 41 c1", "kandb", "%k1,%k0,%k0", {"avx512f", "avx512dq"}),
    ("c5 f8 99 c1", "ktestw", "%k1,%k0", {"avx512f", "avx512dq"}),
    ("c5 f8 98 c1", "kortestw", "%k1,%k0", {"avx512f"}),
])
def test_x86_instruction_classes(raw, mnem, ops, needs):
    assert isa.x86_needs(raw, mnem, ops) == needs


@pytest.mark.parametrize("mnem, ops, needs", [
    ("aese", "v0.16b, v1.16b", {"arm-aes"}), ("aesmc", "v0.16b, v0.16b", {"arm-aes"}),
    ("eor", "v0.16b, v1.16b, v2.16b", {"neon"}), ("add", "x0, x1, x2", set()),
    ("pmull", "v0.1q, v1.1d, v2.1d", {"arm-pmull"}),
])
def test_arm_instruction_classes(mnem, ops, needs):
    assert isa.arm_needs("", mnem, ops) == needs


@pytest.mark.parametrize("family_kernel", [(r.family, r.kernel) for r in chunkers.kernels()
                                           if r.family in provenance.MODULES])
def test_hiding_a_declared_feature_refuses_the_kernel(family_kernel, monkeypatch):
    # every registry row, runnable here or not: the error must name the hidden feature
    family, kernel = family_kernel
    built, needs = proof.declared(family)[kernel]
    if not (built and needs):
        pytest.skip(f"{family}/{kernel} declares no CPU feature or is not built")
    assert proof.gating_problems(family, kernel) == []
    for feature in needs:           # and through the chunker's constructor, as users see it
        monkeypatch.setenv(HIDE_ENV, feature)
        with pytest.raises(ValueError, match=f"{NO_CPU}.*{feature}"):
            chunkers.make_chunker(PARAMS[family], kernel=kernel)
