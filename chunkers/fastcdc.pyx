# cython: language_level=3, boundscheck=False, wraparound=False
"""fastcdc: keyed Gear hash, high-bit masks, the window-less driver (spec 02).

Kernels: csrc/fastcdc/kernels.def (the list, their targets and the default
per machine) and docs/kernels.md.
"""

from libc.stdint cimport uint8_t, uint64_t, int64_t
from chunkers._native cimport ck_kernel, ck_scanner
from chunkers.driver cimport Chunker
from chunkers.kerneltable cimport copy_table, kernel_table, kernel_index
from chunkers.bufview cimport byte_buffer, PyBuffer_Release
from chunkers.sources import check_sparse

include "provenance.pxi"
from chunkers.registry import register_kernels, resolve
from chunkers.params import check_common, check_key, nc_masks

cdef extern from "csrc/fastcdc/fastcdc.h":
    ctypedef int64_t (*fastcdc_scan_fn)(const uint64_t *gear, const uint8_t *p, size_t n, uint64_t *fp,
                                        uint64_t mask)
    ctypedef struct fastcdc_ctx:
        uint64_t gear[256]
        fastcdc_scan_fn scan
    void fastcdc_scanner(const fastcdc_ctx *ctx, ck_scanner *sc)
    int fastcdc_gear_table(const uint8_t *key, uint64_t *gear)
    const ck_kernel fastcdc_kernels[]
    const size_t fastcdc_kernel_count

KERNELS = kernel_table(fastcdc_kernels, fastcdc_kernel_count)
"""Every fastcdc kernel of every build target (chunkers.registry.Kernel rows of csrc/fastcdc/kernels.def,
whose rank columns set the default per machine)."""

register_kernels("fastcdc", KERNELS)

cdef const uint8_t _EMPTY[1]


cdef fastcdc_scan_fn _kernel(str name) except NULL:
    return <fastcdc_scan_fn>fastcdc_kernels[kernel_index(fastcdc_kernels, fastcdc_kernel_count, name)].fn


cdef _fill_gear(key, uint64_t *gear):
    check_key(key)
    cdef const uint8_t[::1] k = key
    if fastcdc_gear_table(&k[0], gear):
        raise MemoryError("fastcdc: OpenSSL could not set up the key stream")


def gear_table(key):
    """The keyed Gear table (spec 02 §2): 256 u64 ints, from a 32-byte ``key``.

    Raises TypeError if ``key`` is not bytes, ValueError if not 32 bytes long.
    """
    cdef uint64_t gear[256]
    _fill_gear(key, gear)
    return [gear[i] for i in range(256)]


def scan(gear, data, uint64_t state, uint64_t mask, kernel):
    """Run one fastcdc scan kernel (spec 02 §4) over all of ``data``.

    ``gear``: 256 u64 ints (a sequence, or an ``array('Q')``: copied at once); ``data``: bytes-like, fed from index 0 to
    len(data) - 1; ``state``: the Gear state before data[0]; ``mask``: any
    u64; ``kernel``: a kernel name. Returns ``(index, exit_state)``: index of
    the first byte after which ``(state & mask) == 0``, with the state after
    that byte; or ``(-1, state after all bytes)``. Raises ValueError if the
    kernel cannot run here or ``gear`` is not 256 entries.
    """
    if kernel is None:
        raise TypeError("scan needs an explicit kernel name")
    cdef fastcdc_scan_fn fn = _kernel(resolve("fastcdc", kernel))
    cdef uint64_t g[256]
    copy_table(gear, g, "gear table")
    cdef Py_buffer d
    byte_buffer(data, &d)
    cdef size_t n = d.len
    cdef uint64_t st = state
    cdef int64_t r
    try:
        r = fn(g, <const uint8_t *>d.buf if n else _EMPTY, n, &st, mask)
    finally:
        PyBuffer_Release(&d)
    return r, st


cdef class FastCDC(Chunker):
    """fastcdc chunker (spec 02), compatible with borg 2.0.0b25's ChunkerFastCDC.

    ``key``: 32 bytes. ``chunk_min_exp`` / ``chunk_max_exp``: chunk sizes
    2**min (exclusive lower bound of hash cuts: chunks are at least
    2**min + 1 bytes except the last) and 2**max bytes. ``hash_mask_bits``:
    cut probability 2**-bits per byte (high-bit mask). ``nc_level``:
    normalized chunking level; ``normal_size``: bytes (0 = automatic).
    ``kernel``: scan kernel name, else $CHUNKERS_FASTCDC_KERNEL, else the
    default. ``sparse``: read file holes as zeros without reading them
    (spec 01 §8; never changes the cuts). Raises ValueError (kernel cannot run, bad key length, rule of
    spec 01 §4.1 broken) or TypeError (non-bytes key, non-int parameter).
    """

    cdef fastcdc_ctx ctx

    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level=0, normal_size=0, *,
                 kernel=None, sparse=False):
        self._check_fresh()
        name = resolve("fastcdc", kernel)
        _fill_gear(key, self.ctx.gear)
        min_size, max_size = check_common(chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size)
        self.ctx.scan = _kernel(name)
        fastcdc_scanner(&self.ctx, &self.scanner)
        self.kernel = name
        self.sparse = check_sparse(sparse)
        self.init_args = (key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size)
        self.set_driver("fastcdc", ("fastcdc", chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level),
                        min_size, max_size, nc_masks(hash_mask_bits, nc_level, normal_size, True), nc_level, 0)


# The family's scan adapter (chunkers.scanners): one call shape for every family with a scan kernel.

def scan_table(key):
    """The scan adapter's table of the 32-byte ``key``: :func:`gear_table`."""
    return gear_table(key)


def scan_window(gear, size_t window, data, uint64_t state, uint64_t mask, kernel):
    """The scan adapter's call: :func:`scan` over ``data`` past its first ``window`` bytes (fastcdc
    reads no window before a span: callers pass 0)."""
    return scan(gear, memoryview(data)[window:], state, mask, kernel)


def scan_state(gear, window):
    """The scan adapter's start state before the first position: fastcdc's fp starts at 0 (spec 02
    §4), whatever came before."""
    return 0


def scan_every_byte(kernel, data, key, int bits):
    """:func:`scan` with ``kernel`` over every byte of ``data`` (after a hit it goes on at the next
    byte; Gear table of ``key``, a high mask of ``bits`` bits): bench's scan mode."""
    from chunkers.params import mask as make_mask
    gear, m, pos = gear_table(key), make_mask(bits, True), 0
    while pos < len(data):
        r, _ = scan(gear, data[pos:], 0, m, kernel)
        pos = len(data) if r < 0 else pos + r + 1
