/* toeplitz-aes derived tables (spec 07 §5-6): IN1 = x*T, OUT64 = x^64*T, OUT65 = x^65*T mod P_T. */
#include "toeplitz.h"

void toeplitz_init(toeplitz_tables *t)
{
    for (int b = 0; b < 256; b++) {
        uint64_t v = t->T[b];
        t->IN1[b] = toeplitz_mulx(v);
        for (int k = 0; k < 64; k++)
            v = toeplitz_mulx(v);
        t->OUT64[b] = v;
        t->OUT65[b] = toeplitz_mulx(v);
    }
}
