/* The UHF steps of every scan path, chosen by c->kind (spec 06 §7.2, §8.1).
 *
 * Each kernel's core is an always-inline function of a compile-time kind;
 * AES_DISPATCH instantiates it once per UHF, so the per-byte steps carry no
 * run-time switch. Positions are addressed by a pointer x into the input:
 * roll gives D_x from D_{x-1} (x[-64] leaves, x[0] enters); roll2 gives
 * D_{x+1} from D_{x-1} (x[-64], x[-63] leave; x[0], x[1] enter). */
#ifndef CHUNKERS_AES_UHF_H
#define CHUNKERS_AES_UHF_H

#include "aes.h"

#define AES_INLINE static inline __attribute__((always_inline))

AES_INLINE uint64_t aes_roll(const aes_ctx *c, int kind, uint64_t d, const uint8_t *x)
{
    switch (kind) {
    case AES_TOEPLITZ:
        return toeplitz_roll(&c->uhf.t, d, x[-64], x[0]);
    case AES_RABIN:
        return rabin_roll(&c->uhf.r, d, x[-64], x[0]);
    default:
        return goldilocks_roll(&c->uhf.g, d, x[-64], x[0]);
    }
}

AES_INLINE uint64_t aes_roll2(const aes_ctx *c, int kind, uint64_t d, const uint8_t *x)
{
    switch (kind) {
    case AES_TOEPLITZ:
        return toeplitz_roll2(&c->uhf.t, d, x[-64], x[-63], x[0], x[1]);
    case AES_RABIN:
        return rabin_roll2(&c->uhf.r, d, x[-64], x[-63], x[0], x[1]);
    default:
        return goldilocks_roll2(&c->uhf.g, d, x[-64], x[-63], x[0], x[1]);
    }
}

/* The digest walk: consecutive digests two at a time, by the cheapest
 * schedule per UHF (measured; all give the same digests):
 *   toeplitz-aes: one chain of single rolls (a 3-cycle dependency per step);
 *   rabin-aes: a stride-2 chain (roll2) with the odd digests rolled off it;
 *   goldilocks-aes: the two stride-2 lanes of 06 §8.1 (the 64x64-bit product
 *   makes every step long, so two chains run side by side).
 * w->ev is D_x; w->od is D_{x+1} (goldilocks only). */
typedef struct {
    uint64_t ev, od;
} aes_walk;

/* Start at position x from d = D_{x-1}; reads x[-64 .. 1]. */
AES_INLINE void aes_walk_start(const aes_ctx *c, int kind, aes_walk *w, uint64_t d, const uint8_t *x)
{
    w->ev = aes_roll(c, kind, d, x);
    if (kind == AES_GOLDILOCKS)
        w->od = aes_roll2(c, kind, d, x);
}

/* With w at position x: *e = D_x, *o = D_{x+1}; then move w to x + 2. Reads x[-63 .. 3]. */
AES_INLINE void aes_walk_pair(const aes_ctx *c, int kind, aes_walk *w, const uint8_t *x, uint64_t *e, uint64_t *o)
{
    *e = w->ev;
    switch (kind) {
    case AES_TOEPLITZ:
        *o = aes_roll(c, kind, w->ev, x + 1);
        w->ev = aes_roll(c, kind, *o, x + 2);
        break;
    case AES_RABIN:
        *o = aes_roll(c, kind, w->ev, x + 1);
        w->ev = aes_roll2(c, kind, w->ev, x + 1);
        break;
    default:
        *o = w->od;
        w->ev = aes_roll2(c, kind, w->ev, x + 1);
        w->od = aes_roll2(c, kind, w->od, x + 2);
    }
}

/* The m >= 1 digests D_x[0] .. D_x[m-1] into out, from d = D_{x-1}. Reads x[-64 .. m-1]. */
AES_INLINE void aes_digest_run(const aes_ctx *c, int kind, const uint8_t *x, size_t m, uint64_t d, uint64_t *out)
{
    size_t j = 0;
    if (m >= 4) {
        aes_walk w;
        aes_walk_start(c, kind, &w, d, x);
        for (; j + 4 <= m; j += 2)
            aes_walk_pair(c, kind, &w, x + j, &out[j], &out[j + 1]);
        d = out[j++] = w.ev;            /* D_{x+j}, j < m */
    }
    for (; j < m; j++)
        d = out[j] = aes_roll(c, kind, d, x + j);
}

/* Instantiate core(c, kind, p, n, st, mask) for the context's UHF and return its result. */
#define AES_DISPATCH(core, c, p, n, st, mask)                                   \
    switch ((c)->kind) {                                                        \
    case AES_TOEPLITZ:                                                          \
        return core(c, AES_TOEPLITZ, p, n, st, mask);                           \
    case AES_RABIN:                                                             \
        return core(c, AES_RABIN, p, n, st, mask);                              \
    default:                                                                    \
        return core(c, AES_GOLDILOCKS, p, n, st, mask);                         \
    }

#endif
