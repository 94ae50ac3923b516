/* fastcdc `avx512` kernel (spec 02 §5.5): the blockwise lane test in one
 * 8-lane vector: per-lane shifts 7..0, an inclusive prefix sum in three steps
 * (add the vector shifted up by 1, 2 and 4 lanes, zero filled), and one
 * AND-and-test-zero giving an 8-bit lane mask. Double buffered like avx2:
 * the block loop runs while i + 16 <= n. */
#include "fastcdc.h"

#if CK_X86_64
#include <immintrin.h>

CK_TARGET("avx512f") static inline __m512i load_gear(const uint64_t *g, const uint8_t *b)
{
    return _mm512_set_epi64((long long)g[b[7]], (long long)g[b[6]], (long long)g[b[5]], (long long)g[b[4]],
                            (long long)g[b[3]], (long long)g[b[2]], (long long)g[b[1]], (long long)g[b[0]]);
}

CK_TARGET("avx512f")
int64_t fastcdc_scan_avx512(const uint64_t *g, const uint8_t *p, size_t n, uint64_t *fpp, uint64_t m)
{
    CK_PROVENANCE(fastcdc_scan_avx512);
    uint64_t fp = *fpp;
    size_t i = 0;
    if (n >= 16) {
        const __m512i shift = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i lane_mask = _mm512_sllv_epi64(_mm512_set1_epi64((long long)m), shift);
        const __m512i zero = _mm512_setzero_si512();
        __m512i gv = load_gear(g, p);
        for (; i + 16 <= n; i += 8) {
            CK_MCA_LOOP(8);
            __m512i s = _mm512_sllv_epi64(gv, shift);
            gv = load_gear(g, p + i + 8);
            s = _mm512_add_epi64(s, _mm512_alignr_epi64(s, zero, 7));
            s = _mm512_add_epi64(s, _mm512_alignr_epi64(s, zero, 6));
            s = _mm512_add_epi64(s, _mm512_alignr_epi64(s, zero, 4));
            const __m512i h = _mm512_add_epi64(_mm512_set1_epi64((long long)(fp << 8)), s);
            if (_mm512_testn_epi64_mask(h, lane_mask)) {
                const int64_t r = fastcdc_seq(g, p + i, 8, &fp, m);
                if (r >= 0) {
                    *fpp = fp;
                    return (int64_t)i + r;
                }
            } else {
                fp = (fp << 8) + (uint64_t)_mm256_extract_epi64(_mm512_extracti64x4_epi64(s, 1), 3);
            }
        }
    }
    const int64_t r = fastcdc_seq(g, p + i, n - i, &fp, m);
    *fpp = fp;
    return r >= 0 ? (int64_t)i + r : -1;
}
#endif
