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

/* Provenance: which kernel's code ran (README "Adding a kernel tier").
 * The first statement of every kernel function is CK_PROVENANCE("<its
 * registry name>"): one store of a constant pointer into a per-thread slot,
 * so a registry row that points at another tier's function is seen by the
 * caller (conformance.provenance) even though its output is identical.
 * ck_provenance_take() returns the name recorded in this thread since the
 * last take (NULL if no kernel ran) and clears the slot (provenance.c).
 * In the freestanding emulator image (conformance/emulate/blob.py, one
 * thread) the slot is the plain global ck_ran, read from guest memory; weak
 * because every kernel object of the image defines it. */
#if defined(__STDC_HOSTED__) && !__STDC_HOSTED__
__attribute__((weak)) const char *ck_ran;
#else
extern _Thread_local const char *ck_ran __attribute__((visibility("hidden")));
const char *ck_provenance_take(void);
#endif
#define CK_PROVENANCE(name) (ck_ran = (name))

#endif
