# cython: language_level=3, boundscheck=False, wraparound=False
"""buzhash: the legacy 32-bit buzhash chunker, borg 1.x compatible (spec 04 Part A).

A seeded copy of borg's fixed public table, a u32 rolling window hash,
low-bit masks and the windowed test-then-roll driver without normalized
chunking. Kernels: ``single`` (borg's sequential loop, the reference) and
``seg4`` (segment-parallel, portable C); see csrc/buzhash/.
"""

from libc.stdint cimport uint8_t, uint32_t
from chunkers._native cimport ck_kernel, ck_scanner
from chunkers.driver cimport Chunker
from chunkers.kerneltable cimport kernel_table, kernel_index
from chunkers.sources import check_sparse

from chunkers.registry import reference, register_kernels, resolve

include "provenance.pxi"
from chunkers.params import Masks, check_common, check_seed, check_window, mask

cdef extern from "csrc/buzhash/buzhash.h":
    ctypedef size_t (*buzhash_scan_fn)(const uint32_t *t, const uint32_t *tr, const uint8_t *pr, const uint8_t *pa,
                                       size_t n, uint32_t *sum, uint32_t mask)
    ctypedef struct buzhash_ctx:
        uint32_t table[256]
        uint32_t table_rot[256]
        size_t window
        buzhash_scan_fn scan
    const uint32_t buzhash_base_table[256]
    void buzhash_init(buzhash_ctx *c, uint32_t seed, size_t window)
    uint32_t buzhash_window_hash(const uint32_t *table, const uint8_t *win, size_t w)
    void buzhash_scanner(const buzhash_ctx *c, ck_scanner *sc)
    const ck_kernel buzhash_kernels[]
    const size_t buzhash_kernel_count

KERNELS = kernel_table(buzhash_kernels, buzhash_kernel_count)
"""Every legacy buzhash kernel of every build target (chunkers.registry.Kernel rows of csrc/buzhash/kernels.def,
whose rank columns set the default per machine)."""

register_kernels("buzhash", KERNELS)


cdef buzhash_scan_fn _kernel(str name) except NULL:
    return <buzhash_scan_fn>buzhash_kernels[kernel_index(buzhash_kernels, buzhash_kernel_count, name)].fn


def base_table():
    """borg's base table B (spec 04 A.3): 256 u32 ints, B[0] first."""
    return [buzhash_base_table[i] for i in range(256)]


def table(seed):
    """The seeded table T[i] = B[i] ^ (seed mod 2**32) (spec 04 A.3): 256 u32 ints.

    ``seed``: C int. Raises TypeError / OverflowError like the chunker.
    """
    cdef buzhash_ctx c
    buzhash_init(&c, check_seed(seed), 1)
    return [c.table[i] for i in range(256)]


def window_hash(seed, window):
    """H of the bytes-like ``window`` (oldest byte first, w = its length) under ``seed`` (spec 04 A.4)."""
    cdef buzhash_ctx c
    buzhash_init(&c, check_seed(seed), 1)
    cdef const uint8_t[::1] w = memoryview(window).cast("B")
    return buzhash_window_hash(c.table, &w[0] if w.shape[0] else NULL, w.shape[0])


def scan(seed, size_t window, data, uint32_t state, uint32_t mask, kernel=None):
    """Run one scan kernel (spec 04 A.5 with the contract of 03 §5 on u32).

    ``data``: bytes-like holding pr[0 .. n+w-1] (the window at pr[0] and the
    n bytes that enter after it), so ``n = len(data) - window`` steps;
    ``state``: hash of the window at pr[0]; ``mask``: any u32. Returns ``(j,
    exit_state)``: j steps were made and exit_state is the hash of the window
    at pr[j]; it matches the mask if j < n and is untested if j == n.
    ``kernel``: a kernel name (None: the reference, registry.reference("buzhash")).
    Raises ValueError if window < 1, data is shorter than the window or the
    kernel cannot run here.
    """
    cdef buzhash_scan_fn fn = _kernel(resolve("buzhash", kernel if kernel is not None else reference("buzhash")))
    cdef buzhash_ctx c
    cdef const uint8_t[::1] d = memoryview(data).cast("B")
    if window < 1 or <size_t>d.shape[0] < window:
        raise ValueError(f"need window >= 1 and len(data) >= window, got window={window}, len={d.shape[0]}")
    buzhash_init(&c, check_seed(seed), window)
    cdef size_t n = d.shape[0] - window
    cdef uint32_t st = state
    cdef size_t j = fn(c.table, c.table_rot, &d[0], &d[window], n, &st, mask) if n else 0
    return j, st


cdef class BuzHash(Chunker):
    """Legacy buzhash chunker (spec 04 Part A), compatible with borg's ``Chunker`` (borg 1.x and 2.0.0b25).

    ``seed``: C int (-2**31 .. 2**31-1), only seed mod 2**32 is used.
    Chunk sizes 2**chunk_min_exp .. 2**chunk_max_exp bytes (a hash cut can
    make a chunk of exactly 2**min). ``hash_mask_bits``: 1 .. 48, cut
    probability 2**-bits per window (low-bit mask truncated to 32 bits).
    ``hash_window_size``: w bytes, w + 2**min + 1 <= 2**max (the constructor
    accepts even windows; the params string requires odd ones). ``sparse``:
    read file holes as zeros without reading them (spec 01 §8; never changes
    the cuts). No normalized chunking. ``kernel``: scan kernel name, else
    $CHUNKERS_BUZHASH_KERNEL, else the default (csrc/buzhash/kernels.def's rank
    columns: ``seg4`` on x86-64, ``single`` elsewhere). Raises ValueError
    for a kernel that cannot run here. Raises
    ParamsError (ValueError) for a rule of spec 01 §4.1 / 04 A.2, TypeError
    for non-int parameters, OverflowError for a seed outside the C int range.
    """

    cdef buzhash_ctx ctx
    cdef readonly object seed

    def __init__(self, seed, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size, *, kernel=None,
                 sparse=False):
        self._check_fresh()
        name = resolve("buzhash", kernel)
        check_window(hash_window_size, chunk_min_exp, chunk_max_exp)
        buzhash_init(&self.ctx, check_seed(seed), hash_window_size)
        min_size, max_size = check_common(chunk_min_exp, chunk_max_exp, hash_mask_bits, 0)
        self.ctx.scan = _kernel(name)
        buzhash_scanner(&self.ctx, &self.scanner)
        self.seed = seed
        self.kernel = name
        self.sparse = check_sparse(sparse)
        self.init_args = (seed, chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size)
        m = mask(hash_mask_bits, False) & 0xFFFFFFFF
        self.set_driver("buzhash", ("buzhash", chunk_min_exp, chunk_max_exp, hash_mask_bits, hash_window_size),
                        min_size, max_size, Masks(m, m, 0), 0, hash_window_size)


# The family's scan adapter (chunkers.scanners): one call shape for every family with a scan kernel.

def scan_table(key):
    """The scan adapter's table: the legacy buzhash's seed (an int): its scan builds the tables."""
    return key


def scan_window(table, size_t window, data, uint32_t state, uint32_t mask, kernel):
    """The scan adapter's call: :func:`scan` (data starts with the window before the first step)."""
    return scan(table, window, data, state, mask, kernel)


def scan_state(table, window):
    """The scan adapter's start state before the first step: :func:`window_hash` of the bytes-like
    ``window``."""
    return window_hash(table, window)
