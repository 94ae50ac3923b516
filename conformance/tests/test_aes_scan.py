"""The AES chunkers' key material and scan paths (spec 06-09), against the
pure-Python model and published vectors: AES-128 key schedule, UHF tables,
digests, cut values, the scan contract on every path (planted first hits in
every lane, goldilocks edge points and canonical digests) and the portable
path's failure handling. Every path runs here or is reported as skipped with
the reason; evp always runs."""

import hashlib
import random
import re
import struct

import pytest

from chunkers import aes as caes
from conformance.run import engine
from conformance.cases import aes_family, aes_kernels
from conformance.cases.families import FAMILIES
from vectors.model import aes as maes
from vectors.model import csprng, gf2
from vectors.model.goldilocks import P
from conformance.spec_values import (AES_SC, SPEC_10_EDGE, SPEC_10_POSITIONS, SPEC_10_RAW, SPEC_10_WINDOWS, hexval, ints,
                                     md_rows)
from conformance.spec_values import KEYS as SPEC_KEYS
from conformance.spec_values import SPEC_KEYS as KEY_VALUES
from conformance.tests.params import kernel_params

pytestmark = pytest.mark.ours_only     # the AES scan level: our kernels called directly (no adapter has a scan API)
KERNELS = kernel_params(["aes"])
SEED = 20261201
KEYS = {"Z": bytes(32), "KS": bytes(range(32)), "R1": random.Random(1).randbytes(32)}


@pytest.fixture(scope="module")
def cases():
    return FAMILIES["aes"].cases(SEED)


def test_evp_always_runs_and_names_follow_the_platform():
    rows = {k.kernel: k for k in __import__("chunkers").kernels() if k.family == "aes"}
    assert rows["evp"].runs
    assert list(rows) in (["vaes-seg", "vaes256-seg", "vaes", "vaes256", "aes-ni-seg", "aes-ni", "evp"],
                          ["aes-arm64-seg", "aes-arm64", "evp"], ["evp"])
    assert sum(k.default for k in rows.values()) == 1


