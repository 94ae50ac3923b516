/* ARMv8 crypto-extension helpers of the aarch64 scan paths (`aes-arm64`,
 * `aes-arm64-seg`): one block per digest, single-block encryption and test,
 * and the encryption and test of 8 interleaved blocks. AESE adds the round key
 * before SubBytes/ShiftRows, so round r uses rk[r] and the last one ends with
 * a plain XOR of rk[10]. The crypto extension is enabled per function (gcc
 * needs "+crypto"; "+aes" does not enable the intrinsics there; clang spells
 * it "aes") unless the whole build already targets it. Little-endian only: the
 * digest's LE64 bytes are lane 0 of the block. */
#ifndef CHUNKERS_AES_ARM64_H
#define CHUNKERS_AES_ARM64_H

#include "uhf.h"

#if CK_AARCH64 && AES_HAVE_ARM64
#include <arm_neon.h>

#if defined(__ARM_FEATURE_AES) || defined(__ARM_FEATURE_CRYPTO)
#define ARM_TARGET
#elif defined(__clang__)
#define ARM_TARGET __attribute__((target("aes")))
#else
#define ARM_TARGET __attribute__((target("+crypto")))
#endif

ARM_TARGET AES_INLINE uint8x16_t arm_block(uint64_t d)
{
    return vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(d), vcreate_u64(0)));
}

ARM_TARGET AES_INLINE uint64_t arm_cut_value(uint8x16_t b)
{
    return vgetq_lane_u64(vreinterpretq_u64_u8(b), 0);
}

ARM_TARGET AES_INLINE uint8x16_t arm_encrypt1(const aes_ctx *c, uint8x16_t b)
{
    for (int r = 0; r < 9; r++)
        b = vaesmcq_u8(vaeseq_u8(b, vld1q_u8(c->rk[r])));
    return veorq_u8(vaeseq_u8(b, vld1q_u8(c->rk[9])), vld1q_u8(c->rk[10]));
}

ARM_TARGET AES_INLINE int arm_hit(const aes_ctx *c, uint64_t d, uint64_t mask)
{
    return !(arm_cut_value(arm_encrypt1(c, arm_block(d))) & mask);
}

/* Encrypt and test 8 digests: e[k] and o[k] are blocks 2k and 2k + 1; bit j of
 * the result is block j's hit. */
ARM_TARGET
AES_INLINE uint64_t arm_group(const aes_ctx *c, const uint64_t *e, const uint64_t *o, uint64_t mask)
{
    uint8x16_t b[8];
    for (int k = 0; k < 4; k++) {
        b[2 * k] = arm_block(e[k]);
        b[2 * k + 1] = arm_block(o[k]);
    }
    for (int r = 0; r < 9; r++) {
        const uint8x16_t kr = vld1q_u8(c->rk[r]);
        for (int j = 0; j < 8; j++)
            b[j] = vaesmcq_u8(vaeseq_u8(b[j], kr));
    }
    const uint8x16_t k9 = vld1q_u8(c->rk[9]), k10 = vld1q_u8(c->rk[10]);
    uint64_t bits = 0;
    for (int j = 0; j < 8; j++)
        bits |= (uint64_t)!(arm_cut_value(veorq_u8(vaeseq_u8(b[j], k9), k10)) & mask) << j;
    return bits;
}

#endif
#endif
