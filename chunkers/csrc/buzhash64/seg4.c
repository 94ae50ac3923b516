/* buzhash64 `seg4` kernel: the segment-parallel scan of ../seg_roll.h on
 * 64-bit states, portable C (issue 13). */
#include "buzhash64.h"

#define SEG_WORD uint64_t
#define SEG_ROTL buzhash64_rotl
#define SEG_FN buzhash64_scan_seg4
#include "../seg_roll.h"