def test_aes128_key_schedule_fips197():
    """FIPS-197 Appendix A.1 (key expansion of 2b7e1516...)."""
    rk = caes.aes128_round_keys(bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c"))
    assert rk[0].hex() == "2b7e151628aed2a6abf7158809cf4f3c"
    assert rk[1].hex() == "a0fafe1788542cb123a339392a6c7605"
    assert rk[2].hex() == "f2c295f27a96b9435935807a7359f67f"
    assert rk[10].hex() == "d014f9a8c9ee2589e13f0cc8b6630ca6"
    with pytest.raises(ValueError):
        caes.aes128_round_keys(bytes(15))


def test_rabin_irreducibility_matches_model():
    """Rabin's test (08 §3) decides like the model's independent test; P_T of 07 §2 is irreducible."""
    assert caes.rabin_is_irreducible((1 << 64) | 0x1B)
    assert not caes.rabin_is_irreducible((1 << 64) | 1)           # x^64 + 1 = (x + 1)^64
    rng = random.Random(2)
    decisions = set()
    for _ in range(300):
        p = (1 << 64) | rng.getrandbits(64) | 1
        want = gf2.is_irreducible_deg64(p)
        assert caes.rabin_is_irreducible(p) == want, hex(p)
        decisions.add(want)
    assert decisions == {True, False}
    with pytest.raises(ValueError):
        caes.rabin_is_irreducible(1 << 63)


@pytest.mark.parametrize("name", caes.NAMES)
@pytest.mark.parametrize("key", KEYS)
def test_key_expansion_matches_model(name, key):
    ctx, model = caes.AESContext(name, KEYS[key]), maes.expand_key(name, KEYS[key])
    assert ctx.name == name and ctx.A == model.A
    assert ctx.round_keys()[0] == model.A
    assert ctx.candidates_rejected == model.uhf.candidates_rejected
    tables = ctx.tables()
    for table, values in model.uhf.tables().items():
        assert tables[table] == values, table
    if name == "rabin-aes":
        assert ctx.material == model.uhf.P
    elif name == "goldilocks-aes":
        assert (ctx.material, tables["K"], tables["K2"]) == (model.uhf.K, model.uhf.K, model.uhf.K2)
    else:
        assert ctx.material == model.uhf.T


@pytest.mark.parametrize("name", caes.NAMES)
def test_key_stream_injection(name):
    """from_stream reads a given Z exactly as the keyed CSPRNG's Z is read (06 §2.2)."""
    z = csprng.KeyStream(KEYS["KS"]).random_bytes(4096)
    ctx, want = caes.AESContext.from_stream(name, z), caes.AESContext(name, KEYS["KS"])
    assert (ctx.A, ctx.material, ctx.candidates_rejected) == (want.A, want.material, want.candidates_rejected)
    with pytest.raises(ValueError, match="ran out"):
        caes.AESContext.from_stream(name, z[:20])


def test_goldilocks_rejects_candidates_at_or_above_p():
    """09 §2: candidates >= p are rejected, never reduced; 0 and 1 are accepted."""
    a = bytes(range(16))
    stream = a + struct.pack("<4Q", P, (1 << 64) - 1, P + 5, P - 1)
    ctx = caes.AESContext.from_stream("goldilocks-aes", stream)
    assert (ctx.material, ctx.candidates_rejected, ctx.A) == (P - 1, 3, a)
    assert caes.AESContext.from_stream("goldilocks-aes", a + bytes(8)).material == 0
    with pytest.raises(ValueError):
        caes.AESContext.from_stream("goldilocks-aes", a + struct.pack("<Q", P))


def test_context_argument_errors():
    with pytest.raises(ValueError, match="unknown AES chunker"):
        caes.AESContext("aes", bytes(32))
    with pytest.raises(ValueError, match="32 bytes"):
        caes.AESContext("rabin-aes", bytes(31))
    with pytest.raises(TypeError):
        caes.AESContext("rabin-aes", bytearray(32))
    with pytest.raises(TypeError, match="exactly the material"):
        caes.AESContext.from_material("rabin-aes", bytes(16), K=5)
    with pytest.raises(ValueError):
        caes.AESContext.from_material("goldilocks-aes", bytes(16), K=P)
    with pytest.raises(ValueError):
        caes.AESContext.from_material("rabin-aes", bytes(16), P=(1 << 64) | 2)
    with pytest.raises(ValueError):
        caes.AESContext.from_material("toeplitz-aes", bytes(16), T=[0] * 255)
    ctx = caes.AESContext("toeplitz-aes", bytes(32))
    with pytest.raises(TypeError, match="already initialized"):
        ctx.__init__("toeplitz-aes", bytes(32))
    with pytest.raises(ValueError, match="64 bytes"):
        ctx.digest(bytes(63))


def _contexts():
    """(ours, model) context pairs: every chunker and key, and goldilocks at the field's edge points."""
    out = [(caes.AESContext(n, k), maes.expand_key(n, k)) for n in caes.NAMES for k in KEYS.values()]
    for k in aes_family.EDGE_K:
        key = f"goldilocks-aes/K={k:x}"
        out.append((aes_kernels.context(key), aes_kernels.model_context(key)))
    return out


def test_digests_rolls_and_cut_values_match_model():
    """Full digest (by the model's definition, not its Horner form), roll, roll2 and the cut value."""
    rng = random.Random(3)
    for ctx, model in _contexts():
        windows = [bytes(64), b"\xff" * 64, bytes(range(64))] + [rng.randbytes(64) for _ in range(5)]
        for w in windows:
            d = ctx.digest(w)
            assert d == model.uhf.digest_direct(w), (ctx.name, w.hex())
            assert ctx.encrypt(d) == model.encrypt(d)
            assert ctx.cut_value(d) == model.cut_value(d)
        top = (1 << 64) - 1 if ctx.name != "goldilocks-aes" else P - 1
        for d in [0, 1, top, top - 1] + [rng.randrange(top) for _ in range(20)]:
            o0, o1, i0, i1 = (rng.randrange(256) for _ in range(4))
            assert ctx.roll(d, o0, i0) == model.uhf.roll(d, o0, i0)
            assert ctx.roll2(d, o0, o1, i0, i1) == model.uhf.roll2(d, o0, o1, i0, i1)
            assert ctx.roll2(d, o0, o1, i0, i1) == ctx.roll(ctx.roll(d, o0, i0), o1, i1)


@pytest.mark.parametrize("family_kernel", KERNELS)
def test_scan_contract(family_kernel):
    """06 §7.2: n = 0 leaves the state; mask 0 hits at once; a no-hit span exits with the last digest."""
    kernel = family_kernel[1]
    rng = random.Random(4)
    data = rng.randbytes(3000)
    for name in caes.NAMES:
        ctx, model = caes.AESContext(name, KEYS["KS"]), maes.expand_key(name, KEYS["KS"])
        state = ctx.digest(data[36:100])
        assert ctx.scan(data, 100, 0, state, 0, kernel) == (-1, state)
        assert ctx.scan(data, 100, 50, state, 0, kernel) == (0, model.uhf.roll(state, data[36], data[100]))
        for n in (1, 9, 17, 33, 2000, 2900):
            assert ctx.scan(data, 100, n, state, (1 << 64) - 1, kernel) == (-1, ctx.digest(data[36 + n:100 + n]))


@pytest.mark.parametrize("family_kernel", KERNELS)
def test_planted_first_hits_in_every_lane(family_kernel, cases):
    """A first hit at every span position 0..33 (each lane of groups up to 32, then the tail), from odd
    and even alignments, for each chunker: the model puts it there, and so does every path."""
    kernel = family_kernel[1]
    planted = [c for c in cases if c.group.startswith("aes-lane-")]
    assert len(planted) == 3 * 34 * 2
    assert {(aes_kernels.split_key(c.key)[0], int(c.group[9:]), c.align % 2) for c in planted} == \
        {(n, j, a) for n in caes.NAMES for j in range(34) for a in (0, 1)}
    for case in planted:
        want = aes_kernels.model(case)
        assert want[0] == int(case.group[9:]), case.describe()
        assert aes_kernels.run(case, kernel) == want, case.describe()


@pytest.mark.parametrize("family_kernel", KERNELS)
def test_goldilocks_digests_are_canonical(family_kernel, cases):
    """09 §7: every exit digest is in [0, p), also from the field's edge points and from start states
    in [p, 2^64), and equals the model's (which reduces with exact integers)."""
    kernel = family_kernel[1]
    edge = [c for c in cases if c.key.startswith("goldilocks-aes/")]
    assert sum(c.group == "goldilocks-edge" for c in edge) >= 100
    assert any(c.state >= P for c in edge)
    for case in edge:
        got = aes_kernels.run(case, kernel)
        if len(case.data) > aes_kernels.HISTORY:
            assert got[1] < P, case.describe()
        if case.group == "goldilocks-edge":
            assert got == aes_kernels.model(case), case.describe()


def test_edge_point_digests_pass_p_before_reduction():
    """The edge cases really reach sums in [p, 2^64) before the final reduction (so the canonical
    correction is exercised): with K = 1 the roll is d - o + n, e.g. (p - 1) + 5 = p + 4 -> 4."""
    ctx = aes_kernels.context("goldilocks-aes/K=1")
    assert ctx.roll(P - 1, 0, 5) == 4
    assert ctx.roll2(P - 1, 0, 0, 3, 4) == 6
    ctx = aes_kernels.context(f"goldilocks-aes/K={P - 1:x}")       # K = -1: d*K = p - d
    assert ctx.roll(1, 0, 255) == P - 1 + 255 - P


@pytest.mark.parametrize("family_kernel", KERNELS)
def test_evp_failure_is_an_error_never_a_cut(family_kernel):
    """06 §9.3: a failing OpenSSL encryption raises; hardware paths never use OpenSSL and keep working."""
    assert engine.evp_failure_mismatches(family_kernel[1]) == []


def test_scan_argument_errors():
    ctx = caes.AESContext("rabin-aes", bytes(32))
    with pytest.raises(ValueError, match="start"):
        ctx.scan(bytes(100), 63, 1, 0, 0, "evp")
    with pytest.raises(ValueError, match="start"):
        ctx.scan(bytes(100), 64, 37, 0, 0, "evp")
    with pytest.raises(TypeError):
        ctx.scan(bytes(100), 64, 1, 0, 0, None)
    with pytest.raises(ValueError, match="not a kernel of this build"):
        ctx.scan(bytes(100), 64, 1, 0, 0, "auto")


# ---------------------------------------------------------------- spec 10 checkpoint values, on our C code

WINDOWS = {"W0": bytes(64), "W1": bytes(range(64)), "W2": b"\xff" * 64}


@pytest.mark.parametrize("name", caes.NAMES)
@pytest.mark.parametrize("keyname", ["KZ", "KS", "KA"])
def test_key_material_10_2(name, keyname):
    spec = KEY_VALUES[keyname]
    ctx = caes.AESContext(name, SPEC_KEYS[keyname])
    assert ctx.A.hex() == spec["A"] == spec["Z32"][:32]
    tables = ctx.tables()
    for table, i, value in spec[name]["entries"]:
        assert tables[table][i] == value, (table, i)
    line = spec[name]["line"]
    if name == "toeplitz-aes":
        assert hashlib.sha256(struct.pack("<256Q", *ctx.material)).hexdigest() == spec["T_SHA"]
        assert ctx.material[:2] == list(struct.unpack("<2Q", bytes.fromhex(spec["Z32"][32:])))
    elif name == "rabin-aes":
        rejected, p = re.search(r"(\d+) candidates rejected.*P = `0x([0-9a-f]+)`", line).groups()
        assert (ctx.candidates_rejected, ctx.material) == (int(rejected), int(p, 16))
    else:
        k, k2, k64 = re.search(r"K = `0x([0-9a-f]+)`.*K2 = `([0-9a-f]+)`, K\^64 = `([0-9a-f]+)`", line).groups()
        assert (ctx.material, tables["K2"], ctx.candidates_rejected) == (int(k, 16), int(k2, 16), 0)
        assert tables["NOUT64"][1] == P - int(k64, 16)


def test_rabin_candidate_counts_08_2():
    """The four keys of spec 10 need 9, 28, 25 and 101 candidates."""
    counts = [caes.AESContext("rabin-aes", SPEC_KEYS[k]).candidates_rejected + 1 for k in ("KZ", "KS", "KA", "KB")]
    assert counts == [9, 28, 25, 101]


@pytest.mark.parametrize("row", md_rows(SPEC_10_WINDOWS), ids=lambda r: "-".join(r[:3]))
def test_window_digests_10_3(row):
    name, keyname, window, digest, ciphertext, cut = row
    ctx = caes.AESContext(name, SPEC_KEYS[keyname])
    d = ctx.digest(WINDOWS[window])
    assert d == hexval(digest)
    assert ctx.encrypt(d).hex() == ciphertext.strip("`")
    assert ctx.cut_value(d) == hexval(cut)


@pytest.mark.parametrize("row", md_rows(SPEC_10_EDGE), ids=lambda r: r[0] + r[1])
def test_goldilocks_edge_points_10_3_1(row):
    k, window, digest, decimal = row
    ctx = caes.AESContext.from_material("goldilocks-aes", bytes(16), K=hexval(k))
    assert ctx.digest(WINDOWS[window]) == hexval(digest) == int(decimal)


def _cut_value_by_probes(ctx, data, i, state, kernel):
    """c_i read through the path's own cut test: bit b is 0 iff a 1-bit mask hits."""
    return sum(1 << b for b in range(64) if ctx.scan(data, i, 1, state, 1 << b, kernel)[0] < 0)


@pytest.mark.parametrize("family_kernel", KERNELS)
@pytest.mark.parametrize("row", md_rows(SPEC_10_POSITIONS), ids=lambda r: "-".join(r[:3]))
def test_positions_10_4(family_kernel, row):
    """D_i by rolling the path from D_63 (a mask no cut value meets) and c_i through its lane test."""
    kernel = family_kernel[1]
    name, keyname, i, digest, cut = row
    i, sc = int(i), AES_SC()
    ctx = caes.AESContext(name, SPEC_KEYS[keyname])
    d63 = ctx.digest(sc[:64])
    d = d63 if i == 63 else ctx.scan(sc, 64, i - 63, d63, (1 << 64) - 1, kernel)[1]
    assert d == hexval(digest)
    if i > 63:
        assert _cut_value_by_probes(ctx, sc, i, ctx.digest(sc[i - 64:i]), kernel) == hexval(cut)


@pytest.mark.parametrize("family_kernel", KERNELS)
@pytest.mark.parametrize("row", md_rows(SPEC_10_RAW), ids=lambda r: "-".join(r[:2]))
def test_raw_candidates_10_5(family_kernel, row):
    """Every position of SC whose 12 low cut-value bits are 0, by scanning on from each hit."""
    kernel = family_kernel[1]
    name, keyname, first10, total = row
    sc = AES_SC()
    ctx = caes.AESContext(name, SPEC_KEYS[keyname])
    hits, p, state = [], 64, ctx.digest(sc[:64])
    assert ctx.cut_value(state) & 0xFFF                       # position 63 is no candidate
    while True:
        r, state = ctx.scan(sc, p, len(sc) - p, state, 0xFFF, kernel)
        if r < 0:
            break
        hits.append(p + r)
        p += r + 1
    assert hits[:10] == ints(first10)
    assert len(hits) == int(total)
