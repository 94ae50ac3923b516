/* Runtime CPU feature detection.
 * x86-64: the compiler's cpuid helpers, which also check that the OS saves the
 * YMM/ZMM state (XCR0), so a reported feature is safe to execute.
 * aarch64: NEON is baseline; AES comes from the ELF auxiliary vector (Linux),
 * or is assumed on Apple silicon. */
#include "cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_AES
#define HWCAP_AES (1 << 3)
#endif
#endif

static const char *const feature_names[CK_CPU_FEATURE_COUNT] = {
    "sse4.1", "aes", "avx2", "avx512f", "vaes", "neon", "arm-aes",
};

const char *ck_cpu_feature_name(unsigned i)
{
    return i < CK_CPU_FEATURE_COUNT ? feature_names[i] : "?";
}

unsigned ck_cpu_features(void)
{
    unsigned f = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.1")) f |= CK_CPU_SSE41;
    if (__builtin_cpu_supports("aes")) f |= CK_CPU_AES;
    if (__builtin_cpu_supports("avx2")) f |= CK_CPU_AVX2;
    if (__builtin_cpu_supports("avx512f")) f |= CK_CPU_AVX512F;
    /* clang 14 has no "vaes" for __builtin_cpu_supports: read CPUID.(7,0):ECX[9]; the
     * register state it needs is the AVX2 one, which the builtin already checked */
    unsigned a, b, c, d;
    if ((f & CK_CPU_AVX2) && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c >> 9 & 1)) f |= CK_CPU_VAES;
#elif defined(__aarch64__)
    f |= CK_CPU_NEON;
#if defined(__APPLE__)
    f |= CK_CPU_ARM_AES;
#elif defined(__linux__)
    if (getauxval(AT_HWCAP) & HWCAP_AES) f |= CK_CPU_ARM_AES;
#endif
#endif
    return f;
}
