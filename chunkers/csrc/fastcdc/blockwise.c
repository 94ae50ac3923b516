/* fastcdc `blockwise` kernel: portable 8-lane blocks (spec 02 §5.1-5.3).
 *
 * Lane j (1..8) of a block holds H_j = (fp << 8) + S_j, where S_j is the
 * prefix sum of u_t = gear[b_t] << (8 - t). H_j equals the exact state h_j
 * shifted left by 8 - j, so testing it with M_j = mask << (8 - j) never misses
 * a cut but may report a false one; a candidate block is re-scanned exactly.
 * S_8 does not depend on fp, so the carried chain per block is one shift and
 * one add. Bytes are read one at a time, so lane order is memory order on
 * any host byte order. */
#include "fastcdc.h"

int64_t fastcdc_scan_blockwise(const uint64_t *g, const uint8_t *p, size_t n, uint64_t *fpp, uint64_t m)
{
    CK_PROVENANCE(fastcdc_scan_blockwise);
    const uint64_t m1 = m << 7, m2 = m << 6, m3 = m << 5, m4 = m << 4;
    const uint64_t m5 = m << 3, m6 = m << 2, m7 = m << 1, m8 = m;
    uint64_t fp = *fpp;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        CK_MCA_LOOP(8);
        const uint8_t *b = p + i;
        const uint64_t s1 = g[b[0]] << 7;
        const uint64_t s2 = s1 + (g[b[1]] << 6);
        const uint64_t s3 = s2 + (g[b[2]] << 5);
        const uint64_t s4 = s3 + (g[b[3]] << 4);
        const uint64_t s5 = s4 + (g[b[4]] << 3);
        const uint64_t s6 = s5 + (g[b[5]] << 2);
        const uint64_t s7 = s6 + (g[b[6]] << 1);
        const uint64_t s8 = s7 + g[b[7]];
        const uint64_t c = fp << 8;
        const int candidate = !((c + s1) & m1) | !((c + s2) & m2) | !((c + s3) & m3) |
                              !((c + s4) & m4) | !((c + s5) & m5) | !((c + s6) & m6) |
                              !((c + s7) & m7) | !((c + s8) & m8);
        if (candidate) {
            const int64_t r = fastcdc_seq(g, b, 8, &fp, m);
            if (r >= 0) {
                *fpp = fp;
                return (int64_t)i + r;
            }
        } else {
            fp = c + s8;
        }
    }
    const int64_t r = fastcdc_seq(g, p + i, n - i, &fp, m);
    *fpp = fp;
    return r >= 0 ? (int64_t)i + r : -1;
}
