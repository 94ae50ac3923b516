/* buzhash64 `neon` kernel (aarch64, spec 03 §7.3): the blockwise lanes in
 * four 2-lane vectors with the exact masked test (AND, compare with zero).
 * rotl(v, k) = (v << k) | (v >> (64 - k)) via USHL with counts k and k - 64;
 * a right shift by 64 yields 0, so k = 0 is the identity. Blocks and tail as
 * in blockwise. */
#include "buzhash64.h"

#if CK_AARCH64
#include <arm_neon.h>

static inline uint64x2_t rotlv(uint64x2_t x, int64x2_t k, int64x2_t k_right)
{
    return vorrq_u64(vshlq_u64(x, k), vshlq_u64(x, k_right));
}

static inline uint64x2_t step_pair(const uint64_t *t, const uint64_t *tr, const uint8_t *o, const uint8_t *in)
{
    return vcombine_u64(vcreate_u64(tr[o[0]] ^ t[in[0]]), vcreate_u64(tr[o[1]] ^ t[in[1]]));
}

size_t buzhash64_scan_neon(const uint64_t *t, const uint64_t *tr, const uint8_t *pr, const uint8_t *pa,
                           size_t n, uint64_t *sump, uint64_t m)
{
    CK_PROVENANCE(buzhash64_scan_neon);
    static const int64_t rot[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    static const int64_t rot_right[8] = {-57, -58, -59, -60, -61, -62, -63, -64};
    int64x2_t k[4], kr[4];
    uint64x2_t mask[4];
    const uint64x2_t vm = vdupq_n_u64(m), zero = vdupq_n_u64(0);
    for (int q = 0; q < 4; q++) {
        k[q] = vld1q_s64(rot + 2 * q);
        kr[q] = vld1q_s64(rot_right + 2 * q);
        mask[q] = rotlv(vm, k[q], kr[q]);
    }
    uint64_t s = *sump;
    size_t j = 0;
    for (; j + 8 <= n && (s & m); j += 8) {
        const uint8_t *o = pr + j, *in = pa + j;
        uint64x2_t x0 = rotlv(step_pair(t, tr, o, in), k[0], kr[0]);
        uint64x2_t x1 = rotlv(step_pair(t, tr, o + 2, in + 2), k[1], kr[1]);
        uint64x2_t x2 = rotlv(step_pair(t, tr, o + 4, in + 4), k[2], kr[2]);
        uint64x2_t x3 = rotlv(step_pair(t, tr, o + 6, in + 6), k[3], kr[3]);
        /* inclusive prefix XOR: (a, b) -> (a, a ^ b), then carry each pair's total */
        x0 = veorq_u64(x0, vextq_u64(zero, x0, 1));
        x1 = veorq_u64(veorq_u64(x1, vextq_u64(zero, x1, 1)), vdupq_laneq_u64(x0, 1));
        x2 = veorq_u64(veorq_u64(x2, vextq_u64(zero, x2, 1)), vdupq_laneq_u64(x1, 1));
        x3 = veorq_u64(veorq_u64(x3, vextq_u64(zero, x3, 1)), vdupq_laneq_u64(x2, 1));
        const uint64_t c = buzhash64_rotl(s, 8);
        const uint64x2_t vc = vdupq_n_u64(c);
        const uint64x2_t hit = vorrq_u64(vorrq_u64(vceqzq_u64(vandq_u64(veorq_u64(vc, x0), mask[0])),
                                                   vceqzq_u64(vandq_u64(veorq_u64(vc, x1), mask[1]))),
                                         vorrq_u64(vceqzq_u64(vandq_u64(veorq_u64(vc, x2), mask[2])),
                                                   vceqzq_u64(vandq_u64(veorq_u64(vc, x3), mask[3]))));
        if (vmaxvq_u32(vreinterpretq_u32_u64(hit))) {
            const size_t r = buzhash64_seq(t, tr, o, in, 8, &s, m);
            *sump = s;
            return j + r;
        }
        s = c ^ vgetq_lane_u64(x3, 1);
    }
    j += buzhash64_seq(t, tr, pr + j, pa + j, n - j, &s, m);
    *sump = s;
    return j;
}
#endif
