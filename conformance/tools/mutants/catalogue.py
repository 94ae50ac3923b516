"""The mutant catalogue: realistic planted faults in the kernels, the driver, the
tables and the key schedule, one entry per fault (``python -m conformance.tools.mutants``).

Each entry is an exact search/replace on one file (``find`` must occur exactly
once; conformance/tests/test_suite_tools.py checks every entry against the
current sources).
``tier`` names the kernel tier or component the fault lives in (the kill table
is per tier). ``route`` says where the fault can show: ``native`` (this host's
build: the default pytest tier and the main job; x86-64 kernels this CPU lacks
run in bochscpu there), ``aarch64`` or ``s390x`` (a cross build run under
qemu-user, ci/cross-run; those tiers exist only there). ``equivalent`` is set
for a fault that is argued not to change any result; it is still run, and it
is never counted in the kill rate. A fault whose mutated object code is
identical to the original's is found equivalent by the runner itself.

To add a fault: append a Mutant; keep ids unique and stable (the CI sample
names ids).
"""

from __future__ import annotations

from typing import NamedTuple


class Mutant(NamedTuple):
    id: str
    tier: str
    file: str           # relative to the repository root
    find: str
    replace: str
    note: str = ""
    route: str = "native"
    equivalent: str = ""


FC, BZ, AES = "chunkers/csrc/fastcdc/", "chunkers/csrc/buzhash64/", "chunkers/csrc/aes/"

