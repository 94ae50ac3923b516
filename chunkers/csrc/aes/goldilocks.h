/* goldilocks-aes UHF (spec 09): polynomial evaluation at the secret point K in
 * GF(p), p = 2^64 - 2^32 + 1. Digests are always the canonical residue in
 * [0, p), because the digest is encrypted verbatim (09 §7). The arithmetic is
 * branch-free: conditional corrections are masks, never jumps.
 *
 * Kernel code: static inline, no libc (see toeplitz.h). */
#ifndef CHUNKERS_AES_GOLDILOCKS_H
#define CHUNKERS_AES_GOLDILOCKS_H

#include <stdint.h>

#ifndef __SIZEOF_INT128__
#error "goldilocks-aes needs a compiler with unsigned __int128 (64x64 -> 128-bit products)"
#endif

#define GOLDILOCKS_P 0xFFFFFFFF00000001u
#define GOLDILOCKS_EPS 0xFFFFFFFFu      /* 2^64 mod p */

typedef unsigned __int128 goldilocks_u128;

typedef struct {
    uint64_t NOUT64[256];       /* -b * K^64 mod p: the remove table (09 §5) */
    uint64_t NOUT65[256];       /* -b * K^65 mod p (09 §6) */
    uint64_t IN1[256];          /* b * K mod p */
    uint64_t K, K2;             /* the evaluation point and K^2 mod p */
} goldilocks_tables;

/* The canonical residue of lo + hi * 2^64 (09 §7): with hi = hh * 2^32 + hl,
 * that is lo - hh + hl * (2^32 - 1) mod p, since 2^64 = 2^32 - 1 and
 * 2^96 = -1 mod p. */
static inline uint64_t goldilocks_reduce(uint64_t lo, uint64_t hi)
{
    const uint64_t hh = hi >> 32, hl = hi & GOLDILOCKS_EPS;
    uint64_t t, s;
    const uint64_t borrow = __builtin_sub_overflow(lo, hh, &t);
    t -= GOLDILOCKS_EPS & (0 - borrow);                     /* -2^64 = -EPS; t > EPS here */
    const uint64_t carry = __builtin_add_overflow(t, (hl << 32) - hl, &s);
    s += GOLDILOCKS_EPS & (0 - carry);                      /* +2^64 = +EPS; cannot carry again */
    return s - (GOLDILOCKS_P & (0 - (uint64_t)(s >= GOLDILOCKS_P)));
}

/* a * b + c mod p, canonical, where c = c_lo + c_hi * 2^64 and the sum stays below 2^128. */
static inline uint64_t goldilocks_muladd(uint64_t a, uint64_t b, uint64_t c_lo, uint64_t c_hi)
{
    const goldilocks_u128 x = (goldilocks_u128)a * b;
    uint64_t lo;
    const uint64_t carry = __builtin_add_overflow((uint64_t)x, c_lo, &lo);
    return goldilocks_reduce(lo, (uint64_t)(x >> 64) + c_hi + carry);
}

/* a * b mod p, canonical, for any a, b < 2^64. */
static inline uint64_t goldilocks_mul(uint64_t a, uint64_t b)
{
    return goldilocks_muladd(a, b, 0, 0);
}

/* Full digest of the 64-byte window w (oldest first), Horner form (09 §3). */
static inline uint64_t goldilocks_digest(const goldilocks_tables *g, const uint8_t *w)
{
    uint64_t d = 0;
    for (int j = 0; j < 64; j++)
        d = goldilocks_muladd(d, g->K, w[j], 0);
    return d;
}

/* One byte (09 §5): d*K - o*K^64 + n; the sum is below 2^128 for any d < 2^64 since K < p. */
static inline uint64_t goldilocks_roll(const goldilocks_tables *g, uint64_t d, uint8_t o, uint8_t n)
{
    uint64_t a;
    const uint64_t c = __builtin_add_overflow(g->NOUT64[o], (uint64_t)n, &a);
    return goldilocks_muladd(d, g->K, a, c);
}

/* Two bytes (09 §6): d*K^2 - o0*K^65 - o1*K^64 + i0*K + i1, the addend summed
 * in two words off the d chain; below 2^128 for any d < 2^64 since K2 < p. */
static inline uint64_t goldilocks_roll2(const goldilocks_tables *g, uint64_t d, uint8_t o0, uint8_t o1, uint8_t i0,
                                        uint8_t i1)
{
    uint64_t a, b;
    const uint64_t c = __builtin_add_overflow(g->NOUT65[o0], g->NOUT64[o1], &a) +
                       __builtin_add_overflow(g->IN1[i0], (uint64_t)i1, &b) + __builtin_add_overflow(a, b, &a);
    return goldilocks_muladd(d, g->K2, a, c);
}

/* Build the tables for the evaluation point K (K < p; the caller checks). */
void goldilocks_init(goldilocks_tables *g, uint64_t K);

#endif
