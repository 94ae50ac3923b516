/* AES chunkers `aes-ni-seg` path (issue 13): the segment-parallel scan of
 * segments.h with AES-NI, the AES_SEG_K = 8 chains' digests as 8 interleaved
 * 128-bit blocks per step; short spans, tails and untrue start states go
 * through `aes-ni` (aes-ni.c), so results are aes-ni's. */
#include "segments.h"
#include "x86.h"

#if CK_X86_64

CK_TARGET("aes,sse4.1")
AES_INLINE int aesni_seg_any(const aes_ctx *c, const uint64_t *d, uint64_t mask)
{
    __m128i b[AES_SEG_K];
    const __m128i k0 = aes_x86_key(c, 0);
    for (int j = 0; j < AES_SEG_K; j++)
        b[j] = _mm_xor_si128(aes_x86_block(d[j]), k0);
    for (int r = 1; r < 10; r++) {
        const __m128i kr = aes_x86_key(c, r);
        for (int j = 0; j < AES_SEG_K; j++)
            b[j] = _mm_aesenc_si128(b[j], kr);
    }
    const __m128i k10 = aes_x86_key(c, 10);
    const __m128i m = _mm_set1_epi64x((long long)mask), zero = _mm_setzero_si128();
    __m128i z = zero;
    for (int j = 0; j < AES_SEG_K; j += 2) {
        const __m128i u = _mm_unpacklo_epi64(_mm_aesenclast_si128(b[j], k10), _mm_aesenclast_si128(b[j + 1], k10));
        z = _mm_or_si128(z, _mm_cmpeq_epi64(_mm_and_si128(u, m), zero));
    }
    return !_mm_testz_si128(z, z);
}

CK_TARGET("aes,sse4.1")
AES_INLINE int64_t aesni_seg_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                  uint64_t mask)
{
    return aes_seg_scan(c, kind, p, n, st, mask, aesni_seg_any, aes_x86_hit, aes_scan_aesni,
                        CK_NAME(aes_scan_aesni_seg), NULL);
}

CK_TARGET("aes,sse4.1")
int64_t aes_scan_aesni_seg(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_aesni_seg);
    AES_DISPATCH(aesni_seg_core, c, p, n, st, mask)
}

#endif
