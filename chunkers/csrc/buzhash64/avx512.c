/* buzhash64 `avx512` kernel (spec 03 §7.3): the blockwise lane test in one
 * 8-lane vector with the native per-lane rotate, a prefix XOR in three steps
 * (XOR with the vector shifted up by 1, 2 and 4 lanes, zero filled) and one
 * AND-and-test-zero giving the lane mask. Double buffered like avx2. */
#include "buzhash64.h"

#if CK_X86_64
#include <immintrin.h>

CK_TARGET("avx512f")
static inline __m512i load_steps(const uint64_t *t, const uint64_t *tr, const uint8_t *o, const uint8_t *in)
{
    return _mm512_set_epi64((long long)(tr[o[7]] ^ t[in[7]]), (long long)(tr[o[6]] ^ t[in[6]]),
                            (long long)(tr[o[5]] ^ t[in[5]]), (long long)(tr[o[4]] ^ t[in[4]]),
                            (long long)(tr[o[3]] ^ t[in[3]]), (long long)(tr[o[2]] ^ t[in[2]]),
                            (long long)(tr[o[1]] ^ t[in[1]]), (long long)(tr[o[0]] ^ t[in[0]]));
}

CK_TARGET("avx512f")
size_t buzhash64_scan_avx512(const uint64_t *t, const uint64_t *tr, const uint8_t *pr, const uint8_t *pa,
                             size_t n, uint64_t *sump, uint64_t m)
{
    CK_PROVENANCE(buzhash64_scan_avx512);
    uint64_t s = *sump;
    size_t j = 0;
    if (n >= 16 && (s & m)) {
        const __m512i k = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i lane_mask = _mm512_rolv_epi64(_mm512_set1_epi64((long long)m), k);
        const __m512i zero = _mm512_setzero_si512();
        __m512i d = load_steps(t, tr, pr, pa);
        for (; j + 16 <= n && (s & m); j += 8) {
            CK_MCA_LOOP(8);
            __m512i x = _mm512_rolv_epi64(d, k);
            d = load_steps(t, tr, pr + j + 8, pa + j + 8);
            x = _mm512_xor_si512(x, _mm512_alignr_epi64(x, zero, 7));
            x = _mm512_xor_si512(x, _mm512_alignr_epi64(x, zero, 6));
            x = _mm512_xor_si512(x, _mm512_alignr_epi64(x, zero, 4));
            const uint64_t c = buzhash64_rotl(s, 8);
            if (_mm512_testn_epi64_mask(_mm512_xor_si512(_mm512_set1_epi64((long long)c), x), lane_mask)) {
                const size_t r = buzhash64_seq(t, tr, pr + j, pa + j, 8, &s, m);
                *sump = s;
                return j + r;
            }
            s = c ^ (uint64_t)_mm256_extract_epi64(_mm512_extracti64x4_epi64(x, 1), 3);
        }
    }
    j += buzhash64_seq(t, tr, pr + j, pa + j, n - j, &s, m);
    *sump = s;
    return j;
}
#endif
