# cython: language_level=3, boundscheck=False, wraparound=False
"""buzhash64: balanced keyed table, 64-bit rolling window hash, low-bit
masks, test-then-roll driver (spec 03).

Kernels: csrc/buzhash64/kernels.def (the list, their targets and the default
per machine) and docs/kernels.md.
"""

from libc.stdint cimport uint8_t, uint64_t
from chunkers._native cimport ck_kernel, ck_scanner
from chunkers.driver cimport Chunker
from chunkers.kerneltable cimport copy_table, kernel_table, kernel_index
from chunkers.bufview cimport byte_buffer, PyBuffer_Release
from chunkers.sources import check_sparse

include "provenance.pxi"
from chunkers.registry import register_kernels, resolve
from chunkers.params import check_common, check_key, check_window, nc_masks

cdef extern from "csrc/buzhash64/buzhash64.h":
    ctypedef size_t (*buzhash64_scan_fn)(const uint64_t *table, const uint64_t *table_rot, const uint8_t *pr,
                                         const uint8_t *pa, size_t n, uint64_t *sum, uint64_t mask)
    ctypedef struct buzhash64_ctx:
        uint64_t table[256]
        uint64_t table_rot[256]
        size_t window
        buzhash64_scan_fn scan
    void buzhash64_scanner(const buzhash64_ctx *ctx, ck_scanner *sc)
    int buzhash64_table(const uint8_t *key, uint64_t *table)
    void buzhash64_rotated_table(const uint64_t *table, size_t window, uint64_t *rotated)
    uint64_t buzhash64_window_hash(const uint64_t *table, const uint8_t *win, size_t w)
    const ck_kernel buzhash64_kernels[]
    const size_t buzhash64_kernel_count

KERNELS = kernel_table(buzhash64_kernels, buzhash64_kernel_count)
"""Every buzhash64 kernel of every build target (chunkers.registry.Kernel rows of csrc/buzhash64/kernels.def,
whose rank columns set the default per machine)."""

register_kernels("buzhash64", KERNELS)


cdef buzhash64_scan_fn _kernel(str name) except NULL:
    return <buzhash64_scan_fn>buzhash64_kernels[kernel_index(buzhash64_kernels, buzhash64_kernel_count, name)].fn


cdef _fill_table(key, uint64_t *table):
    check_key(key)
    cdef const uint8_t[::1] k = key
    if buzhash64_table(&k[0], table):
        raise MemoryError("buzhash64: OpenSSL could not set up the key stream")


def table(key):
    """The balanced keyed table (spec 03 §2): 256 u64 ints, from a 32-byte ``key``.

    Raises TypeError if ``key`` is not bytes, ValueError if not 32 bytes long.
    """
    cdef uint64_t t[256]
    _fill_table(key, t)
    return [t[i] for i in range(256)]


def window_hash(table, window):
    """The hash of the bytes-like ``window`` (oldest byte first) under ``table`` (spec 03 §3)."""
    cdef uint64_t t[256]
    copy_table(table, t, "table")
    cdef Py_buffer w
    byte_buffer(window, &w)
    try:
        return buzhash64_window_hash(t, <const uint8_t *>w.buf if w.len else NULL, w.len)
    finally:
        PyBuffer_Release(&w)


def scan(table, size_t window, data, uint64_t state, uint64_t mask, kernel):
    """Run one buzhash64 scan kernel (spec 03 §5).

    ``table``: 256 u64 ints (a sequence, or an ``array('Q')``: copied at once); ``window``: w >= 1; ``data``: bytes-like holding
    the bytes pr[0 .. n+w-1] (the window at pr[0] and the n bytes that enter
    after it), so ``n = len(data) - window`` steps; ``state``: hash of the
    window at pr[0]; ``mask``: any u64; ``kernel``: a kernel name. Returns
    ``(j, exit_state)``: j steps were made and exit_state is the hash of the
    window at pr[j]; it matches the mask if j < n, and is untested if j == n.
    Raises ValueError if the kernel cannot run here, the table is not 256
    entries, window < 1 or data is shorter than the window.
    """
    if kernel is None:
        raise TypeError("scan needs an explicit kernel name")
    cdef buzhash64_scan_fn fn = _kernel(resolve("buzhash64", kernel))
    cdef uint64_t t[256]
    cdef uint64_t tr[256]
    copy_table(table, t, "table")
    cdef Py_buffer d
    byte_buffer(data, &d)
    cdef const uint8_t *p = <const uint8_t *>d.buf
    cdef size_t n
    cdef uint64_t st = state
    cdef size_t j
    try:
        if window < 1 or <size_t>d.len < window:
            raise ValueError(f"need window >= 1 and len(data) >= window, got window={window}, len={d.len}")
        buzhash64_rotated_table(t, window, tr)
        n = d.len - window
        j = fn(t, tr, p, p + window, n, &st, mask) if n else 0
    finally:
        PyBuffer_Release(&d)
    return j, st


cdef class BuzHash64(Chunker):
    """buzhash64 chunker (spec 03), compatible with borg 2.0.0b25's ChunkerBuzHash64.

    ``key``: 32 bytes. Chunk sizes 2**chunk_min_exp .. 2**chunk_max_exp bytes
    (a hash cut can make a chunk of exactly 2**min). ``hash_mask_bits``: cut
    probability 2**-bits per window (low-bit mask). ``hash_window_size``: w
    bytes, w + 2**min + 1 <= 2**max. ``nc_level`` / ``normal_size`` (bytes,
    0 = automatic): normalized chunking. ``kernel``: scan kernel name, else
    $CHUNKERS_BUZHASH64_KERNEL, else the default. ``sparse``: read file
    holes as zeros without reading them (spec 01 §8; never changes the
    cuts). Raises ValueError (kernel
    cannot run, bad key length, rule of spec 01 §4.1 / 03 §1 broken) or
    TypeError (non-bytes key, non-int parameter).
    """

    cdef buzhash64_ctx ctx

    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, nc_level=0,
                 normal_size=0, *, kernel=None, sparse=False):
        self._check_fresh()
        check_window(hash_window_size, chunk_min_exp, chunk_max_exp)
        _fill_table(key, self.ctx.table)
        name = resolve("buzhash64", kernel)
        min_size, max_size = check_common(chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size)
        self.ctx.window = hash_window_size
        buzhash64_rotated_table(self.ctx.table, hash_window_size, self.ctx.table_rot)
        self.ctx.scan = _kernel(name)
        buzhash64_scanner(&self.ctx, &self.scanner)
        self.kernel = name
        self.sparse = check_sparse(sparse)
        self.init_args = (key, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, nc_level,
                          normal_size)
        self.set_driver("buzhash64", ("buzhash64", chunk_min_exp, chunk_max_exp, hash_mask_bits,
                                      hash_window_size, nc_level),
                        min_size, max_size, nc_masks(hash_mask_bits, nc_level, normal_size, False), nc_level,
                        hash_window_size)


# The family's scan adapter (chunkers.scanners): one call shape for every family with a scan kernel.

def scan_table(key):
    """The scan adapter's table: :func:`table` of the 32-byte ``key``."""
    return table(key)


def scan_window(table, size_t window, data, uint64_t state, uint64_t mask, kernel):
    """The scan adapter's call: :func:`scan` (data starts with the window before the first step)."""
    return scan(table, window, data, state, mask, kernel)


def scan_state(table, window):
    """The scan adapter's start state before the first step: :func:`window_hash` of the bytes-like
    ``window``."""
    return window_hash(table, window)
