# cython: language_level=3, boundscheck=False, wraparound=False
"""The AES chunkers rabin-aes, goldilocks-aes and toeplitz-aes (spec 06-09).

A rolling universal hash (UHF) over a 64-byte window, AES-128 on the digest,
a low-bit cut test on the ciphertext, on the window-less driver. One kernel
selector serves all three (``kernel=`` or $CHUNKERS_AES_KERNEL): ``vaes``
(AVX-512F + VAES), ``vaes256`` (VEX 256-bit VAES + AVX2, for CPUs without
AVX-512), ``aes-ni`` (x86-64), ``aes-arm64`` (aarch64) and ``evp`` (portable,
OpenSSL), and the segment-parallel ``-seg`` forms of the hardware paths (issue
13); see csrc/aes/.

:class:`AESContext` is one instance's key material; besides backing the
chunkers it gives tests the tables, the round keys, digests, cut values,
each kernel's raw scan and the raw C context (for emulated kernels).
"""

from libc.stdint cimport uint8_t, uint64_t, int64_t
from libc.string cimport memcpy
from chunkers._native cimport ck_kernel, ck_scanner
from chunkers.driver cimport Chunker
from chunkers.kerneltable cimport kernel_table, kernel_index
from chunkers.bufview cimport byte_buffer, PyBuffer_Release
from chunkers.sources import check_sparse

include "provenance.pxi"
from chunkers.families import FAMILIES, chunkers_of
from chunkers.registry import register_kernels, resolve
from chunkers.params import ParamsError, check_common, check_key, nc_masks

cdef extern from "csrc/aes/aes.h":
    ctypedef struct toeplitz_tables:
        uint64_t T[256]
        uint64_t IN1[256]
        uint64_t OUT64[256]
        uint64_t OUT65[256]
    ctypedef struct rabin_tables:
        uint64_t OUT[256]
        uint64_t RED[256]
        uint64_t W1[256]
        uint64_t OUT8[256]
        uint64_t OUT16[256]
        uint64_t poly
    ctypedef struct goldilocks_tables:
        uint64_t NOUT64[256]
        uint64_t NOUT65[256]
        uint64_t IN1[256]
        uint64_t K, K2
    ctypedef union aes_uhf:
        toeplitz_tables t
        rabin_tables r
        goldilocks_tables g
    ctypedef struct aes_ctx:
        aes_uhf uhf
        uint8_t rk[11][16]
        int kind
        void *evp
    ctypedef int64_t (*aes_scan_fn)(const aes_ctx *c, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask)
    ctypedef struct aes_hooks:
        const aes_ctx *ctx
        aes_scan_fn scan
    ctypedef int (*aes_read_fn)(void *src, uint8_t *out, size_t n) noexcept
    enum:
        AES_TOEPLITZ
        AES_RABIN
        AES_GOLDILOCKS
        AES_WINDOW
    uint64_t GOLDILOCKS_P
    int aes_ctx_expand(aes_ctx *c, int kind, aes_read_fn read, void *src, uint64_t *rejected)
    int aes_ctx_expand_key(aes_ctx *c, int kind, const uint8_t *key, uint64_t *rejected)
    void aes128_expand(const uint8_t *key, uint8_t (*rk)[16])
    void toeplitz_init(toeplitz_tables *t)
    void rabin_init(rabin_tables *r, uint64_t poly)
    int rabin_irreducible(uint64_t poly)
    void goldilocks_init(goldilocks_tables *g, uint64_t K)
    int aes_evp_init(aes_ctx *c)
    void aes_evp_free(aes_ctx *c)
    void aes_evp_break(aes_ctx *c)
    int aes_evp_encrypt(const aes_ctx *c, const uint8_t *inp, uint8_t *out, size_t n)
    void aes_scanner(const aes_hooks *h, ck_scanner *sc)
    uint64_t aes_digest(const aes_ctx *c, const uint8_t *w)
    const ck_kernel aes_kernels[]
    const size_t aes_kernel_count

