/* AES chunkers `vaes-seg` path (issue 13): the segment-parallel scan of
 * segments.h with VAES + AVX-512F, the AES_SEG_K = 8 chains' digests as 2 zmm
 * vectors of 4 blocks per step, vptestnmq for the hit test; short spans, tails
 * and untrue start states go through `vaes` (vaes.c).
 *
 * toeplitz-aes and goldilocks-aes: the chains' digests are zmm vectors (a
 * lane per chain) stepping together (issue 27), 16 chains, each segment's two
 * halves. goldilocks's scalar step, a 64x64-bit product and its reduction, is
 * about 29 instructions per digest and bounded this path; the vector step
 * does 8 digests in about 31 (4 vpmuludq partial products, the reduction of
 * goldilocks.h with compare masks for its carries and borrows). toeplitz's is
 * 4 for 8 digests (shift, arithmetic shift, and, xor). Only each chain's
 * table entries are formed in scalar registers, a few steps ahead, and stored
 * so that a step loads them as vectors (V_AHEAD). rabin keeps the scalar
 * chains (its table index is taken from the digest itself; gathered vector
 * chains measured no faster). Measured on an AMD Zen 5 VM (docs/benchmarks.md):
 * goldilocks 1.5x and toeplitz 1.3x the scalar chains. Freestanding-clean like
 * vaes.c (the bochscpu runner executes it on CPUs without AVX-512). */
#include "segments.h"
#include "x86.h"

#if CK_X86_64 && AES_HAVE_VAES

_Static_assert(AES_SEG_K == 8, "vaes_seg_any packs the chains into two zmm vectors");

#define VAES_SEG_TARGET CK_TARGET("avx512f,vaes,aes,sse4.1")

VAES_SEG_TARGET
AES_INLINE int vaes_seg_any(const aes_ctx *c, const uint64_t *d, uint64_t mask)
{
    __m512i v[AES_SEG_K / 4];
    const __m512i k0 = _mm512_broadcast_i32x4(aes_x86_key(c, 0));
    for (int j = 0; j < AES_SEG_K / 4; j++)       /* blocks LE64(d) || 0^8 of chains 4j .. 4j+3 */
        v[j] = _mm512_xor_si512(_mm512_set_epi64(0, (long long)d[4 * j + 3], 0, (long long)d[4 * j + 2], 0,
                                                 (long long)d[4 * j + 1], 0, (long long)d[4 * j]), k0);
    for (int r = 1; r < 10; r++) {
        const __m512i kr = _mm512_broadcast_i32x4(aes_x86_key(c, r));
        for (int j = 0; j < AES_SEG_K / 4; j++)
            v[j] = _mm512_aesenc_epi128(v[j], kr);
    }
    const __m512i k10 = _mm512_broadcast_i32x4(aes_x86_key(c, 10));
    const __m512i u = _mm512_unpacklo_epi64(_mm512_aesenclast_epi128(v[0], k10),
                                            _mm512_aesenclast_epi128(v[1], k10));    /* the 8 cut values */
    return _mm512_testn_epi64_mask(u, _mm512_set1_epi64((long long)mask)) != 0;
}

/* Lane-wise d * K + a mod p, canonical, for any d, a < 2^64 (K < p): goldilocks_muladd(d, K, a, 0)
 * of goldilocks.h on 8 lanes. kh = K >> 32 in every lane. */
