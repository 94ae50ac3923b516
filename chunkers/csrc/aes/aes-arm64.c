/* AES chunkers `aes-arm64` path (spec 06 §8.2, aarch64 only): ARMv8 crypto
 * extension (arm64.h), groups of 8 interleaved blocks, branch-free lane test. */
#include "arm64.h"
#include "group.h"

#if CK_AARCH64 && AES_HAVE_ARM64

ARM_TARGET
AES_INLINE int64_t arm_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    return aes_group_scan(c, kind, p, n, st, mask, 8, arm_group, arm_hit);
}

ARM_TARGET
int64_t aes_scan_arm64(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_arm64);
    AES_DISPATCH(arm_core, c, p, n, st, mask)
}

#endif