cdef extern from "csrc/aes/uhf.h":
    uint64_t aes_roll(const aes_ctx *c, int kind, uint64_t d, const uint8_t *x)
    uint64_t aes_roll2(const aes_ctx *c, int kind, uint64_t d, const uint8_t *x)

cdef extern from "csrc/aes/segments.h":
    int AES_SEG_K
    int AES_SEG_L

SEGMENTS = (AES_SEG_K, AES_SEG_L)
"""(chains, positions per segment) of the segment-parallel ``-seg`` paths (issue 13): spans of at
least one block of K * L positions are scanned as K independent digest chains."""

KERNELS = kernel_table(aes_kernels, aes_kernel_count)
"""Every AES kernel of every build target (chunkers.registry.Kernel rows of csrc/aes/kernels.def,
whose rank columns set the default per machine)."""

register_kernels("aes", KERNELS)

NAMES = chunkers_of("aes")
"""The AES chunker names (spec 06, chunkers.families), also their parameter-string names."""

_KIND = {"toeplitz-aes": AES_TOEPLITZ, "rabin-aes": AES_RABIN, "goldilocks-aes": AES_GOLDILOCKS}

WINDOW = AES_WINDOW
"""Window size in bytes (fixed)."""

_U64 = (1 << 64) - 1

cdef const uint8_t _EMPTY[1]


cdef aes_scan_fn _kernel(str name) except NULL:
    return <aes_scan_fn>aes_kernels[kernel_index(aes_kernels, aes_kernel_count, name)].fn