VAES_SEG_TARGET AES_INLINE __m512i gl_muladd8(__m512i d, __m512i K, __m512i kh, __m512i a)
{
    const __m512i m32 = _mm512_set1_epi64(0xFFFFFFFF), eps = m32;
    const __m512i dh = _mm512_srli_epi64(d, 32);
    const __m512i p0 = _mm512_mul_epu32(d, K), p1 = _mm512_mul_epu32(d, kh);
    const __m512i p2 = _mm512_mul_epu32(dh, K), p3 = _mm512_mul_epu32(dh, kh);
    /* t, u < 2^64: (2^32 - 1)^2 + 2 * (2^32 - 1) = 2^64 - 1 */
    const __m512i t = _mm512_add_epi64(p1, _mm512_srli_epi64(p0, 32));
    const __m512i u = _mm512_add_epi64(_mm512_and_si512(t, m32), p2);
    __m512i lo = _mm512_or_si512(_mm512_slli_epi64(u, 32), _mm512_and_si512(p0, m32));
    __m512i hi = _mm512_add_epi64(_mm512_add_epi64(p3, _mm512_srli_epi64(t, 32)), _mm512_srli_epi64(u, 32));
    lo = _mm512_add_epi64(lo, a);                                   /* + a, its carry into hi */
    hi = _mm512_mask_add_epi64(hi, _mm512_cmplt_epu64_mask(lo, a), hi, _mm512_set1_epi64(1));
    /* goldilocks_reduce(lo, hi) */
    const __m512i hh = _mm512_srli_epi64(hi, 32), hl = _mm512_and_si512(hi, eps);
    __m512i r = _mm512_sub_epi64(lo, hh);
    r = _mm512_mask_sub_epi64(r, _mm512_cmplt_epu64_mask(lo, hh), r, eps);
    const __m512i s0 = _mm512_add_epi64(r, _mm512_sub_epi64(_mm512_slli_epi64(hl, 32), hl));
    const __m512i s = _mm512_mask_add_epi64(s0, _mm512_cmplt_epu64_mask(s0, r), s0, eps);
    const __m512i P = _mm512_set1_epi64((long long)GOLDILOCKS_P);
    return _mm512_mask_sub_epi64(s, _mm512_cmpge_epu64_mask(s, P), s, P);
}

/* One lane-wise UHF step: toeplitz_mulx(h) ^ a, or goldilocks_muladd(h, K, a, 0) (kh = K >> 32). */
VAES_SEG_TARGET AES_INLINE __m512i v_step(int kind, __m512i h, __m512i K, __m512i kh, __m512i a)
{
    if (kind == AES_TOEPLITZ) {
        const __m512i poly = _mm512_and_si512(_mm512_srai_epi64(h, 63), _mm512_set1_epi64(TOEPLITZ_POLY));
        return _mm512_xor_si512(_mm512_xor_si512(_mm512_slli_epi64(h, 1), poly), a);
    }
    return gl_muladd8(h, K, kh, a);
}

/* The addend of the roll at position x (x[-64] leaves, x[0] enters): OUT64[x[-64]] ^ T[x[0]]
 * (07 §5), or NOUT64[x[-64]] + x[0] (09 §5; below 2^64, since NOUT64 is canonical, < p). */
AES_INLINE long long v_in(const aes_ctx *c, int kind, const uint8_t *x)
{
    if (kind == AES_TOEPLITZ)
        return (long long)(c->uhf.t.OUT64[x[-64]] ^ c->uhf.t.T[x[0]]);
    return (long long)(c->uhf.g.NOUT64[x[-64]] + x[0]);
}

/* The addend of a Horner (warm-up) step where byte x[0] enters: T[x[0]], or x[0]. */
AES_INLINE long long v_warm(const aes_ctx *c, int kind, const uint8_t *x)
{
    return kind == AES_TOEPLITZ ? (long long)c->uhf.t.T[x[0]] : (long long)x[0];
}

/* f(c, kind, x) at position j of the 8 segments of the block at b, lane k: segment k. */
#define V_LANES(f, c, kind, b, j)                                                                             \
    _mm512_set_epi64(f(c, kind, (b) + 7 * AES_SEG_L + (j)), f(c, kind, (b) + 6 * AES_SEG_L + (j)),           \
                     f(c, kind, (b) + 5 * AES_SEG_L + (j)), f(c, kind, (b) + 4 * AES_SEG_L + (j)),           \
                     f(c, kind, (b) + 3 * AES_SEG_L + (j)), f(c, kind, (b) + 2 * AES_SEG_L + (j)),           \
                     f(c, kind, (b) + 1 * AES_SEG_L + (j)), f(c, kind, (b) + (j)))

