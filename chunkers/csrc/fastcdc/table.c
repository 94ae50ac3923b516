/* The keyed Gear table (spec 02 §2): G[i] = LE64 of keystream bytes 8i .. 8i+7. */
#include "fastcdc.h"
#include "../csprng.h"

int fastcdc_gear_table(const uint8_t key[32], uint64_t gear[256])
{
    ck_csprng g;
    uint8_t z[2048];
    if (ck_csprng_init(&g, key))
        return -1;
    int rc = ck_csprng_bytes(&g, z, sizeof z);
    ck_csprng_free(&g);
    for (int i = 0; i < 256; i++)
        gear[i] = ck_le64(z + 8 * i);
    return rc;
}
