"""Golden-value tests for the independent reference model (the model package).

Every expected number below is transcribed from the specification
(shared/spec/01..10).  Tables are copied verbatim from the spec text into the
string constants ``SPEC_*`` and parsed here; scalar values are written inline
with the section they come from.  Nothing is read from shared/ at run time.

Tests taking more than a few seconds are marked ``slow``.
"""

import ast
import functools
import hashlib
import random
import re
import struct

import pytest

from vectors import generators
from vectors import model
from vectors.model import (aes, buzhash, buzhash64, csprng, driver, fastcdc,
                               fixed, gf2, goldilocks, masks, rabin, toeplitz)
from conformance.spec_values import (  # noqa: F401
    SPEC_KEYS, spec10_chunk_rows,
    AES_SC, INPUT, K0, K1, KA, KB,
    KEYS, KS, LCG, M64, SC, SC12M,
    SPEC_05_12MIB, SPEC_05_BH64_HASH, SPEC_05_BH_HASH, SPEC_05_BUZHASH, SPEC_05_BUZHASH64, SPEC_05_FASTCDC,
    SPEC_05_FIXED, SPEC_05_SMALL, SPEC_05_TABLES, SPEC_10_CHUNKS, SPEC_10_CONST, SPEC_10_EDGE,
    SPEC_10_GRID, SPEC_10_KEYS, SPEC_10_LCG, SPEC_10_POSITIONS, SPEC_10_RAW, SPEC_10_TINY,
    SPEC_10_WINDOWS, Z, cuts_of, ends_sha256, hexval, ints,
    md_rows, num, sizes_digest, tup,
)



# ===========================================================================
# inputs (02 §8, 05 §1, 10 §1)

def test_inputs_prefixes():
    assert generators.sha_ctr(16).hex() == "bec4155a004aa3996830fee250a069a9"
    assert generators.lcg(16).hex() == "a6e7943d328300397edf2cf58afb1871"
    assert generators.sha_ctr(0) == b"" and generators.lcg(0) == b""
    assert len(generators.sha_ctr(33)) == 33
    assert generators.sha_ctr(100) == SC()[:100]


def test_lcg_fast_equals_plain_loop():
    assert generators.lcg(100000) == generators.lcg_naive(100000)
    for n in (1, 255, 256, 257, 1000):
        assert generators.lcg(n) == generators.lcg_naive(n)


def test_aes_sc_input():
    sc = AES_SC()
    assert len(sc) == 262144
    assert sc[:16].hex() == "af5570f5a1810b7af78caf4bc70a660f"
    assert hashlib.sha256(sc).hexdigest() == \
        "10ab2705cc85e622c4b75bf924e866c1316c14c6310be51dc0535dcd55b3da61"


# ===========================================================================
# 01 §3 masks

def test_mask_basic():
    assert masks.mask(0, True) == 0 and masks.mask(-3, False) == 0
    assert masks.mask(64, True) == M64 and masks.mask(70, False) == M64
    assert masks.mask(8, False) == 0xff
    assert masks.mask(8, True) == 0xff00000000000000


def test_mask_examples_01_3_2():
    assert masks.nc_masks(21, 2, 0, True) == (0xfffffe0000000000, 0xffffe00000000000, 1572864)
    assert masks.nc_masks(21, 0, 0, True) == (0xfffff80000000000, 0xfffff80000000000, 0)
    assert masks.nc_masks(21, 2, 0, False) == (0x7fffff, 0x7ffff, 1572864)
    ms, ml, ns = masks.nc_masks(17, 2, 0, True)
    assert ms == masks.mask(19, True) and ml == masks.mask(15, True) and ns == 98304
    # nc 0 forces normal_size 0, any argument is ignored
    assert masks.nc_masks(21, 0, 12345, True)[2] == 0
    # explicit normal_size is used with nc > 0
    assert masks.nc_masks(21, 2, 1000000, True)[2] == 1000000


def test_constructor_checks_01_4_1():
    with pytest.raises(AssertionError):
        masks.check_common(19, 25, 21, 2)          # max_size > 20971479
    with pytest.raises(AssertionError):
        masks.check_common(20, 20, 20, 2)          # min + 1 > max
    with pytest.raises(AssertionError):
        masks.check_common(6, 12, 8, -1)
    with pytest.raises(AssertionError):
        masks.check_common(6, 12, 2, 2)            # mask - nc < 1
    with pytest.raises(AssertionError):
        masks.check_common(6, 12, 47, 2)           # mask + nc > 48
    masks.check_common(1, 23, 2, 0)                # accepted by the constructor
    with pytest.raises(AssertionError):
        aes.chunk_sizes("rabin-aes", Z, 5, 12, 8, 0, 0, b"x")     # min_exp >= 6
    with pytest.raises(AssertionError):
        buzhash64.chunk_sizes(Z, 6, 12, 8, 4096, 0, 0, b"x")    # w + min + 1 > max
    with pytest.raises(AssertionError):
        buzhash.chunk_sizes(0, 6, 12, 8, 4033, b"x")


# ===========================================================================
# 01 §9 / 05 §2 CSPRNG

def test_keystream_first_blocks():
    assert csprng.KeyStream(Z).random_bytes(16).hex() == "dc95c078a2408989ad48a21492842087"
    assert csprng.KeyStream(KS).random_bytes(16).hex() == "f29000b62a499fd0a9f39a6add2e7780"
    # split reads give the same prefix (06 §2.1)
    ks = csprng.KeyStream(Z)
    parts = ks.random_bytes(1) + ks.random_bytes(7) + ks.random_bytes(4097) + ks.random_bytes(0)
    assert parts == csprng.KeyStream(Z).random_bytes(4105)
    assert ks.consumed == 4105


@pytest.mark.parametrize("key, draws, head", [
    (Z, [220, 149, 192, 120, 162], [121, 111, 60, 4, 125, 17, 239, 51]),
    (KS, [242, 144, 0, 182, 42], [147, 180, 108, 161, 19, 92, 101, 4]),
])
def test_shuffle_draws_05_2(key, draws, head):
    ks = csprng.KeyStream(key)
    got = [ks.random_int(n) for n in (256, 255, 254, 253, 252)]
    assert got == draws
    assert ks.consumed == 5                        # one byte each
    ks = csprng.KeyStream(key)
    L = list(range(256))
    ks.shuffle(L)
    assert L[:8] == head
    assert sorted(L) == list(range(256))


def test_first_draws_use_keystream_bytes():
    # 01 §9: the zero-key draws are the keystream bytes dc 95 c0 78 a2
    assert csprng.KeyStream(Z).random_bytes(5) == bytes([0xdc, 0x95, 0xc0, 0x78, 0xa2])
    assert list(csprng.KeyStream(Z).random_bytes(5)) == [220, 149, 192, 120, 162]


