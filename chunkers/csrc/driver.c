/* The chunking driver (spec 01 §5.3 window-less, 03 §6.2 windowed). */
#include <string.h>
#include "driver.h"

static size_t windowless(const ck_params *prm, const ck_scanner *sc, ck_cursor *cur, const uint8_t *p,
                         size_t avail, int eof)
{
    if (!cur->started) {
        if (avail <= prm->min_size)     /* final short chunk: nothing is hashed */
            return eof ? avail : CK_NEED_MORE;
        cur->st = sc->restart(sc->ctx, p, prm->min_size);
        cur->off = prm->min_size;
        cur->started = 1;
    }
    const size_t lim = avail < prm->max_size ? avail : prm->max_size;
    while (cur->off < lim) {
        const size_t k = cur->off;
        const int strict = prm->nc && k < prm->normal_size;
        size_t end = lim;
        if (strict && prm->normal_size < end)
            end = prm->normal_size;     /* re-select the mask there; the state carries on */
        const int64_t r = sc->scan(sc->ctx, p + k, end - k, &cur->st, strict ? prm->mask_s : prm->mask_l);
        if (r == -2)
            return CK_SCAN_FAILED;
        if (r >= 0) {
            cur->started = 0;
            return k + (size_t)r + 1;   /* cut right after the matching byte */
        }
        cur->off = end;
    }
    if (eof || avail >= prm->max_size) {
        cur->started = 0;
        return lim;                     /* forced cut: max_size or end of data */
    }
    return CK_NEED_MORE;
}

static size_t windowed(const ck_params *prm, const ck_scanner *sc, ck_cursor *cur, const uint8_t *p,
                       size_t avail, int eof)
{
    const size_t w = prm->window;
    if (!cur->started) {
        if (avail <= prm->min_size + w) /* final chunk, never hashed */
            return eof ? avail : CK_NEED_MORE;
        cur->st = sc->window_hash(sc->ctx, p + prm->min_size);
        cur->off = prm->min_size;
        cur->started = 1;
    }
    const size_t lim = avail < prm->max_size ? avail : prm->max_size;
    /* Tested window starts k satisfy k + w < lim: the byte entering the
     * window after k lies inside the chunk and the data. */
    while (cur->off + w < lim) {
        const size_t k = cur->off;
        const int strict = prm->nc && k < prm->normal_size;
        size_t end = lim - w;
        if (strict && prm->normal_size < end)
            end = prm->normal_size;
        const size_t n = end - k;
        const size_t j = sc->roll_scan(sc->ctx, p + k, p + k + w, n, &cur->st,
                                       strict ? prm->mask_s : prm->mask_l);
        cur->off = k + j;
        if (j < n) {
            cur->started = 0;
            return k + j;               /* cut before the matching window */
        }
    }
    if (eof || avail >= prm->max_size) {
        cur->started = 0;
        return lim;
    }
    return CK_NEED_MORE;
}

size_t ck_next_cut(const ck_params *prm, const ck_scanner *sc, ck_cursor *cur, const uint8_t *p, size_t avail,
                   int eof)
{
    return prm->window ? windowed(prm, sc, cur, p, avail, eof) : windowless(prm, sc, cur, p, avail, eof);
}

int ck_all_zero(const uint8_t *p, size_t n)
{
    /* Check the first 16 bytes, then compare the buffer with itself shifted
     * by 16: all zero iff the head is zero and every byte equals the one 16
     * before it. memcmp is vectorized by libc. */
    size_t head = n < 16 ? n : 16;
    for (size_t i = 0; i < head; i++)
        if (p[i])
            return 0;
    return n <= 16 || memcmp(p, p + 16, n - 16) == 0;
}
