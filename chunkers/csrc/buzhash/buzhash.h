/* Legacy 32-bit buzhash chunker, borg 1.x compatible (spec 04 Part A).
 *
 * A single implementation (no scan kernels): a seeded copy of a fixed public
 * table, a u32 rolling window hash and the windowed test-then-roll driver of
 * spec 03 §6.2 without normalized chunking. */
#ifndef CHUNKERS_BUZHASH_H
#define CHUNKERS_BUZHASH_H

#include <stddef.h>
#include <stdint.h>
#include "../driver.h"

/* borg's base table B (spec 04 A.3), verbatim. */
extern const uint32_t buzhash_base_table[256];

/* Rotate left by k mod 32; k == 0 is the identity (no shift by 32). */
static inline uint32_t buzhash_rotl(uint32_t x, unsigned k)
{
    k &= 31;
    return (x << k) | (x >> ((32 - k) & 31));
}

/* A chunker instance: seeded table T, Trot[x] = rotl32(T[x], w mod 32), window w. */
typedef struct {
    uint32_t table[256], table_rot[256];
    size_t window;
} buzhash_ctx;

/* T[i] = B[i] ^ seed and its rotated twin for window w (spec 04 A.3, A.4). */
void buzhash_init(buzhash_ctx *c, uint32_t seed, size_t window);
/* Hash of the w bytes at win: XOR of rotl32(T[win[t]], (w-1-t) mod 32) (spec 04 A.4). */
uint32_t buzhash_window_hash(const uint32_t table[256], const uint8_t *win, size_t w);
/* Test-then-roll scan with the contract of spec 03 §5 on u32: while fewer
 * than n steps were made and (sum & mask) != 0, roll with out byte pr[j] and
 * in byte pa[j]. Returns the steps j; *sum is the hash of the window at
 * pr[j] (matched if j < n, untested if j == n). */
size_t buzhash_scan(const buzhash_ctx *c, const uint8_t *pr, const uint8_t *pa, size_t n, uint32_t *sum,
                    uint32_t mask);
/* Fill the driver hooks for c (which must outlive their use). */
void buzhash_scanner(const buzhash_ctx *c, ck_scanner *sc);

#endif
