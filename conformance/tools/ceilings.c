/* Throughput ceilings of the CPU at hand for the operations the scan kernels are made of
 * (conformance/tools/ceilings.py builds and runs this; the numbers are measurements of this
 * machine, not of the kernels).
 *
 * Each probe times a loop over seeded data, best of several runs, and prints one line
 * "name value unit". Cycles come from a dependent chain of adds timed first (one add per
 * cycle on every x86-64 and aarch64 core this project has seen), so the figures need no
 * hardware counters (a VM has none); they are per cycle of that clock.
 *
 *   gear1   the sequential Gear loop with its test (spec 02 §4): bytes per cycle
 *   gear4   4 Gear chains over 4 segments, no test: bytes per cycle, the most any
 *           segment-parallel fastcdc kernel of this shape can scan (tests only add work)
 *   roll1   the sequential buzhash64 roll with its test (spec 03 §5): bytes per cycle
 *   roll4   4 roll chains, no test: the ceiling of buzhash64's segment kernels
 *   lookups independent byte-then-table loads (the pair every Gear step makes) per cycle
 *   aes     AES-128 blocks per cycle at the widest AES instruction this CPU runs
 *           (10 rounds per block; aesenc-class throughput with 8 independent chains)
 *   gather  cycles per 8-lane 64-bit gather (AVX-512) or 4-lane (AVX2), when there is one
 *
 * C11, no library beyond libc; x86-64 probes use target attributes and run only where
 * __builtin_cpu_supports says so. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define X86 1
#else
#define X86 0
#endif

#define SEG (1u << 16)              /* bytes per segment: 4 segments stay in L2 */
#define RUNS 7

static uint8_t data[4 * SEG + 4096];
static uint64_t table[512];
static volatile uint64_t sink;
static volatile uint64_t never = ~0ull;  /* a mask no random state matches (loaded: not folded) */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Best of RUNS calls of f(arg), in seconds. */
static double best(uint64_t (*f)(size_t), size_t arg)
{
    double b = 1e30;
    for (int r = 0; r < RUNS; r++) {
        const double t = now();
        sink += f(arg);
        const double d = now() - t;
        b = d < b ? d : b;
    }
    return b;
}

