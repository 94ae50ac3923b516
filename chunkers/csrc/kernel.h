/* The kernel registry shared by all chunker families.
 *
 * A family's kernel list, <family>/kernels.def, is the only place its kernels
 * are named: one X-macro row per kernel of every build target,
 *
 *   CK_KERNEL(name, symbol, target, built, cpu, freestanding, reference, rank_x86_64, rank_aarch64, rank_other)
 *
 *   name          registry name (kernel=, the selector variable, CK_PROVENANCE)
 *   symbol        its function, defined in <family>/<name>.c
 *   target        X86_64, AARCH64 or PORTABLE: the build target it belongs to
 *   built         0 or 1 (a macro such as AES_HAVE_VAES): this compiler builds it
 *                 when the target is this build's
 *   cpu           CK_CPU_* bits (cpu.h) it needs at run time
 *   freestanding  NULL: verified natively only; else the x86-64 emulator
 *                 (conformance/tools/emulate) builds it freestanding, with the files
 *                 of the kernels named here (space-separated) that it calls
 *   reference     1 for the family's reference kernel, else 0: exactly one row
 *                 of every list, portable and needing no CPU feature (the
 *                 kernel the others are checked against: the sequential
 *                 loop, OpenSSL's evp for AES; chunkers.registry.reference)
 *   rank_*        its place in the default order on x86-64, aarch64 and any
 *                 other machine: the first runnable of rank 1, 2, ... is the
 *                 default; 0 never is (measured, docs/kernels.md "Built-in defaults")
 *
 * The family header includes the list to declare every symbol and its name
 * (CK_DECLARE), kernels.c to build the registry <family>_kernels[] (CK_ROW),
 * so adding a kernel is one C file and one row. Rows are kept in the order
 * used for error messages. */
#ifndef CHUNKERS_KERNEL_H
#define CHUNKERS_KERNEL_H

#include <stddef.h>

typedef void (*ck_fn)(void);    /* cast back to the family's scan type before calling */

/* One row of a kernel list as compiled. name, fn, cpu and here come first and
 * stay there: conformance.tools.isa reads them out of the compiled extension. */
typedef struct {
    const char *name;
    ck_fn fn;                   /* NULL: not compiled into this build (here == 0: another target's kernel;
                                 * here == 1: the compiler could not build it) */
    unsigned cpu;               /* CK_CPU_* bits the kernel needs at run time */
    int here;                   /* a kernel of this build target (portable ones are everywhere) */
    const char *symbol;
    const char *source;         /* its C file under csrc */
    const char *target;         /* "x86-64", "aarch64" or "portable" */
    const char *freestanding;   /* NULL, or the kernels whose files its freestanding image also needs */
    unsigned char rank[3];      /* rank_x86_64, rank_aarch64, rank_other */
    int reference;              /* 1: the family's reference kernel (one row of each list) */
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

/* Row expansions (see the top of this file). CK_SEL(c, a, b) is a when the
 * macro c expands to 1 and b when it is 0: a kernel not built here is a row
 * with fn == NULL, never a reference to a function that is not there. */
#define CK_HERE_X86_64 CK_X86_64
#define CK_HERE_AARCH64 CK_AARCH64
#define CK_HERE_PORTABLE 1
#define CK_TARGET_NAME_X86_64 "x86-64"
#define CK_TARGET_NAME_AARCH64 "aarch64"
#define CK_TARGET_NAME_PORTABLE "portable"
#define CK_SEL(c, a, b) CK_SEL_(c, a, b)
#define CK_SEL_(c, a, b) CK_SEL_##c(a, b)
#define CK_SEL_0(a, b) b
#define CK_SEL_1(a, b) a

/* The registry row of a kernel of ``family`` (a string literal, its directory). */
#define CK_ROW(family, name, symbol, target, built, cpu, freestanding, reference, rank_x86_64, rank_aarch64, \
               rank_other) \
    {name, CK_SEL(CK_HERE_##target, CK_SEL(built, (ck_fn)symbol, NULL), NULL), cpu, CK_HERE_##target, #symbol, \
     family "/" name ".c", CK_TARGET_NAME_##target, freestanding, {rank_x86_64, rank_aarch64, rank_other}, reference},

/* Declares a kernel's function (``type``: the family's scan function type)
 * and ck_name_<symbol>, its name for CK_PROVENANCE: every file including the
 * family header gets them all and uses at most its own, hence "unused". */
#define CK_DECLARE(type, name, symbol) \
    type symbol; \
    static const char ck_name_##symbol[] __attribute__((unused)) = name;

/* Provenance: which kernel's code ran (docs/kernels.md "Adding a kernel tier").
 * The first statement of every kernel function is CK_PROVENANCE(<its symbol>),
 * which records the name of its row: one store of a constant pointer into a
 * per-thread slot, so a registry row that points at another tier's function
 * is seen by the caller (impls.provenance) even though its output is
 * identical. ck_provenance_take() returns the name recorded in this thread
 * since the last take (NULL if no kernel ran) and clears the slot
 * (provenance.c). In the freestanding emulator image
 * (conformance/tools/emulate/blob.py, one thread) the slot is the plain global
 * ck_ran, read from guest memory; weak because every kernel object of the
 * image defines it.
 * Beside the name, CK_RECORD stores the translation unit the recording code
 * was compiled from (__BASE_FILE__, e.g. "chunkers/csrc/fastcdc/scalar.c") in
 * ck_ran_file, which take leaves alone (ck_provenance_source() reads it): a
 * row whose function is another row's code that records this row's name (two
 * rows of one list with their symbols swapped) still names the other file. */
#if defined(__STDC_HOSTED__) && !__STDC_HOSTED__
__attribute__((weak)) const char *ck_ran;
__attribute__((weak)) const char *ck_ran_file;
#else
extern _Thread_local const char *ck_ran __attribute__((visibility("hidden")));
extern _Thread_local const char *ck_ran_file __attribute__((visibility("hidden")));
const char *ck_provenance_take(void);
const char *ck_provenance_source(void);
#endif
/* The hot loop of a kernel, marked for static analysis (conformance/tools/mca.py): first in
 * the loop body, it expands to nothing, or under -DCK_MCA (that tool's -O3 builds only) to an
 * assembler comment "# ck-mca-loop <bytes> <tag>": the input bytes one pass of the body scans,
 * and which instance of a shared loop it is (the AES loops: the UHF kind); both must be
 * constants once inlined. */
#ifdef CK_MCA
#define CK_MCA_LOOP_TAG(bytes, tag) __asm__ volatile("# ck-mca-loop %c0 %c1" ::"i"(bytes), "i"(tag))
#else
#define CK_MCA_LOOP_TAG(bytes, tag) ((void)0)
#endif
#define CK_MCA_LOOP(bytes) CK_MCA_LOOP_TAG(bytes, 0)

#define CK_NAME(symbol) CK_NAME_(symbol)        /* expands a macro argument such as SEG_FN first */
#define CK_NAME_(symbol) ck_name_##symbol
#define CK_PROVENANCE(symbol) CK_RECORD(CK_NAME(symbol))
#define CK_RECORD(name) (ck_ran = (name), ck_ran_file = __BASE_FILE__)  /* a name CK_NAME gave, passed on
                                                                           * (aes/segments.h) */

#endif
