"""The AES chunkers through the whole driver (spec 06 §6-9, 01 §4-5): chunk-level
identity of every path with evp and with the model for the three chunkers and
nc_level 0..3, split invariance, construction checks in their order, kernel
selection, parameter strings, and the error on a failing portable cipher.

The tests over ``family_kernel`` run through the implementation under test
(conformance.run.engine), on its kernels: under ``--impl X`` they check X."""

import ast
import hashlib
import io
import os
import random
import subprocess
import sys

import pytest

import chunkers
from chunkers import aes as caes
from chunkers.registry import NO_CPU, NOT_BUILT, UNKNOWN
from chunkers.params import ParamsError
from conformance.run import engine
from conformance.cases import catalogue
from conformance.run.engine import bounds_violations, chunk_mismatch, model_sizes
from conformance.spec_values import (AES_SC, KEYS, LCG, SPEC_10_CONST, SPEC_10_GRID, SPEC_10_LCG, SPEC_10_TINY, cuts_of,
                                     ends_sha256, ints, md_rows, tup)
from conformance.spec_values import spec10_chunk_rows
from conformance.tests.test_chunks import ChunkedReader

SEED = 11
AES = pytest.mark.families("aes")


def _inputs():
    rng = random.Random(SEED)
    return [(kind, catalogue.pattern(rng, kind, 12000)) for kind in ("random", "zero-islands", "const-00", "lcg")]


@AES
@pytest.mark.parametrize("name", caes.NAMES)
def test_identity_with_model_and_evp(family_kernel, name):
    """nc_level 0..3, automatic and explicit normal sizes, two keys: the path against the model and evp."""
    kernel = family_kernel[1]
    for nc in range(4):
        for normal_size in (0, 100, 700):
            params = (name, 6, 11, 6, nc)
            for source, data in _inputs():
                for key in ("Z", "KS"):
                    want = model_sizes(params, data, key, normal_size)
                    for k in (kernel, "evp"):
                        m = chunk_mismatch(params, data, want, key=key, kernel=k, source=source,
                                           normal_size=normal_size)
                        assert m is None, str(m)


@AES
@pytest.mark.parametrize("name", caes.NAMES)
def test_split_invariance(family_kernel, name):
    """01 §7: 1-byte, odd-sized and random reads give the cuts of one in-memory scan."""
    kernel = family_kernel[1]
    rng = random.Random(SEED)
    data = catalogue.pattern(rng, "zero-islands", 60000)
    for params in ((name, 6, 12, 7, 0), (name, 8, 13, 9, 3)):
        whole = engine.chunk_sizes(params, data, kernel=kernel)
        assert not bounds_violations(params, whole, len(data))
        for schedule in ([1], [63, 64, 65], [rng.randrange(1, 5000) for _ in range(50)]):
            source = data[:8000] if schedule == [1] else data
            want = whole if source is data else engine.chunk_sizes(params, source, kernel=kernel)
            assert engine.chunk_sizes(params, ChunkedReader(source, schedule), kernel=kernel) == want, \
                (params, schedule[:3])


@pytest.mark.parametrize("name", caes.NAMES)
def test_construction_order_and_errors(name):
    """06 §9.1: min exp >= 6 first, then the common checks, the key, the kernel."""
    cls = caes.CHUNKERS[name]
    with pytest.raises(ParamsError, match="at least 6.*window"):
        cls(bytes(3), 5, 12, 8, 0, kernel="nope")              # wins over the key and kernel errors
    with pytest.raises(ParamsError):
        cls(bytes(3), 6, 6, 3, 0, kernel="nope")                # min + 1 > max, before key and kernel
    with pytest.raises(ParamsError):
        cls(bytes(32), 6, 12, 3, 3)                             # mask bits - nc < 1
    with pytest.raises(ParamsError):
        cls(bytes(32), 6, 12, 47, 2)                            # mask bits + nc > 48
    with pytest.raises(ParamsError):
        cls(bytes(32), 6, 25, 8, 0)                             # max size > 20,971,479
    with pytest.raises(ValueError, match="32 bytes"):
        cls(bytes(3), 6, 12, 8, 0, kernel="nope")               # the key, before the kernel
    with pytest.raises(TypeError):
        cls(None, 6, 12, 8, 0)
    with pytest.raises(TypeError):
        cls(bytes(32), 6.0, 12, 8, 0)
    with pytest.raises(ValueError, match="'nope'"):
        cls(bytes(32), 6, 12, 8, 0, kernel="nope")
    c = cls(bytes(32), 6, 7, 1, 0, 12345, kernel="evp")     # smallest legal sizes; nc 0 ignores normal_size
    assert (c.name, c.kernel, c.min_size, c.max_size, c.normal_size) == (name, "evp", 64, 128, 0)
    assert c.params_tuple == (name, 6, 7, 1, 0)
    with pytest.raises(TypeError, match="already initialized"):
        c.__init__(bytes(32), 6, 12, 8, 0)
    assert cls(bytes(32), 10, 16, 12, 2).normal_size == 4096 - 1024