def test_random_int_rules():
    ks = csprng.KeyStream(Z)
    with pytest.raises(ValueError):
        ks.random_int(0)
    with pytest.raises(ValueError):
        ks.random_int(-5)
    assert ks.random_int(1) == 0 and ks.consumed == 0
    # multi-byte draws: nb = ceil(bitlen(n-1)/8) bytes per attempt
    for n, nb in ((2, 1), (256, 1), (257, 2), (65536, 2), (65537, 3), (2 ** 40 + 3, 6)):
        before = ks.consumed
        v = ks.random_int(n)
        assert 0 <= v < n
        assert (ks.consumed - before) % nb == 0 and ks.consumed > before
    # big-endian interpretation and masking
    assert csprng.ByteStream(b"\x01\x02").random_int(65536) == 0x0102
    assert csprng.ByteStream(b"\xff\x05").random_int(6) == 5      # 0xff & 7 = 7 rejected
    # 1000 rejections, then one more draw modulo n without masking
    bs = csprng.ByteStream(b"\xff" * 1000 + bytes([200]))
    assert bs.random_int(129) == 200 % 129
    assert bs.consumed == 1001
    # shuffle of <= 1 element draws nothing
    ks2 = csprng.KeyStream(Z)
    ks2.shuffle([7])
    assert ks2.consumed == 0


def test_key_errors():
    with pytest.raises(ValueError):
        csprng.KeyStream(bytes(31))
    with pytest.raises(ValueError):
        csprng.KeyStream(bytes(33))
    with pytest.raises(TypeError):
        csprng.KeyStream(bytearray(32))
    with pytest.raises(TypeError):
        csprng.KeyStream(None)
    with pytest.raises(TypeError):
        fastcdc.gear_table("x" * 32)
    with pytest.raises(ValueError):
        aes.expand_key("toeplitz-aes", bytes(16))
    with pytest.raises(TypeError):
        aes.expand_key("toeplitz-aes", None)


def test_derived_keys_05_3():
    def d(idk, dom):
        return hashlib.sha256(idk + dom).hexdigest()
    assert d(Z, b"fastcdc") == "b50f8556e7a84e90ac48aea038f601d25665663977b84b072df6761210d04ce0"
    assert d(Z, b"buzhash64") == "1e07d6f412b0fb193c2b12babada28c2ac8db5c43045e203273ad690ff60bca1"
    assert d(KS, b"fastcdc") == "71bd3d22170d1f51e5da3b88be2547aab945fc24bcb57c1d5abe87e0f33e9ea0"
    assert d(KS, b"buzhash64") == "beedde34f91cd3fedfea8153943ff78cae41ad6595d19de9f32097b34eb5bf8d"


# ===========================================================================
# 05 §3 tables (and 02 §2, 03 §2, 04 A.3)

def _table_rows():
    return [r for r in md_rows(SPEC_05_TABLES) if not r[0].startswith("buzhash base")]


@pytest.mark.parametrize("row", _table_rows(), ids=lambda r: r[0] + "-" + r[1])
def test_tables_05_3(row):
    name, key = row[0], KEYS[row[1]]
    T = fastcdc.gear_table(key) if name.startswith("fastcdc") else buzhash64.table(key)
    assert len(T) == 256
    assert [T[0], T[1], T[2], T[3], T[255]] == [hexval(c) for c in row[2:7]]
    assert hashlib.sha256(struct.pack("<256Q", *T)).hexdigest() == row[7].strip("`")


def test_buzhash_base_table_05_3():
    row = [r for r in md_rows(SPEC_05_TABLES) if r[0].startswith("buzhash base")][0]
    B = buzhash.BASE_TABLE
    assert len(B) == 256
    assert B[0] == hexval(row[2]) == 0xe7f831ec
    assert B[1] == hexval(row[3]) == 0xf4026465
    assert B[255] == hexval(row[6]) == 0x71893f7b
    le, be = re.findall(r"`([0-9a-f]{64})`", row[7])
    assert hashlib.sha256(struct.pack("<256I", *B)).hexdigest() == le
    assert hashlib.sha256(struct.pack(">256I", *B)).hexdigest() == be
    assert le == "52bbc3f13bb34a5f5b19988dce11f5adb9cc0868a29e987f4c8d2901c722e6db"


def test_gear_block0_02_2():
    # G[0] is the first 8 bytes of AES-256 block 0 read little-endian
    blk = bytes.fromhex("dc95c078a2408989ad48a21492842087")
    assert fastcdc.gear_table(Z)[0] == struct.unpack("<Q", blk[:8])[0] == 0x898940a278c095dc


@pytest.mark.parametrize("key, consumed", [(Z, 22502), (KS, 22489)])
def test_buzhash64_table_consumption_and_balance(key, consumed):
    ks = csprng.KeyStream(key)
    T = buzhash64.table_from_stream(ks)
    assert ks.consumed == consumed
    assert T == buzhash64.table(key)
    for bit in range(64):                          # every bit in exactly 128 entries
        assert sum((t >> bit) & 1 for t in T) == 128


# ===========================================================================
# 02 §8 fastcdc worked examples

def test_fastcdc_zero_states_02_8_1():
    G = fastcdc.gear_table(Z)
    expect = {1: 0x898940a278c095dc, 2: 0x9c9bc1e76a41c194, 3: 0xc2c0c4714d441904,
              25: 0xbb6840893f3f6a24, 26: 0x0059c1b4f73f6a24}
    fp = 0
    m = 0xff00000000000000
    first_hit = None
    for k in range(1, 200):
        fp = fastcdc.feed(G, fp, 0)
        assert fp == (G[0] * ((1 << k) - 1)) & M64
        if k in expect:
            assert fp == expect[k]
        if first_hit is None and fp & m == 0:
            first_hit = k
    assert first_hit == 26                         # 26th fed byte at offset 89 -> chunk 90
    assert expect[26] >> 56 == 0x00
    # (6,12,8,2): no state among the first 128 fed bytes has its top 10 bits
    # zero, and from the 64th fed byte on the state is stuck at -G[0]
    fp = 0
    for k in range(1, 129):
        fp = fastcdc.feed(G, fp, 0)
        assert fp & masks.mask(10, True) != 0
        if k >= 64:
            assert fp == (-G[0]) & M64 == 0x7676bf5d873f6a24
    assert 0x7676bf5d873f6a24 & masks.mask(6, True) != 0


def test_fastcdc_zeros_02_8_1():
    assert fastcdc.chunk_sizes(Z, 6, 12, 8, 0, 0, bytes(1000)) == [90] * 11 + [10]
    assert cuts_of(fastcdc.chunk_sizes(Z, 6, 12, 8, 0, 0, bytes(1000)))[-1] == 1000
    assert fastcdc.chunk_sizes(Z, 6, 12, 8, 2, 0, bytes(1000)) == [1000]


