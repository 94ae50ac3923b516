/* The AES chunkers' driver hooks (spec 06 §7): restart() is the full digest
 * of the 64 bytes before the first tested position; scan is the selected path. */
#include "aes.h"

uint64_t aes_digest(const aes_ctx *c, const uint8_t *w)
{
    switch (c->kind) {
    case AES_TOEPLITZ:
        return toeplitz_digest(&c->uhf.t, w);
    case AES_RABIN:
        return rabin_digest(&c->uhf.r, w);
    default:
        return goldilocks_digest(&c->uhf.g, w);
    }
}

static uint64_t restart(const void *ctx, const uint8_t *chunk, size_t min_size)
{
    const aes_hooks *h = ctx;
    return aes_digest(h->ctx, chunk + min_size - AES_WINDOW);
}

static int64_t scan(const void *ctx, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
{
    const aes_hooks *h = ctx;
    return h->scan(h->ctx, p, n, st, mask);
}

void aes_scanner(const aes_hooks *h, ck_scanner *sc)
{
    sc->ctx = h;
    sc->restart = restart;
    sc->scan = scan;
    sc->window_hash = NULL;
    sc->roll_scan = NULL;
    sc->provenance = ck_provenance_take;
    sc->provenance_source = ck_provenance_source;
}
