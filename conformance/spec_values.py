"""The specification's checkpoint values, transcribed verbatim (spec 05 and 10).

Tables are copied from the spec text into the string constants ``SPEC_*`` and
parsed with the helpers below; keys and inputs are named as in the spec. This
is the independent source of expected values for both the model's tests and
the kernels' tests. Nothing is read from the spec files at run time.
"""

import functools
import hashlib
import itertools
import re

from vectors import generators

M64 = (1 << 64) - 1

# Keys (05 §1, 10 §1)
Z = bytes(32)                      # "Z" / "Z0" / "KZ": 32 zero bytes
KS = bytes(range(32))              # 00 01 .. 1f
KA = bytes.fromhex("ad9f89095817f0566337dc9ee292fcd59b70f054a8200151f1df5f21704824da")
KB = bytes.fromhex("f1088c7e9e6ae83557ad1558ff36c44a369ea719d1081c29684f52ffccb72cb8")
K0, K1 = KA, KB                    # 05 §1 names for the grid keys
KEYS = {"Z": Z, "Z0": Z, "KZ": Z, "KS": KS, "KA": KA, "KB": KB}


# ---------------------------------------------------------------------------
# inputs (cached)

@functools.lru_cache(maxsize=None)
def SC():
    """SHA-CTR(1 MiB), label b"borg-spec" (05 §1)."""
    return generators.sha_ctr(1 << 20)


@functools.lru_cache(maxsize=None)
def SC12M():
    """SHA-CTR(12 MiB) (05 §1)."""
    return generators.sha_ctr(12 << 20)


@functools.lru_cache(maxsize=None)
def LCG():
    """LCG(100000) (05 §1, 10 §1)."""
    return generators.lcg(100000)


@functools.lru_cache(maxsize=None)
def AES_SC():
    """SC of spec 10 §1: SHA-256(LE64bytes(i)), 262144 bytes."""
    return generators.sha_ctr(262144, label=b"")


def INPUT(name):
    return {"SC": SC, "LCG": LCG, "ZERO1000": lambda: bytes(1000),
            "SHA-CTR(12 MiB)": SC12M}[name]()


# ---------------------------------------------------------------------------
# helpers

def cuts_of(sizes):
    return list(itertools.accumulate(sizes))


def sizes_digest(sizes):
    """05 §1: first 16 hex digits of SHA-256 of the comma-joined sizes."""
    return hashlib.sha256(",".join(map(str, sizes)).encode()).hexdigest()[:16]


def ends_sha256(ends):
    """10 §1: SHA-256 of the comma-joined end offsets (full hex)."""
    return hashlib.sha256(",".join(map(str, ends)).encode()).hexdigest()


def md_rows(text):
    """Body rows of a markdown table (header and separator dropped), cells stripped."""
    rows = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            continue
        rows.append(cells)
    return rows[1:]


def num(s):
    return int(s.strip().replace("\u2212", "-"))


def ints(s):
    s = s.strip()
    if s in ("(no chunk)", "\u2014", ""):
        return []
    return [num(x) for x in s.split(",")]


def hexval(s):
    """Value of the first backticked hex number in a cell."""
    m = re.search(r"`(?:0x)?([0-9a-f]+)`", s)
    assert m, s
    return int(m.group(1), 16)


def tup(s):
    """'(6,12,8,0)' -> (6, 12, 8, 0); '`10,16,12,2`' -> (10, 16, 12, 2)."""
    return tuple(num(x) for x in s.strip("()` ").split(","))


# ---------------------------------------------------------------------------
# spec tables, copied verbatim

SPEC_05_TABLES = r'''
| table | key | [0] | [1] | [2] | [3] | [255] | SHA-256 of serialization |
|-------|-----|-----|-----|-----|-----|-------|--------------------------|
| fastcdc Gear (u64) | Z | `0x898940a278c095dc` | `0x8720849214a248ad` | `0xb93645c7fb8a0f53` | `0x8b73cbc4f1b463a9` | `0xfd6fa5e6af92fe6f` | `e056e3a6abedb9f4c67d5e78b260dd65930425b863e2f9eafdaeafa60dcb0abc` |
| fastcdc Gear (u64) | KS | `0xd09f492ab60090f2` | `0x80772edd6a9af3a9` | `0xe59fb94aae765df0` | `0x3d36c248319bf6a6` | `0x99e3f8f9b6c57b1c` | `7bb5efb323a159a0310e83b87286e596d177ce0b7d0d594f08ea6dc3f9c9d3c2` |
| buzhash64 (u64) | Z | `0xf2b3fbfb7937d475` | `0x1bb11cc628e4e2f3` | `0xf5be5356254f5aa3` | `0x68f3730f42e13346` | `0x0c840f928d9f6158` | `143e3f97ab4ee39316b436c8b61929b2909e087f5aeb39c909b0a8d7e6bc15fd` |
| buzhash64 (u64) | KS | `0xd086a4ce15bd68ec` | `0xef01729506286749` | `0xab259e4380c33e47` | `0x70784b41f747eb0b` | `0xdc2728e70d504113` | `bc503216baee6d4684330822f3804ea99c5cb7c8ee8ec598f00fa728f6d2f78a` |
| buzhash base `B` (u32) | — | `0xe7f831ec` | `0xf4026465` | — | — | `0x71893f7b` | `52bbc3f13bb34a5f5b19988dce11f5adb9cc0868a29e987f4c8d2901c722e6db` (big-endian serialization: `7e90c40933833b90cab41186562ab091cf4167c0a86ecd58660d994403517b9b`) |
'''

SPEC_05_BH64_HASH = r'''
| key | `H("abc")` | `H("abcdefghijklmnop")` | `H("abcdefghijklmnopqrstuvwxyz" × 4)` |
|-----|-----------|--------------------------|----------------------------------------|
| Z | 17483704031945899785 | 8289984482189055106 | 874795228338309203 |
| KS | 12082320404979030050 | 10615776141891786976 | 865033895796954678 |
'''

SPEC_05_BH_HASH = r'''
| seed | `H("abcdefghijklmnop")` | `H("abcdefghijklmnopqrstuvwxyz" × 2)` |
|------|--------------------------|----------------------------------------|
| 0 | 3795437769 | 566521248 |
| 1 | 3795400502 | 3727977888 |
| 1849058162 | 419810314 | 382463404 |
| −1 | 3795437769 | 566521248 |
'''