def test_fastcdc_trace_02_8_2():
    G = fastcdc.gear_table(Z)
    sc = SC()
    assert sc[64:67] == bytes([0xee, 0x92, 0x73])
    fp = 0
    states = {}
    first = None
    for off in range(64, 1000):
        fp = fastcdc.feed(G, fp, sc[off])
        states[off] = fp
        if first is None and fp >> 56 == 0:
            first = off
    assert states[64] == 0x73ead8ff051a8403 == G[0xee]
    assert states[65] == 0xb415a2796a6e1b86
    assert states[66] == 0x34072516668bd889
    assert first == 835 and states[835] == 0x0095c0ffb41bbe2d
    r, st = fastcdc.scan(G, sc[64:1000], 0, 0xff00000000000000)
    assert (r, st) == (835 - 64, 0x0095c0ffb41bbe2d)
    assert fastcdc.chunk_sizes(Z, 6, 12, 8, 0, 0, sc[:5000])[0] == 836


def test_fastcdc_block_trace_02_8_3():
    G = fastcdc.gear_table(Z)
    sc = SC()
    block = sc[64:72]
    expect = [  # (byte, H_j, M_j, candidate, exact)
        (0xee, 0xf56c7f828d420180, 0x8000000000000000, False, False),
        (0x92, 0x05689e5a9b86e180, 0xc000000000000000, True, False),
        (0x73, 0x80e4a2ccd17b1120, 0xe000000000000000, False, False),
        (0x8a, 0x9d1e033aae83d310, 0xf000000000000000, False, False),
        (0xb5, 0x2673234f84064870, 0xf800000000000000, False, False),
        (0x68, 0xf47fa8987b041de0, 0xfc00000000000000, False, False),
        (0x9d, 0xdef1528e61630554, 0xfe00000000000000, False, False),
        (0xda, 0x5fe872e61b47415c, 0xff00000000000000, False, False),
    ]
    lanes = fastcdc.block_lanes(G, block, 0, 0xff00000000000000)
    for j, (lane, (b, H, M, cand, exact)) in enumerate(zip(lanes, expect), 1):
        assert block[j - 1] == b
        assert (lane["H"], lane["M"], lane["candidate"], lane["exact"]) == (H, M, cand, exact), j
    # lane 2 is a false positive: H_2 = h_2 << 6
    assert lanes[1]["h"] == 0xb415a2796a6e1b86
    assert lanes[1]["H"] == (0xb415a2796a6e1b86 << 6) & M64
    # recheck leaves fp = h_8 = c + S_8; entry state of the next block
    r, fp = fastcdc.scan(G, block, 0, 0xff00000000000000)
    assert (r, fp) == (-1, 0x5fe872e61b47415c)
    assert (fp << 8) & M64 == 0xe872e61b47415c00
    # NEON form: lane 2's limit ~M_2 = 0x3fff... >= H_2
    assert (~0xc000000000000000) & M64 == 0x3fffffffffffffff >= 0x05689e5a9b86e180


# ===========================================================================
# 03 buzhash64 worked examples

def test_buzhash64_letters_03_3():
    T = buzhash64.table(Z)
    assert T[ord("a")] == 0x3c25bccb37b20d42
    assert T[ord("b")] == 0x8884155244283064
    assert T[ord("c")] == 0x133c41a760ab6ac8
    h = buzhash64.rotl64(T[97], 2) ^ buzhash64.rotl64(T[98], 1) ^ T[99]
    assert h == buzhash64.window_hash(T, b"abc") == 0xf2a2982f36333f09 == 17483704031945899785
    assert buzhash64.window_hash(T, b"") == 0


def test_buzhash64_trot_03_4():
    T = buzhash64.table(Z)
    Trot = buzhash64.rotated(T, 4095)
    assert Trot[0] == 0xf959fdfdbc9bea3a
    assert buzhash64.rotated(T, 64) == T            # rotation by 0 is the identity
    assert buzhash64.rotl64(0x8000000000000001, 0) == 0x8000000000000001
    assert buzhash64.rotl64(0x8000000000000001, 64) == 0x8000000000000001


def test_buzhash64_window_hash_is_definition():
    rnd = random.Random(3)
    T = buzhash64.table(KS)
    for w in (1, 2, 63, 64, 65, 129, 300):
        win = bytes(rnd.randrange(256) for _ in range(w))
        direct = 0
        for t, b in enumerate(win):
            direct ^= buzhash64.rotl64(T[b], (w - 1 - t) % 64)
        assert buzhash64.window_hash(T, win) == direct


@pytest.mark.parametrize("row", md_rows(SPEC_05_BH64_HASH), ids=lambda r: r[0])
def test_buzhash64_hash_values_05_4(row):
    T = buzhash64.table(KEYS[row[0]])
    assert buzhash64.window_hash(T, b"abc") == num(row[1])
    assert buzhash64.window_hash(T, b"abcdefghijklmnop") == num(row[2])
    alpha = b"abcdefghijklmnopqrstuvwxyz" * 4
    assert len(alpha) == 104
    assert buzhash64.window_hash(T, alpha) == num(row[3])


@pytest.mark.parametrize("key, h16", [(Z, 8289984482189055106), (KS, 10615776141891786976)])
def test_buzhash64_roll_check_03_8_1(key, h16):
    T = buzhash64.table(key)
    assert h16 == {Z: 0x730bf0f6de611482, KS: 0x9352d0280086d8e0}[key]
    prev = buzhash64.window_hash(T, b"Xabcdefghijklmno")
    rolled = buzhash64.rotl64(prev, 1) ^ buzhash64.rotl64(T[ord("X")], 16) ^ T[ord("p")]
    assert rolled == buzhash64.window_hash(T, b"abcdefghijklmnop") == h16
    Trot = buzhash64.rotated(T, 16)
    assert buzhash64.roll(T, Trot, prev, ord("X"), ord("p")) == h16


def test_buzhash64_first_chunk_03_8_2():
    T = buzhash64.table(Z)
    sc = SC()
    h64 = buzhash64.window_hash(T, sc[64:128])
    assert h64 == 0xed33c9f10b914156 and h64 & 0xff == 0x56
    h65 = buzhash64.roll(T, buzhash64.rotated(T, 64), h64, sc[64], sc[128])
    assert h65 == 0xda81415598a43500 == buzhash64.window_hash(T, sc[65:129])
    assert sc[64] == 0xee
    # scan contract: one roll, then the window at pr[1] matches
    j, s = buzhash64.scan(T, T, sc[64:64 + 10 + 64], 64, h64, 0xff)
    assert (j, s) == (1, 0xda81415598a43500)
    # entry state already matching -> 0 steps
    assert buzhash64.scan(T, T, sc[65:65 + 10 + 64], 64, h65, 0xff) == (0, h65)
    # j == n: last window computed but not tested
    j, s = buzhash64.scan(T, T, sc[64:64 + 1 + 64], 64, h64, 0xff)
    assert (j, s) == (1, h65)
    assert buzhash64.chunk_sizes(Z, 6, 12, 8, 64, 0, 0, sc[:5000])[0] == 65


