/* Segment-parallel test-then-roll scan (issue 13), the template shared by
 * the windowed families: buzhash64 (u64) and the legacy buzhash (u32).
 *
 * The hash of the window at pr[j] depends only on its w bytes (spec 03 §3,
 * 04 A.4), so the steps of a span can be cut into rounds of 4 segments
 * scanned as independent chains interleaved in one loop: four independent
 * rotate-xor chains instead of one dependent chain per step.
 *
 * Chain 0 continues from the caller's state. Chain k > 0 starts at its
 * segment's first step s with the window hash of pr[s .. s+w-1], computed
 * from the table (the warm-up); those bytes lie inside the scan contract
 * (s + w - 1 <= n - 1 + w; pa = pr + w gives w). A caller's state that is
 * not the hash of the window at pr[0] (any state must give the reference's
 * answer) differs from it by e, which the rolls carry along rotated: step s
 * holds the hash xor rotl(e, s), so each warm-up gets that term too. The first hit in
 * segment order wins: a hit of chain 0 is the answer; otherwise the lowest
 * chain k that hit is, unless chain 0 hits first in the steps between,
 * which are rescanned from chain 0's exact state (recursively). Without a
 * hit the exit state is the last chain's, which ends the round.
 *
 * Geometry: a segment has seg_roll_len(w) steps; the last round of a span
 * splits what is left into 4 equal segments if they have at least
 * seg_roll_min(w) steps; shorter spans and the tail (fewer than 4 steps)
 * take the sequential loop. conformance/cases/segments.py mirrors this.
 *
 * Include with SEG_WORD (state type), SEG_ROTL (its rotate-left) and SEG_FN
 * (the kernel's name) defined; only this code runs (no other kernel is called);
 * defines SEG_FN with the family's windowed scan signature. */
#include <stddef.h>
#include <stdint.h>

#ifndef CHUNKERS_SEG_ROLL_GEOMETRY
#define CHUNKERS_SEG_ROLL_GEOMETRY
/* Segment steps: 16 windows, at least SEG_ROLL_LEN (the warm-up costs w
 * steps per segment). */
#define SEG_ROLL_LEN 16384
/* Fewest steps per segment: 2 windows, at least SEG_ROLL_MIN. */
#define SEG_ROLL_MIN 256
static inline size_t seg_roll_len(size_t w)
{
    return w < SEG_ROLL_LEN / 16 ? SEG_ROLL_LEN : 16 * w;
}
static inline size_t seg_roll_min(size_t w)
{
    return w < SEG_ROLL_MIN / 2 ? SEG_ROLL_MIN : 2 * w;
}
#endif

#define SEG_CAT2(a, b) a##b
#define SEG_CAT(a, b) SEG_CAT2(a, b)
#define SEG_ROUND SEG_CAT(SEG_FN, _round)

size_t SEG_FN(const SEG_WORD *t, const SEG_WORD *tr, const uint8_t *pr, const uint8_t *pa, size_t n, SEG_WORD *sump,
              SEG_WORD m);

/* The hash of the w bytes at p (spec 03 §3, 04 A.4). */
static SEG_WORD SEG_CAT(SEG_FN, _window)(const SEG_WORD *t, const uint8_t *p, size_t w)
{
    SEG_WORD h = 0;
    for (size_t i = 0; i < w; i++)
        h = SEG_ROTL(h, 1) ^ t[p[i]];
    return h;
}

/* One round: steps 0 .. 4 * len - 1 from *sump, warm-up windows of w bytes;
 * e: the state's offset from the true window hash at step 0. */
static size_t SEG_ROUND(const SEG_WORD *t, const SEG_WORD *tr, const uint8_t *pr, const uint8_t *pa, size_t len,
                        size_t w, SEG_WORD *sump, SEG_WORD m, SEG_WORD e)
{
    const uint8_t *r1 = pr + len, *r2 = pr + 2 * len, *r3 = pr + 3 * len;
    const uint8_t *a1 = pa + len, *a2 = pa + 2 * len, *a3 = pa + 3 * len;
    SEG_WORD s0 = *sump, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i < w; i++) {
        s1 = SEG_ROTL(s1, 1) ^ t[r1[i]];
        s2 = SEG_ROTL(s2, 1) ^ t[r2[i]];
        s3 = SEG_ROTL(s3, 1) ^ t[r3[i]];
    }
    s1 ^= SEG_ROTL(e, (unsigned)(len % 64));
    s2 ^= SEG_ROTL(e, (unsigned)(2 * len % 64));
    s3 ^= SEG_ROTL(e, (unsigned)(3 * len % 64));
    for (size_t i = 0; i < len; i++) {
        CK_MCA_LOOP(4);
        if (!((s0 & m) && (s1 & m) && (s2 & m) && (s3 & m))) {
            if (!(s0 & m)) {
                *sump = s0;
                return i;
            }
            const size_t k = (s1 & m) == 0 ? 1 : (s2 & m) == 0 ? 2 : 3;
            const SEG_WORD sk = k == 1 ? s1 : k == 2 ? s2 : s3;
            const size_t rest = k * len - i;
            const size_t r = SEG_FN(t, tr, pr + i, pa + i, rest, &s0, m);
            *sump = r < rest ? s0 : sk;
            return r < rest ? i + r : k * len + i;
        }
        s0 = SEG_ROTL(s0, 1) ^ tr[pr[i]] ^ t[pa[i]];
        s1 = SEG_ROTL(s1, 1) ^ tr[r1[i]] ^ t[a1[i]];
        s2 = SEG_ROTL(s2, 1) ^ tr[r2[i]] ^ t[a2[i]];
        s3 = SEG_ROTL(s3, 1) ^ tr[r3[i]] ^ t[a3[i]];
    }
    *sump = s3;
    return 4 * len;
}

size_t SEG_FN(const SEG_WORD *t, const SEG_WORD *tr, const uint8_t *pr, const uint8_t *pa, size_t n, SEG_WORD *sump,
              SEG_WORD m)
{
    CK_PROVENANCE(SEG_FN);
    const size_t w = (size_t)(pa - pr), seg_len = seg_roll_len(w), seg_min = seg_roll_min(w);
    size_t done = 0;
    const SEG_WORD e = n >= 4 * seg_min ? *sump ^ SEG_CAT(SEG_FN, _window)(t, pr, w) : 0;
    while (n - done >= 4 * seg_min) {
        const size_t rest = (n - done) / 4;
        const size_t len = rest < seg_len ? rest : seg_len;
        const size_t r = SEG_ROUND(t, tr, pr + done, pa + done, len, w, sump, m, SEG_ROTL(e, (unsigned)(done % 64)));
        if (r < 4 * len)
            return done + r;
        done += 4 * len;
    }
    SEG_WORD s = *sump;   /* the sequential loop (spec 03 §5) for the rest */
    for (; done < n && (s & m); done++)
        s = SEG_ROTL(s, 1) ^ tr[pr[done]] ^ t[pa[done]];
    *sump = s;
    return done;
}
