/* fastcdc `avx2` kernel (spec 02 §5.5): the blockwise lane test in two 4-lane
 * vectors (lanes 1-4 and 5-8), per-lane variable shifts 7..0, an inclusive
 * prefix sum inside each half, and S_4 added to the upper half.
 *
 * Double buffering: the eight table look-ups of the block at i + 8 are done
 * while the block at i is tested, so the block loop runs while i + 16 <= n
 * and leaves 8..15 bytes (all of them when n < 16) to the exact loop. The
 * look-ahead block lies inside [i + 8, i + 16), never at or past p + n. */
#include "fastcdc.h"

#if CK_X86_64
#include <immintrin.h>

CK_TARGET("avx2") static inline __m256i prefix_sum4(__m256i x)
{
    const __m256i zero = _mm256_setzero_si256();
    /* (0, x0, x1, x2), then (0, 0, y0, y1) */
    x = _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x90), zero, 0x03));
    x = _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x40), zero, 0x0F));
    return x;
}

CK_TARGET("avx2") static inline void load_gear(const uint64_t *g, const uint8_t *b, __m256i *lo, __m256i *hi)
{
    *lo = _mm256_set_epi64x((long long)g[b[3]], (long long)g[b[2]], (long long)g[b[1]], (long long)g[b[0]]);
    *hi = _mm256_set_epi64x((long long)g[b[7]], (long long)g[b[6]], (long long)g[b[5]], (long long)g[b[4]]);
}

CK_TARGET("avx2")
int64_t fastcdc_scan_avx2(const uint64_t *g, const uint8_t *p, size_t n, uint64_t *fpp, uint64_t m)
{
    CK_PROVENANCE(fastcdc_scan_avx2);
    uint64_t fp = *fpp;
    size_t i = 0;
    if (n >= 16) {
        const __m256i shift_lo = _mm256_setr_epi64x(7, 6, 5, 4);
        const __m256i shift_hi = _mm256_setr_epi64x(3, 2, 1, 0);
        const __m256i vm = _mm256_set1_epi64x((long long)m);
        const __m256i mask_lo = _mm256_sllv_epi64(vm, shift_lo);
        const __m256i mask_hi = _mm256_sllv_epi64(vm, shift_hi);
        const __m256i zero = _mm256_setzero_si256();
        __m256i g_lo, g_hi;
        load_gear(g, p, &g_lo, &g_hi);
        for (; i + 16 <= n; i += 8) {
            CK_MCA_LOOP(8);
            __m256i s_lo = _mm256_sllv_epi64(g_lo, shift_lo);
            __m256i s_hi = _mm256_sllv_epi64(g_hi, shift_hi);
            load_gear(g, p + i + 8, &g_lo, &g_hi);
            s_lo = prefix_sum4(s_lo);
            s_hi = _mm256_add_epi64(prefix_sum4(s_hi), _mm256_permute4x64_epi64(s_lo, 0xFF));
            const __m256i c = _mm256_set1_epi64x((long long)(fp << 8));
            const __m256i z_lo = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_add_epi64(c, s_lo), mask_lo), zero);
            const __m256i z_hi = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_add_epi64(c, s_hi), mask_hi), zero);
            if (!_mm256_testz_si256(_mm256_or_si256(z_lo, z_hi), _mm256_or_si256(z_lo, z_hi))) {
                const int64_t r = fastcdc_seq(g, p + i, 8, &fp, m);
                if (r >= 0) {
                    *fpp = fp;
                    return (int64_t)i + r;
                }
            } else {
                fp = (fp << 8) + (uint64_t)_mm256_extract_epi64(s_hi, 3);
            }
        }
    }
    const int64_t r = fastcdc_seq(g, p + i, n - i, &fp, m);
    *fpp = fp;
    return r >= 0 ? (int64_t)i + r : -1;
}
#endif