SPEC_05_FASTCDC = r'''
| key | params | input | first 12 cuts | chunks | last 3 sizes | sizes digest |
|---|---|---|---|---|---|---|
| Z | (6,12,8,0) | SC | 836, 1182, 1796, 2020, 2170, 2403, 2606, 2695, 3111, 3301, 3497, 3729 | 3325 | 2152, 196, 331 | a699b8214698e387 |
| Z | (6,12,8,2) | SC | 222, 515, 795, 1023, 1372, 1588, 1796, 2020, 2285, 2428, 2666, 2957 | 4370 | 196, 263, 68 | f33bf3899d2ec178 |
| Z | (10,16,14,2) | SC | 14518, 32241, 56738, 74012, 88828, 101649, 117208, 120771, 142304, 156028, 179326, 194257 | 73 | 1465, 14678, 20685 | 11b3ba60f138ae91 |
| Z | (6,10,8,0) | SC | 836, 1182, 1796, 2020, 2170, 2403, 2606, 2695, 3111, 3301, 3497, 3729 | 3370 | 1024, 300, 331 | e8143eeb0f7a81da |
| Z | (6,12,8,0) | LCG | 66, 420, 520, 676, 776, 932, 1032, 1188, 1288, 1444, 1544, 1700 | 780 | 156, 100, 152 | 1c9be9f049eac1b5 |
| Z | (6,12,8,2) | LCG | 66, 420, 676, 932, 1188, 1444, 1700, 1956, 2212, 2468, 2724, 2980 | 391 | 256, 256, 252 | c2f7c8a005d7adc6 |
| Z | (10,16,14,2) | LCG | 65536, 100000 | 2 | 65536, 34464 | 59576b557f79458f |
| Z | (6,10,8,0) | LCG | 66, 420, 520, 676, 776, 932, 1032, 1188, 1288, 1444, 1544, 1700 | 780 | 156, 100, 152 | 1c9be9f049eac1b5 |
| Z | (6,12,8,0) | ZERO1000 | 90, 180, 270, 360, 450, 540, 630, 720, 810, 900, 990, 1000 | 12 | 90, 90, 10 | — |
| Z | (6,12,8,2) | ZERO1000 | 1000 | 1 | 1000 | — |
| Z | (10,16,14,2) | ZERO1000 | 1000 | 1 | 1000 | — |
| Z | (6,10,8,0) | ZERO1000 | 90, 180, 270, 360, 450, 540, 630, 720, 810, 900, 990, 1000 | 12 | 90, 90, 10 | — |
| KS | (6,12,8,0) | SC | 176, 734, 1552, 1665, 2241, 2495, 2660, 3078, 3198, 3469, 3546, 3880 | 3254 | 288, 257, 60 | 048ea5f8873f093c |
| KS | (6,12,8,2) | SC | 219, 431, 678, 841, 1073, 1294, 1552, 1665, 1878, 2079, 2318, 2660 | 4356 | 204, 250, 151 | 739fef3e66ef051b |
| KS | (10,16,14,2) | SC | 13970, 28943, 36067, 54948, 73437, 88156, 102813, 119876, 121597, 134916, 155419, 168392 | 73 | 12975, 14625, 13297 | 9c42b82a3cdf5e93 |
| KS | (6,10,8,0) | SC | 176, 734, 1552, 1665, 2241, 2495, 2660, 3078, 3198, 3469, 3546, 3880 | 3327 | 288, 257, 60 | e3d44b5b9e548e39 |
| KS | (6,12,8,0) | LCG | 4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768, 36864, 40960, 45056, 49152 | 25 | 4096, 4096, 1696 | 4a07076f27de532f |
| KS | (6,12,8,2) | LCG | 215, 425, 681, 937, 1193, 1449, 1705, 1961, 2217, 2473, 2729, 2985 | 391 | 256, 256, 247 | 81e30ad0b86d54ca |
| KS | (10,16,14,2) | LCG | 65536, 100000 | 2 | 65536, 34464 | 59576b557f79458f |
| KS | (6,10,8,0) | LCG | 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 9216, 10240, 11264, 12288 | 98 | 1024, 1024, 672 | 819e3b7062621fc2 |
| KS | (6,12,8,0) | ZERO1000 | 1000 | 1 | 1000 | — |
| KS | (6,12,8,2) | ZERO1000 | 1000 | 1 | 1000 | — |
| KS | (10,16,14,2) | ZERO1000 | 1000 | 1 | 1000 | — |
| KS | (6,10,8,0) | ZERO1000 | 1000 | 1 | 1000 | — |
'''

SPEC_05_BUZHASH64 = r'''
| key | params | input | first 12 cuts | chunks | last 3 sizes | sizes digest |
|---|---|---|---|---|---|---|
| Z | (6,12,8,64,0) | SC | 65, 350, 478, 898, 1043, 1159, 1605, 2434, 2821, 3130, 3302, 3530 | 3293 | 68, 1406, 967 | f07fa28894437345 |
| Z | (6,12,8,63,2) | SC | 185, 414, 676, 906, 1109, 1374, 1570, 1838, 2099, 2333, 2603, 2827 | 4408 | 341, 197, 81 | 4793dfb3868898af |
| Z | (6,12,8,4000,0) | SC | 4096, 4178, 8274, 12370, 12438, 16534, 20630, 24726, 28822, 32918, 37014, 41110 | 289 | 4096, 4096, 1477 | 31785bee12191394 |
| Z | (10,16,14,4095,2) | SC | 5158, 25671, 45975, 59521, 72106, 85007, 103627, 116809, 133082, 153041, 167370, 180955 | 66 | 16545, 14347, 5242 | 2716c5e980810810 |
| Z | (6,12,8,64,0) | LCG | 4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768, 36864, 40960, 45056, 49152 | 25 | 4096, 4096, 1696 | 4a07076f27de532f |
| Z | (6,12,8,63,2) | LCG | 281, 537, 793, 1049, 1305, 1561, 1817, 2073, 2329, 2585, 2841, 3097 | 391 | 256, 256, 135 | efd26f1b171cb27c |
| Z | (6,12,8,4000,0) | LCG | 4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768, 36864, 40960, 45056, 49152 | 25 | 4096, 4096, 1696 | 4a07076f27de532f |
| Z | (10,16,14,4095,2) | LCG | 65536, 100000 | 2 | 65536, 34464 | 59576b557f79458f |
| Z | (6,12,8,64,0) | ZERO1000 | 1000 | 1 | 1000 | — |
| Z | (6,12,8,63,2) | ZERO1000 | 1000 | 1 | 1000 | — |
| Z | (6,12,8,4000,0) | ZERO1000 | 1000 | 1 | 1000 | — |
| Z | (10,16,14,4095,2) | ZERO1000 | 1000 | 1 | 1000 | — |
| KS | (6,12,8,64,0) | SC | 288, 683, 1008, 1609, 1887, 1964, 2249, 2569, 2694, 2781, 2936, 3492 | 3286 | 166, 349, 104 | 814b86a153ad322a |
| KS | (6,12,8,63,2) | SC | 202, 438, 674, 968, 1328, 1544, 1834, 2050, 2355, 2558, 3033, 3315 | 4364 | 361, 313, 263 | dd2663e319348baa |
| KS | (6,12,8,4000,0) | SC | 4096, 8192, 12288, 16384, 16457, 20553, 24649, 28745, 32841, 36937, 41033, 41098 | 292 | 4096, 4096, 1275 | 4774adb90f8adf1a |
| KS | (10,16,14,4095,2) | SC | 17154, 31046, 48376, 67108, 68256, 80516, 95810, 108317, 124830, 129636, 149774, 164139 | 71 | 12189, 15969, 4208 | e9dfbbac5c8a13ed |
| KS | (6,12,8,64,0) | LCG | 84, 193, 340, 449, 596, 705, 852, 961, 1108, 1217, 1364, 1473 | 782 | 109, 147, 76 | c1607517e68c9153 |
| KS | (6,12,8,63,2) | LCG | 229, 485, 741, 997, 1253, 1509, 1765, 2021, 2277, 2533, 2789, 3045 | 391 | 256, 256, 187 | ba37c0b4d773732c |
| KS | (6,12,8,4000,0) | LCG | 4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768, 36864, 40960, 45056, 49152 | 25 | 4096, 4096, 1696 | 4a07076f27de532f |
| KS | (10,16,14,4095,2) | LCG | 65536, 100000 | 2 | 65536, 34464 | 59576b557f79458f |
| KS | (6,12,8,64,0) | ZERO1000 | 1000 | 1 | 1000 | — |
| KS | (6,12,8,63,2) | ZERO1000 | 1000 | 1 | 1000 | — |
| KS | (6,12,8,4000,0) | ZERO1000 | 1000 | 1 | 1000 | — |
| KS | (10,16,14,4095,2) | ZERO1000 | 1000 | 1 | 1000 | — |
'''