CATALOGUE = [
    # ---- scalar: the sequential reference loops and the shared exact rechecks ----
    Mutant("fc-scalar-add-xor", "scalar", FC + "scalar.c",
           "fp = (fp << 1) + gear[p[i + (k)]];", "fp = (fp << 1) ^ gear[p[i + (k)]];", "Gear step XORs instead of adding"),
    Mutant("fc-scalar-tail-offset", "scalar", FC + "scalar.c",
           "return r >= 0 ? (int64_t)i + r : -1;", "return r >= 0 ? r : -1;", "tail hit reported relative to the tail"),
    Mutant("fc-scalar-tail-state", "scalar", FC + "scalar.c",
           "    *fpp = fp;\n    const int64_t r = fastcdc_seq(", "    const int64_t r = fastcdc_seq(",
           "the unrolled loop's state is not handed to the tail"),
    Mutant("fc-scalar-unroll-bound", "scalar", FC + "scalar.c",
           "for (; i + 4 <= n; i += 4)", "for (; i + 4 < n; i += 4)", "unrolled loop stops one block early",
           equivalent="the last 4-byte block then goes through fastcdc_seq, the same sequential loop with the "
                      "same state: every result is unchanged"),
    Mutant("fc-seq-hit-state", "scalar", FC + "fastcdc.h",
           "            *fpp = fp;\n            return (int64_t)i;", "            return (int64_t)i;",
           "the exact recheck does not store the state at a hit"),
    Mutant("fc-seq-mask-test", "scalar", FC + "fastcdc.h",
           "        if (!(fp & mask)) {\n            *fpp = fp;", "        if (!(fp & mask & (mask - 1))) {\n            *fpp = fp;",
           "the lowest mask bit is ignored in the exact loop"),
    Mutant("bz64-seq-swap", "scalar", BZ + "buzhash64.h",
           "s = buzhash64_rotl(s, 1) ^ tr[pr[j]] ^ t[pa[j]];", "s = buzhash64_rotl(s, 1) ^ tr[pa[j]] ^ t[pr[j]];",
           "leaving and entering bytes swapped"),
    Mutant("bz64-rotl-32", "scalar", BZ + "buzhash64.h", "    k &= 63;", "    k &= 31;",
           "rotation count reduced mod 32"),
    Mutant("bz64-seq-mask", "scalar", BZ + "buzhash64.h",
           "while (j < n && (s & mask)) {", "while (j < n && (s & mask & ~(uint64_t)1)) {",
           "bit 0 of the mask ignored by the exact loop"),
    # ---- blockwise: the portable 8-lane kernels ----
    Mutant("fc-bw-m1", "blockwise", FC + "blockwise.c", "m1 = m << 7,", "m1 = m << 6,", "lane 1 mask shifted wrongly"),
    Mutant("fc-bw-s8", "blockwise", FC + "blockwise.c",
           "const uint64_t s8 = s7 + g[b[7]];", "const uint64_t s8 = s7 + (g[b[7]] << 1);", "lane 8 prefix term shifted"),
    Mutant("fc-bw-lane4", "blockwise", FC + "blockwise.c", "!((c + s4) & m4) | ", "", "lane 4 never tested"),
    Mutant("fc-bw-carry", "blockwise", FC + "blockwise.c", "fp = c + s8;", "fp = c ^ s8;", "block carry XORs"),
    Mutant("fc-bw-hit-offset", "blockwise", FC + "blockwise.c",
           "                *fpp = fp;\n                return (int64_t)i + r;",
           "                *fpp = fp;\n                return r;", "block hit reported relative to the block"),
    Mutant("bz64-bw-m1", "blockwise", BZ + "blockwise.c", "m1 = ROTL(m, 7),", "m1 = ROTL(m, 8),",
           "lane 1 mask rotated wrongly"),
    Mutant("bz64-bw-s8", "blockwise", BZ + "blockwise.c", "const uint64_t s8 = s7 ^ tr[o[7]] ^ t[in[7]];",
           "const uint64_t s8 = s7 ^ tr[in[7]] ^ t[o[7]];", "lane 8 bytes swapped"),
    Mutant("bz64-bw-c", "blockwise", BZ + "blockwise.c", "const uint64_t c = ROTL(s, 8);",
           "const uint64_t c = ROTL(s, 7);", "carried state rotated by 7"),
    Mutant("bz64-bw-guard", "blockwise", BZ + "blockwise.c", "for (; j + 8 <= n && (s & m); j += 8) {",
           "for (; j + 8 <= n; j += 8) {", "a matching initial window is not tested before the block"),
    Mutant("bz64-bw-rescan", "blockwise", BZ + "blockwise.c", "buzhash64_seq(t, tr, o, in, 8, &s, m);",
           "buzhash64_seq(t, tr, o, in, 7, &s, m);", "a hit in lane 8 is lost by the rescan"),
    # ---- avx2 ----
    Mutant("fc-avx2-shift", "avx2", FC + "avx2.c",
           "const __m256i shift_hi = _mm256_setr_epi64x(3, 2, 1, 0);",
           "const __m256i shift_hi = _mm256_setr_epi64x(3, 2, 1, 1);", "lane 8 shift count 1"),
    Mutant("fc-avx2-prefix", "avx2", FC + "avx2.c",
           "_mm256_permute4x64_epi64(x, 0x40), zero, 0x0F)", "_mm256_permute4x64_epi64(x, 0x40), zero, 0x03)",
           "prefix sum's second step keeps a stale lane"),
    Mutant("fc-avx2-upper", "avx2", FC + "avx2.c", "_mm256_permute4x64_epi64(s_lo, 0xFF)",
           "_mm256_permute4x64_epi64(s_lo, 0xAA)", "upper half gets S_3 instead of S_4"),
    Mutant("fc-avx2-lookahead", "avx2", FC + "avx2.c", "for (; i + 16 <= n; i += 8) {", "for (; i + 8 <= n; i += 8) {",
           "double-buffer look-ahead reads up to 8 bytes past the span (results unchanged, an over-read)"),
    Mutant("fc-avx2-tail", "avx2", FC + "avx2.c",
           "const int64_t r = fastcdc_seq(g, p + i, n - i, &fp, m);", "const int64_t r = fastcdc_seq(g, p + i, n - i - (n > 16), &fp, m);",
           "last byte of a long span never scanned"),
    Mutant("bz64-avx2-kinv", "avx2", BZ + "avx2.c", "_mm256_setr_epi64x(61, 62, 63, 64)",
           "_mm256_setr_epi64x(61, 62, 63, 63)", "rotate by 0 emulated with a right shift of 63"),
    Mutant("bz64-avx2-c", "avx2", BZ + "avx2.c", "const uint64_t c = buzhash64_rotl(s, 8);\n            const __m256i vc",
           "const uint64_t c = buzhash64_rotl(s, 9);\n            const __m256i vc", "carried state rotated by 9"),
    Mutant("bz64-avx2-prefix", "avx2", BZ + "avx2.c",
           "x = _mm256_xor_si256(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x90), zero, 0x03));",
           "x = _mm256_xor_si256(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x90), zero, 0x0C));",
           "prefix XOR's first step blends the wrong lane"),
    Mutant("bz64-avx2-extract", "avx2", BZ + "avx2.c", "s = c ^ (uint64_t)_mm256_extract_epi64(s_hi, 3);",
           "s = c ^ (uint64_t)_mm256_extract_epi64(s_hi, 2);", "block carry takes lane 7"),
    # ---- avx512 (bochscpu on a CPU without AVX-512) ----
    Mutant("fc-avx512-alignr", "avx512", FC + "avx512.c", "_mm512_alignr_epi64(s, zero, 6)",
           "_mm512_alignr_epi64(s, zero, 5)", "prefix sum's second step shifts by 3 lanes"),
    Mutant("fc-avx512-shift", "avx512", FC + "avx512.c", "_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0)",
           "_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 0, 0)", "lane 7 shift count 0"),
    Mutant("fc-avx512-extract", "avx512", FC + "avx512.c", "_mm512_extracti64x4_epi64(s, 1), 3)",
           "_mm512_extracti64x4_epi64(s, 1), 2)", "block carry takes lane 7"),
    Mutant("bz64-avx512-alignr", "avx512", BZ + "avx512.c", "_mm512_alignr_epi64(x, zero, 4)",
           "_mm512_alignr_epi64(x, zero, 3)", "prefix XOR's third step shifts by 5 lanes"),
    Mutant("bz64-avx512-c", "avx512", BZ + "avx512.c", "const uint64_t c = buzhash64_rotl(s, 8);\n            if (",
           "const uint64_t c = buzhash64_rotl(s, 1);\n            if (", "carried state rotated by 1"),
    Mutant("bz64-avx512-test", "avx512", BZ + "avx512.c", "if (_mm512_testn_epi64_mask(",
           "if (_mm512_test_epi64_mask(", "lane test inverted"),
    # ---- AES evp (portable) ----
    Mutant("evp-batch-carry", "evp", AES + "evp.c", "d = dg[m - 1];", "d = dg[0];",
           "the next sub-batch starts from the first digest of the previous one"),
    Mutant("evp-hit-state", "evp", AES + "evp.c", "*st = dg[k];", "*st = dg[k ? k - 1 : 0];",
           "the digest stored at a hit is the previous position's"),
    Mutant("evp-cut-word", "evp", AES + "evp.c", "if (!(get_le64(ct + 16 * k) & mask)) {",
           "if (!(get_le64(ct + 16 * k + 8) & mask)) {", "cut value from ciphertext bytes 8..15"),
    Mutant("evp-pad", "evp", AES + "evp.c", "put_le64(blk + 16 * k + 8, 0);", "put_le64(blk + 16 * k + 8, dg[k]);",
           "block's upper half not zero"),
    Mutant("evp-fail-ignored", "evp", AES + "evp.c", "if (aes_evp_encrypt(c, blk, ct, m))\n            return -2;",
           "if (aes_evp_encrypt(c, blk, ct, m) && !m)\n            return -2;", "an OpenSSL failure is ignored"),
    Mutant("evp-batch-size", "evp", AES + "evp.c", "#define EVP_BATCH 512", "#define EVP_BATCH 384",
           "smaller sub-batches",
           equivalent="sub-batches only split the digest walk and the ECB call; each batch starts from the "
                      "last digest of the previous one, so cut points and states do not depend on the size"),
    # ---- AES x86-64: aes-ni, the shared group loop and single-block test ----
    Mutant("aesni-odd-block", "aes-ni", AES + "aes-ni.c",
           "b[2 * k + 1] = _mm_xor_si128(aes_x86_block(o[k]), k0);",
           "b[2 * k + 1] = _mm_xor_si128(aes_x86_block(e[k]), k0);", "odd positions encrypt the even digest"),
    Mutant("aesni-rounds", "aes-ni", AES + "aes-ni.c",
           "for (int r = 1; r < 10; r++) {\n        const __m128i kr", "for (int r = 1; r < 9; r++) {\n        const __m128i kr",
           "one AES round short in the group"),
    Mutant("aesni-bits", "aes-ni", AES + "aes-ni.c", "<< (2 * k);", "<< k;", "hit bits of pairs overlap"),
    Mutant("x86-hit-mask", "aes-ni", AES + "x86.h", "aes_x86_block(d))) & mask);",
           "aes_x86_block(d))) & (mask >> 1));", "single-block test drops the top mask bit"),
    Mutant("group-ctz-state", "aes-ni", AES + "group.h", "*st = j & 1 ? o[j >> 1] : e[j >> 1];",
           "*st = j & 1 ? e[j >> 1] : o[j >> 1];", "state at a group hit from the wrong parity"),
    Mutant("group-skip-first-tail", "aes-ni", AES + "group.h",
           "        if (hit(c, d, mask)) {\n            *st = d;\n            return (int64_t)i;\n        }\n        i++;",
           "        i++;", "the first position after the groups is never tested"),
    Mutant("group-bound", "aes-ni", AES + "group.h", "for (; i + G + 2 <= n; i += G) {", "for (; i + G <= n; i += G) {",
           "groups run up to the span end: the walk reads past it and tests position n"),
    # ---- AES vaes256 (VEX 256-bit VAES, native here) ----
    Mutant("vaes256-pair", "vaes256", AES + "vaes256.c", "vaes256_pair(o[2 * j], o[2 * j + 1])",
           "vaes256_pair(o[2 * j + 1], o[2 * j])", "odd digests in swapped 128-bit lanes"),
    Mutant("vaes256-last", "vaes256", AES + "vaes256.c", "v[j] = _mm256_aesenclast_epi128(v[j], k10);",
           "v[j] = _mm256_aesenc_epi128(v[j], k10);", "last round with MixColumns"),
    Mutant("vaes256-bits", "vaes256", AES + "vaes256.c", "<< (4 * j);", "<< (2 * j);", "hit bits of vectors overlap"),
    Mutant("vaes256-unpack", "vaes256", AES + "vaes256.c", "_mm256_unpacklo_epi64(v[2 * j], v[2 * j + 1])",
           "_mm256_unpackhi_epi64(v[2 * j], v[2 * j + 1])", "cut values from ciphertext bytes 8..15"),
    # ---- AES vaes (AVX-512 VAES, bochscpu here) ----
    Mutant("vaes-quad", "vaes", AES + "vaes.c", "vaes_quad(o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3])",
           "vaes_quad(o[4 * j], o[4 * j + 1], o[4 * j + 3], o[4 * j + 2])", "odd digests 5 and 7 swapped"),
    Mutant("vaes-rounds", "vaes", AES + "vaes.c", "for (int r = 1; r < 10; r++)\n        for",
           "for (int r = 1; r < 9; r++)\n        for", "one AES round short"),
    Mutant("vaes-testn", "vaes", AES + "vaes.c", "_mm512_testn_epi64_mask(u, m)", "_mm512_test_epi64_mask(u, m)",
           "lane test inverted"),
    # ---- AES UHFs, key schedule and tables ----
    Mutant("toeplitz-mulx2", "tables", AES + "toeplitz.h", "(0 - ((d >> 62) & 1))", "(0 - ((d >> 61) & 1))",
           "two-step toeplitz roll reduces the wrong bit (the path only a test hook calls)"),
    Mutant("toeplitz-init", "tables", AES + "toeplitz.c", "for (int k = 0; k < 64; k++)", "for (int k = 0; k < 63; k++)",
           "remove table is x^63 T"),
    Mutant("rabin-roll2-red", "tables", AES + "rabin.h", "r->RED[(d >> 48) & 0xFF]", "r->RED[(d >> 40) & 0xFF]",
           "stride-2 rabin roll folds the wrong byte"),
    Mutant("rabin-init-out", "tables", AES + "rabin.c", "r->OUT[b] = mulmod(b, x504, poly);",
           "r->OUT[b] = mulmod(b, x512, poly);", "remove table b x^512"),
    Mutant("rabin-force-bit", "tables", AES + "keys.c", "const uint64_t poly = ck_le64(z) | 1;",
           "const uint64_t poly = ck_le64(z) | 3;", "candidate polynomial gets bit 1 forced too"),
    Mutant("goldilocks-roll2-carry", "tables", AES + "goldilocks.h", "+ __builtin_add_overflow(a, b, &a);",
           "+ 0 * __builtin_add_overflow(a, b, &a);", "stride-2 addend loses its top carry"),
    Mutant("goldilocks-reduce-hh", "tables", AES + "goldilocks.h", "const uint64_t hh = hi >> 32,",
           "const uint64_t hh = hi >> 31,", "reduction splits the high word at bit 31"),
    Mutant("goldilocks-bound", "tables", AES + "keys.c", "if (K < GOLDILOCKS_P) {", "if (K <= GOLDILOCKS_P) {",
           "a candidate equal to p is accepted (a key-stream boundary)"),
    Mutant("aes128-sbox", "tables", AES + "aes128.c", "rotl8(inv, 4) ^ 0x63;", "rotl8(inv, 4) ^ 0x62;",
           "S-box affine constant off by one bit (round keys only)"),
    Mutant("csprng-refill", "tables", "chunkers/csrc/csprng.c", "    g->pos = 0;\n    g->len = sizeof g->buf;",
           "    g->pos = 1;\n    g->len = sizeof g->buf;", "each refill skips a key-stream byte"),
    Mutant("csprng-be-bytes", "tables", "chunkers/csrc/csprng.c", "v = (v << 8) | b[i];", "v = (v << 7) | b[i];",
           "random_int assembles its candidate wrongly",
           equivalent="the only caller of ck_csprng_int is the buzhash64 shuffle, whose bounds are at most 256 (03 "
                      "§10: each attempt reads exactly one byte), so be_bytes always gets nb = 1 and v = b[0] "
                      "whatever the shift; the full run found it surviving every test and the main job"),
    Mutant("csprng-be-bytes-xor", "tables", "chunkers/csrc/csprng.c", "v = (v << 8) | b[i];", "v = (v << 8) ^ b[i];",
           "OR written as XOR", equivalent="the shifted word has its low 8 bits clear, so OR and XOR agree"),
    Mutant("fc-table-order", "tables", FC + "table.c", "gear[i] = ck_le64(z + 8 * i);",
           "gear[i] = ck_le64(z + 8 * (i ^ 1));", "Gear entries pairwise swapped"),
    Mutant("bz64-table-half", "tables", BZ + "table.c", "for (int i = 0; i < 128; i++)", "for (int i = 0; i < 127; i++)",
           "table unbalanced: 127 entries per bit"),
    Mutant("bz64-table-rot", "tables", BZ + "table.c", "(unsigned)(window & 63));", "(unsigned)(window & 31));",
           "rotated table uses window mod 32"),
    Mutant("bz64-window-hash", "tables", BZ + "table.c", "(unsigned)((w - 1 - t) & 63));", "(unsigned)((w - t) & 63));",
           "window hash rotations off by one"),
    # ---- the driver ----
    Mutant("drv-strict-clamp", "driver", "chunkers/csrc/driver.c",
           "        if (strict && prm->normal_size < end)\n            end = prm->normal_size;     /* re-select",
           "        if (0)\n            end = prm->normal_size;     /* re-select",
           "window-less: the strict mask runs past normal_size"),
    Mutant("drv-mask-swap", "driver", "chunkers/csrc/driver.c",
           "strict ? prm->mask_s : prm->mask_l);\n        if (r == -2)",
           "strict ? prm->mask_l : prm->mask_s);\n        if (r == -2)", "window-less: strict and loose masks swapped"),
    Mutant("drv-cut-after", "driver", "chunkers/csrc/driver.c", "return k + (size_t)r + 1;", "return k + (size_t)r;",
           "window-less cut before the matching byte"),
    Mutant("drv-win-cut", "driver", "chunkers/csrc/driver.c", "return k + j;               /* cut before",
           "return k + j + 1;           /* cut before", "windowed cut one byte late"),
    Mutant("drv-win-end", "driver", "chunkers/csrc/driver.c", "size_t end = lim - w;", "size_t end = lim - w + 1;",
           "windowed: tests a window whose entering byte lies past the chunk"),
    Mutant("drv-win-strict", "driver", "chunkers/csrc/driver.c",
           "strict ? prm->mask_s : prm->mask_l);\n        cur->off", "prm->mask_s);\n        cur->off",
           "windowed: the strict mask also after normal_size"),
    Mutant("drv-min-short", "driver", "chunkers/csrc/driver.c",
           "if (avail <= prm->min_size)     /* final", "if (avail < prm->min_size)     /* final",
           "window-less: a chunk of exactly min_size is hashed",
           equivalent="with avail == min_size the scan loop is empty (off == lim), so the result is the same "
                      "NEED_MORE or forced cut at avail; only the restart digest is computed needlessly"),
    Mutant("drv-zero-head", "driver", "chunkers/csrc/driver.c", "size_t head = n < 16 ? n : 16;",
           "size_t head = n < 8 ? n : 8;", "all-zero check: bytes 8..15 of a chunk of 17..23 bytes unchecked"),
    Mutant("drv-zero-tail", "driver", "chunkers/csrc/driver.c", "memcmp(p, p + 16, n - 16) == 0;",
           "memcmp(p, p + 16, n - 17) == 0;", "all-zero check: the last byte unchecked"),
    Mutant("drv-zero-short", "driver", "chunkers/csrc/driver.c", "return n <= 16 ||", "return n <= 32 ||",
           "all-zero check: bytes 16..31 of short chunks unchecked"),
    # ---- legacy buzhash ----
    Mutant("bz-roll", "buzhash", "chunkers/csrc/buzhash/single.c", "s = buzhash_rotl(s, 1) ^", "s = buzhash_rotl(s, 2) ^",
           "rolling step rotates by 2"),
    Mutant("bz-init-rot", "buzhash", "chunkers/csrc/buzhash/table.c", "(unsigned)(window & 31));",
           "(unsigned)(window & 15));", "rotated table uses window mod 16"),
    Mutant("bz-seed-low", "buzhash", "chunkers/csrc/buzhash/table.c", "buzhash_base_table[i] ^ seed;",
           "buzhash_base_table[i] ^ (seed & 0xFFFF);", "only the low 16 seed bits are used"),
    Mutant("bz-mask", "buzhash", "chunkers/csrc/buzhash/hooks.c", "&s, (uint32_t)mask);", "&s, (uint32_t)mask >> 1);",
           "mask shifted"),
    Mutant("bz-table-entry", "buzhash", "chunkers/csrc/buzhash/table.c", "0xe7f831ec,", "0xe7f831ed,",
           "one base-table entry wrong"),
    Mutant("bz-window-hash", "buzhash", "chunkers/csrc/buzhash/table.c", "(unsigned)((w - 1 - t) & 31));",
           "(unsigned)((w - t) & 31));", "window hash rotations off by one"),
    # ---- fixed (Python) ----
    Mutant("fixed-header-zero", "fixed", "chunkers/fixed.py", "if self.header_size > 0:", "if self.header_size >= 0:",
           "header size 0 yields an empty first chunk"),
    Mutant("fixed-stream-zero", "fixed", "chunkers/fixed.py",
           "yield Chunk(None, got, True) if all_zero(piece) else",
           "yield Chunk(None, got, True) if all_zero(piece[1:]) else",
           "streamed all-zero check skips the first byte"),
    Mutant("fixed-memory-short", "fixed", "chunkers/fixed.py", "            if pos >= n:\n                return",
           "            if pos + want > n:\n                return", "the final short block is dropped"),
    # ---- segment-parallel kernels (ours, issue 13): seg4, the AES segment scan and its tests ----
    Mutant("fc-seg-warmup", "seg4", FC + "seg4.c", "for (i = len - GEAR_WINDOW; i < len; i++) {",
           "for (i = len - GEAR_WINDOW + 2; i < len; i++) {", "warm-up two bytes short"),
    Mutant("fc-seg-warmup-63", "seg4", FC + "seg4.c", "for (i = len - GEAR_WINDOW; i < len; i++) {",
           "for (i = len - GEAR_WINDOW + 1; i < len; i++) {", "warm-up one byte short",
           equivalent="the byte 64 before a segment's first byte is shifted out of the Gear state (64 "
                      "left shifts, mod 2^64) by the time that first byte is tested: 63 warm-up bytes suffice"),
    Mutant("fc-seg-latest-wins", "seg4", FC + "seg4.c",
           "(i), 1, f0, f1);", "(i), 2, f0, f2);",
           "a hit of segment 1 taken for one of segment 2",
           equivalent="the rescan from chain 0's exact state then runs up to segment 2's hit and so passes "
                      "segment 1's hit, which it returns with the same exact state: only slower"),
    Mutant("fc-seg-rescan-short", "seg4", FC + "seg4.c", "k * len - i - 1, &f0, mask);", "k * len - i - 2, &f0, mask);",
           "the rescan before a later segment's hit stops one byte early"),
    Mutant("fc-seg-exit-state", "seg4", FC + "seg4.c", "    *fpp = f3;\n    return -1;", "    *fpp = f2;\n    return -1;",
           "exit state taken from segment 3 of 4"),
    Mutant("fc-seg-odd-step", "seg4", FC + "seg4.c", "    if (i < len) {\n        SEG_STEP(i)\n    }", "",
           "the last step of a round of odd segment length is skipped"),
    Mutant("seg-roll-offset", "seg4", "chunkers/csrc/seg_roll.h", "s2 ^= SEG_ROTL(e, (unsigned)(2 * len % 64));",
           "s2 ^= SEG_ROTL(e, (unsigned)(len % 64));", "a start-state offset rotated for the wrong segment"),
    Mutant("seg-roll-warmup", "seg4", "chunkers/csrc/seg_roll.h", "for (size_t i = 0; i < w; i++) {\n        s1",
           "for (size_t i = 1; i < w; i++) {\n        s1", "warm-up window hash misses its first byte"),
    Mutant("seg-roll-rest", "seg4", "chunkers/csrc/seg_roll.h", "const size_t rest = k * len - i;",
           "const size_t rest = k * len - i - 1;", "the rescan before a later segment's hit stops one step early"),
    Mutant("seg-roll-exit", "seg4", "chunkers/csrc/seg_roll.h", "    *sump = s3;\n    return 4 * len;",
           "    *sump = s2;\n    return 4 * len;", "exit state taken from segment 3 of 4"),
    Mutant("stride-mask", "stride4", "chunkers/csrc/stride_roll.h", "if (!((q ^ a1) & m2)) {",
           "if (!((q ^ a1) & m1)) {", "a group's third step tested against the mask rotated for its fourth"),
    Mutant("stride-back", "stride4", "chunkers/csrc/stride_roll.h",
           "*sump = STRIDE_ROTL(q ^ a2, STRIDE_BITS - 1);", "*sump = STRIDE_ROTL(q ^ a2, STRIDE_BITS - 2);",
           "a hit at a group's fourth step returns its state rotated back one bit too far"),
    Mutant("aes-seg-truth", "aes-seg", AES + "segments.h", "if (d != truth)",
           "if ((uint32_t)d != (uint32_t)truth)", "the start-state check compares 32 bits"),
    Mutant("aes-seg-last-chain", "aes-seg", AES + "segments.h", "while (k < AES_SEG_K - 1 && !hit(c, h[k], mask))",
           "while (k < AES_SEG_K - 2 && !hit(c, h[k], mask))", "a hit of the last chain is given to the one before"),
    Mutant("aes-seg-exit", "aes-seg", AES + "segments.h", "d = h[AES_SEG_K - 1];", "d = h[AES_SEG_K - 2];",
           "the block's exit digest taken from the second-last chain"),
    Mutant("aes-seg-warm-offset", "aes-seg", AES + "segments.h", "w[k - 1] = b + (size_t)k * AES_SEG_L;",
           "w[k - 1] = b + (size_t)k * AES_SEG_L + 1;", "warm-ups one byte late"),
    Mutant("aesni-seg-pairs", "aes-ni-seg", AES + "aes-ni-seg.c", "for (int j = 0; j < AES_SEG_K; j += 2) {",
           "for (int j = 0; j < AES_SEG_K - 2; j += 2) {", "chains 6 and 7 never tested"),
    Mutant("vaes256-seg-pairs", "vaes256-seg", AES + "vaes256-seg.c",
           "for (int j = 0; j < AES_SEG_K / 2; j += 2) {", "for (int j = 0; j < AES_SEG_K / 2 - 2; j += 2) {",
           "chains 4 to 7 never tested"),
    Mutant("vaes-seg-lane", "vaes-seg", AES + "vaes-seg.c", "(long long)d[4 * j + 3], 0,", "(long long)d[4 * j + 2], 0,",
           "chains 3 and 7 tested with the digests of 2 and 6"),
    Mutant("vaes-seg-swap", "vaes-seg", AES + "vaes-seg.c",
           "(long long)d[4 * j + 3], 0, (long long)d[4 * j + 2], 0,",
           "(long long)d[4 * j + 2], 0, (long long)d[4 * j + 3], 0,", "chains 2 and 3 swapped in the any-hit test",
           equivalent="the test only says whether some chain hits; which one, and its digest, come from the "
                      "per-chain single-block test, so the order of the lanes cannot change a result"),
    Mutant("gl-vec-carry", "vaes-seg", AES + "vaes-seg.c",
           "    hi = _mm512_mask_add_epi64(hi, _mm512_cmplt_epu64_mask(lo, a), hi, _mm512_set1_epi64(1));\n", "",
           "the vector goldilocks step drops the carry of + a into the product's high word"),
    Mutant("gl-vec-half", "vaes-seg", AES + "vaes-seg.c", "(size_t)(j % 2) * V_HALF + t, v_lane", "t, v_lane",
           "a hit of a segment's second-half chain is placed in its first half"),
    Mutant("tp-vec-poly", "vaes-seg", AES + "vaes-seg.c", "_mm512_srai_epi64(h, 63)", "_mm512_srli_epi64(h, 63)",
           "the vector toeplitz step reduces by bit 63 as 0/1 instead of a full mask"),
    Mutant("gl-vec-exit", "vaes-seg", AES + "vaes-seg.c", "*dp = v_lane(h2, AES_SEG_K - 1);",
           "*dp = v_lane(h, AES_SEG_K - 1);", "the block's exit digest taken from segment 7's first half"),
    # ---- aarch64 (qemu-aarch64) ----
    Mutant("fc-neon-lim", "neon", FC + "neon.c", "veorq_u64(vshlq_u64(vm, sh67), ones)",
           "veorq_u64(vshlq_u64(vm, sh45), ones)", "lanes 7-8 tested with lanes 5-6 limits", route="aarch64"),
    Mutant("fc-neon-carry", "neon", FC + "neon.c", "fp = (fp << 8) + vgetq_lane_u64(s67, 1);",
           "fp = (fp << 8) + vgetq_lane_u64(s67, 0);", "block carry takes lane 7", route="aarch64"),
    Mutant("bz64-neon-rot", "neon", BZ + "neon.c", "-61, -62, -63, -64}", "-61, -62, -63, -63}",
           "rotate by 0 ORs in a right shift by 63", route="aarch64"),
    Mutant("arm-group-last", "aes-arm64", AES + "arm64.h", "veorq_u8(vaeseq_u8(b[j], k9), k10)",
           "veorq_u8(vaeseq_u8(b[j], k10), k9)", "last round keys swapped in the group", route="aarch64"),
    Mutant("arm-tail-rounds", "aes-arm64", AES + "arm64.h", "for (int r = 0; r < 9; r++)\n        b =",
           "for (int r = 0; r < 8; r++)\n        b =", "single-block tail one round short", route="aarch64"),
    Mutant("arm-seg-half", "aes-arm64-seg", AES + "aes-arm64-seg.c", "arm_group(c, d, d + AES_SEG_K / 2, mask)",
           "arm_group(c, d, d + AES_SEG_K / 2 - 1, mask)", "chain 7 never tested (chain 3 twice)", route="aarch64"),
    # ---- big-endian (qemu-s390x): byte order faults invisible on little-endian hosts ----
    Mutant("be-le64", "big-endian", "chunkers/csrc/csprng.h",
           "    for (int i = 7; i >= 0; i--)\n        v = (v << 8) | b[i];",
           "    __builtin_memcpy(&v, b, 8);", "key-stream words loaded in host order", route="s390x"),
    Mutant("be-evp-put", "big-endian", AES + "evp.c",
           "#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n    v = __builtin_bswap64(v);\n#endif\n    memcpy(b, &v, 8);",
           "    memcpy(b, &v, 8);", "AES input block in host order", route="s390x"),
    Mutant("be-evp-get", "big-endian", AES + "evp.c",
           "    memcpy(&v, b, 8);\n#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n    v = __builtin_bswap64(v);\n#endif",
           "    memcpy(&v, b, 8);", "cut value read in host order", route="s390x"),
    # ---- the read path and kernel selection (issue 35): every kernel still cuts the same, in memory ----
    Mutant("read-sparse-tail", "read path", "chunkers/sources.pyx",
           "            start = max(os.fstat(self.fd).st_size, self.pos)    # no data after pos",
           "            start = self.pos    # no data after pos", "sparse=True: a file's trailing hole is dropped"),
    Mutant("read-pool-exports", "read path", "chunkers/bufpool.pyx", "            if not b.exports and b.size == size:",
           "            if b.size == size:", "a read buffer a kept chunk refers to is handed to the next stream"),
    Mutant("read-halves-eof", "read path", "chunkers/driver.pyx",
           "        if got < half:          # the end of the file",
           "        if False:          # the end of the file",
           "fixed's two-thread read returns a whole first half when the file ended inside it"),
    Mutant("sel-reference-row", "selection", "chunkers/registry.py",
           "    return next(k.name for k in rows(family) if k.reference)", "    return rows(family)[0].name",
           "a family's reference kernel taken from the first row of its kernel list"),
    Mutant("sel-default-reversed", "selection", "chunkers/registry.py", "key=lambda k: k.rank[m]) if k.rank[m])",
           "key=lambda k: k.rank[m], reverse=True) if k.rank[m])", "the built-in default order reversed"),
    Mutant("sel-env-over-kernel", "selection", "chunkers/registry.py",
           "    if requested is None:\n        requested = os.environ.get(fam.env_var",
           "    if requested is None or (fam.env_var and os.environ.get(fam.env_var, \"\").strip()):\n"
           "        requested = os.environ.get(fam.env_var", "CHUNKERS_<FAMILY>_KERNEL wins over kernel="),
    Mutant("sel-tune-hidden", "selection", "chunkers/registry.py",
           "st.st_mtime_ns, os.environ.get(HIDE_ENV, \"\"))", "st.st_mtime_ns)",
           "a defaults file read before is still used after a CPU feature it needs was hidden"),
]

