/* buzhash64 `stride4` kernel: the strided scan of ../stride_roll.h on
 * 64-bit states, portable C (issue 33). */
#include "buzhash64.h"

#define STRIDE_WORD uint64_t
#define STRIDE_BITS 64
#define STRIDE_ROTL buzhash64_rotl
#define STRIDE_FN buzhash64_scan_stride4
#include "../stride_roll.h"
