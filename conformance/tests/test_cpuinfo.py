"""The CPU's identity and the CPU class whose built-in defaults are the sequential loops
(chunkers.cpuinfo; docs/kernels.md "Built-in defaults"), against the documented rule
(conformance.spec_values.DOCUMENTED_SEQUENTIAL_FIRST, read by conformance.run.selection)."""

import platform

import pytest

import chunkers
from chunkers import cpuinfo, registry
from conformance.run.selection import documented_defaults

pytestmark = pytest.mark.ours_only

ICE_LAKE = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
model name\t: Intel(R) Xeon(R) Processor @ 2.80GHz
flags\t\t: fpu sse4_1 aes avx2 avx512f avx512bw vaes

processor\t: 1
vendor_id\t: AuthenticAMD
"""


def _ident(vendor="GenuineIntel", family=6, flags="avx2 avx512f"):
    return cpuinfo.Identity("x", vendor, family, 106, frozenset(flags.split()))


def test_identity_is_the_first_processors_block(tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text(ICE_LAKE)
    ident = cpuinfo.identity(str(path))
    assert ident == cpuinfo.Identity("Intel(R) Xeon(R) Processor @ 2.80GHz", "GenuineIntel", 6, 106,
                                     frozenset({"fpu", "sse4_1", "aes", "avx2", "avx512f", "avx512bw", "vaes"}))
    assert cpuinfo.identity(str(tmp_path / "none")) is None
    other = tmp_path / "other"
    other.write_text("vendor_id : GenuineIntel\ncpu family : six\n")     # no number, no flags: said as unknown
    ident = cpuinfo.identity(str(other))
    assert (ident.family, ident.model, ident.flags) == (None, None, frozenset())


@pytest.mark.parametrize("ident, first", [
    (_ident(), True),                                           # Intel, AVX-512, no AVX512-FP16: two load ports
    (_ident(flags="avx2 avx512f avx512_fp16"), False),          # Sapphire Rapids and later
    (_ident(flags="avx2"), False),                              # no AVX-512: not of the class
    (_ident(vendor="AuthenticAMD", family=25), False),          # Zen 4
    (_ident(vendor="AuthenticAMD", family=26), False),          # Zen 5
    (_ident(family=15), False),                                 # another Intel family
])
def test_the_sequential_first_class_is_the_documented_one(ident, first):
    assert cpuinfo.sequential_first(ident) is first
    table = documented_defaults(ident)
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert (table["fastcdc"], table["buzhash64"], table["buzhash"]) == (
            ("scalar",) if first else ("seg4",), ("stride4",), ("stride4",))
    assert cpuinfo.sequential_first(None) is cpuinfo.sequential_first(cpuinfo.identity())


def test_no_identity_is_not_of_the_class(monkeypatch):
    monkeypatch.setattr(cpuinfo, "identity", lambda: None)
    assert cpuinfo.sequential_first() is False


@pytest.mark.parametrize("first", [True, False])
def test_the_class_moves_the_gear_reference_first(monkeypatch, first):
    """On a CPU of the class, fastcdc prefers its reference kernel (the sequential loop), then its
    ranks; buzhash64, buzhash and aes keep their ranks; a named kernel still wins."""
    monkeypatch.setattr(registry, "sequential_first", lambda: False)
    ranks = {f: registry.preference(f) for f in ("fastcdc", "buzhash64", "buzhash", "aes")}
    monkeypatch.setattr(registry, "sequential_first", lambda: first)
    ref, order = registry.reference("fastcdc"), registry.preference("fastcdc")
    assert (order[0] == ref) is (first or ranks["fastcdc"][0] == ref)
    assert sorted(order) == sorted(set(ranks["fastcdc"]) | ({ref} if first else set()))
    for family in ("buzhash64", "buzhash", "aes"):
        assert registry.preference(family) == ranks[family]
    for var in ("CHUNKERS_FASTCDC_KERNEL", "CHUNKERS_DEFAULTS"):
        monkeypatch.delenv(var, raising=False)
    made = chunkers.make_chunker("fastcdc,19,23,21,2").kernel
    assert made == next(k for k in registry.preference("fastcdc") if registry.why_not("fastcdc", k) is None)
    if first:
        assert made == "scalar"
    monkeypatch.setenv("CHUNKERS_FASTCDC_KERNEL", "blockwise")
    assert chunkers.make_chunker("fastcdc,19,23,21,2").kernel == "blockwise"
