/* 128-bit AES-NI helpers of the x86-64 scan paths: one block per digest,
 * single-block encryption and test (the tails of every x86 path). */
#ifndef CHUNKERS_AES_X86_H
#define CHUNKERS_AES_X86_H

#include "uhf.h"

#if CK_X86_64
#include <immintrin.h>

/* The AES input block of digest d: LE64(d) || 0^8 (06 §3; x86 is little-endian). */
CK_TARGET("aes,sse4.1") AES_INLINE __m128i aes_x86_block(uint64_t d)
{
    return _mm_cvtsi64_si128((long long)d);
}

CK_TARGET("aes,sse4.1") AES_INLINE __m128i aes_x86_key(const aes_ctx *c, int r)
{
    return _mm_loadu_si128((const __m128i *)c->rk[r]);
}

CK_TARGET("aes,sse4.1") AES_INLINE __m128i aes_x86_encrypt1(const aes_ctx *c, __m128i b)
{
    b = _mm_xor_si128(b, aes_x86_key(c, 0));
    for (int r = 1; r < 10; r++)
        b = _mm_aesenc_si128(b, aes_x86_key(c, r));
    return _mm_aesenclast_si128(b, aes_x86_key(c, 10));
}

/* 1 iff the cut value of digest d, LE64(ciphertext[0..7]), has no bit of mask set (06 §4). */
CK_TARGET("aes,sse4.1") AES_INLINE int aes_x86_hit(const aes_ctx *c, uint64_t d, uint64_t mask)
{
    return !((uint64_t)_mm_cvtsi128_si64(aes_x86_encrypt1(c, aes_x86_block(d))) & mask);
}

#endif
#endif