def test_kernel_selection(monkeypatch):
    """One selector for the three chunkers: kernel= over CHUNKERS_AES_KERNEL over the default; a named
    kernel is a demand, with the reason why it cannot run (spec 06 §8.5)."""
    rows = {k.kernel: k for k in chunkers.kernels() if k.family == "aes"}
    default = next(k.kernel for k in rows.values() if k.default)
    monkeypatch.delenv("CHUNKERS_AES_KERNEL", raising=False)
    assert caes.RabinAES(bytes(32), 6, 12, 8).kernel == default
    monkeypatch.setenv("CHUNKERS_AES_KERNEL", "  EVP ")
    for cls in caes.CHUNKERS.values():
        assert cls(bytes(32), 6, 12, 8).kernel == "evp"
        assert cls(bytes(32), 6, 12, 8, kernel=default).kernel == default
    monkeypatch.setenv("CHUNKERS_AES_KERNEL", "")
    assert caes.ToeplitzAES(bytes(32), 6, 12, 8).kernel == default
    for bad in ("auto", "avx2", "aes-arm64" if "aes-arm64" not in rows else "vaes"):
        monkeypatch.setenv("CHUNKERS_AES_KERNEL", bad)
        with pytest.raises(ValueError, match=f"CHUNKERS_AES_KERNEL='{bad}': {UNKNOWN}.*Valid values here: "
                                             + ", ".join(k for k, row in rows.items() if row.runs)):
            caes.GoldilocksAES(bytes(32), 6, 12, 8)
    for name, row in rows.items():
        if not row.runs:
            assert row.reason.startswith((NO_CPU, NOT_BUILT)), row
            with pytest.raises(ValueError, match=f"kernel='{name}'"):
                caes.RabinAES(bytes(32), 6, 12, 8, kernel=name)


def test_params_strings_and_api():
    for name in caes.NAMES:
        assert chunkers.parse_params(f"{name},19,23,21,2") == (name, 19, 23, 21, 2)
        for bad in (f"{name},19,23,21", f"{name},5,23,6,0", f"{name},19,24,21,2", f"{name},20,20,20,2",
                    f"{name},19,23,21,21"):
            with pytest.raises(ParamsError):
                chunkers.parse_params(bad)
        c = chunkers.make_chunker(f"{name},10,16,12,2", key=bytes(range(32)), kernel="evp", normal_size=5000)
        assert isinstance(c, caes.CHUNKERS[name]) and c.normal_size == 5000
        data = random.Random(1).randbytes(100000)
        assert chunkers.chunk_sizes(f"{name},10,16,12,2", data) == model_sizes(f"{name},10,16,12,2", data)


def test_cli_cut(tmp_path):
    data = random.Random(2).randbytes(50000)
    path = tmp_path / "in.bin"
    path.write_bytes(data)
    out = subprocess.run([sys.executable, "-m", "chunkers", "cut", "--params", "goldilocks-aes,8,12,10,1",
                          "--kernel", "evp", str(path)], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(chunkers.__file__)))
    assert [int(s) for s in out.stdout.split()] == model_sizes("goldilocks-aes,8,12,10,1", data)