/* Values a step reads, formed ahead of it in scalar registers and stored: the step loads them as
 * one vector where 8 lane inserts would take the vector ports the AES rounds and the step need
 * (Intel's port 5; measured 1.1-1.2x the inserts on a Zen 5 VM, docs/measurements.md). A slot is
 * read V_AHEAD steps (~40 cycles each) after its stores, when they have left the store buffer (a
 * vector load from 8 scalar stores still there would wait for them: failed store forwarding). */
#define V_AHEAD 8

/* The 16 chains: the first and second half of each segment (goldilocks's vector step is one
 * long dependent chain, about 30 cycles: the product, then four compare-and-correct steps, so
 * two independent vectors step together); chain order is position order: segment 0's first
 * half, its second half, segment 1's first half, ... */
#define V_HALF (AES_SEG_L / 2)
_Static_assert(V_HALF >= AES_WINDOW, "a half segment's warm-up lies inside its segment");
_Static_assert(V_HALF > V_AHEAD, "the ring's first fill lies inside the half segment");

/* Step t's addends (v_in) for the segments' first halves (a[0]) and second halves (a[1]). */
typedef struct {
    _Alignas(64) uint64_t a[2][AES_SEG_K];
} v_slot;

/* The slot of the step at x (segment 0's position; the others at constant offsets). */
AES_INLINE void v_fill(const aes_ctx *c, int kind, const uint8_t *x, v_slot *sl)
{
    for (int half = 0; half < 2; half++)
        for (int k = 0; k < AES_SEG_K; k++)
            sl->a[half][k] = (uint64_t)v_in(c, kind, x + (size_t)half * V_HALF + (size_t)k * AES_SEG_L);
}

/* The 8 cut values of the digests in h (lanes: chains 0..7), in the order 0,4,1,5,2,6,3,7:
 * chain s's is lane V_CUT_BIT(s). */
#define V_CUT_BIT(s) ((s) < 4 ? 2 * (s) : 2 * ((s) - 4) + 1)
VAES_SEG_TARGET AES_INLINE __m512i v_cut8(const __m512i *k, __m512i h)
{
    const __m512i lo4 = _mm512_setr_epi64(0, 0, 1, 0, 2, 0, 3, 0), hi4 = _mm512_setr_epi64(4, 0, 5, 0, 6, 0, 7, 0);
    __m512i v0 = _mm512_xor_si512(_mm512_maskz_permutexvar_epi64(0x55, lo4, h), k[0]);   /* LE64(d) || 0^8 */
    __m512i v1 = _mm512_xor_si512(_mm512_maskz_permutexvar_epi64(0x55, hi4, h), k[0]);
    for (int r = 1; r < 10; r++) {
        v0 = _mm512_aesenc_epi128(v0, k[r]);
        v1 = _mm512_aesenc_epi128(v1, k[r]);
    }
    return _mm512_unpacklo_epi64(_mm512_aesenclast_epi128(v0, k[10]), _mm512_aesenclast_epi128(v1, k[10]));
}

/* Lane s of v (AVX-512F only: a store and a scalar load let gcc pick an AVX512DQ extract). */
VAES_SEG_TARGET AES_INLINE uint64_t v_lane(__m512i v, int s)
{
    return (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(_mm512_maskz_compress_epi64((__mmask8)(1u << s), v)));
}

/* aes_block_fn's contract for toeplitz-aes and goldilocks-aes (kind): the 16 chains (V_HALF)
 * as two vectors, the segments' first halves and their second halves (lane k: segment k).
 * The warm-ups are Horner digests in the same vectors: lane 0's is *dp, the true digest
 * D_{b-1} (aes_seg_scan checked the state), so it is not read; a step with a hit is resolved
 * as in aes_seg_block, the lanes' hits read from the vector test. */
