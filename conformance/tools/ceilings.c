/* Throughput ceilings of the CPU at hand for the operations the scan kernels are made of
 * (conformance/tools/ceilings.py builds and runs this; the numbers are measurements of this
 * machine, not of the kernels).
 *
 * Each probe times a loop over seeded data, best of 15 runs of about a millisecond, and
 * prints one line "name rate unit" with the rate per second; ceilings.py turns rates into
 * per-cycle figures with the clock, a dependent chain of register adds (one per cycle on
 * every core this project has seen; a register operand, as an add of a small constant may
 * be folded at rename), timed before and after the probes (clock_before, clock_after, adds
 * per second), so no hardware counters are needed (a VM has none).
 *
 *   gear1   the sequential Gear loop with its test (spec 02 §4), four steps per loop branch
 *           as fastcdc's scalar kernel: bytes
 *   gear4   4 Gear chains over 4 segments, no test: bytes; the most a segment-parallel
 *           fastcdc kernel of this shape (a byte load, a table load and a shift-add per byte
 *           and chain) can scan: its cut tests only add work
 *   roll1   the sequential buzhash64 roll with its test (spec 03 §5): bytes
 *   roll4   4 roll chains, no test: bytes; the same for buzhash64's segment kernels
 *   lookups independent byte-then-table loads (the pair every Gear step makes)
 *   aes_W   AES-128 blocks at each AES instruction width W (xmm, ymm, zmm) this x86-64 CPU
 *           runs (10 rounds per block; aesenc-class throughput with 8 independent chains)
 *   gather  8-lane 64-bit gathers (AVX-512) or 4-lane (AVX2), when there is one
 *
 * ceilings.py builds it with the vectorisers off (-fno-tree-vectorize -fno-tree-slp-vectorize,
 * gcc and clang), so each probe stays the scalar loop it stands for whatever flags $CC
 * carries (-march=native would otherwise turn lookups into gathers). C11, no library beyond
 * libc; the x86-64 probes use target attributes and run only where __builtin_cpu_supports
 * says so. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define X86 1
#else
#define X86 0
#endif

#define SEG (1u << 16)              /* bytes per segment: 4 segments stay in L2 */
#define RUNS 15     /* runs of about a millisecond: the best fits in one time slice of a busy machine */

static uint8_t data[4 * SEG + 4096];
static uint64_t table[512];
static volatile uint64_t sink;
static volatile uint64_t never = ~0ull;  /* a mask no state here matches (loaded: not folded) */
static volatile uint64_t one = 1;        /* the clock's register operand */

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

/* n dependent register adds (n a multiple of 8): one cycle each (the empty asm keeps them
 * from being folded). Eight per loop branch: with one, the loop itself bound it on an Intel
 * Xeon (family 6, model 106), at 2 cycles per taken branch, which halved the clock. */
#define ADD_STEP                                                                                              \
    x += step;                                                                                                \
    __asm__ volatile("" : "+r"(x));

static uint64_t adds(size_t n)
{
    uint64_t x = sink;
    const uint64_t step = one;
    for (size_t i = 0; i < n; i += 8) {
        ADD_STEP ADD_STEP ADD_STEP ADD_STEP ADD_STEP ADD_STEP ADD_STEP ADD_STEP
    }
    return x;
}

/* Four steps per loop branch, as fastcdc's scalar kernel: a branch per byte otherwise makes
 * the loop's speed depend on where it lands (up to 2x on an AMD EPYC, csrc/fastcdc/scalar.c). */
#define GEAR_STEP(k)                                                                                          \
    fp = (fp << 1) + table[data[i + (k)]];                                                                    \
    if (!(fp & m))                                                                                            \
        break;

