/* The per-thread provenance slot of the kernels compiled into this extension
 * (kernel.h: CK_PROVENANCE). Each extension has its own slot; the driver
 * reaches it through ck_scanner.provenance. */
#include "kernel.h"

_Thread_local const char *ck_ran;
_Thread_local const char *ck_ran_file;

const char *ck_provenance_take(void)
{
    const char *ran = ck_ran;
    ck_ran = NULL;
    return ran;
}

const char *ck_provenance_source(void)
{
    return ck_ran_file;
}
