/* Legacy buzhash `seg4` kernel: the segment-parallel scan of ../seg_roll.h
 * on 32-bit states, portable C (issue 13). */
#include "buzhash.h"

#define SEG_WORD uint32_t
#define SEG_ROTL buzhash_rotl
#define SEG_FN buzhash_scan_seg4
#include "../seg_roll.h"
