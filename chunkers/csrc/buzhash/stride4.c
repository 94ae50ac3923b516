/* Legacy buzhash `stride4` kernel: the strided scan of ../stride_roll.h on
 * 32-bit states, portable C (issue 33). */
#include "buzhash.h"

#define STRIDE_WORD uint32_t
#define STRIDE_BITS 32
#define STRIDE_ROTL buzhash_rotl
#define STRIDE_FN buzhash_scan_stride4
#include "../stride_roll.h"
