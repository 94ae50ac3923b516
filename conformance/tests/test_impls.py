"""The implementation adapters (impls) and ``--impl``: the borg
adapter against a stand-in ``borg.chunkers`` built on our chunkers
(stub_borg/), deliberately faulty stand-ins that the vectors must catch, an
error (exit 2) when borg is absent unless --allow-missing asks for a skip, and
the pytest option and main job run on another implementation."""

import json
import os
import subprocess
import sys

import pytest

import vectors
from vectors import impls
from conformance.cases.families import FAMILIES
from vectors.impls.families import family_of
from conformance.tests.params import kernel_params
from vectors.generate import run_document

pytestmark = pytest.mark.ours_only
STUB = os.path.join(os.path.dirname(__file__), "stub_borg")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
MAX_INPUT = 1 << 20
"""Vectors with inputs up to this size run through the stand-in (it copies every chunk)."""


@pytest.fixture
def stub_borg(monkeypatch):
    """borg.chunkers importable from stub_borg/, for this test only."""
    for mod in [m for m in sys.modules if m == "borg" or m.startswith("borg.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.syspath_prepend(STUB)
    monkeypatch.delenv("BORG_STUB_FAULT", raising=False)
    yield impls.Borg()
    for mod in [m for m in sys.modules if m == "borg" or m.startswith("borg.")]:
        del sys.modules[mod]


def test_borg_absent_is_a_clean_skip(monkeypatch):
    monkeypatch.setitem(sys.modules, "borg", None)         # makes ``import borg`` fail
    borg = impls.Borg()
    assert "borg is not installed" in borg.unavailable()
    [param] = kernel_params(impl=borg)
    assert param.marks[0].name == "skip" and "borg is not installed" in param.marks[0].kwargs["reason"]


def test_borg_adapter_kernels(stub_borg):
    assert stub_borg.unavailable() is None
    ours = impls.Ours()
    for family in FAMILIES:
        names = {k for k, _ in stub_borg.kernels(family)}
        runnable = {k for k, why in stub_borg.kernels(family) if why is None}
        assert runnable == {k for k, why in ours.kernels(family) if why is None and k in names}, family
        assert runnable, family
    reasons = dict(stub_borg.kernels("fastcdc"))
    assert all(r is None or "avx" in r or "neon" in r for r in reasons.values())


def _first_runnable(impl, family):
    return next(k for k, why in impl.kernels(family) if why is None)


@pytest.mark.parametrize("name", vectors.names())
def test_borg_adapter_passes_the_vectors_on_a_correct_stand_in(stub_borg, name):
    family = family_of(name)
    for kernel in [k for k, why in stub_borg.kernels(family) if why is None][:2]:
        ran, failures = run_document(stub_borg, vectors.load(name), kernel, max_input=MAX_INPUT)
        assert ran > 30 and not failures, "\n".join(failures[:5])


@pytest.mark.parametrize("fault,chunker,kernel", [
    ("seed", "buzhash", None), ("header", "fixed", None), ("merge", "fastcdc", None), ("bytes", "buzhash64", None),
    ("kernel", "fastcdc", "avx2"), ("lane", "fastcdc", "blockwise"), ("lane", "buzhash64", "blockwise"),
    ("tail", "fastcdc", "avx2"), ("tail", "buzhash64", "avx2"), ("mask", "buzhash64", "scalar")])
def test_vectors_catch_a_faulty_stand_in(stub_borg, monkeypatch, fault, chunker, kernel):
    monkeypatch.setenv("BORG_STUB_FAULT", fault)
    kernel = kernel or _first_runnable(stub_borg, family_of(chunker))
    if dict(stub_borg.kernels(family_of(chunker))).get(kernel):
        pytest.skip(f"needs a CPU that runs {kernel}")
    ran, failures = run_document(stub_borg, vectors.load(chunker), kernel, max_input=MAX_INPUT)
    assert failures, f"fault {fault!r} went unnoticed by {ran} vectors"
    assert all(f.startswith(chunker) for f in failures)


@pytest.mark.parametrize("fault,kernel", [("lane", "scalar"), ("tail", "scalar"), ("mask", "blockwise"),
                                          ("endian", "scalar"), ("key", None), ("neon", "scalar")])
def test_a_fault_stays_where_it_is_planted(stub_borg, monkeypatch, fault, kernel):
    """The stand-in's faults reach only their kernel, host kind or keys (FAULTS): the routes that
    find them (qemu-s390x, qemu-aarch64, the fuzzer's key search) are then the only ones that can."""
    monkeypatch.setenv("BORG_STUB_FAULT", fault)
    chunker = {"mask": "buzhash64", "key": "rabin-aes"}.get(fault, "fastcdc")
    kernel = kernel or _first_runnable(stub_borg, family_of(chunker))
    ran, failures = run_document(stub_borg, vectors.load(chunker), kernel, max_input=MAX_INPUT)
    assert ran > 30 and not failures, "\n".join(failures[:3])


def test_the_big_endian_fault_on_a_big_endian_host(stub_borg, monkeypatch):
    """``endian`` is a fault of big-endian hosts only: seen as one (sys.byteorder), the vectors catch it."""
    monkeypatch.setenv("BORG_STUB_FAULT", "endian")
    monkeypatch.setattr(sys, "byteorder", "big")
    ran, failures = run_document(stub_borg, vectors.load("fastcdc"), "scalar", max_input=MAX_INPUT)
    assert failures, f"fault 'endian' went unnoticed by {ran} vectors"


def test_the_key_fault_with_its_key(stub_borg, monkeypatch):
    """``key`` moves the last cut of rabin-aes for keys starting 5a a5 only."""
    import io
    monkeypatch.setenv("BORG_STUB_FAULT", "key")
    from vectors.generators import lcg
    data = lcg(1 << 16)
    for key, differs in ((b"\x5a\xa5" + bytes(30), True), (b"\x5a\xa4" + bytes(30), False)):
        kw = dict(key=key, seed=0, kernel="evp")
        got = stub_borg.chunk_sizes(("rabin-aes", 6, 12, 8, 0), io.BytesIO(data), **kw)
        want = impls.Ours().chunk_sizes(("rabin-aes", 6, 12, 8, 0), data, **kw)
        assert (got != want) == differs and sum(got) == len(data)


class OffByOne(impls.Ours):
    """A wrong implementation: the last chunk of every run loses a byte to the one before it."""

    name = "off-by-one"

    def chunks(self, params, source, **kw):
        got = [(size, None if data is None else bytes(data)) for size, data in super().chunks(params, source, **kw)]
        if len(got) >= 2 and got[-1][0] >= 2:
            (a, da), (b, db) = got[-2:]
            whole = (bytes(a) if da is None else da) + (bytes(b) if db is None else db)
            got[-2:] = [(a + 1, whole[:a + 1]), (b - 1, whole[a + 1:])]
        return iter(got)


def test_module_attribute_implementation():
    impl = impls.get("conformance.tests.test_impls:OffByOne")
    assert impl.name == "off-by-one"
    ran, failures = run_document(impl, vectors.load("fixed"), "single")
    assert len(failures) > 10
    with pytest.raises(ValueError):
        impls.get("nonsense")
    with pytest.raises(ValueError):
        impls.get("conformance.tests.test_impls:MAX_INPUT")


def _run(args, fault=None, stub=True):
    env = {k: v for k, v in os.environ.items() if k not in ("BORG_STUB_FAULT", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join(([STUB] if stub else []) + [ROOT])
    if fault:
        env["BORG_STUB_FAULT"] = fault
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_main_job_with_impl(tmp_path):
    job = ["-m", "conformance", "--impl", "borg", "--family", "fixed", "--corpus-size", "4096"]
    r = _run(job + ["--report", str(tmp_path / "r.json")])
    assert r.returncode == 0 and "passed" in r.stdout, r.stdout + r.stderr
    assert "conformance matrix of borg (each borg kernel vs our chunkers' cut points" in " ".join(r.stdout.split())
    with open(tmp_path / "r.json") as f:        # the families chosen only, as on the console
        assert [d["family"] for d in json.load(f)["kernel_differences"]] in ([], ["fixed"])
    r = _run(job, fault="header")
    assert r.returncode == 1 and "golden vector" in r.stdout, r.stdout + r.stderr
    r = _run(job, stub=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not installed" in r.stderr, r.stdout + r.stderr
    r = _run(job + ["--allow-missing"], stub=False)
    assert r.returncode == 0 and "skipped" in r.stdout and "not installed" in r.stdout, r.stdout + r.stderr


def test_pytest_impl_option():
    run = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", "--impl", "borg",
           "conformance/tests/test_vectors.py::test_vectors", "-k", "fixed"]
    r = _run(run)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
    assert "1 tests ran against borg (1 passed)" in r.stdout, r.stdout
    r = _run(run[:-2], stub=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "borg is not installed" in r.stderr, \
        r.stdout + r.stderr
    r = _run(run[:-2] + ["--allow-missing"], stub=False)
    assert r.returncode == 0 and "1 skipped" in r.stdout and "borg is not installed" in r.stdout, \
        r.stdout + r.stderr


def test_kernel_differences_of_the_chosen_families_only():
    """`--impl X --family fixed` listed the kernel differences of every family."""
    from conformance.run import audit
    diffs = audit.kernel_differences(impls.Model(), ["fixed", "aes", "fixed"])     # each family once
    assert [f for f, _, _ in diffs] == ["fixed", "aes"] and diffs[0] == ("fixed", ["model"], ["single"])
    assert len(audit.kernel_differences(impls.Model())) == len(audit.FAMILIES)
