/* The fastcdc kernel registry: every row of kernels.def, of every build target (format and
 * expansion: ../kernel.h). */
#include "fastcdc.h"
#include "../cpu.h"

const ck_kernel fastcdc_kernels[] = {
#define CK_KERNEL(...) CK_ROW("fastcdc", __VA_ARGS__)
#include "kernels.def"
#undef CK_KERNEL
};

const size_t fastcdc_kernel_count = sizeof fastcdc_kernels / sizeof fastcdc_kernels[0];
