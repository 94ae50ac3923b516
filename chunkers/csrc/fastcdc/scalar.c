/* fastcdc `scalar` kernel: the sequential loop of spec 02 §4, unrolled by four.
 * One loop branch per four bytes leaves the one-cycle shift-add chain as the
 * bottleneck: on an AMD EPYC VM (AVX-512F exposed) the rolled loop ran at 2.0
 * to 4.3 GB/s depending on where the compiler placed it, this one at 4.6 GB/s
 * whatever the alignment flags (docs/benchmarks.md). Tails and rechecks stay
 * with fastcdc_seq. */
#include "fastcdc.h"

#define STEP(k)                                                                \
    fp = (fp << 1) + gear[p[i + (k)]];                                         \
    if (!(fp & mask)) {                                                        \
        *fpp = fp;                                                             \
        return (int64_t)(i + (k));                                             \
    }

int64_t fastcdc_scan_scalar(const uint64_t *gear, const uint8_t *p, size_t n, uint64_t *fpp, uint64_t mask)
{
    CK_PROVENANCE(fastcdc_scan_scalar);
    uint64_t fp = *fpp;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        CK_MCA_LOOP(4);
        STEP(0)
        STEP(1)
        STEP(2)
        STEP(3)
    }
    *fpp = fp;
    const int64_t r = fastcdc_seq(gear, p + i, n - i, fpp, mask);
    return r >= 0 ? (int64_t)i + r : -1;
}
