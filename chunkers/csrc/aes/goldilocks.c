/* goldilocks-aes key material (spec 09 §4): K^2 and the byte tables, all canonical. */
#include "goldilocks.h"

/* -x mod p, canonical (p - x, and 0 for 0), branch-free */
static uint64_t neg(uint64_t x)
{
    return (GOLDILOCKS_P - x) & (0 - (uint64_t)(x != 0));
}

void goldilocks_init(goldilocks_tables *g, uint64_t K)
{
    uint64_t k64 = K;
    for (int i = 0; i < 6; i++)
        k64 = goldilocks_mul(k64, k64);
    const uint64_t k65 = goldilocks_mul(k64, K);
    g->K = K;
    g->K2 = goldilocks_mul(K, K);
    for (uint64_t b = 0; b < 256; b++) {
        g->NOUT64[b] = neg(goldilocks_mul(b, k64));
        g->NOUT65[b] = neg(goldilocks_mul(b, k65));
        g->IN1[b] = goldilocks_mul(b, K);
    }
}
