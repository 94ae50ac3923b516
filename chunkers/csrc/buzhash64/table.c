/* The balanced keyed buzhash64 table (spec 03 §2) and its rotated twin (§4). */
#include <string.h>
#include "buzhash64.h"
#include "../csprng.h"

int buzhash64_table(const uint8_t key[32], uint64_t table[256])
{
    ck_csprng g;
    if (ck_csprng_init(&g, key))
        return -1;
    memset(table, 0, 256 * sizeof table[0]);
    int rc = 0;
    for (unsigned bit = 0; bit < 64 && !rc; bit++) {
        uint8_t l[256];
        for (int i = 0; i < 256; i++)
            l[i] = (uint8_t)i;
        rc = ck_csprng_shuffle(&g, l, 256);
        for (int i = 0; i < 128; i++)
            table[l[i]] |= (uint64_t)1 << bit;
    }
    ck_csprng_free(&g);
    return rc;
}

void buzhash64_rotated_table(const uint64_t table[256], size_t window, uint64_t rotated[256])
{
    for (int i = 0; i < 256; i++)
        rotated[i] = buzhash64_rotl(table[i], (unsigned)(window & 63));
}

uint64_t buzhash64_window_hash(const uint64_t table[256], const uint8_t *win, size_t w)
{
    uint64_t h = 0;
    for (size_t t = 0; t < w; t++)
        h ^= buzhash64_rotl(table[win[t]], (unsigned)((w - 1 - t) & 63));
    return h;
}
