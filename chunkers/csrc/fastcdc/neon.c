/* fastcdc `neon` kernel (aarch64, spec 02 §5.4): the blockwise blocks in four
 * 2-lane vectors, with the lane test as an unsigned comparison
 * H_j <= ~M_j. That is a superset of (H_j & M_j) == 0 for any mask (and
 * equal to it for fastcdc's high masks), so it never misses a cut; every
 * candidate block is re-scanned exactly. Blocks and tail as in blockwise. */
#include "fastcdc.h"

#if CK_AARCH64
#include <arm_neon.h>

static inline uint64x2_t pair(const uint64_t *g, const uint8_t *b)
{
    return vcombine_u64(vcreate_u64(g[b[0]]), vcreate_u64(g[b[1]]));
}

int64_t fastcdc_scan_neon(const uint64_t *g, const uint8_t *p, size_t n, uint64_t *fpp, uint64_t m)
{
    CK_PROVENANCE(fastcdc_scan_neon);
    static const int64_t shifts[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    const int64x2_t sh01 = vld1q_s64(shifts), sh23 = vld1q_s64(shifts + 2);
    const int64x2_t sh45 = vld1q_s64(shifts + 4), sh67 = vld1q_s64(shifts + 6);
    const uint64x2_t vm = vdupq_n_u64(m), ones = vdupq_n_u64(~(uint64_t)0), zero = vdupq_n_u64(0);
    /* per-lane limits ~M_j, M_j = m << (8 - j) */
    const uint64x2_t lim01 = veorq_u64(vshlq_u64(vm, sh01), ones);
    const uint64x2_t lim23 = veorq_u64(vshlq_u64(vm, sh23), ones);
    const uint64x2_t lim45 = veorq_u64(vshlq_u64(vm, sh45), ones);
    const uint64x2_t lim67 = veorq_u64(vshlq_u64(vm, sh67), ones);
    uint64_t fp = *fpp;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint8_t *b = p + i;
        uint64x2_t s01 = vshlq_u64(pair(g, b), sh01);
        uint64x2_t s23 = vshlq_u64(pair(g, b + 2), sh23);
        uint64x2_t s45 = vshlq_u64(pair(g, b + 4), sh45);
        uint64x2_t s67 = vshlq_u64(pair(g, b + 6), sh67);
        /* inclusive prefix sums: (a, b) -> (a, a + b), then carry each pair's total */
        s01 = vaddq_u64(s01, vextq_u64(zero, s01, 1));
        s23 = vaddq_u64(vaddq_u64(s23, vextq_u64(zero, s23, 1)), vdupq_laneq_u64(s01, 1));
        s45 = vaddq_u64(vaddq_u64(s45, vextq_u64(zero, s45, 1)), vdupq_laneq_u64(s23, 1));
        s67 = vaddq_u64(vaddq_u64(s67, vextq_u64(zero, s67, 1)), vdupq_laneq_u64(s45, 1));
        const uint64x2_t c = vdupq_n_u64(fp << 8);
        const uint64x2_t cand = vorrq_u64(vorrq_u64(vcleq_u64(vaddq_u64(c, s01), lim01),
                                                    vcleq_u64(vaddq_u64(c, s23), lim23)),
                                          vorrq_u64(vcleq_u64(vaddq_u64(c, s45), lim45),
                                                    vcleq_u64(vaddq_u64(c, s67), lim67)));
        if (vmaxvq_u32(vreinterpretq_u32_u64(cand))) {
            const int64_t r = fastcdc_seq(g, b, 8, &fp, m);
            if (r >= 0) {
                *fpp = fp;
                return (int64_t)i + r;
            }
        } else {
            fp = (fp << 8) + vgetq_lane_u64(s67, 1);
        }
    }
    const int64_t r = fastcdc_seq(g, p + i, n - i, &fp, m);
    *fpp = fp;
    return r >= 0 ? (int64_t)i + r : -1;
}
#endif
