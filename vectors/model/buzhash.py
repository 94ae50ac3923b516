"""Legacy 32-bit buzhash (borg 1.x compatible) reference model (spec 04 Part A).

All hash arithmetic is u32; masks are low masks truncated to 32 bits.
"""

from __future__ import annotations

from . import driver
from .masks import check_common, mask as _mask

__all__ = ["BASE_TABLE", "rotl32", "table", "rotated", "window_hash", "roll",
           "scan", "chunk_sizes", "chunk_sizes_rolling"]

M32 = 0xFFFFFFFF

#: The fixed public base table B[0..255] (spec 04 A.3), verbatim.
#: Checks: B[0] = 0xe7f831ec, B[1] = 0xf4026465, B[255] = 0x71893f7b; SHA-256
#: of the LE u32 serialization 52bbc3f13bb34a5f5b19988dce11f5adb9cc0868a29e987f4c8d2901c722e6db.
BASE_TABLE = (
    0xe7f831ec, 0xf4026465, 0xafb50cae, 0x6d553c7a, 0xd639efe3, 0x19a7b895, 0x9aba5b21, 0x5417d6d4,
    0x35fd2b84, 0xd1f6a159, 0x3f8e323f, 0xb419551c, 0xf444cebf, 0x21dc3b80, 0xde8d1e36, 0x84a32436,
    0xbeb35a9d, 0xa36f24aa, 0xa4e60186, 0x98d18ffe, 0x3f042f9e, 0xdb228bcd, 0x096474b7, 0x5c20c2f7,
    0xf9eec872, 0xe8625275, 0xb9d38f80, 0xd48eb716, 0x22a950b4, 0x3cbaaeaa, 0xc37cddd3, 0x8fea6f6a,
    0x1d55d526, 0x7fd6d3b3, 0xdaa072ee, 0x4345ac40, 0xa077c642, 0x8f2bd45b, 0x28509110, 0x55557613,
    0xffc17311, 0xd961ffef, 0xe532c287, 0xaab95937, 0x46d38365, 0xb065c703, 0xf2d91d0f, 0x92cd4bb0,
    0x4007c712, 0xf35509dd, 0x505b2f69, 0x557ead81, 0x310f4563, 0xbddc5be8, 0x9760f38c, 0x701e0205,
    0x00157244, 0x14912826, 0xdc4ca32b, 0x67b196de, 0x5db292e8, 0x8c1b406b, 0x01f34075, 0xfa2520f7,
    0x73bc37ab, 0x1e18bc30, 0xfe2c6cb3, 0x20c522d0, 0x5639e3db, 0x942bda35, 0x899af9d1, 0xced44035,
    0x98cc025b, 0x255f5771, 0x70fefa24, 0xe928fa4d, 0x2c030405, 0xb9325590, 0x20cb63bd, 0xa166305d,
    0x80e52c0a, 0xa8fafe2f, 0x1ad13f7d, 0xcfaf3685, 0x6c83a199, 0x7d26718a, 0xde5dfcd9, 0x79cf7355,
    0x8979d7fb, 0xebf8c55e, 0xebe408e4, 0xcd2affba, 0xe483be6e, 0xe239d6de, 0x5dc1e9e0, 0x0473931f,
    0x851b097c, 0xac5db249, 0x09c0f9f2, 0xd8d2f134, 0xe6f38e41, 0xb1c71bf1, 0x52b6e4db, 0x07224424,
    0x6cf73e85, 0x4f25d89c, 0x782a7d74, 0x10a68dcd, 0x3a868189, 0xd570d2dc, 0x69630745, 0x9542ed86,
    0x331cd6b2, 0xa84b5b28, 0x07879c9d, 0x38372f64, 0x7185db11, 0x25ba7c83, 0x01061523, 0xe6792f9f,
    0xe5df07d1, 0x4321b47f, 0x7d2469d8, 0x1a3a4f90, 0x48be29a3, 0x669071af, 0x8ec8dd31, 0x0810bfbf,
    0x813a06b4, 0x68538345, 0x65865ddc, 0x43a71b8e, 0x78619a56, 0x5a34451d, 0x5bdaa3ed, 0x71edc7e9,
    0x17ac9a20, 0x78d10bfa, 0x6c1e7f35, 0xd51839d9, 0x240cbc51, 0x33513cc1, 0xd2b4f795, 0xccaa8186,
    0x0babe682, 0xa33cf164, 0x18c643ea, 0xc1ca105f, 0x9959147a, 0x6d3d94de, 0x0b654fbe, 0xed902ca0,
    0x7d835cb5, 0x99ba1509, 0x6445c922, 0x495e76c2, 0xf07194bc, 0xa1631d7e, 0x677076a5, 0x89fffe35,
    0x1a49bcf3, 0x8e6c948a, 0x0144c917, 0x8d93aea1, 0x16f87ddf, 0xc8f25d49, 0x1fb11297, 0x27e750cd,
    0x2f422da1, 0xdee89a77, 0x1534c643, 0x457b7b8b, 0xaf172f7a, 0x6b9b09d6, 0x33573f7f, 0xf14e15c4,
    0x526467d5, 0xaf488241, 0x87c3ee0d, 0x33be490c, 0x95aa6e52, 0x43ec242e, 0xd77de99b, 0xd018334f,
    0x5b78d407, 0x498eb66b, 0xb1279fa8, 0xb38b0ea6, 0x90718376, 0xe325dee2, 0x8e2f2cba, 0xcaa5bdec,
    0x9d652c56, 0xad68f5cb, 0xa77591af, 0x88e37ee8, 0xf8faa221, 0xfcbbbe47, 0x4f407786, 0xaf393889,
    0xf444a1d9, 0x15ae1a2f, 0x40aa7097, 0x6f9486ac, 0x29d232a3, 0xe47609e9, 0xe8b631ff, 0xba8565f4,
    0x11288749, 0x46c9a838, 0xeb1b7cd8, 0xf516bbb1, 0xfb74fda0, 0x010996e6, 0x4c994653, 0x1d889512,
    0x53dcd9a3, 0xdd074697, 0x1e78e17c, 0x637c98bf, 0x930bb219, 0xcf7f75b0, 0xcb9355fb, 0x9e623009,
    0xe466d82c, 0x28f968d3, 0xfeb385d9, 0x238e026c, 0xb8ed0560, 0x0c6a027a, 0x3d6fec4b, 0xbb4b2ec2,
    0xe715031c, 0xeded011d, 0xcdc4d3b9, 0xc456fc96, 0xdd0eea20, 0xb3df8ec9, 0x12351993, 0xd9cbb01c,
    0x603147a2, 0xcf37d17d, 0xf7fcd9dc, 0xd8556fa3, 0x104c8131, 0x13152774, 0xb4715811, 0x6a72c2c9,
    0xc5ae37bb, 0xa76ce12a, 0x8150d8f3, 0x2ec29218, 0xa35f0984, 0x48c0647e, 0x0b5ff98c, 0x71893f7b,
)
assert len(BASE_TABLE) == 256


