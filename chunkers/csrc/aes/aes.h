/* The AES chunkers rabin-aes, goldilocks-aes and toeplitz-aes (spec 06-09):
 * a rolling universal hash (UHF) over a 64-byte window, AES-128 on the
 * digest, a low-bit cut test on the ciphertext.
 *
 * aes_ctx is one chunker instance's key material: the UHF tables, the AES-128
 * round keys and, for the portable path only, an OpenSSL cipher context. The
 * hardware kernels read nothing but the tables and round keys through this
 * pointer (no globals, no libc), so a kernel file can also be built
 * freestanding.
 *
 * Scan contract (06 §7.2): scan(c, p, n, st, mask) tests positions
 * p[0] .. p[n-1]; *st holds the digest of the window ending at p[-1], and
 * p[-64 .. n-1] must be readable. Per position j: roll the window by one byte
 * (p[j-64] leaves, p[j] enters), encrypt LE64(digest) || 0^8, hit iff
 * (LE64(ciphertext[0..7]) & mask) == 0. Returns the first hit j with *st its
 * digest, or -1 with *st the digest at p[n-1] (unchanged when n == 0), or -2
 * if OpenSSL failed (evp only; *st is then undefined). */
#ifndef CHUNKERS_AES_H
#define CHUNKERS_AES_H

#include <stddef.h>
#include <stdint.h>
#include "../kernel.h"
#include "../driver.h"
#include "toeplitz.h"
#include "rabin.h"
#include "goldilocks.h"

#define AES_WINDOW 64

enum { AES_TOEPLITZ = 0, AES_RABIN = 1, AES_GOLDILOCKS = 2 };

typedef union {
    toeplitz_tables t;
    rabin_tables r;
    goldilocks_tables g;
} aes_uhf;

typedef struct {
    aes_uhf uhf;                /* the tables of c->kind's UHF */
    uint8_t rk[11][16];         /* AES-128 encryption round keys, FIPS-197 byte order */
    int kind;                   /* AES_TOEPLITZ / AES_RABIN / AES_GOLDILOCKS */
    void *evp;                  /* EVP_CIPHER_CTX, AES-128-ECB under key A, no padding (evp kernel only) */
} aes_ctx;

typedef int64_t aes_scan_t(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask);
typedef aes_scan_t *aes_scan_fn;

/* Every AES kernel of every build target (kernels.def): its function, of type aes_scan_t, and
 * its name (CK_DECLARE, ../kernel.h). */
#define CK_KERNEL(name, symbol, ...) CK_DECLARE(aes_scan_t, name, symbol)
#include "kernels.def"
#undef CK_KERNEL

/* Built only with compilers that have the intrinsics (06 §8.4; the built
 * column of kernels.def); otherwise the registry row has fn == NULL ("not
 * compiled into this build").
 * aes-arm64 needs the crypto extension per function (gcc >= 6; clang's
 * arm_neon.h hides the AES intrinsics unless the whole build targets it up
 * to clang 15, checked with clang 14) or build-wide, and a little-endian target. */
#if CK_X86_64 && (defined(__clang__) ? __clang_major__ >= 14 : __GNUC__ >= 11)
#define AES_HAVE_VAES 1
#else
#define AES_HAVE_VAES 0
#endif
#if CK_AARCH64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__ARM_FEATURE_AES) || defined(__ARM_FEATURE_CRYPTO) || \
     (defined(__clang__) ? __clang_major__ >= 16 : __GNUC__ >= 6))
#define AES_HAVE_ARM64 1
#else
#define AES_HAVE_ARM64 0
#endif

extern const ck_kernel aes_kernels[];
extern const size_t aes_kernel_count;

/* ---- key material (keys.c, aes128.c) ---- */

/* Byte source for key expansion: 0 on success, -1 when it fails or runs dry. */
typedef int (*aes_read_fn)(void *src, uint8_t *out, size_t n);

/* Key expansion (06 §2.2) from a key stream positioned at Z[0]: A = 16 bytes,
 * then the UHF material (toeplitz: 2048 bytes; rabin / goldilocks: 8-byte
 * candidates until one is accepted, *rejected counts the others). Fills
 * everything but c->evp. 0 on success, -1 if read fails. */
int aes_ctx_expand(aes_ctx *c, int kind, aes_read_fn read, void *src, uint64_t *rejected);

/* aes_ctx_expand on the keyed CSPRNG Z of the 32-byte chunker key (01 §9);
 * -1 if OpenSSL fails. */
int aes_ctx_expand_key(aes_ctx *c, int kind, const uint8_t key[32], uint64_t *rejected);

/* The FIPS-197 AES-128 key schedule: rk[0] = key, rk[10] = last round key. */
void aes128_expand(const uint8_t key[16], uint8_t rk[11][16]);

/* ---- the portable path's cipher context (evp.c) ---- */

/* Create c->evp for AES-128-ECB under rk[0] (= A), padding off; -1 on failure. */
int aes_evp_init(aes_ctx *c);
void aes_evp_free(aes_ctx *c);
/* Test hook: reset c->evp to an uninitialised context, so that every later
 * encryption genuinely fails inside OpenSSL (the -2 path of 06 §9.3). */
void aes_evp_break(aes_ctx *c);
/* AES-128-ECB of n 16-byte blocks through c->evp; 0 on success, -1 on failure. */
int aes_evp_encrypt(const aes_ctx *c, const uint8_t *in, uint8_t *out, size_t n);

/* ---- driver hooks (hooks.c) ---- */

typedef struct {
    const aes_ctx *ctx;
    aes_scan_fn scan;
} aes_hooks;

/* restart(chunk, min_size) = digest of chunk[min_size-64 .. min_size-1] (06 §7.1); scan = h->scan. */
void aes_scanner(const aes_hooks *h, ck_scanner *sc);

/* Full digest of the 64-byte window w (oldest byte first). */
uint64_t aes_digest(const aes_ctx *c, const uint8_t *w);

#endif