# ---- dispatch: two portable rows of one kernel list run each other's code (issue 35) ----
CATALOGUE += [
    Mutant("fc-row-swap", "dispatch", FC + "kernels.def",
           'CK_KERNEL("blockwise", fastcdc_scan_blockwise, PORTABLE, 1,    0,              NULL,         0,   0, 0, 1)\n'
           'CK_KERNEL("scalar",    fastcdc_scan_scalar,',
           'CK_KERNEL("blockwise", fastcdc_scan_scalar, PORTABLE, 1,    0,              NULL,         0,   0, 0, 1)\n'
           'CK_KERNEL("scalar",    fastcdc_scan_blockwise,',
           "blockwise and scalar rows swap their functions: each function records the other row's name, so "
           "output and recorded names agree; only its source file (DWARF, CK_RECORD) tells them apart"),
    Mutant("bz64-row-swap", "dispatch", BZ + "kernels.def",
           'CK_KERNEL("stride4",   buzhash64_scan_stride4,   PORTABLE, 1,    0,              NULL,         0,   1, 0, 0)\n'
           'CK_KERNEL("blockwise", buzhash64_scan_blockwise,',
           'CK_KERNEL("stride4",   buzhash64_scan_blockwise, PORTABLE, 1,    0,              NULL,         0,   1, 0, 0)\n'
           'CK_KERNEL("blockwise", buzhash64_scan_stride4,',
           "stride4 and blockwise rows swap their functions (stride4, the x86-64 default, runs the blockwise "
           "code)"),
    Mutant("fc-neon-le", "neon", FC + "neon.c", "vcleq_u64(vaddq_u64(c, s67), lim67)",
           "vcltq_u64(vaddq_u64(c, s67), lim67)",
           "lanes 7-8 compared with < instead of <=: a Gear state exactly ~mask after a block's last byte is "
           "no candidate (lane 7's shifted value is never equal to its limit)", route="aarch64"),
]

CI_SAMPLE = ("fc-scalar-tail-offset", "bz64-bw-c", "drv-zero-tail", "bz-seed-low", "evp-hit-state", "fc-row-swap")
"""The deterministic sample of ``--sample`` (CI): native faults in six tiers, each killed early (two swapped
kernel rows: the main job's source check). Not read-pool-exports: its selected tests hang under the fault
(killed only at the runner's timeout, 34 min on 2 cores)."""