VAES_SEG_TARGET AES_INLINE size_t vaes_seg_vblock(const aes_ctx *c, int kind, const uint8_t *b, uint64_t *dp,
                                                  uint64_t *fd, uint64_t mask)
{
    const uint8_t *const b2 = b + V_HALF;
    /* goldilocks's evaluation point; toeplitz's step never uses it (dead in that copy at -O1 and
     * up; at -O0 a harmless read of the union's other member, with no branch on kind here) */
    const __m512i K = _mm512_set1_epi64((long long)c->uhf.g.K), kh = _mm512_srli_epi64(K, 32);
    __m512i h = _mm512_setzero_si512(), h2 = h;
    for (int j = -AES_WINDOW; j < 0; j++) {
        h = v_step(kind, h, K, kh, V_LANES(v_warm, c, kind, b, j));
        h2 = v_step(kind, h2, K, kh, V_LANES(v_warm, c, kind, b2, j));
    }
    __m512i k[11];
    for (int r = 0; r < 11; r++)
        k[r] = _mm512_broadcast_i32x4(aes_x86_key(c, r));
    const __m512i m = _mm512_set1_epi64((long long)mask);
    v_slot ring[V_AHEAD];
    for (size_t t = 0; t < V_AHEAD; t++)
        v_fill(c, kind, b + t, &ring[t]);
    const uint8_t *ahead = b + V_AHEAD;     /* the step whose slot is filled next */
    size_t first = AES_SEG_BLOCK;
    for (size_t t = 0; t < V_HALF; t++) {
        CK_MCA_LOOP_TAG(2 * AES_SEG_K, kind);
        v_slot *const sl = &ring[t % V_AHEAD];
        h = v_step(kind, h, K, kh, _mm512_load_si512(sl->a[0]));
        h2 = v_step(kind, h2, K, kh, _mm512_load_si512(sl->a[1]));
        /* the last V_AHEAD steps fill their slots with the last step again, never read (one
         * loop body: a condition around the fill has the compiler split the loop) */
        v_fill(c, kind, ahead, sl);
        ahead += t + V_AHEAD + 1 < V_HALF;
        const __mmask8 hit0 = _mm512_testn_epi64_mask(v_cut8(k, h), m);
        const __mmask8 hit1 = _mm512_testn_epi64_mask(v_cut8(k, h2), m);
        if (__builtin_expect((hit0 | hit1) != 0, 0)) {
            int j = 0;          /* chain j: segment j / 2, half j % 2; the first that hit */
            while (!((j % 2 ? hit1 : hit0) >> V_CUT_BIT(j / 2) & 1))
                j++;
            aes_seg_keep((size_t)(j / 2) * AES_SEG_L + (size_t)(j % 2) * V_HALF + t, v_lane(j % 2 ? h2 : h, j / 2),
                         &first, fd);
            if (j == 0)         /* every other chain's positions come later */
                break;
        }
    }
    if (first == AES_SEG_BLOCK)
        *dp = v_lane(h2, AES_SEG_K - 1);    /* segment 7's second half ends the block */
    return first;
}

VAES_SEG_TARGET
static size_t vaes_seg_toeplitz(const aes_ctx *c, const uint8_t *b, uint64_t *dp, uint64_t *fd, uint64_t mask)
{
    return vaes_seg_vblock(c, AES_TOEPLITZ, b, dp, fd, mask);
}

VAES_SEG_TARGET
static size_t vaes_seg_goldilocks(const aes_ctx *c, const uint8_t *b, uint64_t *dp, uint64_t *fd, uint64_t mask)
{
    return vaes_seg_vblock(c, AES_GOLDILOCKS, b, dp, fd, mask);
}

VAES_SEG_TARGET
AES_INLINE int64_t vaes_seg_core(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                 uint64_t mask)
{
    return aes_seg_scan(c, kind, p, n, st, mask, vaes_seg_any, aes_x86_hit, aes_scan_vaes,
                        CK_NAME(aes_scan_vaes_seg),
                        kind == AES_GOLDILOCKS ? vaes_seg_goldilocks : kind == AES_TOEPLITZ ? vaes_seg_toeplitz : NULL);
}

VAES_SEG_TARGET
int64_t aes_scan_vaes_seg(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    CK_PROVENANCE(aes_scan_vaes_seg);
    AES_DISPATCH(vaes_seg_core, c, p, n, st, mask)
}

#endif
