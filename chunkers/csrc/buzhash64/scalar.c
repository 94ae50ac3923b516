/* buzhash64 `scalar` kernel: the sequential reference loop (spec 03 §5). */
#include "buzhash64.h"

size_t buzhash64_scan_scalar(const uint64_t *t, const uint64_t *tr, const uint8_t *pr, const uint8_t *pa,
                             size_t n, uint64_t *sum, uint64_t mask)
{
    CK_PROVENANCE(buzhash64_scan_scalar);
    return buzhash64_seq(t, tr, pr, pa, n, sum, mask);
}
