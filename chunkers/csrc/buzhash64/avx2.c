/* buzhash64 `avx2` kernel (spec 03 §7.3): the blockwise lane test in two
 * 4-lane vectors. AVX2 has no 64-bit rotate, so rotl(v, k) is
 * (v << k) | (v >> (64 - k)) with per-lane shift counts; a count of 64 yields
 * 0, which makes k = 0 the identity. Prefix XOR inside each half, S_4 XORed
 * into the upper half. Double buffered: the D_t of the block at j + 8 are
 * loaded while the block at j is tested, so the loop runs while j + 16 <= n,
 * leaving up to 15 steps to the exact loop. */
#include "buzhash64.h"

#if CK_X86_64
#include <immintrin.h>

CK_TARGET("avx2") static inline __m256i rotlv(__m256i x, __m256i k, __m256i k_inv)
{
    return _mm256_or_si256(_mm256_sllv_epi64(x, k), _mm256_srlv_epi64(x, k_inv));
}

CK_TARGET("avx2") static inline __m256i prefix_xor4(__m256i x)
{
    const __m256i zero = _mm256_setzero_si256();
    x = _mm256_xor_si256(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x90), zero, 0x03));
    x = _mm256_xor_si256(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x40), zero, 0x0F));
    return x;
}

CK_TARGET("avx2")
static inline void load_steps(const uint64_t *t, const uint64_t *tr, const uint8_t *o, const uint8_t *in,
                              __m256i *lo, __m256i *hi)
{
    *lo = _mm256_set_epi64x((long long)(tr[o[3]] ^ t[in[3]]), (long long)(tr[o[2]] ^ t[in[2]]),
                            (long long)(tr[o[1]] ^ t[in[1]]), (long long)(tr[o[0]] ^ t[in[0]]));
    *hi = _mm256_set_epi64x((long long)(tr[o[7]] ^ t[in[7]]), (long long)(tr[o[6]] ^ t[in[6]]),
                            (long long)(tr[o[5]] ^ t[in[5]]), (long long)(tr[o[4]] ^ t[in[4]]));
}

CK_TARGET("avx2")
size_t buzhash64_scan_avx2(const uint64_t *t, const uint64_t *tr, const uint8_t *pr, const uint8_t *pa,
                           size_t n, uint64_t *sump, uint64_t m)
{
    CK_PROVENANCE(buzhash64_scan_avx2);
    uint64_t s = *sump;
    size_t j = 0;
    if (n >= 16 && (s & m)) {
        const __m256i k_lo = _mm256_setr_epi64x(7, 6, 5, 4), k_hi = _mm256_setr_epi64x(3, 2, 1, 0);
        const __m256i k_lo_inv = _mm256_setr_epi64x(57, 58, 59, 60), k_hi_inv = _mm256_setr_epi64x(61, 62, 63, 64);
        const __m256i vm = _mm256_set1_epi64x((long long)m);
        const __m256i mask_lo = rotlv(vm, k_lo, k_lo_inv), mask_hi = rotlv(vm, k_hi, k_hi_inv);
        const __m256i zero = _mm256_setzero_si256();
        __m256i d_lo, d_hi;
        load_steps(t, tr, pr, pa, &d_lo, &d_hi);
        for (; j + 16 <= n && (s & m); j += 8) {
            CK_MCA_LOOP(8);
            __m256i s_lo = rotlv(d_lo, k_lo, k_lo_inv);
            __m256i s_hi = rotlv(d_hi, k_hi, k_hi_inv);
            load_steps(t, tr, pr + j + 8, pa + j + 8, &d_lo, &d_hi);
            s_lo = prefix_xor4(s_lo);
            s_hi = _mm256_xor_si256(prefix_xor4(s_hi), _mm256_permute4x64_epi64(s_lo, 0xFF));
            const uint64_t c = buzhash64_rotl(s, 8);
            const __m256i vc = _mm256_set1_epi64x((long long)c);
            const __m256i z_lo = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_xor_si256(vc, s_lo), mask_lo), zero);
            const __m256i z_hi = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_xor_si256(vc, s_hi), mask_hi), zero);
            const __m256i z = _mm256_or_si256(z_lo, z_hi);
            if (!_mm256_testz_si256(z, z)) {
                const size_t r = buzhash64_seq(t, tr, pr + j, pa + j, 8, &s, m);
                *sump = s;
                return j + r;
            }
            s = c ^ (uint64_t)_mm256_extract_epi64(s_hi, 3);
        }
    }
    j += buzhash64_seq(t, tr, pr + j, pa + j, n - j, &s, m);
    *sump = s;
    return j;
}
#endif
