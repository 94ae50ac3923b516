/* The legacy buzhash kernel registry: every row of kernels.def, of every build target (format and
 * expansion: ../kernel.h). */
#include "buzhash.h"
#include "../cpu.h"

const ck_kernel buzhash_kernels[] = {
#define CK_KERNEL(...) CK_ROW("buzhash", __VA_ARGS__)
#include "kernels.def"
#undef CK_KERNEL
};

const size_t buzhash_kernel_count = sizeof buzhash_kernels / sizeof buzhash_kernels[0];
