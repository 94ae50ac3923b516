/* The legacy buzhash `single` kernel: borg's sequential loop (spec 04 A.5). */
#include "buzhash.h"

size_t buzhash_scan_single(const uint32_t *t, const uint32_t *tr, const uint8_t *pr, const uint8_t *pa, size_t n,
                           uint32_t *sum, uint32_t mask)
{
    CK_PROVENANCE(buzhash_scan_single);
    uint32_t s = *sum;
    size_t j = 0;
    while (j < n && (s & mask)) {
        CK_MCA_LOOP(1);
        s = buzhash_rotl(s, 1) ^ tr[pr[j]] ^ t[pa[j]];
        j++;
    }
    *sum = s;
    return j;
}
