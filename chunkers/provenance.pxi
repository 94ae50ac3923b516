# Included by each family's extension (fastcdc, buzhash64, aes): every extension has its own
# per-thread provenance slot (csrc/kernel.h, CK_PROVENANCE), so each needs its own reader.
from chunkers._native cimport ck_provenance_source, ck_provenance_take


def last_kernel():
    """Registry name (str) of the kernel whose own code ran the last scan of this family in this
    thread since the previous call, recorded by the kernel function itself (CK_PROVENANCE); None if
    no kernel of this family ran since. Clears the record. What the conformance suite compares with
    the kernel it asked for, since a dispatch fault gives identical output."""
    cdef const char *ran = ck_provenance_take()
    return ran.decode() if ran != NULL else None


def last_kernel_source():
    """Source file (str, as given to the compiler: ``chunkers/csrc/<family>/<kernel>.c``) of the
    code of the last kernel of this family run in this thread, recorded with its name
    (CK_PROVENANCE); None if none ran yet. Not cleared by :func:`last_kernel`. A row whose function
    records the row's name but was compiled from another row's file is seen here."""
    cdef const char *src = ck_provenance_source()
    return src.decode() if src != NULL else None