/* n dependent adds: one cycle each (the empty asm keeps the compiler from folding them). */
static uint64_t adds(size_t n)
{
    uint64_t x = sink;
    for (size_t i = 0; i < n; i++) {
        x += 1;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

static uint64_t gear1(size_t reps)
{
    uint64_t acc = 0, m = never;
    for (size_t r = 0; r < reps; r++) {
        uint64_t fp = r;
        for (size_t i = 0; i < 4 * SEG; i++) {
            fp = (fp << 1) + table[data[i]];
            if (!(fp & m))
                break;
        }
        acc += fp;
    }
    return acc;
}

static uint64_t gear4(size_t reps)
{
    uint64_t acc = 0;
    const uint8_t *p0 = data, *p1 = data + SEG, *p2 = data + 2 * SEG, *p3 = data + 3 * SEG;
    for (size_t r = 0; r < reps; r++) {
        uint64_t a = r, b = 0, c = 0, d = 0;
        for (size_t i = 0; i < SEG; i++) {
            a = (a << 1) + table[p0[i]];
            b = (b << 1) + table[p1[i]];
            c = (c << 1) + table[p2[i]];
            d = (d << 1) + table[p3[i]];
        }
        acc += a ^ b ^ c ^ d;
    }
    return acc;
}

static inline uint64_t rotl1(uint64_t x)
{
    return (x << 1) | (x >> 63);
}

#define WINDOW 4095

static uint64_t roll1(size_t reps)
{
    uint64_t acc = 0, m = never;
    const uint8_t *pr = data, *pa = data + WINDOW;
    for (size_t r = 0; r < reps; r++) {
        uint64_t s = r | 1;
        for (size_t i = 0; i < 3 * SEG && (s & m); i++)
            s = rotl1(s) ^ table[256 + pr[i]] ^ table[pa[i]];
        acc += s;
    }
    return acc;
}

static uint64_t roll4(size_t reps)
{
    uint64_t acc = 0;
    const uint8_t *r0 = data, *r1 = data + SEG - WINDOW, *r2 = data + 2 * SEG - WINDOW, *r3 = data + 3 * SEG - WINDOW;
    const size_t n = SEG - WINDOW;
    for (size_t r = 0; r < reps; r++) {
        uint64_t a = r, b = 0, c = 0, d = 0;
        for (size_t i = 0; i < n; i++) {
            a = rotl1(a) ^ table[256 + r0[i]] ^ table[r0[i + WINDOW]];
            b = rotl1(b) ^ table[256 + r1[i]] ^ table[r1[i + WINDOW]];
            c = rotl1(c) ^ table[256 + r2[i]] ^ table[r2[i + WINDOW]];
            d = rotl1(d) ^ table[256 + r3[i]] ^ table[r3[i + WINDOW]];
        }
        acc += a ^ b ^ c ^ d;
    }
    return acc;
}

static uint64_t lookups(size_t reps)
{
    uint64_t acc = 0;
    for (size_t r = 0; r < reps; r++) {
        uint64_t a = 0, b = 0, c = 0, d = 0;
        for (size_t i = 0; i < 4 * SEG; i += 4) {
            a += table[data[i]];
            b += table[data[i + 1]];
            c += table[data[i + 2]];
            d += table[data[i + 3]];
        }
        acc += a ^ b ^ c ^ d;
    }
    return acc;
}

#if X86
#define AES_CHAINS(T, enc, init)                                                                              \
    T k = init(0x243f6a88), a0 = init(1), a1 = init(2), a2 = init(3), a3 = init(4), a4 = init(5), a5 = init(6), \
      a6 = init(7), a7 = init(8);                                                                             \
    for (size_t i = 0; i < n; i++) {                                                                          \
        a0 = enc(a0, k), a1 = enc(a1, k), a2 = enc(a2, k), a3 = enc(a3, k);                                   \
        a4 = enc(a4, k), a5 = enc(a5, k), a6 = enc(a6, k), a7 = enc(a7, k);                                   \
    }

__attribute__((target("aes,sse4.1"))) static uint64_t aes128(size_t n)
{
    AES_CHAINS(__m128i, _mm_aesenc_si128, _mm_set1_epi32)
    const __m128i x = _mm_xor_si128(_mm_xor_si128(_mm_xor_si128(a0, a1), _mm_xor_si128(a2, a3)),
                                    _mm_xor_si128(_mm_xor_si128(a4, a5), _mm_xor_si128(a6, a7)));
    return (uint64_t)_mm_cvtsi128_si64(x);
}

__attribute__((target("vaes,avx2"))) static uint64_t aes256(size_t n)
{
    AES_CHAINS(__m256i, _mm256_aesenc_epi128, _mm256_set1_epi32)
    const __m256i x = _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3)),
                                       _mm256_xor_si256(_mm256_xor_si256(a4, a5), _mm256_xor_si256(a6, a7)));
    return (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(x));
}

__attribute__((target("vaes,avx512f"))) static uint64_t aes512(size_t n)
{
    AES_CHAINS(__m512i, _mm512_aesenc_epi128, _mm512_set1_epi32)
    const __m512i x = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)),
                                       _mm512_xor_si512(_mm512_xor_si512(a4, a5), _mm512_xor_si512(a6, a7)));
    return (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(x));
}

