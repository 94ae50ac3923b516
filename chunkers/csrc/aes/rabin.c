/* rabin-aes key material (spec 08 §3, §5): the irreducibility test and the
 * tables, in GF(2)[x] modulo P = x^64 + poly. */
#include "rabin.h"

/* d * x mod P */
static uint64_t mulx(uint64_t d, uint64_t poly)
{
    return (d << 1) ^ (poly & (0 - (d >> 63)));
}

/* a * b mod P, for reduced a and b (Horner over the bits of b). */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t poly)
{
    uint64_t r = 0;
    for (int i = 63; i >= 0; i--)
        r = mulx(r, poly) ^ (a & (0 - ((b >> i) & 1)));
    return r;
}

/* x^e mod P */
static uint64_t xpow(unsigned e, uint64_t poly)
{
    uint64_t r = 1;
    while (e--)
        r = mulx(r, poly);
    return r;
}

typedef unsigned __int128 poly128;

static int degree(poly128 a)
{
    const uint64_t hi = (uint64_t)(a >> 64), lo = (uint64_t)a;
    return hi ? 127 - __builtin_clzll(hi) : lo ? 63 - __builtin_clzll(lo) : -1;
}

/* a mod b, b != 0 */
static poly128 polymod(poly128 a, poly128 b)
{
    const int db = degree(b);
    for (int da; (da = degree(a)) >= db;)
        a ^= b << (da - db);
    return a;
}

int rabin_irreducible(uint64_t poly)
{
    /* Rabin's test for degree 64: x^(2^64) = x mod P and gcd(x^(2^32) - x mod P, P) = 1 */
    uint64_t r = 2, r32 = 0;
    for (int k = 1; k <= 64; k++) {
        r = mulmod(r, r, poly);
        if (k == 32)
            r32 = r;
    }
    if (r != 2 || r32 == 2)
        return 0;
    poly128 a = ((poly128)1 << 64) | poly, b = r32 ^ 2;
    while (b) {
        const poly128 t = polymod(a, b);
        a = b;
        b = t;
    }
    return a == 1;
}

void rabin_init(rabin_tables *r, uint64_t poly)
{
    const uint64_t x64 = xpow(64, poly), x72 = xpow(72, poly), x504 = xpow(504, poly);
    const uint64_t x512 = xpow(512, poly), x520 = xpow(520, poly);
    r->poly = poly;
    for (uint64_t b = 0; b < 256; b++) {
        r->RED[b] = mulmod(b, x64, poly);
        r->W1[b] = mulmod(b, x72, poly);
        r->OUT[b] = mulmod(b, x504, poly);
        r->OUT8[b] = mulmod(b, x512, poly);
        r->OUT16[b] = mulmod(b, x520, poly);
    }
}
