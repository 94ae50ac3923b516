/* The buzhash64 kernel registry: every row of kernels.def, of every build target (format and
 * expansion: ../kernel.h). */
#include "buzhash64.h"
#include "../cpu.h"

const ck_kernel buzhash64_kernels[] = {
#define CK_KERNEL(...) CK_ROW("buzhash64", __VA_ARGS__)
#include "kernels.def"
#undef CK_KERNEL
};

const size_t buzhash64_kernel_count = sizeof buzhash64_kernels / sizeof buzhash64_kernels[0];