SPEC_05_BUZHASH = r'''
| key | params | input | first 12 cuts | chunks | last 3 sizes | sizes digest |
|---|---|---|---|---|---|---|
| 0 | (6,12,8,65) | SC | 409, 649, 745, 842, 967, 1519, 2762, 2839, 2938, 4234, 4301, 4521 | 3268 | 117, 153, 188 | 42aeaa701c543907 |
| 0 | (6,12,8,63) | SC | 152, 285, 513, 602, 844, 910, 1665, 2167, 2286, 2866, 3054, 3553 | 3323 | 535, 166, 382 | 2f0d18bdd9ef905c |
| 0 | (10,16,14,4095) | SC | 51674, 61414, 65224, 67574, 68932, 76064, 85026, 133021, 145785, 152091, 217627, 283163 | 47 | 4937, 20685, 40072 | 173f8ca0c169c4f1 |
| 0 | (6,12,8,65) | LCG | 157, 413, 669, 925, 1181, 1437, 1693, 1949, 2205, 2461, 2717, 2973 | 391 | 256, 256, 259 | cb7827e1fc9e529a |
| 0 | (6,12,8,63) | LCG | 194, 450, 706, 962, 1218, 1474, 1730, 1986, 2242, 2498, 2754, 3010 | 391 | 256, 256, 222 | 66eae1d4f60d1db9 |
| 0 | (10,16,14,4095) | LCG | 65536, 100000 | 2 | 65536, 34464 | 59576b557f79458f |
| 1849058162 | (6,12,8,65) | SC | 118, 279, 394, 511, 614, 1754, 1949, 2218, 2309, 3074, 3515, 3938 | 3279 | 96, 797, 177 | 633bf988746d9560 |
| 1849058162 | (6,12,8,63) | SC | 424, 519, 665, 870, 999, 1348, 1756, 1952, 2219, 2816, 2882, 2990 | 3254 | 227, 178, 274 | 18622a6944476ff0 |
| 1849058162 | (10,16,14,4095) | SC | 10425, 32809, 83984, 100670, 134161, 146365, 157997, 192573, 197836, 207824, 209198, 226780 | 55 | 29001, 9236, 47079 | 78933694d7953e64 |
| 1849058162 | (6,12,8,65) | LCG | 139, 281, 395, 537, 651, 793, 907, 1049, 1163, 1305, 1419, 1561 | 781 | 114, 142, 135 | 6e763d048e64fce3 |
| 1849058162 | (6,12,8,63) | LCG | 117, 227, 373, 483, 629, 739, 885, 995, 1141, 1251, 1397, 1507 | 781 | 146, 110, 189 | 1abb6fed2ed77aab |
| 1849058162 | (10,16,14,4095) | LCG | 65536, 100000 | 2 | 65536, 34464 | 59576b557f79458f |
| -1 | (6,12,8,65) | SC | 348, 463, 695, 1000, 1184, 1549, 2237, 2417, 2556, 3415, 3633, 3769 | 3254 | 316, 106, 86 | de40564f256cb5b9 |
| -1 | (6,12,8,63) | SC | 937, 1046, 1118, 1501, 1834, 2308, 3044, 4034, 4685, 4848, 5252, 5513 | 3219 | 106, 184, 186 | 0535f0319b8d4fe2 |
| -1 | (10,16,14,4095) | SC | 4042, 10855, 21917, 23090, 31561, 51230, 58328, 62956, 78600, 95463, 99119, 114485 | 57 | 19261, 15401, 31449 | 1d23feee623d03ea |
| -1 | (6,12,8,65) | LCG | 104, 360, 616, 872, 1128, 1384, 1640, 1896, 2152, 2408, 2664, 2920 | 391 | 256, 256, 312 | 4e2b9eb899aacbe0 |
| -1 | (6,12,8,63) | LCG | 107, 220, 363, 476, 619, 732, 875, 988, 1131, 1244, 1387, 1500 | 781 | 143, 113, 196 | 40eeaf03679eb93d |
| -1 | (10,16,14,4095) | LCG | 65536, 100000 | 2 | 65536, 34464 | 59576b557f79458f |
'''

SPEC_05_12MIB = r'''
| chunker | key | params | input | cuts | chunks | last 3 sizes |
|---|---|---|---|---|---|---|
| fastcdc | Z | (19,23,21,2) | SHA-CTR(12 MiB) | 2008520, 4215272, 6278548, 8927243, 10721222, 12475169, 12582912 | 7 | 1793979, 1753947, 107743 |
| fastcdc | Z | (19,23,21,2,normal_size=1000000) | SHA-CTR(12 MiB) | 1251081, 2410561, 4215272, 6278548, 7301490, 8927243, 10293613, 11314035, 12475169, 12582912 | 10 | 1020422, 1161134, 107743 |
| bh64 | Z | (19,23,21,4095,2) | SHA-CTR(12 MiB) | 1871477, 2729003, 4518183, 5118128, 7000782, 8591052, 9645042, 11688237, 12582912 | 9 | 1053990, 2043195, 894675 |
| fastcdc | KS | (19,23,21,2) | SHA-CTR(12 MiB) | 1899616, 3166486, 5726623, 7353209, 9116794, 10918110, 12582912 | 7 | 1763585, 1801316, 1664802 |
| fastcdc | KS | (19,23,21,2,normal_size=1000000) | SHA-CTR(12 MiB) | 1403712, 2869727, 3929456, 5726623, 7155094, 8297777, 9475164, 10666230, 11860252, 12582912 | 10 | 1191066, 1194022, 722660 |
| bh64 | KS | (19,23,21,4095,2) | SHA-CTR(12 MiB) | 537320, 3196344, 6020006, 9594332, 10652459, 12398180, 12582912 | 7 | 1058127, 1745721, 184732 |
| buzhash | seed=0 | (19,23,21,4095) | SHA-CTR(12 MiB) | 2400832, 5470069, 7053541, 7647874, 9058189, 11049828, 11788682, 12582912 | 8 | 1991639, 738854, 794230 |
| buzhash | seed=1849058162 | (19,23,21,4095) | SHA-CTR(12 MiB) | 1544870, 3813364, 9477021, 12131880, 12582912 | 5 | 5663657, 2654859, 451032 |
| buzhash | seed=-1 | (19,23,21,4095) | SHA-CTR(12 MiB) | 1949915, 5798925, 7274754, 12582912 | 4 | 3849010, 1475829, 5308158 |
'''

