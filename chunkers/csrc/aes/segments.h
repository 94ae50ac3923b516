/* Segment-parallel scan of the AES chunkers (issue 13; same contract as every
 * path, aes.h / spec 06 §7.2).
 *
 * Where the serial dependency is: the AES work per position is already
 * independent, but the digests come from one rolling chain, D_x = roll(D_{x-1}),
 * whose step latency (toeplitz: shift/xor, rabin: a table index taken from the
 * previous digest, goldilocks: a 64x64-bit product and its reduction) bounds
 * every serial path. The digest is a function of the 64-byte window alone
 * (07 §4, 08 §6, 09 §3), so a block of AES_SEG_K * AES_SEG_L positions is cut
 * into AES_SEG_K segments of AES_SEG_L positions, each with its own chain:
 * chain 0 continues the running digest, chain k >= 1 starts from the full
 * (Horner) digest of the 64 bytes before its segment (the warm-up). The K
 * chains step in lock-step, one position each per step, and their K digests
 * are encrypted together by the path's test; a step with any hit is resolved
 * per chain, and the earliest hit in position order wins (chain k's positions
 * all precede chain k+1's). The exit digest of a block is chain K-1's.
 *
 * That equality holds only if *st is the true digest of p[-64 .. -1]: an error
 * in the state propagates through every roll (it is multiplied by x, x^8 or K
 * per byte, never forgotten for toeplitz and rabin). The scan therefore checks
 * the state once and takes the path's serial scan for a state that is not the
 * true digest, for spans shorter than a block and for the tail after the last
 * block, so results are those of the serial paths for every state, span and mask.
 *
 * Reads: p[-64 .. n-1] only (warm-ups read the 64 bytes before each segment,
 * all at or after p[-64]). Freestanding-clean (no libc, no globals). */
#ifndef CHUNKERS_AES_SEGMENTS_H
#define CHUNKERS_AES_SEGMENTS_H

#include "uhf.h"

#ifndef AES_SEG_K
#define AES_SEG_K 8             /* chains: fills 8 AES-NI blocks, 4 ymm or 2 zmm VAES vectors per step */
#endif
#ifndef AES_SEG_L
#define AES_SEG_L 512           /* positions per segment: chosen, not tuned (warm-ups cost 7 * 64 of 4096 UHF steps; a hit wastes at most one block) */
#endif
#define AES_SEG_BLOCK (AES_SEG_K * AES_SEG_L)

/* 1 iff any of the AES_SEG_K digests d[0..K-1] is a hit under mask. */
typedef int (*aes_any_fn)(const aes_ctx *c, const uint64_t *d, uint64_t mask);
/* 1 iff digest d is a hit under mask (the path's single-block test). */
typedef int (*aes_hit1_fn)(const aes_ctx *c, uint64_t d, uint64_t mask);

/* One Horner step of the full digest (07 §4, 08 §6, 09 §3): byte b enters, nothing leaves. */
AES_INLINE uint64_t aes_horner(const aes_ctx *c, int kind, uint64_t d, uint8_t b)
{
    switch (kind) {
    case AES_TOEPLITZ:
        return toeplitz_mulx(d) ^ c->uhf.t.T[b];
    case AES_RABIN:
        return ((d << 8) | b) ^ c->uhf.r.RED[d >> 56];
    default:
        return goldilocks_muladd(d, c->uhf.g.K, b, 0);
    }
}

/* h[k] = the full digest of x[-64 .. -1] for each of the n windows ending before
 * x = w[k], interleaved so the n Horner chains overlap. */
AES_INLINE void aes_warm(const aes_ctx *c, int kind, const uint8_t *const *w, uint64_t *h, int n)
{
    for (int k = 0; k < n; k++)
        h[k] = 0;
    for (int j = -AES_WINDOW; j < 0; j++)
        for (int k = 0; k < n; k++)
            h[k] = aes_horner(c, kind, h[k], w[k][j]);
}

/* The block at b (AES_SEG_K segments of AES_SEG_L positions) from *d = D_{b-1}:
 * the offset of its first hit in position order with *fd that digest, or
 * AES_SEG_BLOCK (none) with *d = the block's last digest (chain K-1's). */
typedef size_t (*aes_block_fn)(const aes_ctx *c, const uint8_t *b, uint64_t *d, uint64_t *fd, uint64_t mask);

/* A hit at block offset at with digest dig: kept if earlier than the first so far. */
AES_INLINE void aes_seg_keep(size_t at, uint64_t dig, size_t *first, uint64_t *fd)
{
    if (at < *first) {
        *first = at;
        *fd = dig;
    }
}

/* aes_block_fn's contract with AES_SEG_K scalar chains stepped together, each
 * step's K digests tested at once by any(). */
AES_INLINE size_t aes_seg_block(const aes_ctx *c, int kind, const uint8_t *b, uint64_t *d, uint64_t *fd,
                                uint64_t mask, aes_any_fn any, aes_hit1_fn hit)
{
    const uint8_t *w[AES_SEG_K - 1];     /* segment k starts at b + k * AES_SEG_L (constant offsets) */
    uint64_t h[AES_SEG_K];
    for (int k = 1; k < AES_SEG_K; k++)
        w[k - 1] = b + (size_t)k * AES_SEG_L;
    h[0] = *d;
    aes_warm(c, kind, w, h + 1, AES_SEG_K - 1);
    size_t first = AES_SEG_BLOCK;       /* earliest hit so far, relative to the block; BLOCK = none */
    for (size_t t = 0; t < AES_SEG_L; t++) {
        CK_MCA_LOOP_TAG(AES_SEG_K, kind);
        for (int k = 0; k < AES_SEG_K; k++)
            h[k] = aes_roll(c, kind, h[k], b + t + (size_t)k * AES_SEG_L);
        if (__builtin_expect(any(c, h, mask), 0)) {
            int k = 0;
            while (k < AES_SEG_K - 1 && !hit(c, h[k], mask))
                k++;                    /* any() and hit() are the same test: some k hits */
            aes_seg_keep((size_t)k * AES_SEG_L + t, h[k], &first, fd);
            if (k == 0)                 /* every other chain's positions come later */
                break;
        }
    }
    if (first == AES_SEG_BLOCK)
        *d = h[AES_SEG_K - 1];          /* D_{b+BLOCK-1} */
    return first;
}

/* block: NULL for aes_seg_block with any and hit, else a path's own block
 * function (the same contract, e.g. vector chains). */
AES_INLINE int64_t aes_seg_scan(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                uint64_t mask, aes_any_fn any, aes_hit1_fn hit, aes_scan_fn serial,
                                const char *name, aes_block_fn block)
{
    uint64_t d = *st;
    size_t i = 0;
    if (n >= AES_SEG_BLOCK) {
        const uint8_t *w0 = p;
        uint64_t truth;
        aes_warm(c, kind, &w0, &truth, 1);
        if (d != truth)
            goto tail;
    }
    for (; n - i >= AES_SEG_BLOCK; i += AES_SEG_BLOCK) {
        uint64_t fd = 0;
        const size_t first = block ? block(c, p + i, &d, &fd, mask)
                                   : aes_seg_block(c, kind, p + i, &d, &fd, mask, any, hit);
        if (first < AES_SEG_BLOCK) {
            *st = fd;
            return (int64_t)(i + first);
        }
    }
tail:;
    const int64_t r = serial(c, p + i, n - i, &d, mask);
    CK_RECORD(name);        /* the serial path recorded its own name; this scan is still `name`'s */
    *st = d;
    return r < 0 ? r : (int64_t)i + r;
}

#endif
