/* fastcdc's driver hooks (spec 02 §7): restart() = 0, scan = the selected kernel. */
#include "fastcdc.h"

static uint64_t restart(const void *ctx, const uint8_t *chunk, size_t min_size)
{
    (void)ctx, (void)chunk, (void)min_size;
    return 0;
}

static int64_t scan(const void *ctx, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    const fastcdc_ctx *c = ctx;
    return c->scan(c->gear, p, n, st, mask);
}

void fastcdc_scanner(const fastcdc_ctx *ctx, ck_scanner *sc)
{
    sc->ctx = ctx;
    sc->restart = restart;
    sc->scan = scan;
    sc->window_hash = NULL;
    sc->roll_scan = NULL;
    sc->provenance = ck_provenance_take;
    sc->provenance_source = ck_provenance_source;
}
