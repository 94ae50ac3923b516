/* The legacy buzhash driver hooks (spec 04 A.5): the u32 hash rides in the
 * driver's u64 state; the low mask is at most 32 bits after truncation
 * (spec 01 §3.1). */
#include "buzhash.h"

static uint64_t window_hash(const void *ctx, const uint8_t *win)
{
    const buzhash_ctx *c = ctx;
    return buzhash_window_hash(c->table, win, c->window);
}

static size_t roll_scan(const void *ctx, const uint8_t *pr, const uint8_t *pa, size_t n, uint64_t *st,
                        uint64_t mask)
{
    const buzhash_ctx *c = ctx;
    uint32_t s = (uint32_t)*st;
    size_t j = c->scan(c->table, c->table_rot, pr, pa, n, &s, (uint32_t)mask);
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
    sc->provenance = ck_provenance_take;
    sc->provenance_source = ck_provenance_source;
}