SPEC_05_SMALL = r'''
| n | fastcdc sizes | buzhash64 sizes |
|---|---------------|-----------------|
| 0 | (no chunk) | (no chunk) |
| 1 | 1 | 1 |
| 64 | 64 | 64 |
| 65 | 65 | 65 |
| 66 | 66 | 66 |
| 128 | 128 | 128 |
| 129 | 129 | 129 |
| 130 | 130 | 65, 65 |
'''

SPEC_05_FIXED = r'''
| N | block | header | sizes |
|---|-------|--------|-------|
| 10000 | 4096 | 123 | 123, 4096, 4096, 1685 |
| 10000 | 4096 | 0 | 4096, 4096, 1808 |
| 50 | 4096 | 123 | 50 |
| 0 | 4096 | 0 | (no chunk) |
| 8192 | 4096 | 0 | 4096, 4096 |
| 250 | 100 | −5 | 100, 100, 50 |
'''

SPEC_10_KEYS = r'''
### 2.1 Key KZ

* Z[0..31] = `dc95c078a2408989ad48a21492842087530f8afbc74536b9a963b4f1c4cb738b`
* SHA-256 of Z[16..2063] (the 2048 toeplitz table bytes) = `bab13a3e2160a8e12f07a18ab89def7d993d9b4540e7e0f2e9cbc55a2ac9d19a`
* A (AES-128 key, same for all three chunkers under the same κ) = `dc95c078a2408989ad48a21492842087`
* toeplitz-aes: T[0] = `b93645c7fb8a0f53`, T[1] = `8b73cbc4f1b463a9`, T[2] = `6e6b604d3d40a7ce`, T[255] = `057a3cd61a3a0d6c`; IN1[1] = `16e79789e368c749`, OUT64[1] = `7136be258439838c`, OUT65[1] = `e26d7c4b08730718`, OUT64[255] = `73fc6eab5c3eaa14`
* rabin-aes: 8 candidates rejected, accepted candidate no. 8 (0-based) from Z[80..87]; P = `0x1307fbb81e1cb4147` (65 bits incl. x^64); RED[1] = `307fbb81e1cb4147`, RED[255] = `6dc762bc276fd584`, OUT[1] = `a30b23328df91216`, OUT[255] = `94fccbddaa2df264`, W1[1] = `86361c45887b3fcb`, W1[255] = `46050ee6811d3bf5`, OUT8[1] = `2e71c4d5924445fd`, OUT8[255] = `b16a94d3a0ee89e3`, OUT16[1] = `cdb1c22092bc9e9f`, OUT16[255] = `7842266778a0e5ca`
* goldilocks-aes: K = `0xb93645c7fb8a0f53` (candidate 0 accepted, 0 rejected); K2 = `6e03a7c035764657`, K^64 = `8b0c945dc4c30030`, NOUT64[1] = `74f36ba13b3cffd1`, NOUT65[1] = `f4a3b5b014db0bfb`, IN1[255] = `7d0f82eb8e8542f5`

### 2.2 Key KS

* Z[0..31] = `f29000b62a499fd0a9f39a6add2e7780f05d76ae4ab99fe5a6f69b3148c2363d`
* SHA-256 of Z[16..2063] (the 2048 toeplitz table bytes) = `508063d4337ee55c18a66e23d64b343254d7ea74fd4aef4c61b126e41e770f14`
* A (AES-128 key, same for all three chunkers under the same κ) = `f29000b62a499fd0a9f39a6add2e7780`
* toeplitz-aes: T[0] = `e59fb94aae765df0`, T[1] = `3d36c248319bf6a6`, T[2] = `bd832cb5deb5bc0e`, T[255] = `85fafdd71f761d40`; IN1[1] = `7a6d84906337ed4c`, OUT64[1] = `7d81701ac7ccc48c`, OUT65[1] = `fb02e0358f998918`, OUT64[255] = `fe7735b02d4b196f`
* rabin-aes: 27 candidates rejected, accepted candidate no. 27 (0-based) from Z[232..239]; P = `0x1ab5c422bb806ac23` (65 bits incl. x^64); RED[1] = `ab5c422bb806ac23`, RED[255] = `8ba4fee913febf1a`, OUT[1] = `38c151067133272f`, OUT[255] = `47a9fecb7e53a4cd`, W1[1] = `9ced033b3403c12e`, W1[255] = `1d1b717d44912b03`, OUT8[1] = `f03b525bf3c7ca78`, OUT8[255] = `5d46e0201abb77f5`, OUT16[1] = `17f0723bdc0a5267`, OUT16[255] = `079c29ff72028dc5`
* goldilocks-aes: K = `0xe59fb94aae765df0` (candidate 0 accepted, 0 rejected); K2 = `c439ce33e0bf9ad1`, K^64 = `dce79b13202c34a6`, NOUT64[1] = `231864ebdfd3cb5b`, NOUT65[1] = `9bb4e1b0b2471362`, IN1[255] = `ba199247c7e7912c`

### 2.3 Key KA

* Z[0..31] = `11c7663c7f46d7f506c675608e9095ae61ce78bda9f2df5d1b8f9db53081df58`
* SHA-256 of Z[16..2063] (the 2048 toeplitz table bytes) = `d5b19c9c3975f473f16056eed512bfc200e7844bc2eb5edc1b5fadc9f1fc235a`
* A (AES-128 key, same for all three chunkers under the same κ) = `11c7663c7f46d7f506c675608e9095ae`
* toeplitz-aes: T[0] = `5ddff2a9bd78ce61`, T[1] = `58df8130b59d8f1b`, T[2] = `b503e243a7b4b0b5`, T[255] = `b7a81131afa4ce04`; IN1[1] = `b1bf02616b3b1e36`, OUT64[1] = `a26499df2b921804`, OUT65[1] = `44c933be57243013`, OUT64[255] = `1f39a9c57787c2f5`
* rabin-aes: 24 candidates rejected, accepted candidate no. 24 (0-based) from Z[208..215]; P = `0x17e7b905efcb18a59` (65 bits incl. x^64); RED[1] = `7e7b905efcb18a59`, RED[255] = `35c50f3a5fe1d373`, OUT[1] = `fced06943f33ded5`, OUT[255] = `6261e4d1cdb5c23b`, W1[1] = `203481101c93ffcc`, W1[255] = `657a4700ae6278f7`, OUT8[1] = `5a4f2be669ed9898`, OUT8[255] = `2e258939364f6a94`, OUT16[1] = `2821b0ad333c2724`, OUT16[255] = `9480a2b725ea5579`
* goldilocks-aes: K = `0x5ddff2a9bd78ce61` (candidate 0 accepted, 0 rejected); K2 = `2050b2fd3b7c8d5b`, K^64 = `4e8ef4eb043b7637`, NOUT64[1] = `b1710b13fbc489ca`, NOUT65[1] = `f93f6b0897ab5b2f`, IN1[255] = `8212b770bb559242`

Sanity anchors:
* Under KZ, `A` equals AES-256 of the zero block under the zero key.
* toeplitz `T[0]` equals the first goldilocks candidate under the same key,
  because both come from Z[16..23].
* rabin `RED[1]` equals `P` without its `x^64` bit.
'''

