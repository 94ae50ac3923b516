/* toeplitz-aes UHF (spec 07): the LFSR/Toeplitz hash over GF(2)[x] modulo the
 * public P_T = x^64 + x^4 + x^3 + x + 1. Only T is key material; IN1, OUT64
 * and OUT65 are derived from it (toeplitz_init in toeplitz.c).
 *
 * Kernel code: static inline, no libc, so every scan path (and freestanding
 * builds of a kernel file) shares this one definition. */
#ifndef CHUNKERS_AES_TOEPLITZ_H
#define CHUNKERS_AES_TOEPLITZ_H

#include <stdint.h>

#define TOEPLITZ_POLY 0x1Bu     /* P_T without its x^64 term */

typedef struct {
    uint64_t T[256];            /* secret table, indexed by byte value (07 §3) */
    uint64_t IN1[256];          /* x * T[b] */
    uint64_t OUT64[256];        /* x^64 * T[b]: the remove table (07 §5) */
    uint64_t OUT65[256];        /* x^65 * T[b] (07 §6) */
} toeplitz_tables;

/* d * x mod P_T; bit 63 is taken before the shift (07 §4). */
static inline uint64_t toeplitz_mulx(uint64_t d)
{
    return (d << 1) ^ (TOEPLITZ_POLY & (0 - (d >> 63)));
}

/* d * x^2 mod P_T: x^65 = 0x36 for bit 63, x^64 = 0x1B for bit 62 (07 §6). */
static inline uint64_t toeplitz_mulx2(uint64_t d)
{
    return (d << 2) ^ ((2 * TOEPLITZ_POLY) & (0 - (d >> 63))) ^ (TOEPLITZ_POLY & (0 - ((d >> 62) & 1)));
}

/* Full digest of the 64-byte window w (oldest first), Horner form (07 §4). */
static inline uint64_t toeplitz_digest(const toeplitz_tables *t, const uint8_t *w)
{
    uint64_t d = 0;
    for (int j = 0; j < 64; j++)
        d = toeplitz_mulx(d) ^ t->T[w[j]];
    return d;
}

/* One byte: o leaves, n enters (07 §5). */
static inline uint64_t toeplitz_roll(const toeplitz_tables *t, uint64_t d, uint8_t o, uint8_t n)
{
    return toeplitz_mulx(d) ^ t->OUT64[o] ^ t->T[n];
}

/* Two bytes: o0 then o1 leave, i0 then i1 enter (07 §6). */
static inline uint64_t toeplitz_roll2(const toeplitz_tables *t, uint64_t d, uint8_t o0, uint8_t o1, uint8_t i0,
                                      uint8_t i1)
{
    return toeplitz_mulx2(d) ^ t->OUT65[o0] ^ t->OUT64[o1] ^ t->IN1[i0] ^ t->T[i1];
}

/* Derive IN1, OUT64 and OUT65 from t->T (t->T must be set). */
void toeplitz_init(toeplitz_tables *t);

#endif
