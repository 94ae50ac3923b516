/* Runtime CPU feature detection for kernel dispatch. */
#ifndef CHUNKERS_CPU_H
#define CHUNKERS_CPU_H

/* Feature bits; a kernel lists the bits it needs, dispatch checks them at run time. */
enum {
    CK_CPU_SSE41 = 1u << 0,
    CK_CPU_AES = 1u << 1,       /* x86 AES-NI */
    CK_CPU_AVX2 = 1u << 2,
    CK_CPU_AVX512F = 1u << 3,
    CK_CPU_VAES = 1u << 4,
    CK_CPU_NEON = 1u << 5,
    CK_CPU_ARM_AES = 1u << 6,   /* ARMv8 crypto extension (AES) */
};

#define CK_CPU_FEATURE_COUNT 7

/* Bit set of the features this CPU (and OS, for register state) supports. */
unsigned ck_cpu_features(void);

/* Lower-case name of feature bit i (0 <= i < CK_CPU_FEATURE_COUNT). */
const char *ck_cpu_feature_name(unsigned i);

#endif