static uint64_t gear1(size_t reps)
{
    uint64_t acc = 0, m = never;
    for (size_t r = 0; r < reps; r++) {
        uint64_t fp = r;
        for (size_t i = 0; i < 4 * SEG; i += 4) {
            GEAR_STEP(0)
            GEAR_STEP(1)
            GEAR_STEP(2)
            GEAR_STEP(3)
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
        uint64_t a = r, b = r, c = r, d = r;
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
        uint64_t a = r, b = r, c = r, d = r;
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
        uint64_t a = r, b = r, c = r, d = r;
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

/* Two independent gathers per iteration; the indices step by an add and a mask. A gather
 * merges into its destination, so each starts from a zeroed one under a mask read at run
 * time (with a constant all-ones mask the compiler reuses one register for both gathers,
 * chaining them). */
__attribute__((target("avx512f"))) static uint64_t gather512(size_t n)
{
    __m512i i0 = _mm512_set_epi64(1, 7, 33, 90, 200, 13, 77, 255), i1 = _mm512_set_epi64(3, 5, 7, 9, 11, 13, 15, 17);
    __m512i s0 = _mm512_setzero_si512(), s1 = s0;
    const __m512i step = _mm512_set1_epi64(1), m = _mm512_set1_epi64(255);
    const __mmask8 all = (__mmask8)never;
    for (size_t i = 0; i < n; i++) {
        s0 = _mm512_add_epi64(s0, _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), all, i0, (const void *)table, 8));
        s1 = _mm512_add_epi64(s1, _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), all, i1, (const void *)table, 8));
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
    const __m256i all = _mm256_set1_epi64x((long long)never);
    for (size_t i = 0; i < n; i++) {
        s0 = _mm256_add_epi64(s0, _mm256_mask_i64gather_epi64(_mm256_setzero_si256(), (const long long *)table, i0,
                                                              all, 8));
        s1 = _mm256_add_epi64(s1, _mm256_mask_i64gather_epi64(_mm256_setzero_si256(), (const long long *)table, i1,
                                                              all, 8));
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
        table[i] = x | 1;               /* odd: a Gear state stays odd, never 0, so gear1 never exits */
    }
    const size_t n_adds = 4u << 20, reps = 16;
    printf("clock_before %.6g adds/s\n", (double)n_adds / best(adds, n_adds));
    const double bytes = 4.0 * SEG * (double)reps;
    printf("gear1 %.6g B/s\n", bytes / best(gear1, reps));
    printf("gear4 %.6g B/s\n", bytes / best(gear4, reps));
    printf("roll1 %.6g B/s\n", 3.0 * SEG * (double)reps / best(roll1, reps));
    printf("roll4 %.6g B/s\n", 4.0 * (SEG - WINDOW) * (double)reps / best(roll4, reps));
    printf("lookups %.6g lookups/s\n", bytes / best(lookups, reps));
#if X86
    __builtin_cpu_init();
    const size_t n_aes = 1u << 17;
    const double rounds = 8.0 * (double)n_aes;      /* 8 chains of aesenc per iteration */
    /* Every width that runs (the AES kernels of each width are held to their own), widest last. */
    if (__builtin_cpu_supports("aes"))
        printf("aes_xmm %.6g blocks/s xmm\n", rounds / 10.0 / best(aes128, n_aes));
    if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2"))
        printf("aes_ymm %.6g blocks/s ymm\n", 2.0 * rounds / 10.0 / best(aes256, n_aes));
    if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f"))
        printf("aes_zmm %.6g blocks/s zmm\n", 4.0 * rounds / 10.0 / best(aes512, n_aes));
    const size_t n_gather = 1u << 15;
    if (__builtin_cpu_supports("avx512f"))
        printf("gather %.6g gathers/s zmm\n", 2.0 * (double)n_gather / best(gather512, n_gather));
    else if (__builtin_cpu_supports("avx2"))
        printf("gather %.6g gathers/s ymm\n", 2.0 * (double)n_gather / best(gather256, n_gather));
#endif
    printf("clock_after %.6g adds/s\n", (double)n_adds / best(adds, n_adds));
    return 0;
}
