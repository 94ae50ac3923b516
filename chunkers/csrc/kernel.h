/* The kernel registry shared by all chunker families.
 *
 * Each family lists every kernel name known on this build target, in the
 * order used for error messages. A kernel the compiler could not build has
 * fn == NULL ("not compiled into this build"); one that is built may still
 * need CPU features ("cpu" bits, see cpu.h) that the running CPU lacks. */
#ifndef CHUNKERS_KERNEL_H
#define CHUNKERS_KERNEL_H

#include <stddef.h>

typedef void (*ck_fn)(void);    /* cast back to the family's scan type before calling */

typedef struct {
    const char *name;
    ck_fn fn;                   /* NULL: known name, but not compiled into this build */
    unsigned cpu;               /* CK_CPU_* bits the kernel needs at run time */
} ck_kernel;

/* Build-target switches for the ISA tiers. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CK_X86_64 1
#define CK_TARGET(t) __attribute__((target(t)))
#else
#define CK_X86_64 0
#endif

#if defined(__aarch64__)
#define CK_AARCH64 1
#else
#define CK_AARCH64 0
#endif

#endif