cdef int _kind(name) except -1:
    try:
        return _KIND[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown AES chunker {name!r}; known: {', '.join(NAMES)}") from None


cdef struct _membuf:
    const uint8_t *p
    size_t len
    size_t pos


cdef int _mem_read(void *src, uint8_t *out, size_t n) noexcept:
    cdef _membuf *m = <_membuf *>src
    if m.len - m.pos < n:
        return -1
    memcpy(out, m.p + m.pos, n)
    m.pos += n
    return 0


cdef list _u64s(const uint64_t *t, size_t n=256):
    return [t[i] for i in range(n)]


cdef class AESContext:
    """Key material of one AES chunker instance (spec 06 §2, 07 §3, 08 §2, 09 §2).

    ``AESContext(name, key)``: ``name`` one of :data:`NAMES`, ``key`` 32
    bytes; expands the keyed CSPRNG stream Z (A = Z[0..15], then the UHF
    material). Raises ValueError (unknown name, key not 32 bytes), TypeError
    (key not bytes), MemoryError (OpenSSL could not set up the key stream or
    the portable cipher). See also :meth:`from_stream`, :meth:`from_material`.
    """

    cdef aes_ctx c
    cdef readonly str name
    cdef readonly uint64_t candidates_rejected     # rabin: reducible; goldilocks: >= p; toeplitz: 0

    def __cinit__(self):
        self.c.evp = NULL

    def __dealloc__(self):
        if self.c.evp != NULL:
            aes_evp_free(&self.c)

    def __init__(self, name, key):
        self._check_fresh()
        cdef int kind = _kind(name)
        check_key(key)
        cdef const uint8_t[::1] k = key
        cdef uint64_t rejected = 0
        if aes_ctx_expand_key(&self.c, kind, &k[0], &rejected):
            raise MemoryError(f"{name}: OpenSSL could not set up the key stream")
        self._finish(name, rejected)

    def _check_fresh(self):
        if self.name is not None:
            raise TypeError("AESContext is already initialized")

    cdef _finish(self, str name, uint64_t rejected):
        if aes_evp_init(&self.c):
            raise MemoryError(f"{name}: the evp kernel could not be set up (OpenSSL EVP context)")
        self.name = name
        self.candidates_rejected = rejected

    @staticmethod
    def from_stream(name, stream):
        """A context expanded from the given key stream bytes instead of Z (06 §2.2).

        ``stream``: bytes-like, read from its first byte exactly as Z would be
        (A, then the UHF material). Lets tests reach rare branches, such as a
        goldilocks candidate >= p. Raises ValueError if the stream runs out
        before a candidate is accepted.
        """
        cdef AESContext self = AESContext.__new__(AESContext)
        cdef int kind = _kind(name)
        cdef const uint8_t[::1] z = memoryview(stream).cast("B")
        cdef _membuf m
        m.p = &z[0] if z.shape[0] else _EMPTY
        m.len = z.shape[0]
        m.pos = 0
        cdef uint64_t rejected = 0
        if aes_ctx_expand(&self.c, kind, _mem_read, &m, &rejected):
            raise ValueError(f"{name}: key stream of {m.len} bytes ran out after {m.pos} bytes")
        self._finish(name, rejected)
        return self

    @staticmethod
    def from_material(name, A, *, T=None, P=None, K=None):
        """A context from given key material, bypassing key expansion (e.g. spec 10 §3.1's K).

        ``A``: the 16-byte AES key; then exactly the one matching keyword:
        toeplitz-aes ``T`` (256 u64), rabin-aes ``P`` (degree-64 polynomial
        as an int with bit 64 set and bit 0 set; irreducibility is not
        required), goldilocks-aes ``K`` (0 <= K < p). Raises ValueError or
        TypeError for anything else.
        """
        cdef AESContext self = AESContext.__new__(AESContext)
        cdef int kind = _kind(name)
        if not isinstance(A, bytes) or len(A) != 16:
            raise ValueError("A must be 16 bytes")
        given = {k for k, v in (("T", T), ("P", P), ("K", K)) if v is not None}
        want = {AES_TOEPLITZ: "T", AES_RABIN: "P", AES_GOLDILOCKS: "K"}[kind]
        if given != {want}:
            raise TypeError(f"{name} takes exactly the material {want}=, got {sorted(given)}")
        self.c.kind = kind
        if kind == AES_TOEPLITZ:
            if len(T) != 256 or not all(0 <= t <= _U64 for t in T):
                raise ValueError("T must be 256 u64 values")
            for i in range(256):
                self.c.uhf.t.T[i] = T[i]
            toeplitz_init(&self.c.uhf.t)
        elif kind == AES_RABIN:
            if P >> 64 != 1 or not P & 1:
                raise ValueError("P must have degree 64 (bit 64 set) and constant term 1")
            rabin_init(&self.c.uhf.r, P & _U64)
        else:
            if not 0 <= K < GOLDILOCKS_P:
                raise ValueError("K must be a canonical field element, 0 <= K < p")
            goldilocks_init(&self.c.uhf.g, K)
        cdef const uint8_t[::1] a = A
        aes128_expand(&a[0], self.c.rk)
        self._finish(name, 0)
        return self

    def _check_ready(self):
        if self.name is None:
            raise TypeError("AESContext was not initialized")

    @property
    def A(self):
        """The AES-128 key A (16 bytes, FIPS-197 key byte order)."""
        self._check_ready()
        return bytes(self.c.rk[0][:16])

    def round_keys(self):
        """The 11 AES-128 encryption round keys (16 bytes each; the first is A)."""
        self._check_ready()
        return [bytes(self.c.rk[r][:16]) for r in range(11)]

    @property
    def material(self):
        """The UHF key material: toeplitz T (list of 256 u64), rabin P (int incl. the x^64 bit), goldilocks K."""
        self._check_ready()
        if self.c.kind == AES_TOEPLITZ:
            return _u64s(self.c.uhf.t.T)
        if self.c.kind == AES_RABIN:
            return (1 << 64) | self.c.uhf.r.poly
        return self.c.uhf.g.K

    def tables(self):
        """The UHF tables by their spec names (07 §6, 08 §5, 09 §4): dict of name -> list of 256 u64
        (goldilocks also K and K2 as ints)."""
        self._check_ready()
        cdef toeplitz_tables *t = &self.c.uhf.t
        cdef rabin_tables *r = &self.c.uhf.r
        cdef goldilocks_tables *g = &self.c.uhf.g
        if self.c.kind == AES_TOEPLITZ:
            return {"T": _u64s(t.T), "IN1": _u64s(t.IN1), "OUT64": _u64s(t.OUT64), "OUT65": _u64s(t.OUT65)}
        if self.c.kind == AES_RABIN:
            return {"OUT": _u64s(r.OUT), "RED": _u64s(r.RED), "W1": _u64s(r.W1), "OUT8": _u64s(r.OUT8),
                    "OUT16": _u64s(r.OUT16)}
        return {"NOUT64": _u64s(g.NOUT64), "NOUT65": _u64s(g.NOUT65), "IN1": _u64s(g.IN1), "K": g.K, "K2": g.K2}

    def context_bytes(self):
        """The C ``aes_ctx`` as a hardware scan kernel reads it through its context pointer (csrc/aes/aes.h):
        ``sizeof(aes_ctx)`` bytes in this build's native layout (UHF tables, then the 11 round keys,
        then ``kind``), with the OpenSSL context pointer zeroed (no hardware kernel touches it).

        For handing the same key material to a freestanding build of a kernel, e.g. in the bochscpu
        runner (conformance.tools.emulate); the bytes are only meaningful to code built for this ABI.
        """
        self._check_ready()
        raw = bytearray(sizeof(aes_ctx))
        cdef aes_ctx *c = <aes_ctx *><char *>raw
        memcpy(c, &self.c, sizeof(aes_ctx))       # padding included: the instance memory starts zeroed
        c.evp = NULL
        return bytes(raw)

    def digest(self, window):
        """H(W): the full (warm-up) digest of a 64-byte window, oldest byte first. ValueError otherwise."""
        self._check_ready()
        cdef Py_buffer w
        byte_buffer(window, &w)
        try:
            if w.len != AES_WINDOW:
                raise ValueError(f"window must be {AES_WINDOW} bytes, got {w.len}")
            return aes_digest(&self.c, <const uint8_t *>w.buf)
        finally:
            PyBuffer_Release(&w)

    def roll(self, uint64_t d, uint8_t out_byte, uint8_t in_byte):
        """One rolling step (07 §5, 08 §7, 09 §5): the digest after out_byte leaves and in_byte enters."""
        self._check_ready()
        cdef uint8_t buf[65]
        buf[0] = out_byte
        buf[64] = in_byte
        return aes_roll(&self.c, self.c.kind, d, &buf[64])

    def roll2(self, uint64_t d, uint8_t o0, uint8_t o1, uint8_t i0, uint8_t i1):
        """The two-byte step of the stride-2 lanes (06 §8.1): o0, o1 leave, i0, i1 enter, in that order."""
        self._check_ready()
        cdef uint8_t buf[66]
        buf[0] = o0
        buf[1] = o1
        buf[64] = i0
        buf[65] = i1
        return aes_roll2(&self.c, self.c.kind, d, &buf[64])

    def encrypt(self, uint64_t digest):
        """AES-128_A(LE64(digest) || 0^8) through OpenSSL (06 §3): 16 bytes. RuntimeError if OpenSSL fails."""
        self._check_ready()
        cdef uint8_t blk[16]
        cdef uint8_t ct[16]
        for i in range(8):
            blk[i] = (digest >> (8 * i)) & 0xFF
            blk[8 + i] = 0
        if aes_evp_encrypt(&self.c, blk, ct, 1):
            raise RuntimeError(f"{self.name}: OpenSSL EVP encryption failed")
        return bytes(ct[:16])

    def cut_value(self, uint64_t digest):
        """The cut value c = LE64(ciphertext[0..7]) of a digest (06 §4)."""
        return int.from_bytes(self.encrypt(digest)[:8], "little")

    def scan(self, data, size_t start, size_t n, uint64_t state, uint64_t mask, kernel):
        """Run one scan kernel on positions start .. start+n-1 of ``data`` (06 §7.2).

        ``data``: bytes-like, the whole buffer (the kernel reads data[start-64 ..
        start+n-1]); ``state``: the digest of the window ending at start-1;
        ``mask``: any u64; ``kernel``: a kernel name (demand semantics).
        Returns ``(r, exit_state)``: r the first hit relative to start with
        its digest, or -1 with the digest at start+n-1 (``state`` when n is 0).
        Raises ValueError (kernel cannot run here, start < 64 or the span
        exceeds data) and RuntimeError when OpenSSL fails (evp).
        """
        self._check_ready()
        if kernel is None:
            raise TypeError("scan needs an explicit kernel name")
        cdef aes_scan_fn fn = _kernel(resolve("aes", kernel))
        cdef Py_buffer d
        byte_buffer(data, &d)
        cdef uint64_t st = state
        cdef int64_t r
        try:
            if start < AES_WINDOW or start + n > <size_t>d.len:
                raise ValueError(f"need 64 <= start and start + n <= len(data), got start={start}, n={n}, "
                                 f"len={d.len}")
            r = fn(&self.c, <const uint8_t *>d.buf + start, n, &st, mask)
        finally:
            PyBuffer_Release(&d)
        if r == -2:
            raise RuntimeError(f"{self.name}: OpenSSL EVP encryption failed")
        return r, st

    def _break_evp(self):
        """Test hook: reset the portable cipher context, so every later OpenSSL encryption fails."""
        self._check_ready()
        aes_evp_break(&self.c)


def aes128_round_keys(key):
    """The FIPS-197 AES-128 key schedule of a 16-byte key: 11 round keys of 16 bytes."""
    if not isinstance(key, bytes) or len(key) != 16:
        raise ValueError("key must be 16 bytes")
    cdef const uint8_t[::1] k = key
    cdef uint8_t rk[11][16]
    aes128_expand(&k[0], rk)
    return [bytes(rk[r][:16]) for r in range(11)]


def rabin_is_irreducible(P):
    """Rabin's irreducibility test of the degree-64 polynomial ``P`` (int with bit 64 set), spec 08 §3."""
    if P >> 64 != 1:
        raise ValueError("P must have degree exactly 64")
    return bool(rabin_irreducible(P & _U64))


cdef class AESChunker(Chunker):
    """Base of the AES chunkers (spec 06), compatible with borg 2.0.0b25's AES chunkers.

    ``key``: 32 bytes. Chunk sizes: hash cuts make chunks of at least
    2**chunk_min_exp + 1 bytes (chunk_min_exp >= 6: the 64-byte window), at
    most 2**chunk_max_exp. ``hash_mask_bits``: cut probability 2**-bits per
    position (low-bit mask on the AES output). ``nc_level`` / ``normal_size``
    (bytes, 0 = automatic): normalized chunking. ``kernel``: scan path name,
    else $CHUNKERS_AES_KERNEL, else the default. ``sparse``: read file holes
    as zeros without reading them (spec 01 §8; never changes the cuts). Raises ParamsError (a
    ValueError: a rule of spec 06 §9.1 / 01 §4.1 broken), ValueError (key not
    32 bytes, kernel cannot run), TypeError (non-bytes key, non-int
    parameter), MemoryError (OpenSSL could not be set up). ``chunkify``
    raises RuntimeError "<name>: OpenSSL EVP encryption failed" if the
    portable cipher fails; no cut is made from a failed encryption.
    """

    cdef AESContext ctx
    cdef aes_hooks hooks

    cdef _setup(self, str name, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size,
                kernel, sparse):
        # spec 06 §9.1 order: min exp, common checks, key, kernel, context
        self._check_fresh()
        if isinstance(chunk_min_exp, int) and not isinstance(chunk_min_exp, bool) and chunk_min_exp < 6:
            raise ParamsError(f"{name}: chunk_min_exp must be at least 6 (2**6 = 64 is the window size), "
                              f"got {chunk_min_exp}")
        min_size, max_size = check_common(chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size)
        check_key(key)
        kname = resolve("aes", kernel)
        self.ctx = AESContext(name, key)
        self.hooks.ctx = &self.ctx.c
        self.hooks.scan = _kernel(kname)
        aes_scanner(&self.hooks, &self.scanner)
        self.kernel = kname
        self.sparse = check_sparse(sparse)
        self.init_args = (key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size)
        self.set_driver(name, (name, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level), min_size, max_size,
                        nc_masks(hash_mask_bits, nc_level, normal_size, False), nc_level, 0)

    @property
    def context(self):
        """The :class:`AESContext` (key material) this chunker scans with."""
        return self.ctx


cdef class RabinAES(AESChunker):
    """rabin-aes chunker (spec 06, 08): Rabin fingerprint modulo a secret irreducible polynomial.

    Arguments and errors as in :class:`AESChunker`.
    """

    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level=0, normal_size=0, *,
                 kernel=None, sparse=False):
        self._setup("rabin-aes", key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size, kernel,
                    sparse)