SPEC_10_WINDOWS = r'''
| chunker | key | window | digest D (hex u64) | AES ciphertext (16 bytes, hex) | cut value c = LE64(ct[0..7]) |
|---|---|---|---|---|---|
| toeplitz-aes | KZ | W0 | `e7965745715c7084` | `6fe02676f55bf1075a0713adb7881576` | `07f15bf57626e06f` |
| toeplitz-aes | KZ | W1 | `14b849503e3498de` | `c694d82a457144dee2c7c37a309bc45b` | `de4471452ad894c6` |
| toeplitz-aes | KZ | W2 | `2d8231d4c2039d28` | `560a9c80ba828ca643af91d5dd963fbc` | `a68c82ba809c0a56` |
| rabin-aes | KZ | W0 | `0000000000000000` | `c83f182bb0d5e789e24f061a5cf559e3` | `89e7d5b02b183fc8` |
| rabin-aes | KZ | W1 | `e9456359f92b54c6` | `ccd3ebff97fb84c64ad14f5ec8bb9017` | `c684fb97ffebd3cc` |
| rabin-aes | KZ | W2 | `1a2f43b371c3c354` | `f351b8dc1a18d81dece4e8b6713e18b2` | `1dd8181adcb851f3` |
| goldilocks-aes | KZ | W0 | `0000000000000000` | `c83f182bb0d5e789e24f061a5cf559e3` | `89e7d5b02b183fc8` |
| goldilocks-aes | KZ | W1 | `aa75a39b78de3236` | `6fa7d350d8e21b7068b25535a8e3bedb` | `701be2d850d3a76f` |
| goldilocks-aes | KZ | W2 | `1720f25e30f3be44` | `d2f54e1118272ab364f2febf16865892` | `b32a2718114ef5d2` |
| toeplitz-aes | KS | W0 | `95e8e42647e97961` | `d48f4dce7bfa7ea93e030ccc10b83b4f` | `a97efa7bce4d8fd4` |
| toeplitz-aes | KS | W1 | `82f0401fabaaa568` | `5d4698455f372bf5d0d3d0528c878744` | `f52b375f4598465d` |
| toeplitz-aes | KS | W2 | `297b47dd11eb03e5` | `3f9a6e2855502c787d98f65a1bbb46a9` | `782c5055286e9a3f` |
| rabin-aes | KS | W0 | `0000000000000000` | `8de9013cb83edd9a6d0fc155d0799d47` | `9add3eb83c01e98d` |
| rabin-aes | KS | W1 | `3e838df4ffcd34dd` | `aa8fa20e52336b7f891f08e4d6d6b6af` | `7f6b33520ea28faa` |
| rabin-aes | KS | W2 | `c922f02fc6bf2236` | `670bda6eb365941ca091d194378beb56` | `1c9465b36eda0b67` |
| goldilocks-aes | KS | W0 | `0000000000000000` | `8de9013cb83edd9a6d0fc155d0799d47` | `9add3eb83c01e98d` |
| goldilocks-aes | KS | W1 | `a8b18b24985930bc` | `cf10e752e4ada21f445710438730a8a3` | `1fa2ade452e710cf` |
| goldilocks-aes | KS | W2 | `ba675327da82f972` | `57f97bceceb8fac2f2752df7a70fa609` | `c2fab8cece7bf957` |
| toeplitz-aes | KA | W0 | `786ac9833d96f889` | `e3df6dea9714b4dc65a3c185e2c727f7` | `dcb41497ea6ddfe3` |
| toeplitz-aes | KA | W1 | `3b938770f015b213` | `b2f6a6325641e0dae10ac5a65d8dceb6` | `dae0415632a6f6b2` |
| toeplitz-aes | KA | W2 | `987097ac481efba6` | `00653dbc58f29aa9c1773e835f05d047` | `a99af258bc3d6500` |
| rabin-aes | KA | W0 | `0000000000000000` | `4163f49a3f86465d38bcccce9194572d` | `5d46863f9af46341` |
| rabin-aes | KA | W1 | `3a2681bb002dd194` | `209cab9f2bc4dc895bf2b5923d944ee0` | `89dcc42b9fab9c20` |
| rabin-aes | KA | W2 | `e3ec696873340e40` | `554a22ca1b01f37cf90f554edf9fb8cc` | `7cf3011bca224a55` |
| goldilocks-aes | KA | W0 | `0000000000000000` | `4163f49a3f86465d38bcccce9194572d` | `5d46863f9af46341` |
| goldilocks-aes | KA | W1 | `5bb7251139639941` | `02e6b6b68d9fed7a72ccbc38c945bbf1` | `7aed9f8db6b6e602` |
| goldilocks-aes | KA | W2 | `605b5bc7f4c2e307` | `5e559f4bfd5c8ece11dace8c9412e5fb` | `ce8e5cfd4b9f555e` |
'''

SPEC_10_EDGE = r'''
| K | window | digest (hex) | digest (decimal) |
|---|---|---|---|
| `0x1` (1) | W1 | `00000000000007e0` | 2016 |
| `0x1` (1) | W2 | `0000000000003fc0` | 16320 |
| `0xffffffff` (2^32 − 1) | W1 | `0000001500000015` | 90194313237 |
| `0xffffffff` (2^32 − 1) | W2 | `00000000000000ff` | 255 |
| `0x100000000` (2^32) | W1 | `0000003f00000002` | 270582939650 |
| `0x100000000` (2^32) | W2 | `000001fdffffff01` | 2190433320705 |
| `0xfffffffeffffffff` (p − 2) | W1 | `1c71c71c71c71c87` | 2049638230412172423 |
| `0xfffffffeffffffff` (p − 2) | W2 | `ffffffaa000000ab` | 18446743704342364331 |
| `0xffffffff00000000` (p − 1) | W1 | `0000000000000020` | 32 |
| `0xffffffff00000000` (p − 1) | W2 | `0000000000000000` | 0 |
'''

