/* AES chunker key expansion (spec 06 §2.2): A = Z[0..15] first, then the UHF
 * material from Z[16] on, read strictly in order. */
#include "aes.h"
#include "../csprng.h"

static int expand_uhf(aes_ctx *c, aes_read_fn read, void *src, uint64_t *rejected)
{
    uint8_t z[2048];
    switch (c->kind) {
    case AES_TOEPLITZ:      /* 07 §3: 256 LE64 words, every value accepted */
        if (read(src, z, sizeof z))
            return -1;
        for (int t = 0; t < 256; t++)
            c->uhf.t.T[t] = ck_le64(z + 8 * t);
        toeplitz_init(&c->uhf.t);
        return 0;
    case AES_RABIN:         /* 08 §2: first irreducible x^64 + (v with bit 0 forced) */
        for (;; ++*rejected) {
            if (read(src, z, 8))
                return -1;
            const uint64_t poly = ck_le64(z) | 1;
            if (rabin_irreducible(poly)) {
                rabin_init(&c->uhf.r, poly);
                return 0;
            }
        }
    default:                /* 09 §2: first candidate below p, never reduced */
        for (;; ++*rejected) {
            if (read(src, z, 8))
                return -1;
            const uint64_t K = ck_le64(z);
            if (K < GOLDILOCKS_P) {
                goldilocks_init(&c->uhf.g, K);
                return 0;
            }
        }
    }
}

int aes_ctx_expand(aes_ctx *c, int kind, aes_read_fn read, void *src, uint64_t *rejected)
{
    uint8_t a[16];
    *rejected = 0;
    c->kind = kind;
    if (read(src, a, sizeof a))
        return -1;
    aes128_expand(a, c->rk);
    return expand_uhf(c, read, src, rejected);
}

static int csprng_read(void *g, uint8_t *out, size_t n)
{
    return ck_csprng_bytes(g, out, n);
}

int aes_ctx_expand_key(aes_ctx *c, int kind, const uint8_t key[32], uint64_t *rejected)
{
    ck_csprng g;
    if (ck_csprng_init(&g, key))
        return -1;
    const int rc = aes_ctx_expand(c, kind, csprng_read, &g, rejected);
    ck_csprng_free(&g);
    return rc;
}