def test_buzhash64_block_trace_03_8_3():
    T = buzhash64.table(Z)
    sc = SC()
    s0 = 0xed33c9f10b914156
    assert buzhash64.rotl64(s0, 8) == 0x33c9f10b914156ed
    expect = [  # (D_{k-1}, c^S_k, M_k, lane hit, exact s_k)
        (0x00e6d2b78f86b7ad, 0x40a0aacc521a806d, 0x0000000000007f80, True, 0xda81415598a43500),
        (0x9511c34d577e2a8e, 0x04d079998d9023c8, 0x0000000000003fc0, False, 0x201341e66636408f),
        (0x653110ae8571001e, 0xa2f26c4923b02004, 0x0000000000001fe0, True, 0x25179362491d8100),
        (0xb3292d745a87dd4a, 0x9060bb0c8bcdf4af, 0x0000000000000ff0, False, 0xf9060bb0c8bcdf4a),
        (0xa4d498147e273258, 0xb6c47baf7af4666a, 0x00000000000007f8, False, 0x56d88f75ef5e8ccd),
        (0xd0758dc799823b1c, 0xf7124cb11cfc8a19, 0x00000000000003fc, False, 0x7dc4932c473f2286),
        (0x5bf20a984f689e59, 0x40f65981822db6ab, 0x00000000000001fe, False, 0xa07b2cc0c116db55),
        (0x7f803dbfde0801ec, 0x3f76643e5c25b747, 0x00000000000000ff, False, 0x3f76643e5c25b747),
    ]
    lanes = buzhash64.block_lanes(T, T, sc[64:72], sc[128:136], s0, 0xff)
    for k, (lane, (D, A, M, hit, s)) in enumerate(zip(lanes, expect), 1):
        assert (lane["D"], lane["A"], lane["M"], lane["hit"], lane["s"]) == (D, A, M, hit, s), k
        assert hit == (s & 0xff == 0)                # the lane test is exact
    assert lanes[7]["A"] == lanes[7]["s"]            # c ^ S_8 = s_8


# ===========================================================================
# 04 Part A: legacy buzhash

@pytest.mark.parametrize("row", md_rows(SPEC_05_BH_HASH), ids=lambda r: r[0])
def test_buzhash_hash_values_05_4(row):
    T = buzhash.table(num(row[0]))
    assert buzhash.window_hash(T, b"abcdefghijklmnop") == num(row[1])
    assert buzhash.window_hash(T, b"abcdefghijklmnopqrstuvwxyz" * 2) == num(row[2])


def test_buzhash_seed_identity_04_a4():
    rnd = random.Random(5)
    win = bytes(rnd.randrange(256) for _ in range(4095))
    h0 = buzhash.window_hash(buzhash.table(0), win)
    for seed in (1, 1849058162, -1, -123456789):
        s = seed & 0xffffffff
        C = buzhash.rotl32(s, 31)                  # rotr32(seed, 1) for w = 4095
        assert buzhash.window_hash(buzhash.table(seed), win) == h0 ^ C
    # even window and seed 0xffffffff: C = 0
    win64 = win[:64]
    assert buzhash.window_hash(buzhash.table(-1), win64) == buzhash.window_hash(buzhash.table(0), win64)


def test_buzhash_even_window_seeds_equal_04_a4():
    a = buzhash.chunk_sizes(0, 6, 12, 8, 64, SC())
    b = buzhash.chunk_sizes(-1, 6, 12, 8, 64, SC())
    assert a == b


def test_buzhash_trace_04_a6():
    data = b"foobarboobaz" * 3
    T = buzhash.table(0)
    Trot = buzhash.rotated(T, 2)
    expect = [(2, b"ob", 0x234522ff, 3), (3, b"ba", 0xbfdc41ad, 1),
              (4, b"ar", 0x5f3cf80e, 2), (5, b"rb", 0x06cfc0c8, 0)]
    h = buzhash.window_hash(T, data[2:4])
    for k, win, H, low in expect:
        assert data[k:k + 2] == win
        assert h == H == buzhash.window_hash(T, win)
        assert h & 3 == low
        h = buzhash.roll(T, Trot, h, data[k], data[k + 2])
    sizes = buzhash.chunk_sizes(0, 1, 23, 2, 2, data)
    chunks = [data[a:b] for a, b in zip([0] + cuts_of(sizes)[:-1], cuts_of(sizes))]
    assert chunks == [b"fooba", b"rboobaz"] * 3
    assert model.chunk_sizes(("buzhash", 1, 23, 2, 2), data) == sizes


# ===========================================================================
# 04 Part B / 05 §6: fixed

def test_fixed_examples_04_b2_05_6():
    rows = md_rows(SPEC_05_FIXED)
    assert len(rows) == 6
    for N, block, header, sizes in rows:
        N, block, header = num(N), num(block), num(header)
        assert fixed.chunk_sizes(block, header, N) == ints(sizes)
        assert model.chunk_sizes(("fixed", block, header), bytes([7]) * N) == ints(sizes)
    assert model.chunk_sizes(("fixed", 4096), bytes(10000)) == [4096, 4096, 1808]


# ===========================================================================
# 05 §5 cut lists

def _check_cut_row(sizes, first, count, last3, digest):
    cuts = cuts_of(sizes)
    assert cuts[:12] == first
    assert len(sizes) == count
    assert sizes[-3:] == last3
    if digest != "\u2014":
        assert sizes_digest(sizes) == digest
    else:
        assert cuts == first                      # "—": the full list is shown


def _row_id(r):
    return "-".join(r[:3])


@pytest.mark.parametrize("row", md_rows(SPEC_05_FASTCDC), ids=_row_id)
def test_fastcdc_cut_lists_05_5_1(row):
    key, params, inp, first, count, last3, digest = row
    sizes = fastcdc.chunk_sizes(KEYS[key], *tup(params), data=INPUT(inp))
    _check_cut_row(sizes, ints(first), num(count), ints(last3), digest)
    assert model.chunk_sizes(("fastcdc",) + tup(params), INPUT(inp), key=KEYS[key]) == sizes


@pytest.mark.parametrize("row", md_rows(SPEC_05_BUZHASH64), ids=_row_id)
def test_buzhash64_cut_lists_05_5_2(row):
    key, params, inp, first, count, last3, digest = row
    mn, mx, mb, w, nc = tup(params)
    sizes = buzhash64.chunk_sizes(KEYS[key], mn, mx, mb, w, nc, 0, INPUT(inp))
    _check_cut_row(sizes, ints(first), num(count), ints(last3), digest)


