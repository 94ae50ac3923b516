/* Strided test-then-roll scan (issue 33), the template shared by the
 * windowed families: buzhash64 (u64) and the legacy buzhash (u32).
 *
 * The roll s' = rotl(s, 1) ^ Tr[pr[j]] ^ T[pa[j]] (spec 03 §5, 04 A.5) is a
 * chain of a rotate and an xor per step. Four steps at once, with
 * v_k = Tr[pr[k]] ^ T[pa[k]]:
 *
 *   s_{j+4} = rotl(s_j, 4) ^ rotl(v_j, 3) ^ rotl(v_{j+1}, 2) ^ rotl(v_{j+2}, 1) ^ v_{j+3}
 *
 * The tables rotated by 1, 2 and 3 (built per call on the stack) give the
 * rotated terms by a lookup each, so the chain is one rotate and one xor per
 * four steps, and everything else is off it. A step between is tested without
 * forming its state: s_{j+k} & m == 0 exactly when
 * rotl(s_{j+k}, 4-k) & rotl(m, 4-k) == 0, and rotl(s_{j+k}, 4-k) is
 * rotl(s_j, 4) xor the first k rotated terms (a rotation moves bits, it
 * drops none). The state of a hit is rotated back. The same loads a step as
 * the sequential loop (two bytes, two table entries), and one rotate per four
 * steps instead of one a step. On an Intel Xeon (family 6, model 106), whose
 * rotate by one is two micro-ops and where the chain held the sequential loop
 * at 2.4 cycles a step, that scans at 1.2x the sequential loop and seg4
 * (docs/benchmarks.md).
 *
 * Spans shorter than STRIDE_MIN steps, and the last n mod 4 steps, take the
 * sequential loop (the tables cost about STRIDE_MIN / 4 steps to build).
 * conformance/cases/strides.py mirrors the geometry to plant hits at every
 * step of a group of four and at the thresholds.
 *
 * Include with STRIDE_WORD (state type), STRIDE_BITS (its width), STRIDE_ROTL
 * (its rotate-left, k == 0 allowed) and STRIDE_FN (the kernel's name) defined;
 * only this code runs (no other kernel is called); defines STRIDE_FN with the
 * family's windowed scan signature. */
#include <stddef.h>
#include <stdint.h>

#ifndef CHUNKERS_STRIDE_ROLL_GEOMETRY
#define CHUNKERS_STRIDE_ROLL_GEOMETRY
/* Steps a dependent rotate covers. */
#define STRIDE 4
/* Fewest steps for the strided loop; shorter spans take the sequential one. */
#define STRIDE_MIN 2048
#endif

#define STRIDE_CAT2(a, b) a##b
#define STRIDE_CAT(a, b) STRIDE_CAT2(a, b)
#define STRIDE_SEQ STRIDE_CAT(STRIDE_FN, _seq)

size_t STRIDE_FN(const STRIDE_WORD *t, const STRIDE_WORD *tr, const uint8_t *pr, const uint8_t *pa, size_t n,
                 STRIDE_WORD *sump, STRIDE_WORD m);

/* The sequential loop (spec 03 §5): short spans and the tail. */
static size_t STRIDE_SEQ(const STRIDE_WORD *t, const STRIDE_WORD *tr, const uint8_t *pr, const uint8_t *pa,
                         size_t n, STRIDE_WORD *sump, STRIDE_WORD m)
{
    STRIDE_WORD s = *sump;
    size_t j = 0;
    while (j < n && (s & m)) {
        s = STRIDE_ROTL(s, 1) ^ tr[pr[j]] ^ t[pa[j]];
        j++;
    }
    *sump = s;
    return j;
}

size_t STRIDE_FN(const STRIDE_WORD *t, const STRIDE_WORD *tr, const uint8_t *pr, const uint8_t *pa, size_t n,
                 STRIDE_WORD *sump, STRIDE_WORD m)
{
    CK_PROVENANCE(STRIDE_FN);
    if (n < STRIDE_MIN)
        return STRIDE_SEQ(t, tr, pr, pa, n, sump, m);
    /* r[k][0] = rotl(Tr, k), r[k][1] = rotl(T, k): the term of a step that is 3 - k before the group's end. */
    STRIDE_WORD r[STRIDE][2][256];
    for (unsigned x = 0; x < 256; x++)
        for (unsigned k = 0; k < STRIDE; k++) {
            r[k][0][x] = STRIDE_ROTL(tr[x], k);
            r[k][1][x] = STRIDE_ROTL(t[x], k);
        }
    const STRIDE_WORD m1 = STRIDE_ROTL(m, 1), m2 = STRIDE_ROTL(m, 2), m3 = STRIDE_ROTL(m, 3);
    STRIDE_WORD s = *sump;
    size_t j = 0;
    for (; j + STRIDE <= n; j += STRIDE) {
        CK_MCA_LOOP(STRIDE);
        if (!(s & m)) {
            *sump = s;
            return j;
        }
        const STRIDE_WORD q = STRIDE_ROTL(s, 4);
        const STRIDE_WORD a0 = r[3][0][pr[j]] ^ r[3][1][pa[j]];
        if (!((q ^ a0) & m3)) {
            *sump = STRIDE_ROTL(q ^ a0, STRIDE_BITS - 3);
            return j + 1;
        }
        const STRIDE_WORD a1 = a0 ^ r[2][0][pr[j + 1]] ^ r[2][1][pa[j + 1]];
        if (!((q ^ a1) & m2)) {
            *sump = STRIDE_ROTL(q ^ a1, STRIDE_BITS - 2);
            return j + 2;
        }
        const STRIDE_WORD a2 = a1 ^ r[1][0][pr[j + 2]] ^ r[1][1][pa[j + 2]];
        if (!((q ^ a2) & m1)) {
            *sump = STRIDE_ROTL(q ^ a2, STRIDE_BITS - 1);
            return j + 3;
        }
        s = q ^ a2 ^ r[0][0][pr[j + 3]] ^ r[0][1][pa[j + 3]];
    }
    *sump = s;
    return j + STRIDE_SEQ(t, tr, pr + j, pa + j, n - j, sump, m);
}
