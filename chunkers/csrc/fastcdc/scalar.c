/* fastcdc `scalar` kernel: the sequential reference loop (spec 02 §4). */
#include "fastcdc.h"

int64_t fastcdc_scan_scalar(const uint64_t *gear, const uint8_t *p, size_t n, uint64_t *fp, uint64_t mask)
{
    return fastcdc_seq(gear, p, n, fp, mask);
}