@pytest.mark.parametrize("row", md_rows(SPEC_05_BUZHASH), ids=_row_id)
def test_buzhash_cut_lists_05_5_3(row):
    seed, params, inp, first, count, last3, digest = row
    sizes = buzhash.chunk_sizes(num(seed), *tup(params), INPUT(inp))
    _check_cut_row(sizes, ints(first), num(count), ints(last3), digest)
    assert model.chunk_sizes(("buzhash",) + tup(params), INPUT(inp), seed=num(seed)) == sizes


def test_row_counts_05_5():
    assert len(md_rows(SPEC_05_FASTCDC)) == 24
    assert len(md_rows(SPEC_05_BUZHASH64)) == 24
    assert len(md_rows(SPEC_05_BUZHASH)) == 18
    assert len(md_rows(SPEC_05_12MIB)) == 9


@pytest.mark.slow
@pytest.mark.parametrize("row", md_rows(SPEC_05_12MIB), ids=lambda r: "-".join(r[:3]))
def test_12mib_cut_lists_05_5_4(row):
    chunker, key, params, inp, cuts, count, last3 = row
    assert inp == "SHA-CTR(12 MiB)"
    m = re.fullmatch(r"\(([\d,]+?)(?:,normal_size=(\d+))?\)", params)
    p = tuple(int(x) for x in m.group(1).split(","))
    ns = int(m.group(2)) if m.group(2) else 0
    data = SC12M()
    if chunker == "fastcdc":
        sizes = model.chunk_sizes(("fastcdc",) + p, data, key=KEYS[key], normal_size=ns)
    elif chunker == "bh64":
        sizes = model.chunk_sizes(("buzhash64",) + p, data, key=KEYS[key], normal_size=ns)
    else:
        assert chunker == "buzhash" and key.startswith("seed=")
        sizes = model.chunk_sizes(("buzhash",) + p, data, seed=num(key[5:]))
    assert cuts_of(sizes) == ints(cuts)
    assert len(sizes) == num(count)
    assert sizes[-3:] == ints(last3)


# ===========================================================================
# 02 §8.4 / 03 §8.4 / 04 A.6 rows not repeated in 05 §5.1-5.3

def test_extra_rows_02_03_04():
    # 02 §8.4: LCG, KS, (6,12,8,0): every chunk forced at max_size, 25 chunks, last 1696
    s = fastcdc.chunk_sizes(KS, 6, 12, 8, 0, 0, LCG())
    assert s == [4096] * 24 + [1696]
    # 03 §8.4: LCG, Z0, (6,12,8,64,0): all forced
    s = buzhash64.chunk_sizes(Z, 6, 12, 8, 64, 0, 0, LCG())
    assert s == [4096] * 24 + [1696]
    # 03 §6.2 example: (6,12,8,4000,0) tests only window starts 64..95
    s = buzhash64.chunk_sizes(Z, 6, 12, 8, 4000, 0, 0, SC())
    assert all(x == 4096 or 64 <= x <= 95 for x in s[:-1])
    assert s[1] == 82


# ===========================================================================
# 05 §6 small inputs and boundaries

def test_small_inputs_05_6():
    rows = md_rows(SPEC_05_SMALL)
    assert len(rows) == 8
    for n, fc, bh in rows:
        data = SC()[:num(n)]
        assert fastcdc.chunk_sizes(Z, 6, 12, 8, 0, 0, data) == ints(fc)
        assert buzhash64.chunk_sizes(Z, 6, 12, 8, 64, 0, 0, data) == ints(bh)
    assert buzhash64.chunk_sizes(Z, 6, 12, 8, 64, 0, 0, SC()[:128]) == [128]


def test_allocation_classification_sizes_05_6():
    data = bytes(3000) + b"\x01"
    sizes = fastcdc.chunk_sizes(Z, 6, 10, 8, 0, 0, data)
    assert sizes == [90] * 33 + [31]
    ends = cuts_of(sizes)
    starts = [0] + ends[:-1]
    zero = [not any(data[a:b]) for a, b in zip(starts, ends)]
    assert zero == [True] * 33 + [False]


def test_normal_size_ignored_with_nc0_05_8():
    a = fastcdc.chunk_sizes(Z, 8, 12, 10, 0, 999, SC())
    b = fastcdc.chunk_sizes(Z, 8, 12, 10, 0, 0, SC())
    assert a == b


# ===========================================================================
# model self-consistency: drivers and kernels agree

def test_fastcdc_drivers_agree():
    rnd = random.Random(11)
    data = SC()[:150000] + bytes(5000) + LCG()[:20000]
    for params in ((6, 12, 8, 0, 0), (6, 12, 8, 2, 0), (4, 9, 5, 3, 0), (6, 12, 8, 2, 100),
                   (6, 12, 8, 2, 5000), (1, 5, 2, 1, 0)):
        key = rnd.choice([Z, KS])
        assert fastcdc.chunk_sizes(key, *params, data=data) == \
            fastcdc.chunk_sizes_bytewise(key, *params, data=data), params


def test_fastcdc_scan_contract():
    G = fastcdc.gear_table(KS)
    rnd = random.Random(2)
    for _ in range(200):
        n = rnd.randrange(0, 100)
        data = bytes(rnd.randrange(256) for _ in range(n))
        fp0 = rnd.getrandbits(64)
        m = masks.mask(rnd.randrange(1, 12), rnd.random() < 0.5)
        r, fp = fastcdc.scan(G, data, fp0, m)
        st = fp0
        exp_r = -1
        for i, b in enumerate(data):
            st = fastcdc.feed(G, st, b)
            if st & m == 0:
                exp_r = i
                break
        assert (r, fp) == (exp_r, st)
    assert fastcdc.scan(G, b"", 1234, 0xff) == (-1, 1234)


def test_windowed_drivers_agree():
    rnd = random.Random(12)
    data = SC()[:60000] + bytes(3000) + LCG()[:20000]
    for params in ((6, 12, 8, 64, 0, 0), (6, 12, 8, 63, 2, 0), (4, 9, 5, 65, 3, 0),
                   (6, 12, 8, 1, 2, 100), (6, 12, 8, 2, 2, 5000), (1, 5, 2, 2, 1, 0),
                   (6, 12, 8, 129, 1, 70)):
        key = rnd.choice([Z, KS])
        mn, mx, mb, w, nc, ns = params
        a = buzhash64.chunk_sizes(key, *params, data=data)
        assert a == buzhash64.chunk_sizes_rolling(key, *params, data=data), params
        # position-pure variant (window hash depends only on content)
        hs = buzhash64.window_hashes(key, data, w)
        ms, ml, nss = masks.nc_masks(mb, nc, ns, False)
        hits_s = [x for x, h in enumerate(hs) if h & ms == 0]
        hits_l = [x for x, h in enumerate(hs) if h & ml == 0]
        assert a == driver.windowed_from_hits(len(data), 1 << mn, 1 << mx, w, nc, nss,
                                              hits_s, hits_l), params
    for seed, params in ((0, (6, 12, 8, 65)), (-1, (4, 9, 5, 3)), (77, (1, 5, 2, 2))):
        assert buzhash.chunk_sizes(seed, *params, data) == \
            buzhash.chunk_sizes_rolling(seed, *params, data)