cdef class GoldilocksAES(AESChunker):
    """goldilocks-aes chunker (spec 06, 09): polynomial evaluation hash over GF(2^64 - 2^32 + 1).

    Arguments and errors as in :class:`AESChunker`.
    """

    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level=0, normal_size=0, *,
                 kernel=None, sparse=False):
        self._setup("goldilocks-aes", key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size,
                    kernel, sparse)


cdef class ToeplitzAES(AESChunker):
    """toeplitz-aes chunker (spec 06, 07): tabulated LFSR/Toeplitz hash over GF(2)[x].

    Arguments and errors as in :class:`AESChunker`.
    """

    def __init__(self, key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level=0, normal_size=0, *,
                 kernel=None, sparse=False):
        self._setup("toeplitz-aes", key, chunk_min_exp, chunk_max_exp, hash_mask_bits, nc_level, normal_size,
                    kernel, sparse)


CHUNKERS = {"rabin-aes": RabinAES, "goldilocks-aes": GoldilocksAES, "toeplitz-aes": ToeplitzAES}
"""The chunker class of each AES chunker name."""


# The family's scan adapter (chunkers.scanners): one call shape for every family with a scan kernel.

SCAN_CHUNKER = FAMILIES["aes"].tune.partition(",")[0]
"""The AES chunker of the adapter's table (tune's: the middle one in cost)."""


