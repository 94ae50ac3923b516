/* fastcdc scan kernels (spec 02).
 *
 * scan(gear, p, n, fp, mask): feed p[0..n-1] into the Gear hash
 * fp = (fp << 1) + gear[byte] (mod 2^64) and test (fp & mask) == 0 after each
 * byte. Returns the index of the first matching byte, with *fp the state
 * after that byte; or -1 with *fp the state after all n bytes. Never reads
 * p[n] or beyond. Every kernel returns exactly what fastcdc_seq returns. */
#ifndef CHUNKERS_FASTCDC_H
#define CHUNKERS_FASTCDC_H

#include <stddef.h>
#include <stdint.h>
#include "../kernel.h"
#include "../driver.h"

typedef int64_t fastcdc_scan_t(const uint64_t *gear, const uint8_t *p, size_t n, uint64_t *fp, uint64_t mask);
typedef fastcdc_scan_t *fastcdc_scan_fn;

/* Every fastcdc kernel of every build target (kernels.def): its function, of type fastcdc_scan_t, and
 * its name (CK_DECLARE, ../kernel.h). */
#define CK_KERNEL(name, symbol, ...) CK_DECLARE(fastcdc_scan_t, name, symbol)
#include "kernels.def"
#undef CK_KERNEL

/* The sequential loop of spec 02 §4: the reference, and the exact recheck
 * and tail of every block kernel. */
static inline int64_t fastcdc_seq(const uint64_t *gear, const uint8_t *p, size_t n,
                                  uint64_t *fpp, uint64_t mask)
{
    uint64_t fp = *fpp;
    for (size_t i = 0; i < n; i++) {
        fp = (fp << 1) + gear[p[i]];
        if (!(fp & mask)) {
            *fpp = fp;
            return (int64_t)i;
        }
    }
    *fpp = fp;
    return -1;
}

/* The segment-parallel kernel (seg4.c): rounds of 4 segments of FASTCDC_SEG_LEN
 * bytes; spans shorter than 4 * FASTCDC_SEG_MIN take the sequential loop. */
#ifndef FASTCDC_SEG_LEN
#define FASTCDC_SEG_LEN 4096
#endif
#ifndef FASTCDC_SEG_MIN
#define FASTCDC_SEG_MIN 256
#endif

/* Gear table from the 32-byte key (spec 02 §2); 0 on success, -1 if OpenSSL fails. */
int fastcdc_gear_table(const uint8_t key[32], uint64_t gear[256]);

/* A chunker instance's scan state: its table and kernel. */
typedef struct {
    uint64_t gear[256];
    fastcdc_scan_fn scan;
} fastcdc_ctx;

/* Fill the driver hooks for ctx (which must outlive their use). */
void fastcdc_scanner(const fastcdc_ctx *ctx, ck_scanner *sc);

extern const ck_kernel fastcdc_kernels[];
extern const size_t fastcdc_kernel_count;

#endif