# ===========================================================================
# 05 §7 aggregate grids

def _run_hash(data, sizes):
    h = hashlib.sha256()
    pos = 0
    for s in sizes:
        h.update(hashlib.sha256(data[pos:pos + s]).digest())
        pos += s
    assert pos == len(data)
    return h.digest()


def test_grid_fastcdc_05_7():
    data = LCG()
    runs = []
    for nc in (0, 2, 3):
        for mn in (4, 6, 7, 11, 12):
            for mx in (15, 17):
                if mn >= mx:
                    continue
                for mb in (4, 7, 10, 12):
                    if mb - nc < 1:
                        continue
                    for key in (K0, K1):
                        runs.append(_run_hash(data, fastcdc.chunk_sizes(key, mn, mx, mb, nc, 0, data)))
    assert hashlib.sha256(b"".join(runs)).hexdigest() == \
        "50d39b6f30214d78f665ff97a4800142cddcb6a7c5995e5d162f9c6dceb20cfe"


def _windowed_grid(chunk):
    data = LCG()
    runs = []
    for w in (65, 129, 4095, 7351):
        for mn in (4, 6, 7, 11, 12):
            for mx in (15, 17):
                if mn >= mx:
                    continue
                for mb in (4, 7, 10, 12):
                    for k in (0, 1):
                        runs.append(_run_hash(data, chunk(k, mn, mx, mb, w, data)))
    return hashlib.sha256(b"".join(runs)).hexdigest()


@pytest.mark.slow
def test_grid_buzhash64_05_7():
    def chunk(k, mn, mx, mb, w, data):
        return buzhash64.chunk_sizes((K0, K1)[k], mn, mx, mb, w, 0, 0, data)
    assert _windowed_grid(chunk) == \
        "676676133fb3621ada0f6cc1b18002c3e37016c9469217d18f8e382fadaf23fd"


@pytest.mark.slow
def test_grid_buzhash_05_7():
    def chunk(k, mn, mx, mb, w, data):
        return buzhash.chunk_sizes((1849058162, 1234567653)[k], mn, mx, mb, w, data)
    assert _windowed_grid(chunk) == \
        "a43d0ecb3ae24f38852fcc433a83dacd28fe0748d09cc73fc11b69cf3f1a7299"


# ===========================================================================
# 10 AES chunkers

W0 = bytes(64)
W1 = bytes(range(64))
W2 = b"\xff" * 64
WINDOWS = {"W0": W0, "W1": W1, "W2": W2}


@functools.lru_cache(maxsize=None)
def CTX(name, keyname):
    return aes.expand_key(name, KEYS[keyname])




def test_parse_keys_sanity():
    assert set(SPEC_KEYS) == {"KZ", "KS", "KA"}
    for d in SPEC_KEYS.values():
        assert len(d["toeplitz-aes"]["entries"]) == 8
        assert len(d["rabin-aes"]["entries"]) == 10
        assert len(d["goldilocks-aes"]["entries"]) == 3


@pytest.mark.parametrize("keyname", ["KZ", "KS", "KA"])
def test_keystream_and_A_10_2(keyname):
    d = SPEC_KEYS[keyname]
    z = csprng.KeyStream(KEYS[keyname]).random_bytes(2064)
    assert z[:32].hex() == d["Z32"]
    assert hashlib.sha256(z[16:2064]).hexdigest() == d["T_SHA"]
    assert z[:16].hex() == d["A"]
    for name in aes.NAMES:
        assert CTX(name, keyname).A.hex() == d["A"]
    if keyname == "KZ":
        assert d["A"] == "dc95c078a2408989ad48a21492842087"


@pytest.mark.parametrize("keyname", ["KZ", "KS", "KA"])
def test_toeplitz_key_10_2(keyname):
    u = CTX("toeplitz-aes", keyname).uhf
    for tname, i, v in SPEC_KEYS[keyname]["toeplitz-aes"]["entries"]:
        assert getattr(u, tname)[i] == v, (tname, i)
    z = csprng.KeyStream(KEYS[keyname]).random_bytes(2064)
    assert u.T == list(struct.unpack("<256Q", z[16:2064]))
    # OUT64 by long division equals 64 applications of mulx
    for b in (0, 1, 2, 255):
        assert u.OUT64[b] == gf2.polymod(u.T[b] << 64, toeplitz.P_T)
        assert u.OUT65[b] == gf2.polymod(u.T[b] << 65, toeplitz.P_T)
        assert u.IN1[b] == gf2.polymod(u.T[b] << 1, toeplitz.P_T)


@pytest.mark.parametrize("keyname", ["KZ", "KS", "KA"])
def test_rabin_key_10_2(keyname):
    line = SPEC_KEYS[keyname]["rabin-aes"]["line"]
    m = re.search(r"(\d+) candidates rejected, accepted candidate no\. (\d+) \(0-based\) "
                  r"from Z\[(\d+)\.\.(\d+)\]; P = `0x([0-9a-f]+)`", line)
    rejected, acc, z0, z1 = (int(m.group(i)) for i in range(1, 5))
    P = int(m.group(5), 16)
    u = CTX("rabin-aes", keyname).uhf
    assert u.candidates_rejected == rejected == acc
    assert (z0, z1) == (16 + 8 * acc, 23 + 8 * acc)
    assert u.P == P and P.bit_length() == 65
    for tname, i, v in SPEC_KEYS[keyname]["rabin-aes"]["entries"]:
        assert getattr(u, tname)[i] == v, (tname, i)
    assert u.RED[1] == P & M64                        # sanity anchor
    # the candidate comes from Z[z0..z1] and all earlier candidates are reducible
    z = csprng.KeyStream(KEYS[keyname]).random_bytes(z1 + 1)
    assert rabin.candidate_poly(struct.unpack("<Q", z[z0:z1 + 1])[0]) == P
    for r in range(acc):
        v = struct.unpack_from("<Q", z, 16 + 8 * r)[0]
        assert not gf2.is_irreducible_deg64(rabin.candidate_poly(v))


def test_rabin_candidate_counts_10_2_08_2():
    # 08 §2: the four keys of 10 need 9, 28, 25 and 101 candidates
    counts = [aes.expand_key("rabin-aes", k).uhf.candidates_rejected + 1 for k in (Z, KS, KA, KB)]
    assert counts == [9, 28, 25, 101]


