/* The AES kernel registry (one selector for all three AES chunkers): every
 * row of kernels.def, of every build target (format and expansion:
 * ../kernel.h). */
#include "aes.h"
#include "../cpu.h"

const ck_kernel aes_kernels[] = {
#define CK_KERNEL(...) CK_ROW("aes", __VA_ARGS__)
#include "kernels.def"
#undef CK_KERNEL
};

const size_t aes_kernel_count = sizeof aes_kernels / sizeof aes_kernels[0];
