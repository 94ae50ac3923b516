/* The legacy buzhash scan loop and its driver hooks (spec 04 A.5): the u32
 * hash rides in the driver's u64 state; the low mask is at most 32 bits
 * after truncation (spec 01 §3.1). */
#include "buzhash.h"

size_t buzhash_scan(const buzhash_ctx *c, const uint8_t *pr, const uint8_t *pa, size_t n, uint32_t *sum,
                    uint32_t mask)
{
    uint32_t s = *sum;
    size_t j = 0;
    while (j < n && (s & mask)) {
        s = buzhash_rotl(s, 1) ^ c->table_rot[pr[j]] ^ c->table[pa[j]];
        j++;
    }
    *sum = s;
    return j;
}

static uint64_t window_hash(const void *ctx, const uint8_t *win)
{
    const buzhash_ctx *c = ctx;
    return buzhash_window_hash(c->table, win, c->window);
}

static size_t roll_scan(const void *ctx, const uint8_t *pr, const uint8_t *pa, size_t n, uint64_t *st,
                        uint64_t mask)
{
    uint32_t s = (uint32_t)*st;
    size_t j = buzhash_scan(ctx, pr, pa, n, &s, (uint32_t)mask);
    *st = s;
    return j;
}

void buzhash_scanner(const buzhash_ctx *c, ck_scanner *sc)
{
    sc->ctx = c;
    sc->restart = NULL;
    sc->scan = NULL;
    sc->window_hash = window_hash;
    sc->roll_scan = roll_scan;
    sc->provenance = NULL;     /* a single implementation: nothing to dispatch */
}
