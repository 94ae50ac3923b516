/* The keyed CSPRNG of spec 01 §9: the AES-256-CTR keystream of the 32-byte
 * chunker key (zero initial counter block, 128-bit big-endian counter), read
 * strictly in order, plus random_int and shuffle on top of it. */
#ifndef CHUNKERS_CSPRNG_H
#define CHUNKERS_CSPRNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    void *evp;              /* EVP_CIPHER_CTX */
    uint8_t buf[4096];
    size_t pos, len;
} ck_csprng;

/* All return 0 on success, -1 when OpenSSL fails (the generator is then unusable). */
int ck_csprng_init(ck_csprng *g, const uint8_t key[32]);
void ck_csprng_free(ck_csprng *g);
int ck_csprng_bytes(ck_csprng *g, uint8_t *out, size_t n);
/* Uniform integer in [0, n), n >= 1; n == 1 consumes nothing. */
int ck_csprng_int(ck_csprng *g, uint64_t n, uint64_t *out);
/* Shuffle m bytes in place: for i = m-1 .. 1, swap list[i] and list[random_int(i + 1)]. */
int ck_csprng_shuffle(ck_csprng *g, uint8_t *list, size_t m);

static inline uint64_t ck_le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

#endif