@pytest.mark.parametrize("name", caes.NAMES)
def test_evp_failure_stops_chunking(name):
    """06 §9.3: a chunk whose scan fails is never emitted; the error names the chunker."""
    data = random.Random(3).randbytes(20000)
    chunker = caes.CHUNKERS[name](bytes(32), 6, 12, 7, kernel="evp")
    want = chunker.chunk_sizes(data)
    chunks = chunker.chunkify(data)
    assert next(chunks).size == want[0]
    chunker.context._break_evp()
    with pytest.raises(RuntimeError, match=f"^{name}: OpenSSL EVP encryption failed$"):
        next(chunks)
    assert chunker.chunk_sizes(data[:64]) == [64]             # no scan, no cipher: the short final chunk
    with pytest.raises(RuntimeError):
        chunker.chunk_sizes(io.BytesIO(data))


# ---------------------------------------------------------------- spec 10 chunk ends, on every path

def _chunks(name, key, params, kernel, data):
    """``(size, data or None)`` per chunk from the implementation under test (raw key bytes)."""
    return engine.implementation().chunks((name, *params), data, key=key, seed=0, kernel=kernel)


def _ends(name, key, params, kernel, data):
    return cuts_of([size for size, _ in _chunks(name, key, params, kernel, data)])


@AES
@pytest.mark.parametrize("row", spec10_chunk_rows(), ids=lambda r: "%s-%s-%s" % (r[1], r[2], r[0]))
def test_chunk_ends_10_6(family_kernel, row):
    params, name, keyname, first12, count, sha = row
    ends = _ends(name, KEYS[keyname], params, family_kernel[1], AES_SC())
    assert ends[:12] == ints(first12)
    assert len(ends) == int(count)
    assert ends_sha256(ends) == sha.strip("`")


@AES
@pytest.mark.parametrize("row", md_rows(SPEC_10_CONST), ids=lambda r: "-".join(r[:3]))
def test_constant_inputs_10_7_1(family_kernel, row):
    name, source, params, _cut, count, first4, last2 = row
    data = bytes([int(source.split("0x")[1], 16)]) * 300000
    chunks = list(_chunks(name, KEYS["KZ"], tup(params), family_kernel[1], data))
    ends = cuts_of([size for size, _ in chunks])
    assert (len(ends), ends[:4], ends[-2:]) == (int(count), ints(first4), ints(last2))
    assert all((piece is None) == (data[0] == 0) for _, piece in chunks)


@AES
@pytest.mark.parametrize("row", md_rows(SPEC_10_LCG), ids=lambda r: "-".join(r[:2]))
def test_lcg_10_7_2(family_kernel, row):
    name, params, count, first, last2 = row
    ends = _ends(name, KEYS["KZ"], tup(params), family_kernel[1], LCG())
    assert (len(ends), ends[:len(ints(first))], ends[-2:]) == (int(count), ints(first), ints(last2))


@AES
def test_tiny_prefixes_10_7_3(family_kernel):
    rows = md_rows(SPEC_10_TINY)
    assert len(rows) == 7
    for row in rows:
        for name, cell in zip(("toeplitz-aes", "rabin-aes", "goldilocks-aes"), row[1:]):
            ends = _ends(name, KEYS["KZ"], (10, 16, 1, 0), family_kernel[1], AES_SC()[:int(row[0])])
            assert ends == ast.literal_eval(cell), (name, row[0])


@AES
@pytest.mark.parametrize("row", md_rows(SPEC_10_GRID), ids=lambda r: r[0])
def test_frozen_grid_10_7_4(family_kernel, row):
    """borg's regression grid: 144 runs over LCG, SHA-256 of the chunk hashes of each run, then of all."""
    name, want = row[0], row[1].strip("`")
    data = LCG()
    runs = []
    for nc in (0, 2, 3):
        for lo in (6, 7, 11, 12):
            for hi in (15, 17):
                for bits in (7, 10, 12):
                    for key in (KEYS["KA"], KEYS["KB"]):
                        chunks = _chunks(name, key, (lo, hi, bits, nc), family_kernel[1], data)
                        runs.append(hashlib.sha256(b"".join(
                            hashlib.sha256(bytes(size) if piece is None else piece).digest()
                            for size, piece in chunks)).digest())
    assert hashlib.sha256(b"".join(runs)).hexdigest() == want
