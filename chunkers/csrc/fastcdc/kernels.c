/* The fastcdc kernel registry: every name known on this build target, in the
 * order shown in error messages (spec 01 §11.2). */
#include "fastcdc.h"
#include "../cpu.h"

const ck_kernel fastcdc_kernels[] = {
#if CK_X86_64
    {"avx512", (ck_fn)fastcdc_scan_avx512, CK_CPU_AVX512F},
    {"avx2", (ck_fn)fastcdc_scan_avx2, CK_CPU_AVX2},
#endif
#if CK_AARCH64
    {"neon", (ck_fn)fastcdc_scan_neon, CK_CPU_NEON},
#endif
    {"seg4", (ck_fn)fastcdc_scan_seg4, 0},
    {"blockwise", (ck_fn)fastcdc_scan_blockwise, 0},
    {"scalar", (ck_fn)fastcdc_scan_scalar, 0},
};

const size_t fastcdc_kernel_count = sizeof fastcdc_kernels / sizeof fastcdc_kernels[0];
