/* The keyed CSPRNG (spec 01 §9), on OpenSSL's AES-256-CTR. */
#include <string.h>
#include <openssl/evp.h>
#include "csprng.h"

static int refill(ck_csprng *g)
{
    static const uint8_t zeros[sizeof g->buf];
    int outl = 0;
    if (EVP_EncryptUpdate((EVP_CIPHER_CTX *)g->evp, g->buf, &outl, zeros, (int)sizeof zeros) != 1 ||
        outl != (int)sizeof zeros)
        return -1;
    g->pos = 0;
    g->len = sizeof g->buf;
    return 0;
}

int ck_csprng_init(ck_csprng *g, const uint8_t key[32])
{
    static const uint8_t iv[16];
    g->pos = g->len = 0;
    g->evp = EVP_CIPHER_CTX_new();
    if (!g->evp)
        return -1;
    if (EVP_EncryptInit_ex((EVP_CIPHER_CTX *)g->evp, EVP_aes_256_ctr(), NULL, key, iv) != 1) {
        ck_csprng_free(g);
        return -1;
    }
    return 0;
}

void ck_csprng_free(ck_csprng *g)
{
    EVP_CIPHER_CTX_free((EVP_CIPHER_CTX *)g->evp);
    g->evp = NULL;
}

int ck_csprng_bytes(ck_csprng *g, uint8_t *out, size_t n)
{
    while (n) {
        if (g->pos == g->len && refill(g))
            return -1;
        size_t take = g->len - g->pos < n ? g->len - g->pos : n;
        memcpy(out, g->buf + g->pos, take);
        g->pos += take;
        out += take;
        n -= take;
    }
    return 0;
}

static uint64_t be_bytes(const uint8_t *b, size_t nb)
{
    uint64_t v = 0;
    for (size_t i = 0; i < nb; i++)
        v = (v << 8) | b[i];
    return v;
}

int ck_csprng_int(ck_csprng *g, uint64_t n, uint64_t *out)
{
    if (n <= 1) {
        *out = 0;
        return 0;
    }
    unsigned bits = 64 - (unsigned)__builtin_clzll(n - 1);
    size_t nb = (bits + 7) / 8;
    uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    uint8_t b[8];
    for (int attempt = 0; attempt < 1000; attempt++) {
        if (ck_csprng_bytes(g, b, nb))
            return -1;
        uint64_t v = be_bytes(b, nb) & mask;
        if (v < n) {
            *out = v;
            return 0;
        }
    }
    /* practically unreachable (p < 2^-1000), but defined by the spec */
    if (ck_csprng_bytes(g, b, nb))
        return -1;
    *out = be_bytes(b, nb) % n;
    return 0;
}

int ck_csprng_shuffle(ck_csprng *g, uint8_t *list, size_t m)
{
    for (size_t i = m; i-- > 1;) {
        uint64_t j;
        if (ck_csprng_int(g, i + 1, &j))
            return -1;
        uint8_t t = list[i];
        list[i] = list[j];
        list[j] = t;
    }
    return 0;
}
