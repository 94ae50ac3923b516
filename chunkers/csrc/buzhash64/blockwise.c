/* buzhash64 `blockwise` kernel: portable 8-lane blocks (spec 03 §7.1-7.2).
 *
 * With D_t = Trot[out] ^ T[in] for the 8 steps of a block, lane k (1..8)
 * holds c ^ S_k, c = rotl(sum, 8), S_k the prefix XOR of u_t = rotl(D_t, 7 - t).
 * That is the exact state s_k rotated left by 8 - k, so testing it against
 * rotl(mask, 8 - k) is exact. A matching block is re-scanned sequentially to
 * find the earliest lane and its exact state. Bytes are read one at a time,
 * so lane order is memory order on any host byte order. */
#include "buzhash64.h"

#define ROTL buzhash64_rotl

size_t buzhash64_scan_blockwise(const uint64_t *t, const uint64_t *tr, const uint8_t *pr, const uint8_t *pa,
                                size_t n, uint64_t *sump, uint64_t m)
{
    CK_PROVENANCE(buzhash64_scan_blockwise);
    const uint64_t m1 = ROTL(m, 7), m2 = ROTL(m, 6), m3 = ROTL(m, 5), m4 = ROTL(m, 4);
    const uint64_t m5 = ROTL(m, 3), m6 = ROTL(m, 2), m7 = ROTL(m, 1), m8 = m;
    uint64_t s = *sump;
    size_t j = 0;
    for (; j + 8 <= n && (s & m); j += 8) {
        CK_MCA_LOOP(8);
        const uint8_t *o = pr + j, *in = pa + j;
        const uint64_t s1 = ROTL(tr[o[0]] ^ t[in[0]], 7);
        const uint64_t s2 = s1 ^ ROTL(tr[o[1]] ^ t[in[1]], 6);
        const uint64_t s3 = s2 ^ ROTL(tr[o[2]] ^ t[in[2]], 5);
        const uint64_t s4 = s3 ^ ROTL(tr[o[3]] ^ t[in[3]], 4);
        const uint64_t s5 = s4 ^ ROTL(tr[o[4]] ^ t[in[4]], 3);
        const uint64_t s6 = s5 ^ ROTL(tr[o[5]] ^ t[in[5]], 2);
        const uint64_t s7 = s6 ^ ROTL(tr[o[6]] ^ t[in[6]], 1);
        const uint64_t s8 = s7 ^ tr[o[7]] ^ t[in[7]];
        const uint64_t c = ROTL(s, 8);
        const int hit = !((c ^ s1) & m1) | !((c ^ s2) & m2) | !((c ^ s3) & m3) | !((c ^ s4) & m4) |
                        !((c ^ s5) & m5) | !((c ^ s6) & m6) | !((c ^ s7) & m7) | !((c ^ s8) & m8);
        if (hit) {
            const size_t r = buzhash64_seq(t, tr, o, in, 8, &s, m);
            *sump = s;
            return j + r;
        }
        s = c ^ s8;
    }
    j += buzhash64_seq(t, tr, pr + j, pa + j, n - j, &s, m);
    *sump = s;
    return j;
}
