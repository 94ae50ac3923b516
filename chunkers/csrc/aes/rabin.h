/* rabin-aes UHF (spec 08): the Rabin fingerprint of the 64-byte window (read
 * as a 512-bit big-endian polynomial, no bit reflection) modulo a secret
 * irreducible degree-64 polynomial P = x^64 + poly. The tables are P's
 * remainders of byte multiples of x^64, x^504, x^72, x^512 and x^520
 * (rabin_init in rabin.c).
 *
 * Kernel code: static inline, no libc (see toeplitz.h). */
#ifndef CHUNKERS_AES_RABIN_H
#define CHUNKERS_AES_RABIN_H

#include <stdint.h>

typedef struct {
    uint64_t OUT[256];          /* b * x^504: the remove table (08 §7) */
    uint64_t RED[256];          /* t * x^64: folds the byte shifted out above bit 63 */
    uint64_t W1[256];           /* t * x^72 (08 §8) */
    uint64_t OUT8[256];         /* b * x^512 */
    uint64_t OUT16[256];        /* b * x^520 */
    uint64_t poly;              /* P without its x^64 term; bit 0 is always 1 */
} rabin_tables;

/* Full digest of the 64-byte window w (oldest first), table-driven Horner (08 §6). */
static inline uint64_t rabin_digest(const rabin_tables *r, const uint8_t *w)
{
    uint64_t d = 0;
    for (int j = 0; j < 64; j++)
        d = ((d << 8) | w[j]) ^ r->RED[d >> 56];
    return d;
}

/* One byte (08 §7: e = d ^ OUT[o], ((e << 8) | n) ^ RED[e >> 56]). Multiplying by x^8 mod P is
 * linear, so e * x^8 = d * x^8 ^ OUT[o] * x^8 = ((d << 8) ^ RED[d >> 56]) ^ OUT8[o]: the RED index
 * comes from d itself, and the digest's chain is the index, the load and one xor. */
static inline uint64_t rabin_roll(const rabin_tables *r, uint64_t d, uint8_t o, uint8_t n)
{
    const uint64_t off_chain = ((d << 8) | n) ^ r->OUT8[o];        /* RED's entry is xored last */
    return off_chain ^ r->RED[d >> 56];
}

/* Two bytes (08 §8): both reduction indices come from d itself. */
static inline uint64_t rabin_roll2(const rabin_tables *r, uint64_t d, uint8_t o0, uint8_t o1, uint8_t i0, uint8_t i1)
{
    return (d << 16) ^ r->RED[(d >> 48) & 0xFF] ^ r->W1[d >> 56] ^ r->OUT16[o0] ^ r->OUT8[o1] ^
           ((uint64_t)i0 << 8) ^ i1;
}

/* 1 iff x^64 + poly is irreducible over GF(2) (Rabin's test, 08 §3). */
int rabin_irreducible(uint64_t poly);

/* Set r->poly and build the tables for P = x^64 + poly (any poly; irreducibility is the caller's matter). */
void rabin_init(rabin_tables *r, uint64_t poly);

#endif
