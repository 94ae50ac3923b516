# cython: language_level=3, boundscheck=False, wraparound=False
"""The CPU's features and a family's compiled kernel list (csrc/<family>/kernels.def) as Python rows:
what the chunker extensions export to chunkers.registry, and the table copy their scan entry points
share."""

from array import array

from libc.string cimport memcpy
from libc.stdint cimport uint64_t
from chunkers.bufview cimport byte_buffer, PyBuffer_Release
from chunkers._native cimport ck_kernel, ck_cpu_features, ck_cpu_feature_name, CK_CPU_FEATURE_COUNT


def cpu_features(known=False):
    """The CPU features usable here (and saved by the OS), as a frozenset of names; with
    ``known``, every feature name the kernels can require, present or not."""
    cdef unsigned f = ck_cpu_features()
    return frozenset(ck_cpu_feature_name(i).decode() for i in range(CK_CPU_FEATURE_COUNT)
                     if known or f & (1u << i))


cdef tuple kernel_table(const ck_kernel *kernels, size_t count):
    """Every row of a family's C registry (its kernels.def, every build target) as a
    chunkers.kernelrow.Kernel (chunkers.registry.Kernel), all columns."""
    from chunkers.kernelrow import RANKED, Kernel
    cdef size_t i
    cdef unsigned b
    cdef const ck_kernel *k
    out = []
    for i in range(count):
        k = &kernels[i]
        needs = tuple(ck_cpu_feature_name(b).decode() for b in range(CK_CPU_FEATURE_COUNT) if k.cpu & (1u << b))
        calls = None if k.freestanding == NULL else tuple(k.freestanding.decode().split())
        out.append(Kernel(k.name.decode(), k.symbol.decode(), k.source.decode(), k.target.decode(), bool(k.here),
                          k.fn != NULL, needs, calls, {m: k.rank[j] for j, m in enumerate(RANKED)},
                          k.reference != 0))
    return tuple(out)


cdef size_t kernel_index(const ck_kernel *kernels, size_t count, str name) except? 0:
    """Index of the kernel called ``name`` in a family's C registry (it must be there)."""
    cdef size_t i
    for i in range(count):
        if kernels[i].name.decode() == name:
            return i
    raise KeyError(name)


cdef int copy_table(table, uint64_t *out, str what) except -1:
    """Copy a 256-entry u64 table (a sequence of ints, or an ``array('Q')``,
    copied at once) into ``out``; ValueError naming ``what`` for another length.
    The array form is for callers that scan many times (fuzz/scan_diff.py):
    converting 256 ints costs more than a short scan."""
    if len(table) != 256:
        raise ValueError(f"{what} must have 256 entries, got {len(table)}")
    cdef Py_buffer flat
    if isinstance(table, array) and table.typecode == "Q":
        byte_buffer(table, &flat)                 # not a typed memoryview: see chunkers/bufview.pxd
        memcpy(out, flat.buf, 256 * sizeof(uint64_t))
        PyBuffer_Release(&flat)
        return 0
    for i in range(256):
        out[i] = table[i]
    return 0