def test_irreducibility_test_small_facts():
    # x^64 + x^4 + x^3 + x + 1 (the toeplitz modulus) is irreducible (07 §2)
    assert gf2.is_irreducible_deg64(toeplitz.P_T)
    # x^64 + 1 = (x+1)^64 is reducible; so is any product of two degree-32 polys
    assert not gf2.is_irreducible_deg64((1 << 64) | 1)
    a, b = (1 << 32) | 0x8D, (1 << 32) | 0xAF   # arbitrary degree-32 polynomials
    assert not gf2.is_irreducible_deg64(gf2.clmul(a, b))


@pytest.mark.parametrize("keyname", ["KZ", "KS", "KA"])
def test_goldilocks_key_10_2(keyname):
    line = SPEC_KEYS[keyname]["goldilocks-aes"]["line"]
    m = re.search(r"K = `0x([0-9a-f]+)` \(candidate (\d+) accepted, (\d+) rejected\); "
                  r"K2 = `([0-9a-f]+)`, K\^64 = `([0-9a-f]+)`", line)
    K, acc, rej, K2, K64 = (int(m.group(1), 16), int(m.group(2)), int(m.group(3)),
                            int(m.group(4), 16), int(m.group(5), 16))
    u = CTX("goldilocks-aes", keyname).uhf
    assert (u.K, u.candidates_rejected, acc) == (K, rej, rej)
    assert u.K2 == K2 and u.K64 == K64
    for tname, i, v in SPEC_KEYS[keyname]["goldilocks-aes"]["entries"]:
        assert getattr(u, tname)[i] == v, (tname, i)
    assert u.NOUT64[1] == goldilocks.P - K64
    # sanity anchor: toeplitz T[0] equals the first goldilocks candidate
    assert CTX("toeplitz-aes", keyname).uhf.T[0] == K


def test_goldilocks_rejection_branch_injected():
    p = goldilocks.P
    A = bytes(range(16))
    cands = [p, 0xFFFFFFFFFFFFFFFF, p + 12345, p - 1]
    stream = csprng.ByteStream(A + b"".join(struct.pack("<Q", c) for c in cands))
    ctx = aes.expand_key("goldilocks-aes", stream=stream)
    assert ctx.A == A
    assert ctx.uhf.K == p - 1 and ctx.uhf.candidates_rejected == 3
    assert stream.consumed == 16 + 32
    # never reduce: candidate p is rejected, not turned into 0
    s2 = csprng.ByteStream(A + struct.pack("<Q", p) + struct.pack("<Q", 5))
    assert aes.expand_key("goldilocks-aes", stream=s2).uhf.K == 5
    # K = 0 and K = 1 are accepted as they are
    s3 = csprng.ByteStream(A + struct.pack("<Q", 0))
    g0 = aes.expand_key("goldilocks-aes", stream=s3).uhf
    assert g0.K == 0 and g0.digest(W1) == 63            # digest is the newest byte
    with pytest.raises(ValueError):
        goldilocks.Goldilocks(p)


@pytest.mark.parametrize("row", md_rows(SPEC_10_WINDOWS), ids=lambda r: "-".join(r[:3]))
def test_window_digests_10_3(row):
    name, keyname, wname, D, ct, c = row
    ctx = CTX(name, keyname)
    win = WINDOWS[wname]
    d = ctx.digest(win)
    assert d == hexval(D)
    assert d == ctx.uhf.digest_direct(win)
    assert ctx.encrypt(d).hex() == ct.strip("`")
    assert ctx.cut_value(d) == hexval(c)
    assert ctx.cut_values([d, d]) == [hexval(c)] * 2


def test_window_rows_count():
    assert len(md_rows(SPEC_10_WINDOWS)) == 27


@pytest.mark.parametrize("row", md_rows(SPEC_10_EDGE), ids=lambda r: r[0] + r[1])
def test_goldilocks_edge_K_10_3_1(row):
    K, wname, dhex, ddec = row
    g = goldilocks.Goldilocks(hexval(K))
    d = g.digest(WINDOWS[wname])
    assert d == hexval(dhex) == int(ddec)
    assert d == g.digest_direct(WINDOWS[wname])
    # rolling from the previous window reproduces the canonical digest
    prev = b"\x00" + WINDOWS[wname][:63]
    assert g.roll(g.digest(prev), 0, WINDOWS[wname][63]) == d


def test_edge_rows_count():
    assert len(md_rows(SPEC_10_EDGE)) == 10


@functools.lru_cache(maxsize=None)
def DIGESTS(name, keyname):
    return aes.digests(CTX(name, keyname), AES_SC())


@pytest.mark.parametrize("row", md_rows(SPEC_10_POSITIONS), ids=lambda r: "-".join(r[:3]))
def test_positions_10_4(row):
    name, keyname, i, D, c = row
    i = int(i)
    ctx = CTX(name, keyname)
    sc = AES_SC()
    d_full = ctx.digest(sc[i - 63:i + 1])
    assert d_full == hexval(D)
    assert DIGESTS(name, keyname)[i - 63] == d_full          # single-step rolling
    assert ctx.cut_value(d_full) == hexval(c)
    # stride-2 lanes: roll2 from D_{i-2}
    if i >= 65:
        d2 = ctx.digest(sc[i - 65:i - 1])
        assert ctx.uhf.roll2(d2, sc[i - 65], sc[i - 64], sc[i - 1], sc[i]) == d_full


@pytest.mark.parametrize("row", md_rows(SPEC_10_RAW), ids=lambda r: "-".join(r[:2]))
def test_raw_candidates_10_5(row):
    name, keyname, first10, total = row
    ctx = CTX(name, keyname)
    cands = [i for i, c in enumerate(ctx.cut_values(DIGESTS(name, keyname)), 63)
             if c & 0xFFF == 0]
    assert cands[:10] == ints(first10)
    assert len(cands) == int(total)
    assert 63 not in cands
    if name == "toeplitz-aes" and keyname == "KZ":
        assert aes.raw_candidates(ctx, AES_SC(), 0xFFF) == cands


def test_chunk_rows_count():
    assert len(spec10_chunk_rows()) == 24


@pytest.mark.parametrize("row", spec10_chunk_rows(), ids=lambda r: "%s-%s-%s" % (r[1], r[2], r[0]))
def test_chunk_ends_10_6(row):
    params, name, keyname, first12, count, sha = row
    sizes = aes.chunk_sizes(name, KEYS[keyname], *params, data=AES_SC(), ctx=CTX(name, keyname))
    ends = cuts_of(sizes)
    assert ends[:12] == ints(first12)
    assert len(ends) == int(count)
    assert ends_sha256(ends) == sha.strip("`")
    assert ends[-1] == len(AES_SC())


