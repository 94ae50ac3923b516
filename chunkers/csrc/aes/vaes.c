/* AES chunkers `vaes` path (spec 06 §8.2): VAES with AVX-512F, four blocks
 * per zmm vector, round keys held in registers. A group is VAES_G positions:
 * vector 2j holds the digests D_{8j}, D_{8j+2}, D_{8j+4}, D_{8j+6} and vector
 * 2j+1 the odd ones, so one unpack lines up eight cut values in position
 * order and vptestnmq gives their hit bits.
 *
 * Group size: borg uses 32 positions (8 vectors); measured on Zen 4 (with
 * all three UHFs) 8 positions in 2 vectors are faster (toeplitz +30%, rabin
 * +25%, goldilocks +13%): a smaller group keeps the next group's digest walk
 * within the out-of-order window while the AES rounds run. Results do not
 * depend on it.
 *
 * Freestanding-clean: everything comes in through the context pointer; no
 * libc calls, no writable globals (a bochscpu runner executes this file on
 * CPUs without AVX-512). */
#include "group.h"
#include "x86.h"

#if CK_X86_64 && AES_HAVE_VAES

#define VAES_G 8         /* positions per group, a multiple of 8 up to AES_GROUP_MAX */
#define VAES_TARGET CK_TARGET("avx512f,vaes,aes,sse4.1")

VAES_TARGET AES_INLINE __m512i vaes_quad(uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3)
{
    const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(aes_x86_block(d0)), aes_x86_block(d1), 1);
    const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(aes_x86_block(d2)), aes_x86_block(d3), 1);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

VAES_TARGET
AES_INLINE uint64_t vaes_group(const aes_ctx *c, const uint64_t *e, const uint64_t *o, uint64_t mask)
{
    __m512i k[11], v[VAES_G / 4];
    for (int r = 0; r < 11; r++)
        k[r] = _mm512_broadcast_i32x4(aes_x86_key(c, r));
    for (int j = 0; j < VAES_G / 8; j++) {
        v[2 * j] = _mm512_xor_si512(vaes_quad(e[4 * j], e[4 * j + 1], e[4 * j + 2], e[4 * j + 3]), k[0]);
        v[2 * j + 1] = _mm512_xor_si512(vaes_quad(o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3]), k[0]);
    }
    for (int r = 1; r < 10; r++)
        for (int j = 0; j < VAES_G / 4; j++)
            v[j] = _mm512_aesenc_epi128(v[j], k[r]);
    for (int j = 0; j < VAES_G / 4; j++)
        v[j] = _mm512_aesenclast_epi128(v[j], k[10]);
    const __m512i m = _mm512_set1_epi64((long long)mask);
    uint64_t bits = 0;
    for (int j = 0; j < VAES_G / 8; j++) {
        const __m512i u = _mm512_unpacklo_epi64(v[2 * j], v[2 * j + 1]);     /* cut values 8j .. 8j+7 */
        bits |= (uint64_t)_mm512_testn_epi64_mask(u, m) << (8 * j);
    }
    return bits;
}

VAES_TARGET
AES_INLINE int64_t vaes_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    return aes_group_scan(c, kind, p, n, st, mask, VAES_G, vaes_group, aes_x86_hit);
}

VAES_TARGET
int64_t aes_scan_vaes(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_vaes);
    AES_DISPATCH(vaes_core, c, p, n, st, mask)
}

#endif