SPEC_10_POSITIONS = r'''
| chunker | key | i | D_i | c_i |
|---|---|---|---|---|
| toeplitz-aes | KZ | 63 | `fa325efcfe3aa2b6` | `eee28e3fe1d9b91d` |
| toeplitz-aes | KZ | 64 | `487e7b9e073db436` | `b03bcbcbb906490c` |
| toeplitz-aes | KZ | 1000 | `c6c4ea42bdb0fc14` | `a625f9e851b264a6` |
| toeplitz-aes | KZ | 262143 | `4f731d490f86ec52` | `369f51e2caf0023a` |
| rabin-aes | KZ | 63 | `95ddd014e99c429e` | `3101389a291b9a92` |
| rabin-aes | KZ | 64 | `e9f4d6f0eb749137` | `ce5c7d447a50aa22` |
| rabin-aes | KZ | 1000 | `dbea7d0874169291` | `c2faa8f3990476c4` |
| rabin-aes | KZ | 262143 | `4f89497089373c9e` | `c97ef6f3667c31a3` |
| goldilocks-aes | KZ | 63 | `db314b201f5e2f48` | `c9860ab122c99340` |
| goldilocks-aes | KZ | 64 | `3e6281b011da0e80` | `1c12989b18b05a44` |
| goldilocks-aes | KZ | 1000 | `044d16b213a53f3a` | `169f6e1d7e652ca3` |
| goldilocks-aes | KZ | 262143 | `7f328c601ab24915` | `9f161d2c35e82b7b` |
| toeplitz-aes | KA | 63 | `9b33cf4b9f7f72b2` | `a0b49af91c27ce5b` |
| toeplitz-aes | KA | 64 | `ee6e5862eb9adf81` | `a4060b071b2aa63c` |
| toeplitz-aes | KA | 1000 | `d4b105283dd82504` | `4480eaa0770ddeef` |
| toeplitz-aes | KA | 262143 | `7c7ba583c452b7e0` | `368332e624e066e0` |
| rabin-aes | KA | 63 | `ccbd83ab257d1bc5` | `86d389601dcda017` |
| rabin-aes | KA | 64 | `2a6032d78cc0696a` | `3a858da59a496f26` |
| rabin-aes | KA | 1000 | `79214915c75d1cfc` | `18d95e52fac340ea` |
| rabin-aes | KA | 262143 | `dd393cdf37e9803a` | `32ffde481cce1cef` |
| goldilocks-aes | KA | 63 | `4d1878d1cd4c13b0` | `9bd40a9e1647f690` |
| goldilocks-aes | KA | 64 | `f997f506747bf00b` | `8490b2a8edb60b12` |
| goldilocks-aes | KA | 1000 | `6c4a1f73be830793` | `99bc939f8396026e` |
| goldilocks-aes | KA | 262143 | `3adb3df84795eab9` | `dba63587d226d5be` |
'''

SPEC_10_RAW = r'''
| chunker | key | first 10 positions i ≥ 63 with (c_i & 0xFFF) == 0 | total count |
|---|---|---|---|
| toeplitz-aes | KZ | 486, 2045, 17266, 22631, 23625, 23670, 24052, 25996, 32273, 36050 | 66 |
| rabin-aes | KZ | 3770, 6673, 6933, 7459, 8347, 20529, 20786, 26506, 35046, 49327 | 50 |
| goldilocks-aes | KZ | 1529, 2599, 8326, 8928, 14185, 16113, 19309, 23749, 24413, 26266 | 67 |
| toeplitz-aes | KA | 2866, 5789, 6231, 6872, 6957, 10656, 18949, 22001, 23306, 24815 | 56 |
| rabin-aes | KA | 809, 7261, 7316, 10451, 12628, 15341, 27733, 40042, 40216, 54509 | 59 |
| goldilocks-aes | KA | 3831, 9606, 10840, 15396, 16498, 18205, 19821, 20958, 27354, 34551 | 68 |
'''

