/* AES chunkers `evp` path (spec 06 §8.3): portable, through OpenSSL's EVP
 * AES-128-ECB. Sub-batches of up to 512 positions: digests by the walk of uhf.h,
 * one ECB call for the batch, cut values tested in position order. A failed
 * or short ECB call returns -2 (the driver raises; no cut is ever guessed).
 * Byte order is explicit, so the path is exact on big-endian hosts too. */
#include <limits.h>
#include <string.h>
#include <openssl/evp.h>
#include "uhf.h"

#define EVP_BATCH 512

int aes_evp_init(aes_ctx *c)
{
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    if (!e)
        return -1;
    if (EVP_EncryptInit_ex(e, EVP_aes_128_ecb(), NULL, c->rk[0], NULL) != 1 || EVP_CIPHER_CTX_set_padding(e, 0) != 1) {
        EVP_CIPHER_CTX_free(e);
        return -1;
    }
    c->evp = e;
    return 0;
}

void aes_evp_free(aes_ctx *c)
{
    EVP_CIPHER_CTX_free((EVP_CIPHER_CTX *)c->evp);
    c->evp = NULL;
}

void aes_evp_break(aes_ctx *c)
{
    EVP_CIPHER_CTX_reset((EVP_CIPHER_CTX *)c->evp);
}

int aes_evp_encrypt(const aes_ctx *c, const uint8_t *in, uint8_t *out, size_t n)
{
    if (n > INT_MAX / 16)
        return -1;
    const int len = (int)(16 * n);
    int outl = 0;
    return EVP_EncryptUpdate((EVP_CIPHER_CTX *)c->evp, out, &outl, in, len) == 1 && outl == len ? 0 : -1;
}

/* LE64 store / load, one move each (a byte loop is not merged by gcc 12) */
static inline void put_le64(uint8_t *b, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(b, &v, 8);
}

static inline uint64_t get_le64(const uint8_t *b)
{
    uint64_t v;
    memcpy(&v, b, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

AES_INLINE int64_t evp_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    uint64_t dg[EVP_BATCH];
    uint8_t blk[16 * EVP_BATCH], ct[16 * EVP_BATCH];
    uint64_t d = *st;
    for (size_t j = 0; j < n;) {
        const size_t m = n - j < EVP_BATCH ? n - j : EVP_BATCH;
        aes_digest_run(c, kind, p + j, m, d, dg);
        for (size_t k = 0; k < m; k++) {
            put_le64(blk + 16 * k, dg[k]);
            put_le64(blk + 16 * k + 8, 0);
        }
        if (aes_evp_encrypt(c, blk, ct, m))
            return -2;
        for (size_t k = 0; k < m; k++)
            if (!(get_le64(ct + 16 * k) & mask)) {
                *st = dg[k];
                return (int64_t)(j + k);
            }
        d = dg[m - 1];
        j += m;
    }
    *st = d;
    return -1;
}

int64_t aes_scan_evp(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_evp);
    AES_DISPATCH(evp_core, c, p, n, st, mask)
}