def rotl32(x: int, k: int) -> int:
    """Rotate the u32 ``x`` left by ``k mod 32`` bits (rotation by 0 = identity)."""
    k %= 32
    if k == 0:
        return x
    return ((x << k) | (x >> (32 - k))) & M32


def table(seed: int) -> list:
    """Seeded table ``T[i] = B[i] ^ (seed mod 2^32)`` (spec 04 A.3); 256 u32.

    ``seed`` is any int (borg accepts a C int; negative values wrap mod 2^32).
    """
    s = seed & M32
    return [b ^ s for b in BASE_TABLE]


def rotated(T: list, w: int) -> list:
    """``Trot[x] = rotl32(T[x], w mod 32)``; 256 u32."""
    return [rotl32(t, w) for t in T]


def window_hash(T: list, window) -> int:
    """``H = XOR_t rotl32(T[b_t], (w-1-t) mod 32)`` over the bytes-like
    ``window`` (oldest first, ``w = len(window)``; empty -> 0), spec 04 A.4.
    Terms with equal rotation are XORed first (rotation is XOR-linear)."""
    w = len(window)
    h = 0
    for r in range(min(w, 32)):
        t0 = (w - 1 - r) % 32
        x = 0
        for b in window[t0::32]:
            x ^= T[b]
        h ^= rotl32(x, r)
    return h