def scan_table(key):
    """The scan adapter's table: the :class:`AESContext` of SCAN_CHUNKER and the 32-byte ``key``."""
    return AESContext(SCAN_CHUNKER, key)


def scan_window(AESContext ctx, size_t window, data, uint64_t state, uint64_t mask, kernel):
    """The scan adapter's call: :meth:`AESContext.scan` of every position of ``data`` after its first
    ``window`` (64: the history, spec 06 §7.2) bytes."""
    return ctx.scan(data, window, len(data) - window, state, mask, kernel)


def scan_state(AESContext ctx, window):
    """The scan adapter's start state before the first position: :meth:`AESContext.digest` of the
    64-byte ``window`` (the history)."""
    return ctx.digest(window)


def scan_every_byte(kernel, data, key, int bits):
    """:meth:`AESContext.scan` with ``kernel`` over every byte of ``data`` (the digest chain carries
    over hits; the context of :func:`scan_table`, a low mask of ``bits`` bits): bench's scan mode."""
    from chunkers.params import mask as make_mask
    ctx, m, pos = scan_table(key), make_mask(bits, False), AES_WINDOW
    state = ctx.digest(data[:AES_WINDOW])
    while pos < len(data):
        r, state = ctx.scan(data, pos, len(data) - pos, state, m, kernel)
        pos = len(data) if r < 0 else pos + r + 1