def test_aes_cut_value_driver_agrees_10_6():
    # 06 §5: chunking from precomputed per-position cut values == literal scan
    for (name, keyname) in (("toeplitz-aes", "KZ"), ("rabin-aes", "KA"), ("goldilocks-aes", "KS")):
        ctx = CTX(name, keyname)
        cv = [None] * 63 + ctx.cut_values(DIGESTS(name, keyname))
        for p in ((10, 16, 12, 2), (6, 15, 7, 3), (6, 9, 4, 1), (7, 12, 8, 2, 300)):
            a = aes.chunk_sizes(name, None, *p, data=AES_SC()[:100000], ctx=ctx)
            b = aes.chunk_sizes_from_cut_values(cv[:100000], *p)
            assert a == b, (name, p)


def test_aes_scan_contract_06_7_2():
    rnd = random.Random(7)
    sc = AES_SC()[:20000]
    for name in aes.NAMES:
        ctx = CTX(name, "KA")
        Ds = DIGESTS(name, "KA")
        cv = ctx.cut_values(Ds[:20000 - 63])
        for _ in range(40):
            p = rnd.randrange(64, 19000)
            n = rnd.randrange(0, 20000 - p)
            m = masks.mask(rnd.randrange(1, 11), False)
            r, st = aes.scan(ctx, sc, p, n, Ds[p - 1 - 63], m)
            hits = [q for q in range(p, p + n) if cv[q - 63] & m == 0]
            if hits:
                assert (r, st) == (hits[0] - p, Ds[hits[0] - 63])
            else:
                assert (r, st) == (-1, Ds[p + n - 1 - 63] if n else Ds[p - 1 - 63])
        assert aes.scan(ctx, sc, 100, 0, 12345, 1) == (-1, 12345)
        assert aes.restart(ctx, sc, 1000) == Ds[999 - 63]


@pytest.mark.parametrize("name", ["toeplitz-aes", "rabin-aes", "goldilocks-aes"])
@pytest.mark.parametrize("keyname", ["KZ", "KS", "KA"])
def test_roll2_equals_two_rolls_and_full_digest(name, keyname):
    u = CTX(name, keyname).uhf
    rnd = random.Random("%s/%s" % (name, keyname))
    for _ in range(60):
        s = bytes(rnd.randrange(256) for _ in range(66))
        if rnd.random() < 0.2:
            s = bytes([rnd.choice([0, 255])]) * 66
        d0 = u.digest(s[0:64])                           # D_k, window s[0..63]
        d1 = u.roll(d0, s[0], s[64])
        d2 = u.roll(d1, s[1], s[65])
        assert d1 == u.digest(s[1:65])
        assert d2 == u.digest(s[2:66]) == u.digest_direct(s[2:66])
        assert u.roll2(d0, s[0], s[1], s[64], s[65]) == d2


def test_two_lanes_equal_single_rolls_06_8_1():
    sc = AES_SC()
    for name in aes.NAMES:
        ctx = CTX(name, "KS")
        Ds = DIGESTS(name, "KS")
        for p, n in ((64, 0), (64, 1), (64, 2), (100, 3), (1000, 513), (5001, 1000)):
            lanes = aes.digests_two_lanes(ctx, sc, p, n, Ds[p - 1 - 63])
            assert lanes == Ds[p - 63:p - 63 + n], (name, p, n)


@pytest.mark.parametrize("row", md_rows(SPEC_10_CONST), ids=lambda r: "-".join(r[:3]))
def test_constant_inputs_10_7_1(row):
    name, inp, params, c, count, first4, last2 = row
    byte = int(re.search(r"0x([0-9a-f]{2})", inp).group(1), 16)
    data = bytes([byte]) * 300000
    ctx = CTX(name, "KZ")
    assert ctx.cut_value(ctx.digest(data[:64])) == hexval(c)
    sizes = aes.chunk_sizes(name, Z, *tup(params), data=data, ctx=ctx)
    ends = cuts_of(sizes)
    assert len(ends) == int(count)
    assert ends[:4] == ints(first4)
    assert ends[-2:] == ints(last2)


@pytest.mark.parametrize("row", md_rows(SPEC_10_LCG), ids=lambda r: "-".join(r[:2]))
def test_lcg_10_7_2(row):
    name, params, count, first, last2 = row
    sizes = aes.chunk_sizes(name, Z, *tup(params), data=LCG(), ctx=CTX(name, "KZ"))
    ends = cuts_of(sizes)
    assert len(ends) == int(count)
    assert ends[:len(ints(first))] == ints(first)
    assert ends[-2:] == ints(last2)


def test_tiny_prefixes_10_7_3():
    rows = md_rows(SPEC_10_TINY)
    assert len(rows) == 7
    for row in rows:
        N = int(row[0])
        for name, cell in zip(("toeplitz-aes", "rabin-aes", "goldilocks-aes"), row[1:]):
            sizes = aes.chunk_sizes(name, Z, 10, 16, 1, 0, data=AES_SC()[:N], ctx=CTX(name, "KZ"))
            assert cuts_of(sizes) == ast.literal_eval(cell), (name, N)
            assert model.chunk_sizes((name, 10, 16, 1, 0), AES_SC()[:N]) == sizes


@pytest.mark.parametrize("row", md_rows(SPEC_10_GRID), ids=lambda r: r[0])
def test_frozen_grid_10_7_4(row):
    name, expect = row[0], row[1].strip("`")
    data = LCG()
    cvs = {k: aes.cut_values(aes.expand_key(name, k), data) for k in (KA, KB)}
    runs = []
    for nc in (0, 2, 3):
        for mn in (6, 7, 11, 12):
            for mx in (15, 17):
                for mb in (7, 10, 12):
                    for k in (KA, KB):
                        sizes = aes.chunk_sizes_from_cut_values(cvs[k], mn, mx, mb, nc)
                        runs.append(_run_hash(data, sizes))
    assert len(runs) == 144
    assert hashlib.sha256(b"".join(runs)).hexdigest() == expect


def test_model_entry_point():
    assert model.chunk_sizes(("fastcdc", 6, 12, 8, 0), bytes(1000)) == [90] * 11 + [10]
    assert model.chunk_sizes(("fastcdc", 6, 12, 8), bytes(1000)) == [90] * 11 + [10]
    assert model.chunk_sizes(("buzhash64", 6, 12, 8, 64, 0), SC()[:130]) == [65, 65]
    assert model.chunk_sizes(("fixed", 100, -5), bytes(250)) == [100, 100, 50]
    assert model.chunk_sizes(("toeplitz-aes", 10, 16, 1, 0), AES_SC()[:1100]) == [1025, 75]
    assert model.chunk_sizes(("fastcdc", 6, 12, 8, 0), b"") == []
    with pytest.raises(ValueError):
        model.chunk_sizes(("nope", 1), b"")
