/* The group loop shared by the hardware scan paths (spec 06 §8.2).
 *
 * Each group of G positions comes from the digest walk (uhf.h), which then
 * stands at the next group (so a group needs i + G + 2 <= n: the look-ahead
 * reads bytes below p + n only), and is encrypted and tested by the path's
 * group function. The rest of the span, if any, goes one position at a time
 * through the path's single-block test, starting with the walk's digest. The
 * first hit in position order wins; results never depend on G or the walk. */
#ifndef CHUNKERS_AES_GROUP_H
#define CHUNKERS_AES_GROUP_H

#include "uhf.h"

#define AES_GROUP_MAX 32

/* Encrypt one group: e[k] = D_{2k}, o[k] = D_{2k+1} (relative to the group
 * start, k < G/2). Returns the hit bits in position order (bit j: position j). */
typedef uint64_t (*aes_group_fn)(const aes_ctx *c, const uint64_t *e, const uint64_t *o, uint64_t mask);
/* 1 iff digest d is a hit under mask. */
typedef int (*aes_hit_fn)(const aes_ctx *c, uint64_t d, uint64_t mask);

AES_INLINE int64_t aes_group_scan(const aes_ctx *c, int kind, const uint8_t *p, size_t n, uint64_t *st,
                                  uint64_t mask, size_t G, aes_group_fn group, aes_hit_fn hit)
{
    uint64_t d = *st;
    size_t i = 0;
    if (n >= G + 2) {
        aes_walk w;
        uint64_t e[AES_GROUP_MAX / 2], o[AES_GROUP_MAX / 2];
        aes_walk_start(c, kind, &w, d, p);
        for (; i + G + 2 <= n; i += G) {
            CK_MCA_LOOP_TAG(G, kind);
            for (size_t k = 0; k < G / 2; k++)
                aes_walk_pair(c, kind, &w, p + i + 2 * k, &e[k], &o[k]);
            const uint64_t hits = group(c, e, o, mask);
            if (hits) {
                const unsigned j = (unsigned)__builtin_ctzll(hits);
                *st = j & 1 ? o[j >> 1] : e[j >> 1];
                return (int64_t)(i + j);
            }
        }
        d = w.ev;               /* D_{p+i}, i < n */
        if (hit(c, d, mask)) {
            *st = d;
            return (int64_t)i;
        }
        i++;
    }
    for (; i < n; i++) {
        d = aes_roll(c, kind, d, p + i);
        if (hit(c, d, mask)) {
            *st = d;
            return (int64_t)i;
        }
    }
    *st = d;
    return -1;
}

#endif
