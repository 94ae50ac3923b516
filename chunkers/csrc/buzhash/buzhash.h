/* Legacy 32-bit buzhash chunker, borg 1.x compatible (spec 04 Part A).
 *
 * A seeded copy of a fixed public table, a u32 rolling window hash and the
 * windowed test-then-roll driver of spec 03 §6.2 without normalized
 * chunking. Two scan kernels (kernels.def): `single`, borg's sequential loop
 * and the reference, and `seg4`, the segment-parallel loop. */
#ifndef CHUNKERS_BUZHASH_H
#define CHUNKERS_BUZHASH_H

#include <stddef.h>
#include <stdint.h>
#include "../kernel.h"
#include "../driver.h"

/* borg's base table B (spec 04 A.3), verbatim. */
extern const uint32_t buzhash_base_table[256];

/* Rotate left by k mod 32; k == 0 is the identity (no shift by 32). */
static inline uint32_t buzhash_rotl(uint32_t x, unsigned k)
{
    k &= 31;
    return (x << k) | (x >> ((32 - k) & 31));
}

/* Test-then-roll scan with the contract of spec 03 §5 on u32: while fewer
 * than n steps were made and (sum & mask) != 0, roll with out byte pr[j] and
 * in byte pa[j] = pr[j + w]. Returns the steps j; *sum is the hash of the
 * window at pr[j] (matched if j < n, untested if j == n). Neither pointer is
 * read at index n or beyond. Every kernel returns what buzhash_scan_single returns. */
typedef size_t buzhash_scan_t(const uint32_t *t, const uint32_t *tr, const uint8_t *pr, const uint8_t *pa,
                              size_t n, uint32_t *sum, uint32_t mask);
typedef buzhash_scan_t *buzhash_scan_fn;

/* Every buzhash kernel of every build target (kernels.def): its function, of type buzhash_scan_t, and
 * its name (CK_DECLARE, ../kernel.h). */
#define CK_KERNEL(name, symbol, ...) CK_DECLARE(buzhash_scan_t, name, symbol)
#include "kernels.def"
#undef CK_KERNEL
/* buzhash_scan_single, the sequential loop (spec 04 A.5), is the reference and the seg4 tail. */

extern const ck_kernel buzhash_kernels[];
extern const size_t buzhash_kernel_count;

/* A chunker instance: seeded table T, Trot[x] = rotl32(T[x], w mod 32), window w, kernel. */
typedef struct {
    uint32_t table[256], table_rot[256];
    size_t window;
    buzhash_scan_fn scan;
} buzhash_ctx;

/* T[i] = B[i] ^ seed and its rotated twin for window w (spec 04 A.3, A.4); scan = single. */
void buzhash_init(buzhash_ctx *c, uint32_t seed, size_t window);
/* Hash of the w bytes at win: XOR of rotl32(T[win[t]], (w-1-t) mod 32) (spec 04 A.4). */
uint32_t buzhash_window_hash(const uint32_t table[256], const uint8_t *win, size_t w);
/* Fill the driver hooks for c (which must outlive their use). */
void buzhash_scanner(const buzhash_ctx *c, ck_scanner *sc);

#endif