SPEC_10_CHUNKS = r'''
Parameters `10,16,12,0`:

| chunker | key | first 12 chunk end offsets | #chunks | SHA-256 of all end offsets |
|---|---|---|---|---|
| toeplitz-aes | KZ | 2046, 17267, 22632, 23671, 25997, 32274, 36051, 39506, 40865, 50986, 53297, 59669 | 53 | `d2279ca00d6e5ebf6f5b1cab0e54ebc6298033ffde72db483420c9222ed529a6` |
| rabin-aes | KZ | 3771, 6674, 8348, 20530, 26507, 35047, 49328, 51497, 64422, 65741, 72155, 81944 | 43 | `1dad5fe84960a570e9e9a37fcd8be524a534269d4e390801152e55d13437db66` |
| goldilocks-aes | KZ | 1530, 2600, 8327, 14186, 16114, 19310, 23750, 26267, 28376, 39634, 46673, 58476 | 52 | `c5d02b15b3f07e49574c7914440aff49647a0030d6f7f1c893531c2c2308381e` |
| toeplitz-aes | KA | 2867, 5790, 6873, 10657, 18950, 22002, 23307, 24816, 27148, 30538, 39076, 41355 | 52 | `60702e31de3fcb9f4a5b9b18777756da43709cd7792fb2c8b6d0b38fb1b4297f` |
| rabin-aes | KA | 7262, 10452, 12629, 15342, 27734, 40043, 54510, 65520, 72389, 74212, 78347, 79453 | 52 | `0c9bfbc226f57b49e902bd5dd30f8b4f0acfcef784178c138c36c7dbcd203d2f` |
| goldilocks-aes | KA | 3832, 9607, 10841, 15397, 16499, 18206, 19822, 20959, 27355, 34552, 50463, 57184 | 58 | `0598457400a831794a6770001b9fe5bacac80e9171a1befcb510c76693efb37c` |

Parameters `10,16,12,2`:

| chunker | key | first 12 chunk end offsets | #chunks | SHA-256 of all end offsets |
|---|---|---|---|---|
| toeplitz-aes | KZ | 3637, 7776, 11836, 16339, 20211, 23626, 25997, 29785, 35074, 39289, 40865, 44520 | 67 | `89e318609b09018be85f5d24738aba03d5b61e5274561ad1a8379ffdd038d5e8` |
| rabin-aes | KZ | 3771, 6934, 12736, 19784, 24286, 27991, 31413, 34882, 39100, 43102, 49328, 52593 | 65 | `d3614b0b689c3d4b360815c192174482bab6d2d6eef22ae1c126c0bf35086b57` |
| goldilocks-aes | KZ | 3170, 7801, 8929, 12771, 16114, 19310, 23619, 26267, 29617, 32770, 37782, 43416 | 67 | `168637a5ae1050794614a9e470a2d426a2839da44e1ac8a8723452f3fc8e826b` |
| toeplitz-aes | KA | 2867, 6232, 10473, 13708, 16977, 20711, 22002, 26360, 30358, 34325, 37615, 41077 | 71 | `2009ab2e4ff4164ffbc0d51d0b4dde316449d28dca659dc7dfd1f0966d6bf88c` |
| rabin-aes | KA | 3247, 6970, 10076, 15084, 18710, 22328, 25492, 31178, 34318, 37722, 40217, 47507 | 64 | `627ac05dab1f6441d4ae616409932e94fa73d60e412238eb5878b4e066a2bfe1` |
| goldilocks-aes | KA | 3301, 7978, 9607, 12855, 16481, 19822, 23508, 27355, 30448, 33572, 37037, 45073 | 68 | `946d33610fb28346d62d022d3959d3e028e58e52d9cf8e5a59bbaab1fe488388` |

Parameters `6,15,7,3`:

| chunker | key | first 12 chunk end offsets | #chunks | SHA-256 of all end offsets |
|---|---|---|---|---|
| toeplitz-aes | KZ | 131, 283, 425, 541, 658, 773, 908, 1023, 1137, 1261, 1414, 1529 | 2068 | `4d060f68cb3314acd0e4f167c4286c18bb204e077a5a0f8d98cd6b98e5655dfe` |
| rabin-aes | KZ | 129, 256, 375, 494, 624, 748, 889, 1008, 1132, 1249, 1366, 1487 | 2072 | `7119346fbd37b723060127d0d88c799b497ab324336886eafadb7ccc47556dcc` |
| goldilocks-aes | KZ | 135, 255, 370, 558, 689, 809, 931, 1053, 1158, 1280, 1349, 1471 | 2078 | `cd227ff860a966a84daa40b6d851fb11f2a434fecb8197225813800376b546ac` |
| toeplitz-aes | KA | 120, 240, 366, 479, 601, 731, 844, 981, 1111, 1335, 1457, 1583 | 2082 | `9630c5a26e2671362ad30d03dd91756cfa41dbb8429fa307cc10e464314337fc` |
| rabin-aes | KA | 117, 254, 367, 498, 612, 753, 926, 1051, 1164, 1282, 1403, 1516 | 2065 | `7ffd308eac83445a923b0221d3a2bdb86beb401f98046c06559e088a18a2bd60` |
| goldilocks-aes | KA | 113, 229, 347, 475, 631, 748, 874, 994, 1117, 1239, 1354, 1524 | 2082 | `68866e7bb82311e5883ee0a689d49ae274ebea65e394d6417a949af0d409be84` |

Parameters `12,17,12,0`:

| chunker | key | first 12 chunk end offsets | #chunks | SHA-256 of all end offsets |
|---|---|---|---|---|
| toeplitz-aes | KZ | 17267, 22632, 32274, 39506, 50986, 59669, 64560, 68742, 77750, 82538, 87662, 94394 | 32 | `42fbe87173ad1adc26aabd0d34d16358da99dc1bb7ede1b146b4d1d6ab9fba7f` |
| rabin-aes | KZ | 6674, 20530, 26507, 35047, 49328, 64422, 72155, 81944, 93112, 99215, 103750, 121296 | 26 | `adeca775ac8b8ad3beeb25f75e17e83a2239a3c504014fd5aba5200a7dc5d737` |
| goldilocks-aes | KZ | 8327, 14186, 19310, 23750, 28376, 39634, 46673, 58476, 64290, 76244, 82316, 89486 | 32 | `5bae103cae166495fefdd897dd511746a2209884935178beb861fd2564b1681d` |
| toeplitz-aes | KA | 5790, 10657, 18950, 23307, 30538, 39076, 46199, 55284, 61357, 71481, 84230, 94703 | 32 | `bffcebb30580391e16e179cd14987ecb35db7cb1f0ed4b78651ad6e05716f6ec` |
| rabin-aes | KA | 7262, 12629, 27734, 40043, 54510, 65520, 72389, 78347, 87948, 94013, 107411, 113398 | 31 | `d54993a17852f8dc2d1f8ef4ca324721ca3eb4852f63110747eb03135f8b5134` |
| goldilocks-aes | KA | 9607, 15397, 19822, 27355, 34552, 50463, 57184, 62123, 66924, 71785, 76117, 85340 | 35 | `d5a614262e51e6cac23bba4c0979e432244a8ca6330ccfbdf1d2fd0d3946878c` |
'''

SPEC_10_CONST = r'''
| chunker | input (300000 bytes) | params | c of the constant window | #chunks | first 4 ends | last 2 ends |
|---|---|---|---|---|---|---|
| toeplitz-aes | all bytes 0x00 | `10,16,12,2` | `07f15bf57626e06f` | 5 | 65536, 131072, 196608, 262144 | 262144, 300000 |
| toeplitz-aes | all bytes 0x00 | `6,15,1,0` | `07f15bf57626e06f` | 10 | 32768, 65536, 98304, 131072 | 294912, 300000 |
| toeplitz-aes | all bytes 0x00 | `6,15,2,1` | `07f15bf57626e06f` | 10 | 32768, 65536, 98304, 131072 | 294912, 300000 |
| toeplitz-aes | all bytes 0x42 | `10,16,12,2` | `cc0996f2c5fadab7` | 5 | 65536, 131072, 196608, 262144 | 262144, 300000 |
| toeplitz-aes | all bytes 0x42 | `6,15,1,0` | `cc0996f2c5fadab7` | 10 | 32768, 65536, 98304, 131072 | 294912, 300000 |
| toeplitz-aes | all bytes 0x42 | `6,15,2,1` | `cc0996f2c5fadab7` | 10 | 32768, 65536, 98304, 131072 | 294912, 300000 |
| rabin-aes | all bytes 0x00 | `10,16,12,2` | `89e7d5b02b183fc8` | 5 | 65536, 131072, 196608, 262144 | 262144, 300000 |
| rabin-aes | all bytes 0x00 | `6,15,1,0` | `89e7d5b02b183fc8` | 4616 | 65, 130, 195, 260 | 299975, 300000 |
| rabin-aes | all bytes 0x00 | `6,15,2,1` | `89e7d5b02b183fc8` | 4616 | 65, 130, 195, 260 | 299975, 300000 |
| rabin-aes | all bytes 0x42 | `10,16,12,2` | `4b42dfdda7ee266c` | 5 | 65536, 131072, 196608, 262144 | 262144, 300000 |
| rabin-aes | all bytes 0x42 | `6,15,1,0` | `4b42dfdda7ee266c` | 4616 | 65, 130, 195, 260 | 299975, 300000 |
| rabin-aes | all bytes 0x42 | `6,15,2,1` | `4b42dfdda7ee266c` | 4616 | 65, 130, 195, 260 | 299975, 300000 |
| goldilocks-aes | all bytes 0x00 | `10,16,12,2` | `89e7d5b02b183fc8` | 5 | 65536, 131072, 196608, 262144 | 262144, 300000 |
| goldilocks-aes | all bytes 0x00 | `6,15,1,0` | `89e7d5b02b183fc8` | 4616 | 65, 130, 195, 260 | 299975, 300000 |
| goldilocks-aes | all bytes 0x00 | `6,15,2,1` | `89e7d5b02b183fc8` | 4616 | 65, 130, 195, 260 | 299975, 300000 |
| goldilocks-aes | all bytes 0x42 | `10,16,12,2` | `f5a17bc512261471` | 5 | 65536, 131072, 196608, 262144 | 262144, 300000 |
| goldilocks-aes | all bytes 0x42 | `6,15,1,0` | `f5a17bc512261471` | 10 | 32768, 65536, 98304, 131072 | 294912, 300000 |
| goldilocks-aes | all bytes 0x42 | `6,15,2,1` | `f5a17bc512261471` | 10 | 32768, 65536, 98304, 131072 | 294912, 300000 |
'''

