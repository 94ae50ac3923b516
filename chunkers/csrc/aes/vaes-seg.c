/* AES chunkers `vaes-seg` path (issue 13): the segment-parallel scan of
 * segments.h with VAES + AVX-512F, the AES_SEG_K = 8 chains' digests as 2 zmm
 * vectors of 4 blocks per step, vptestnmq for the hit test; short spans, tails
 * and untrue start states go through `vaes` (vaes.c). Freestanding-clean like
 * vaes.c (the bochscpu runner executes it on CPUs without AVX-512). */
#include "segments.h"
#include "x86.h"

#if CK_X86_64 && AES_HAVE_VAES

_Static_assert(AES_SEG_K == 8, "vaes_seg_any packs the chains into two zmm vectors");

#define VAES_SEG_TARGET CK_TARGET("avx512f,vaes,aes,sse4.1")

VAES_SEG_TARGET
AES_INLINE int vaes_seg_any(const aes_ctx *c, const uint64_t *d, uint64_t mask)
{
    __m512i v[AES_SEG_K / 4];
    const __m512i k0 = _mm512_broadcast_i32x4(aes_x86_key(c, 0));
    for (int j = 0; j < AES_SEG_K / 4; j++)       /* blocks LE64(d) || 0^8 of chains 4j .. 4j+3 */
        v[j] = _mm512_xor_si512(_mm512_set_epi64(0, (long long)d[4 * j + 3], 0, (long long)d[4 * j + 2], 0,
                                                 (long long)d[4 * j + 1], 0, (long long)d[4 * j]), k0);
    for (int r = 1; r < 10; r++) {
        const __m512i kr = _mm512_broadcast_i32x4(aes_x86_key(c, r));
        for (int j = 0; j < AES_SEG_K / 4; j++)
            v[j] = _mm512_aesenc_epi128(v[j], kr);
    }
    const __m512i k10 = _mm512_broadcast_i32x4(aes_x86_key(c, 10));
    const __m512i u = _mm512_unpacklo_epi64(_mm512_aesenclast_epi128(v[0], k10),
                                            _mm512_aesenclast_epi128(v[1], k10));    /* the 8 cut values */
    return _mm512_testn_epi64_mask(u, _mm512_set1_epi64((long long)mask)) != 0;
}

VAES_SEG_TARGET
AES_INLINE int64_t vaes_seg_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                 uint64_t mask)
{
    return aes_seg_scan(c, kind, p, n, st, mask, vaes_seg_any, aes_x86_hit, aes_scan_vaes,
                        CK_NAME(aes_scan_vaes_seg));
}

VAES_SEG_TARGET
int64_t aes_scan_vaes_seg(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_vaes_seg);
    AES_DISPATCH(vaes_seg_core, c, p, n, st, mask)
}

#endif
