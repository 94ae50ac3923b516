/* The AES kernel registry (one selector for all three AES chunkers): every
 * name known on this build target, in the order shown in error messages
 * (spec 06 §8.4; vaes256 and the -seg forms of issue 13 are ours). fn == NULL: known here, but the compiler
 * could not build it. */
#include "aes.h"
#include "../cpu.h"

const ck_kernel aes_kernels[] = {
#if CK_X86_64
#if AES_HAVE_VAES
    {"vaes-seg", (ck_fn)aes_scan_vaes_seg, CK_CPU_AVX512F | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
    {"vaes256-seg", (ck_fn)aes_scan_vaes256_seg, CK_CPU_AVX2 | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
    {"vaes", (ck_fn)aes_scan_vaes, CK_CPU_AVX512F | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
    {"vaes256", (ck_fn)aes_scan_vaes256, CK_CPU_AVX2 | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
#else
    {"vaes-seg", NULL, CK_CPU_AVX512F | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
    {"vaes256-seg", NULL, CK_CPU_AVX2 | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
    {"vaes", NULL, CK_CPU_AVX512F | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
    {"vaes256", NULL, CK_CPU_AVX2 | CK_CPU_VAES | CK_CPU_AES | CK_CPU_SSE41},
#endif
    {"aes-ni-seg", (ck_fn)aes_scan_aesni_seg, CK_CPU_AES | CK_CPU_SSE41},
    {"aes-ni", (ck_fn)aes_scan_aesni, CK_CPU_AES | CK_CPU_SSE41},
#endif
#if CK_AARCH64
#if AES_HAVE_ARM64
    {"aes-arm64-seg", (ck_fn)aes_scan_arm64_seg, CK_CPU_ARM_AES},
    {"aes-arm64", (ck_fn)aes_scan_arm64, CK_CPU_ARM_AES},
#else
    {"aes-arm64-seg", NULL, CK_CPU_ARM_AES},
    {"aes-arm64", NULL, CK_CPU_ARM_AES},
#endif
#endif
    {"evp", (ck_fn)aes_scan_evp, 0},
};

const size_t aes_kernel_count = sizeof aes_kernels / sizeof aes_kernels[0];
