/* buzhash64's driver hooks (spec 03 §6): the window hash at each chunk's
 * min_size offset, then test-then-roll with the selected kernel. */
#include "buzhash64.h"

static uint64_t window_hash(const void *ctx, const uint8_t *win)
{
    const buzhash64_ctx *c = ctx;
    return buzhash64_window_hash(c->table, win, c->window);
}

static size_t roll_scan(const void *ctx, const uint8_t *pr, const uint8_t *pa, size_t n, uint64_t *st,
                        uint64_t mask)
{
    const buzhash64_ctx *c = ctx;
    return c->scan(c->table, c->table_rot, pr, pa, n, st, mask);
}

void buzhash64_scanner(const buzhash64_ctx *ctx, ck_scanner *sc)
{
    sc->ctx = ctx;
    sc->restart = NULL;
    sc->scan = NULL;
    sc->window_hash = window_hash;
    sc->roll_scan = roll_scan;
    sc->provenance = ck_provenance_take;
    sc->provenance_source = ck_provenance_source;
}
