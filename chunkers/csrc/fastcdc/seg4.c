/* fastcdc `seg4` kernel: segment-parallel Gear scan, portable C (issue 13).
 *
 * The Gear state after byte i depends only on bytes i-63 .. i: each step
 * shifts the state left by one (mod 2^64), so a byte's table value leaves the
 * state after 64 steps (spec 02 §4). The single chain is one dependent
 * shift-add per byte; here a span is cut into rounds of FASTCDC_SEG_K
 * segments that are scanned as independent chains interleaved in one loop,
 * which keeps the CPU's otherwise idle execution ports busy.
 *
 * Chain 0 continues from the caller's exact state. Chain k > 0 starts from 0
 * at the 64 bytes before its segment (the warm-up), so its state is exact
 * from the segment's first byte on; the warm-up bytes lie inside the span
 * (segment k starts at k * len >= 64), so nothing outside p[0 .. n-1] is
 * read. The first hit in segment order wins: when chains hit at step i, a
 * hit of chain 0 is the answer; otherwise the lowest chain k that hit is
 * the answer unless chain 0 hits first in the bytes between, which are
 * rescanned from chain 0's exact state (recursively, with shorter rounds).
 * Without a hit the exit state is that of the last chain, which ends the
 * round. Spans shorter than K * FASTCDC_SEG_MIN go to the sequential loop
 * (fastcdc_seq), as does the tail (fewer than K bytes) after the last round.
 *
 * Geometry (measured, docs/benchmarks.md): K = 4 chains, rounds of 4
 * segments of FASTCDC_SEG_LEN bytes; the last round of a span splits what
 * is left into 4 equal segments if they are at least FASTCDC_SEG_MIN long.
 * conformance/cases/segments.py mirrors it to plant hits at segment edges. */
#include "fastcdc.h"

#define GEAR_WINDOW 64

/* Chain k > 0 hit at step i of its segment (k the lowest that did, fk its
 * state), chain 0 (state f0) did not: chain 0's bytes up to that hit are
 * rescanned exactly. Kept out of line, so the hot loop holds no hit state. */
static __attribute__((noinline)) int64_t seg_resolve(const uint64_t *gear, const uint8_t *p, size_t len,
                                                     uint64_t *fpp, uint64_t mask, size_t i, size_t k, uint64_t f0,
                                                     uint64_t fk)
{
    const int64_t r = fastcdc_scan_seg4(gear, p + i + 1, k * len - i - 1, &f0, mask);
    *fpp = r >= 0 ? f0 : fk;
    return r >= 0 ? (int64_t)(i + 1) + r : (int64_t)(k * len + i);
}

/* One step of the 4 chains at byte i of their segments, then the mask tests
 * in chain order, each its own exit branch (a fused test-and-branch): on an
 * AMD EPYC Zen 5 VM 1.45x the single chain with a 21-bit mask, where one
 * combined test of the 4 (set flags, OR them, one branch) gave 1.28x
 * (docs/benchmarks.md). The first test that fails names the lowest chain
 * that hit. */
#define SEG_STEP(i)                                                            \
    f0 = (f0 << 1) + gear[p[i]];                                               \
    f1 = (f1 << 1) + gear[p1[i]];                                              \
    f2 = (f2 << 1) + gear[p2[i]];                                              \
    f3 = (f3 << 1) + gear[p3[i]];                                              \
    if (!(f0 & mask)) {                                                        \
        *fpp = f0;                                                             \
        return (int64_t)(i);                                                   \
    }                                                                          \
    if (!(f1 & mask))                                                          \
        return seg_resolve(gear, p, len, fpp, mask, (i), 1, f0, f1);           \
    if (!(f2 & mask))                                                          \
        return seg_resolve(gear, p, len, fpp, mask, (i), 2, f0, f2);           \
    if (!(f3 & mask))                                                          \
        return seg_resolve(gear, p, len, fpp, mask, (i), 3, f0, f3);

/* One round: p[0 .. 4 * len - 1] from *fpp, len >= GEAR_WINDOW. */
static int64_t seg_round(const uint64_t *gear, const uint8_t *p, size_t len, uint64_t *fpp, uint64_t mask)
{
    const uint8_t *p1 = p + len, *p2 = p + 2 * len, *p3 = p + 3 * len;
    uint64_t f0 = *fpp, f1 = 0, f2 = 0, f3 = 0;
    size_t i;
    for (i = len - GEAR_WINDOW; i < len; i++) {
        f1 = (f1 << 1) + gear[p[i]];
        f2 = (f2 << 1) + gear[p1[i]];
        f3 = (f3 << 1) + gear[p2[i]];
    }
    /* Two steps per loop branch; an odd last step after the loop. */
    for (i = 0; i + 2 <= len; i += 2) {
        CK_MCA_LOOP(8);
        SEG_STEP(i)
        SEG_STEP(i + 1)
    }
    if (i < len) {
        SEG_STEP(i)
    }
    *fpp = f3;
    return -1;
}

int64_t fastcdc_scan_seg4(const uint64_t *gear, const uint8_t *p, size_t n, uint64_t *fpp, uint64_t mask)
{
    CK_PROVENANCE(fastcdc_scan_seg4);
    size_t done = 0;
    while (n - done >= 4 * FASTCDC_SEG_MIN) {
        const size_t rest = (n - done) / 4;
        const size_t len = rest < FASTCDC_SEG_LEN ? rest : FASTCDC_SEG_LEN;
        const int64_t r = seg_round(gear, p + done, len, fpp, mask);
        if (r >= 0)
            return (int64_t)done + r;
        done += 4 * len;
    }
    /* The sequential loop inline, not the scalar kernel: only seg4's own code runs. */
    const int64_t r = fastcdc_seq(gear, p + done, n - done, fpp, mask);
    return r >= 0 ? (int64_t)done + r : -1;
}
