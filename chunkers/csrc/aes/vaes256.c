/* AES chunkers `vaes256` path (new, not in borg): VEX-encoded 256-bit VAES
 * with AVX2, for CPUs that have VAES but not AVX-512 (AMD Zen 3, many cloud
 * VMs). Two blocks per ymm vector; vector 2j holds the digests D_{4j} and
 * D_{4j+2}, vector 2j+1 the odd ones D_{4j+1}, D_{4j+3}, so one unpack of
 * the pair lines up four cut values in position order for the lane test.
 * Groups of 8 positions (4 vectors) measured faster than 16 on Zen 4 (same
 * reason as in vaes.c). Freestanding-clean like vaes.c. */
#include "group.h"
#include "x86.h"

#if CK_X86_64 && AES_HAVE_VAES

#define VAES256_G 8      /* positions per group, a multiple of 4 up to AES_GROUP_MAX */
#define VAES256_TARGET CK_TARGET("avx2,vaes,aes,sse4.1")

/* The blocks of digests lo (128-bit lane 0) and hi (lane 1). */
VAES256_TARGET AES_INLINE __m256i vaes256_pair(uint64_t lo, uint64_t hi)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(aes_x86_block(lo)), aes_x86_block(hi), 1);
}

VAES256_TARGET AES_INLINE __m256i vaes256_key(const aes_ctx *c, int r)
{
    return _mm256_broadcastsi128_si256(aes_x86_key(c, r));
}

VAES256_TARGET
AES_INLINE uint64_t vaes256_group(const aes_ctx *c, const uint64_t *e, const uint64_t *o, uint64_t mask)
{
    __m256i v[VAES256_G / 2];
    const __m256i k0 = vaes256_key(c, 0);
    for (int j = 0; j < VAES256_G / 4; j++) {
        v[2 * j] = _mm256_xor_si256(vaes256_pair(e[2 * j], e[2 * j + 1]), k0);
        v[2 * j + 1] = _mm256_xor_si256(vaes256_pair(o[2 * j], o[2 * j + 1]), k0);
    }
    for (int r = 1; r < 10; r++) {
        const __m256i kr = vaes256_key(c, r);
        for (int j = 0; j < VAES256_G / 2; j++)
            v[j] = _mm256_aesenc_epi128(v[j], kr);
    }
    const __m256i k10 = vaes256_key(c, 10);
    for (int j = 0; j < VAES256_G / 2; j++)
        v[j] = _mm256_aesenclast_epi128(v[j], k10);
    const __m256i m = _mm256_set1_epi64x((long long)mask), zero = _mm256_setzero_si256();
    uint64_t bits = 0;
    for (int j = 0; j < VAES256_G / 4; j++) {
        const __m256i u = _mm256_unpacklo_epi64(v[2 * j], v[2 * j + 1]);     /* cut values 4j .. 4j+3 */
        const __m256i z = _mm256_cmpeq_epi64(_mm256_and_si256(u, m), zero);
        bits |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(z)) << (4 * j);
    }
    return bits;
}

VAES256_TARGET
AES_INLINE int64_t vaes256_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                uint64_t mask)
{
    return aes_group_scan(c, kind, p, n, st, mask, VAES256_G, vaes256_group, aes_x86_hit);
}

VAES256_TARGET
int64_t aes_scan_vaes256(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_vaes256);
    AES_DISPATCH(vaes256_core, c, p, n, st, mask)
}

#endif
