/* buzhash64 scan kernels (spec 03).
 *
 * scan(T, Trot, pr, pa, n, sum, mask): test-then-roll. While fewer than n
 * steps were made and (sum & mask) != 0, roll the window one byte:
 * sum = rotl64(sum, 1) ^ Trot[pr[j]] ^ T[pa[j]]. Returns the number of steps
 * j, with *sum the hash of the window starting at pr[j]: it matches the mask
 * when j < n; when j == n it has not been tested. pr points at the byte that
 * leaves the window, pa = pr + w at the byte that enters; neither is read at
 * index n or beyond. Every kernel returns exactly what buzhash64_seq returns. */
#ifndef CHUNKERS_BUZHASH64_H
#define CHUNKERS_BUZHASH64_H

#include <stddef.h>
#include <stdint.h>
#include "../kernel.h"
#include "../driver.h"

typedef size_t buzhash64_scan_t(const uint64_t *table, const uint64_t *table_rot, const uint8_t *pr,
                                const uint8_t *pa, size_t n, uint64_t *sum, uint64_t mask);
typedef buzhash64_scan_t *buzhash64_scan_fn;

/* Every buzhash64 kernel of every build target (kernels.def): its function, of type buzhash64_scan_t, and
 * its name (CK_DECLARE, ../kernel.h). */
#define CK_KERNEL(name, symbol, ...) CK_DECLARE(buzhash64_scan_t, name, symbol)
#include "kernels.def"
#undef CK_KERNEL

/* Rotate left by k mod 64; k == 0 is the identity (no shift by 64). */
static inline uint64_t buzhash64_rotl(uint64_t x, unsigned k)
{
    k &= 63;
    return (x << k) | (x >> ((64 - k) & 63));
}

/* The sequential loop of spec 03 §5: the reference, and the exact rescan and
 * tail of every block kernel. */
static inline size_t buzhash64_seq(const uint64_t *t, const uint64_t *tr, const uint8_t *pr, const uint8_t *pa,
                                   size_t n, uint64_t *sump, uint64_t mask)
{
    uint64_t s = *sump;
    size_t j = 0;
    while (j < n && (s & mask)) {
        CK_MCA_LOOP(1);
        s = buzhash64_rotl(s, 1) ^ tr[pr[j]] ^ t[pa[j]];
        j++;
    }
    *sump = s;
    return j;
}

/* Balanced table from the 32-byte key (spec 03 §2); 0 on success, -1 if OpenSSL fails. */
int buzhash64_table(const uint8_t key[32], uint64_t table[256]);
/* rotated[x] = rotl64(table[x], window mod 64) (spec 03 §4). */
void buzhash64_rotated_table(const uint64_t table[256], size_t window, uint64_t rotated[256]);
/* Hash of the w bytes at win (spec 03 §3). */
uint64_t buzhash64_window_hash(const uint64_t table[256], const uint8_t *win, size_t w);

/* A chunker instance's scan state: tables, window and kernel. */
typedef struct {
    uint64_t table[256], table_rot[256];
    size_t window;
    buzhash64_scan_fn scan;
} buzhash64_ctx;

/* Fill the driver hooks for ctx (which must outlive their use). */
void buzhash64_scanner(const buzhash64_ctx *ctx, ck_scanner *sc);

extern const ck_kernel buzhash64_kernels[];
extern const size_t buzhash64_kernel_count;

#endif