/* Two independent gathers per iteration; the indices step by an add and a mask. */
__attribute__((target("avx512f"))) static uint64_t gather512(size_t n)
{
    __m512i i0 = _mm512_set_epi64(1, 7, 33, 90, 200, 13, 77, 255), i1 = _mm512_set_epi64(3, 5, 7, 9, 11, 13, 15, 17);
    __m512i s0 = _mm512_setzero_si512(), s1 = s0;
    const __m512i step = _mm512_set1_epi64(1), m = _mm512_set1_epi64(255);
    for (size_t i = 0; i < n; i++) {
        s0 = _mm512_add_epi64(s0, _mm512_i64gather_epi64(i0, (const void *)table, 8));
        s1 = _mm512_add_epi64(s1, _mm512_i64gather_epi64(i1, (const void *)table, 8));
        i0 = _mm512_and_si512(_mm512_add_epi64(i0, step), m);
        i1 = _mm512_and_si512(_mm512_add_epi64(i1, step), m);
    }
    return (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(_mm512_xor_si512(s0, s1)));
}

__attribute__((target("avx2"))) static uint64_t gather256(size_t n)
{
    __m256i i0 = _mm256_set_epi64x(1, 7, 33, 90), i1 = _mm256_set_epi64x(3, 5, 7, 9);
    __m256i s0 = _mm256_setzero_si256(), s1 = s0;
    const __m256i step = _mm256_set1_epi64x(1), m = _mm256_set1_epi64x(255);
    for (size_t i = 0; i < n; i++) {
        s0 = _mm256_add_epi64(s0, _mm256_i64gather_epi64((const long long *)table, i0, 8));
        s1 = _mm256_add_epi64(s1, _mm256_i64gather_epi64((const long long *)table, i1, 8));
        i0 = _mm256_and_si256(_mm256_add_epi64(i0, step), m);
        i1 = _mm256_and_si256(_mm256_add_epi64(i1, step), m);
    }
    return (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(_mm256_xor_si256(s0, s1)));
}
#endif

int main(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;     /* xorshift64: seeded, the same every run */
    for (size_t i = 0; i < sizeof data; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (uint8_t)(x >> 32);
    }
    for (size_t i = 0; i < 512; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        table[i] = x | 1;               /* odd: a Gear state stays odd, so the never-mask test never exits */
    }
    const size_t n_adds = 50u << 20, reps = 64;
    const double cyc = best(adds, n_adds) / (double)n_adds;   /* seconds per cycle */
    printf("ghz %.4f GHz\n", 1e-9 / cyc);
    const double bytes = 4.0 * SEG * (double)reps;
    printf("gear1 %.4f B/cycle\n", bytes * cyc / best(gear1, reps));
    printf("gear4 %.4f B/cycle\n", bytes * cyc / best(gear4, reps));
    printf("roll1 %.4f B/cycle\n", 3.0 * SEG * (double)reps * cyc / best(roll1, reps));
    printf("roll4 %.4f B/cycle\n", 4.0 * (SEG - WINDOW) * (double)reps * cyc / best(roll4, reps));
    printf("lookups %.4f per cycle\n", bytes * cyc / best(lookups, reps));
#if X86
    __builtin_cpu_init();
    const size_t n_aes = 1u << 20;
    const double rounds = 8.0 * (double)n_aes;      /* 8 chains of aesenc per iteration */
    if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f"))
        printf("aes %.4f blocks/cycle zmm\n", 4.0 * rounds / 10.0 * cyc / best(aes512, n_aes));
    else if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2"))
        printf("aes %.4f blocks/cycle ymm\n", 2.0 * rounds / 10.0 * cyc / best(aes256, n_aes));
    else if (__builtin_cpu_supports("aes"))
        printf("aes %.4f blocks/cycle xmm\n", rounds / 10.0 * cyc / best(aes128, n_aes));
    const size_t n_gather = 1u << 18;
    if (__builtin_cpu_supports("avx512f"))
        printf("gather %.4f cycles/gather zmm\n", best(gather512, n_gather) / cyc / (2.0 * (double)n_gather));
    else if (__builtin_cpu_supports("avx2"))
        printf("gather %.4f cycles/gather ymm\n", best(gather256, n_gather) / cyc / (2.0 * (double)n_gather));
#endif
    return 0;
}
