/* The FIPS-197 AES-128 key schedule, for the hardware paths (which take
 * round keys) and the portable cipher (which takes rk[0] = A). The S-box is
 * computed, not tabulated: the inverse in GF(2^8) then the affine map
 * (FIPS-197 §5.1.1). Runs once per chunker. */
#include "aes.h"

static uint8_t xtime(uint8_t x)
{
    return (uint8_t)((x << 1) ^ ((x >> 7) * 0x1B));
}

static uint8_t gf256_mul(uint8_t a, uint8_t b)
{
    uint8_t r = 0;
    for (; b; b >>= 1, a = xtime(a))
        if (b & 1)
            r ^= a;
    return r;
}

static uint8_t rotl8(uint8_t x, int k)
{
    return (uint8_t)((x << k) | (x >> (8 - k)));
}

static uint8_t sbox(uint8_t x)
{
    uint8_t inv = 1;                    /* x^254 = x^-1, and 0 for x == 0 */
    for (unsigned e = 254; e; e >>= 1, x = gf256_mul(x, x))
        if (e & 1)
            inv = gf256_mul(inv, x);
    return inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
}

void aes128_expand(const uint8_t key[16], uint8_t rk[11][16])
{
    uint8_t rcon = 1;
    for (int i = 0; i < 16; i++)
        rk[0][i] = key[i];
    for (int r = 1; r <= 10; r++, rcon = xtime(rcon)) {
        const uint8_t *prev = rk[r - 1];
        /* SubWord(RotWord(last word)) ^ Rcon */
        const uint8_t t[4] = {(uint8_t)(sbox(prev[13]) ^ rcon), sbox(prev[14]), sbox(prev[15]), sbox(prev[12])};
        for (int i = 0; i < 16; i++)
            rk[r][i] = prev[i] ^ (i < 4 ? t[i] : rk[r][i - 4]);
    }
}
