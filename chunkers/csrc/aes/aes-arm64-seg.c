/* AES chunkers `aes-arm64-seg` path (issue 13, aarch64 only): the
 * segment-parallel scan of segments.h with the ARMv8 crypto extension, the
 * AES_SEG_K = 8 chains' digests encrypted as one group of 8 interleaved blocks
 * per step (arm64.h); short spans, tails and untrue start states go through
 * `aes-arm64` (aes-arm64.c), so results are aes-arm64's. */
#include "arm64.h"
#include "segments.h"

#if CK_AARCH64 && AES_HAVE_ARM64

_Static_assert(AES_SEG_K == 8, "arm_group encrypts 8 blocks");

/* 1 iff any of the 8 digests d[0..7] is a hit (the group's block order does not matter here). */
ARM_TARGET
AES_INLINE int arm_seg_any(const aes_ctx *c, const uint64_t *d, uint64_t mask)
{
    return arm_group(c, d, d + AES_SEG_K / 2, mask) != 0;
}

ARM_TARGET
AES_INLINE int64_t arm_seg_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                uint64_t mask)
{
    return aes_seg_scan(c, kind, p, n, st, mask, arm_seg_any, arm_hit, aes_scan_arm64,
                        CK_NAME(aes_scan_arm64_seg), NULL);
}

ARM_TARGET
int64_t aes_scan_arm64_seg(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_arm64_seg);
    AES_DISPATCH(arm_seg_core, c, p, n, st, mask)
}

#endif