SPEC_10_LCG = r'''
| chunker | params | #chunks | first ends | last 2 ends |
|---|---|---|---|---|
| toeplitz-aes | `10,16,12,0` | 2 | 65536, 100000 | 65536, 100000 |
| toeplitz-aes | `6,15,4,2` | 1433 | 66, 131, 197, 263, 338, 407 | 99957, 100000 |
| rabin-aes | `10,16,12,0` | 2 | 65536, 100000 | 65536, 100000 |
| rabin-aes | `6,15,4,2` | 1465 | 71, 136, 207, 276, 341, 410 | 99944, 100000 |
| goldilocks-aes | `10,16,12,0` | 2 | 65536, 100000 | 65536, 100000 |
| goldilocks-aes | `6,15,4,2` | 1465 | 67, 132, 209, 274, 341, 408 | 99936, 100000 |
'''

SPEC_10_TINY = r'''
| N | toeplitz-aes | rabin-aes | goldilocks-aes |
|---|---|---|---|
| 0 | [] | [] | [] |
| 1 | [1] | [1] | [1] |
| 64 | [64] | [64] | [64] |
| 1024 | [1024] | [1024] | [1024] |
| 1025 | [1025] | [1025] | [1025] |
| 1026 | [1025, 1026] | [1026] | [1026] |
| 1100 | [1025, 1100] | [1026, 1100] | [1026, 1100] |
'''

SPEC_10_GRID = r'''
| chunker | overall SHA-256 |
|---|---|
| rabin-aes | `f502d8da9dc338ff6949d89cdb545ff690bba8919263a17010c2a4995031d7ef` |
| goldilocks-aes | `4aa18be3a2209cc0f454af01a9019e050eb1588b959f96c7e0de532b6a69fd65` |
| toeplitz-aes | `d98a97b3eeb1122c602c4581f486bd356404447efe2bf550000e12d1f046b843` |
'''


def spec10_keys():
    """SPEC_10_KEYS parsed: {keyname: {"Z32", "T_SHA", "A", <chunker>: {"entries", "line"}}}."""
    out = {}
    for sec in re.split(r"^### 2\.\d Key ", SPEC_10_KEYS, flags=re.M)[1:]:
        name = sec.split()[0]
        d = {}
        d["Z32"] = re.search(r"Z\[0\.\.31\] = `([0-9a-f]+)`", sec).group(1)
        d["T_SHA"] = re.search(r"SHA-256 of Z\[16\.\.2063\].*?= `([0-9a-f]+)`", sec).group(1)
        d["A"] = re.search(r"A \(AES-128 key.*?\) = `([0-9a-f]+)`", sec).group(1)
        for chunker in ("toeplitz-aes", "rabin-aes", "goldilocks-aes"):
            line = re.search(r"^\* " + chunker + r": (.*)$", sec, flags=re.M).group(1)
            d[chunker] = {"entries": [(t, int(i), int(v, 16)) for t, i, v in
                                      re.findall(r"(\w+)\[(\d+)\] = `([0-9a-f]+)`", line)],
                          "line": line}
        out[name] = d
    return out


SPEC_KEYS = spec10_keys()


def spec10_chunk_rows():
    """Rows of spec 10 §6 as (params, chunker, key, first 12 ends, count, SHA-256 of ends)."""
    rows = []
    params = None
    for line in SPEC_10_CHUNKS.strip().splitlines():
        m = re.match(r"Parameters `([\d,]+)`:", line)
        if m:
            params = tuple(int(x) for x in m.group(1).split(","))
            continue
        if line.startswith("|") and not line.startswith("| chunker") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append((params,) + tuple(cells))
    return rows


# ---------------------------------------------------------------------------
# kernel selection (conformance.run.selection)

REFERENCE_KERNELS = {"fastcdc": "scalar", "buzhash64": "scalar", "buzhash": "single", "fixed": "single", "aes": "evp"}
"""The reference kernel per family: spec 02 §4 (fastcdc ``scalar``, the sequential scan; buzhash64
the same names, 01 §11.2), 01 §11.4 (the legacy buzhash and fixed: one implementation, ``single``
in this project), 06 §8.4 (AES: ``evp``, the portable library path)."""

DOCUMENTED_DEFAULTS = {     # docs/kernels.md "Built-in defaults": machine -> family -> first that runs
    "x86_64": {"fastcdc": ("seg4",), "buzhash64": ("stride4",), "buzhash": ("stride4",),
               "aes": ("vaes-seg", "vaes256-seg", "vaes", "vaes256", "aes-ni", "evp")},
    "aarch64": {"fastcdc": ("neon",), "buzhash64": ("blockwise",), "buzhash": ("single",),
                "aes": ("aes-arm64", "evp")},
    "*": {"fastcdc": ("blockwise",), "buzhash64": ("blockwise",), "buzhash": ("single",), "aes": ("evp",)},
    # an x86-64 CPU of DOCUMENTED_SEQUENTIAL_FIRST: the Gear hash's sequential loop first
    "x86_64 sequential first": {"fastcdc": ("scalar",), "buzhash64": ("stride4",), "buzhash": ("stride4",),
                                "aes": ("vaes-seg", "vaes256-seg", "vaes", "vaes256", "aes-ni", "evp")},
}

DOCUMENTED_SEQUENTIAL_FIRST = ("GenuineIntel", 6, "avx512f", "avx512_fp16")
"""docs/kernels.md "Built-in defaults": the x86-64 CPUs (/proc/cpuinfo's vendor_id, cpu family, a
flag they have, a flag they lack) whose defaults are DOCUMENTED_DEFAULTS["x86_64 sequential first"]."""

BORG_DEFAULTS = {           # spec 01 §11.3, borg 2.0.0b25: machine -> family -> first that runs
    "x86_64": {"fastcdc": ("scalar",), "buzhash64": ("scalar",), "aes": ("vaes", "aes-ni", "evp")},
    "aarch64": {"fastcdc": ("neon", "blockwise"), "buzhash64": ("blockwise",), "aes": ("aes-arm64", "evp")},
    "*": {"fastcdc": ("blockwise",), "buzhash64": ("blockwise",), "aes": ("evp",)},
}

BORG_KERNEL_NAMES = {"fastcdc": ("avx512", "avx2", "neon", "blockwise", "scalar"),
                     "buzhash64": ("avx512", "avx2", "neon", "blockwise", "scalar"),
                     "aes": ("vaes", "aes-ni", "aes-arm64", "evp")}
"""Every kernel name of borg's selectors on any target (spec 01 §11.2, 06 §8.4)."""