def roll(T: list, Trot: list, h: int, out_byte: int, in_byte: int) -> int:
    """One step (spec 04 A.4): ``rotl32(h,1) ^ rotl32(T[out], w mod 32) ^ T[in]``
    with ``Trot`` = :func:`rotated` ``(T, w)``."""
    return (((h << 1) | (h >> 31)) & M32) ^ Trot[out_byte] ^ T[in_byte]


def scan(T: list, Trot: list, data, w: int, sum: int, mask: int):
    """Test-then-roll scan (contract of spec 03 §5 with the 32-bit hash).

    ``data`` holds ``pr[0 .. n+w-1]`` (``n = len(data) - w`` steps).  Returns
    ``(j, exit_sum)``: ``j < n`` means the window at ``pr[j]`` matched;
    ``j == n`` means the last window was computed but not tested.
    """
    n = len(data) - w
    if n < 0:
        raise ValueError("data must hold at least w bytes")
    j = 0
    if not sum & mask:
        return 0, sum
    for o, i in zip(data[:n], data[w:]):
        sum = (((sum << 1) | (sum >> 31)) & M32) ^ Trot[o] ^ T[i]
        j += 1
        if not sum & mask:
            break
    return j, sum


def _setup(seed, min_exp, max_exp, mask_bits, window):
    # construction order of spec 01 §4.1 (legacy buzhash)
    if not isinstance(seed, int):
        raise TypeError("seed must be an int")
    if not -(1 << 31) <= seed < (1 << 31):
        raise OverflowError("seed must fit in a C int")
    if window < 1:
        raise ValueError("model restriction: window must be >= 1")
    if not window + (1 << min_exp) + 1 <= (1 << max_exp):
        raise AssertionError("window + min_size + 1 must be <= max_size")
    T = table(seed)
    check_common(min_exp, max_exp, mask_bits, 0)
    return T, rotated(T, window), _mask(mask_bits, False) & M32


def chunk_sizes(seed: int, min_exp: int, max_exp: int, mask_bits: int, window: int,
                data) -> list:
    """Legacy buzhash chunk sizes of ``data`` (spec 04 A.5 = 03 §6.2 without nc).

    ``seed``: C int (-2^31 .. 2^31-1, OverflowError otherwise); low mask of
    ``mask_bits`` truncated to 32 bits; window ``w >= 1``.  Returns chunk
    lengths in bytes.  AssertionError for ``w + min_size + 1 > max_size`` and
    the checks of 01 §4.1 (with nc 0).
    """
    T, Trot, m = _setup(seed, min_exp, max_exp, mask_bits, window)
    w = window
    mv = memoryview(bytes(data))

    def wh(x):
        return window_hash(T, mv[x:x + w])

    def span_scan(x, n, h, mm):
        return scan(T, Trot, mv[x:x + n + w], w, h, mm)

    return driver.windowed_scan(len(mv), 1 << min_exp, 1 << max_exp, w, m, m, 0, 0,
                                wh, span_scan)


def chunk_sizes_rolling(seed: int, min_exp: int, max_exp: int, mask_bits: int,
                        window: int, data) -> list:
    """Same as :func:`chunk_sizes` via the literal driver :func:`driver.windowed`."""
    T, Trot, m = _setup(seed, min_exp, max_exp, mask_bits, window)
    w = window
    data = bytes(data)
    return driver.windowed(
        len(data), 1 << min_exp, 1 << max_exp, w, m, m, 0, 0,
        window_hash=lambda x: window_hash(T, data[x:x + w]),
        roll=lambda h, x: roll(T, Trot, h, data[x], data[x + w]))
