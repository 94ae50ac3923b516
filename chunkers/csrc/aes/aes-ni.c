/* AES chunkers `aes-ni` path (spec 06 §8.2): groups of 8 positions as 8
 * interleaved 128-bit AES-NI blocks, branch-free lane test (two cut values per
 * compare, a movemask per pair). */
#include "group.h"
#include "x86.h"

#if CK_X86_64

CK_TARGET("aes,sse4.1")
AES_INLINE uint64_t aesni_group(const aes_ctx *c, const uint64_t *e, const uint64_t *o, uint64_t mask)
{
    __m128i b[8];
    const __m128i k0 = aes_x86_key(c, 0);
    for (int k = 0; k < 4; k++) {
        b[2 * k] = _mm_xor_si128(aes_x86_block(e[k]), k0);
        b[2 * k + 1] = _mm_xor_si128(aes_x86_block(o[k]), k0);
    }
    for (int r = 1; r < 10; r++) {
        const __m128i kr = aes_x86_key(c, r);
        for (int j = 0; j < 8; j++)
            b[j] = _mm_aesenc_si128(b[j], kr);
    }
    const __m128i k10 = aes_x86_key(c, 10);
    for (int j = 0; j < 8; j++)
        b[j] = _mm_aesenclast_si128(b[j], k10);
    const __m128i m = _mm_set1_epi64x((long long)mask), zero = _mm_setzero_si128();
    uint64_t bits = 0;
    for (int k = 0; k < 4; k++) {
        const __m128i u = _mm_unpacklo_epi64(b[2 * k], b[2 * k + 1]);   /* cut values 2k, 2k+1 */
        const __m128i z = _mm_cmpeq_epi64(_mm_and_si128(u, m), zero);
        bits |= (uint64_t)_mm_movemask_pd(_mm_castsi128_pd(z)) << (2 * k);
    }
    return bits;
}

CK_TARGET("aes,sse4.1")
AES_INLINE int64_t aesni_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    return aes_group_scan(c, kind, p, n, st, mask, 8, aesni_group, aes_x86_hit);
}

CK_TARGET("aes,sse4.1")
int64_t aes_scan_aesni(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_aesni);
    AES_DISPATCH(aesni_core, c, p, n, st, mask)
}

#endif
