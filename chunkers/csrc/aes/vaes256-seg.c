/* AES chunkers `vaes256-seg` path (issue 13): the segment-parallel scan of
 * segments.h with VEX 256-bit VAES + AVX2, the AES_SEG_K = 8 chains' digests
 * as 4 ymm vectors of 2 blocks per step; short spans, tails and untrue start
 * states go through `vaes256` (vaes256.c). Freestanding-clean like vaes256.c. */
#include "segments.h"
#include "x86.h"

#if CK_X86_64 && AES_HAVE_VAES

#define VAES256_SEG_TARGET CK_TARGET("avx2,vaes,aes,sse4.1")

VAES256_SEG_TARGET
AES_INLINE int vaes256_seg_any(const aes_ctx *c, const uint64_t *d, uint64_t mask)
{
    __m256i v[AES_SEG_K / 2];
    const __m256i k0 = _mm256_broadcastsi128_si256(aes_x86_key(c, 0));
    for (int j = 0; j < AES_SEG_K / 2; j++)       /* blocks LE64(d) || 0^8 of chains 2j, 2j+1 */
        v[j] = _mm256_xor_si256(_mm256_set_epi64x(0, (long long)d[2 * j + 1], 0, (long long)d[2 * j]), k0);
    for (int r = 1; r < 10; r++) {
        const __m256i kr = _mm256_broadcastsi128_si256(aes_x86_key(c, r));
        for (int j = 0; j < AES_SEG_K / 2; j++)
            v[j] = _mm256_aesenc_epi128(v[j], kr);
    }
    const __m256i k10 = _mm256_broadcastsi128_si256(aes_x86_key(c, 10));
    const __m256i m = _mm256_set1_epi64x((long long)mask), zero = _mm256_setzero_si256();
    __m256i z = zero;
    for (int j = 0; j < AES_SEG_K / 2; j += 2) {   /* four cut values per unpack */
        const __m256i u = _mm256_unpacklo_epi64(_mm256_aesenclast_epi128(v[j], k10),
                                                _mm256_aesenclast_epi128(v[j + 1], k10));
        z = _mm256_or_si256(z, _mm256_cmpeq_epi64(_mm256_and_si256(u, m), zero));
    }
    return !_mm256_testz_si256(z, z);
}

VAES256_SEG_TARGET
AES_INLINE int64_t vaes256_seg_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                    uint64_t mask)
{
    return aes_seg_scan(c, kind, p, n, st, mask, vaes256_seg_any, aes_x86_hit, aes_scan_vaes256,
                        CK_NAME(aes_scan_vaes256_seg), NULL);
}

VAES256_SEG_TARGET
int64_t aes_scan_vaes256_seg(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_vaes256_seg);
    AES_DISPATCH(vaes256_seg_core, c, p, n, st, mask)
}

#endif
