/* The legacy buzhash kernel registry, in the order shown in error messages
 * (spec 01 §11.2): both portable, so no CPU features. `single` keeps the
 * name it had as the one implementation. */
#include "buzhash.h"

const ck_kernel buzhash_kernels[] = {
    {"seg4", (ck_fn)buzhash_scan_seg4, 0},
    {"single", (ck_fn)buzhash_scan_single, 0},
};

const size_t buzhash_kernel_count = sizeof buzhash_kernels / sizeof buzhash_kernels[0];
