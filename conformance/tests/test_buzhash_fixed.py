"""Our legacy buzhash and fixed chunkers against the spec's numbers (04, 05;
the cut lists are in test_spec_kernels), their parameters and errors, sparse
reading for every chunker (01 §8, 04 B.3), and the CLI. Expected values come
from the spec tables (conformance.spec_values) and the pure-Python model."""

import copy
import gzip
import hashlib
import io
import mmap
import os
import pickle
import random
import struct

import pytest

import chunkers
from chunkers import bufpool, buzhash, cli
from chunkers.params import ParamsError, parse_params
from conformance import spec_values as spec
from conformance.run.selection import documented_defaults
from vectors.generators import sha_ctr
from vectors.model import buzhash as model_buzhash
from conformance.tests.test_chunks import ChunkedReader
from conformance.tests.test_model_spec import _windowed_grid

pytestmark = pytest.mark.ours_only


# ---------------------------------------------------------------- buzhash (spec 04 Part A)

def test_base_table_is_borgs():
    row = [r for r in spec.md_rows(spec.SPEC_05_TABLES) if r[0].startswith("buzhash base")][0]
    b = buzhash.base_table()
    assert (b[0], b[1], b[255]) == (spec.hexval(row[2]), spec.hexval(row[3]), spec.hexval(row[6]))
    digests = [d for d in row[7].replace("`", " ").split() if len(d) == 64]
    assert hashlib.sha256(struct.pack("<256I", *b)).hexdigest() == digests[0]
    assert hashlib.sha256(struct.pack(">256I", *b)).hexdigest() == digests[1]


def test_seeded_table():
    b = buzhash.base_table()
    for seed in (0, 1, -1, 1849058162, -(1 << 31)):
        assert buzhash.table(seed) == [x ^ (seed & 0xFFFFFFFF) for x in b]


@pytest.mark.parametrize("row", spec.md_rows(spec.SPEC_05_BH_HASH), ids=lambda r: r[0])
def test_hash_values_05_4(row):
    seed = spec.num(row[0])
    assert buzhash.window_hash(seed, b"abcdefghijklmnop") == spec.num(row[1])
    assert buzhash.window_hash(seed, b"abcdefghijklmnopqrstuvwxyz" * 2) == spec.num(row[2])


def test_trace_04_a6():
    data = b"foobarboobaz" * 3
    # window "ob" at offset 2, rolled three times to the matching "rb" at 5 (mask 3)
    j, state = buzhash.scan(0, 2, data[2:8], buzhash.window_hash(0, b"ob"), 3)
    assert (j, state) == (3, 0x06cfc0c8)
    assert buzhash.scan(0, 2, data[2:5], buzhash.window_hash(0, b"ob"), 3) == (1, 0xbfdc41ad)  # untested exit
    chunker = chunkers.BuzHash(0, 1, 23, 2, 2)
    assert [bytes(c.data) for c in chunker.chunkify(data)] == [b"fooba", b"rboobaz"] * 3


def test_grid_05_7():
    """The aggregate grid (constructor-level parameters: min 4, mask below min)."""
    def chunk(k, mn, mx, mb, w, data):
        return chunkers.BuzHash((1849058162, 1234567653)[k], mn, mx, mb, w).chunk_sizes(data)
    assert _windowed_grid(chunk) == "a43d0ecb3ae24f38852fcc433a83dacd28fe0748d09cc73fc11b69cf3f1a7299"


def test_even_window_seeds_0_and_minus_1_agree_04_a4():
    data = spec.SC()
    assert chunkers.BuzHash(0, 6, 12, 8, 64).chunk_sizes(data) == chunkers.BuzHash(-1, 6, 12, 8, 64).chunk_sizes(data)


def test_mask_truncated_to_32_bits():
    data = bytes(range(256)) * 40
    model = model_buzhash.chunk_sizes(7, 6, 12, 48, 65, data)
    for bits in (32, 33, 48):
        assert chunkers.BuzHash(7, 6, 12, bits, 65).chunk_sizes(data) == model


@pytest.mark.parametrize("seed,error", [(1 << 31, OverflowError), (-(1 << 31) - 1, OverflowError),
                                        ("1", TypeError), (1.0, TypeError), (True, TypeError)])
def test_seed_range(seed, error):
    with pytest.raises(error):
        chunkers.BuzHash(seed, 6, 12, 8, 65)


def test_seed_extremes_are_accepted_and_taken_mod_2_32():
    data = spec.SC()[:65536]
    for seed in (-(1 << 31), (1 << 31) - 1):
        want = model_buzhash.chunk_sizes(seed, 6, 12, 8, 65, data)
        assert chunkers.BuzHash(seed, 6, 12, 8, 65).chunk_sizes(data) == want


@pytest.mark.parametrize("args,error", [
    ((0, 6, 12, 8, 4032), ParamsError),     # w + min + 1 > max: the first check (spec 01 4.1)
    ((0, 6, 12, 0, 65), ParamsError),       # mask bits < 1
    ((0, 6, 12, 49, 65), ParamsError),      # mask bits > 48
    ((0, 12, 12, 8, 1), ParamsError),       # min + w + 1 > max
    ((0, 6, 25, 8, 65), ParamsError),       # max > MAX_DATA_SIZE
    ((0, 6, 12, 8, 0), ParamsError),        # window < 1
    ((0, 6, 12, 8, 65.0), TypeError),
])
def test_constructor_checks(args, error):
    with pytest.raises(error):
        chunkers.BuzHash(*args)


def test_window_checked_before_the_seed():
    with pytest.raises(ParamsError):
        chunkers.BuzHash(1 << 40, 6, 12, 8, 4032)


def test_params_strings():
    assert parse_params("buzhash,19,23,21,4095") == ("buzhash", 19, 23, 21, 4095)
    assert parse_params("19,23,21,4095") == ("buzhash", 19, 23, 21, 4095)
    assert parse_params("fixed,4096") == ("fixed", 4096, 0)
    assert parse_params("fixed,4096,-5") == ("fixed", 4096, -5)
    for bad in ("buzhash,6,12,8,64", "buzhash,5,12,8,65", "buzhash,6,12,8", "fixed,63", "fixed,64,20971480"):
        with pytest.raises(ParamsError):
            parse_params(bad)


def test_single_implementation_in_the_inventory():
    rows = {(r.family, r.kernel): r for r in chunkers.kernels() if r.family in ("buzhash", "fixed")}
    assert set(rows) == {("buzhash", "seg4"), ("buzhash", "stride4"), ("buzhash", "single"), ("fixed", "single")}
    assert all(r.runs and r.reason is None for r in rows.values())
    # buzhash's default is stride4 on x86-64 (its kernel list's ranks), borg's loop elsewhere; fixed has one
    # kernel
    default = documented_defaults()["buzhash"][0]
    assert {(f, k) for (f, k), r in rows.items() if r.default} == {("buzhash", default), ("fixed", "single")}
    assert chunkers.make_chunker("buzhash,19,23,21,4095").kernel == default
    assert chunkers.make_chunker("fixed,4096", kernel="single").kernel == "single"
    with pytest.raises(ValueError, match="'scalar'.*not a kernel of this build.*seg4, stride4, single"):
        chunkers.make_chunker("buzhash,19,23,21,4095", kernel="scalar")
    with pytest.raises(ParamsError):
        chunkers.make_chunker("fixed,4096", normal_size=100)
    assert chunkers.BuzHash(0, 19, 23, 21, 4095, kernel="single").kernel == "single"
    assert chunkers.Fixed(4096, kernel=" Single ").kernel == "single"
    with pytest.raises(ValueError, match="'avx2'.*not a kernel of this build.*seg4, stride4, single"):
        chunkers.BuzHash(0, 19, 23, 21, 4095, kernel="avx2")
    with pytest.raises(ValueError, match="'evp'.*not a kernel of this build.*single"):
        chunkers.Fixed(4096, kernel="evp")


# ---------------------------------------------------------------- fixed (spec 04 Part B)

def test_fixed_examples_05_6():
    for n, block, header, sizes in spec.md_rows(spec.SPEC_05_FIXED):
        data = bytes([7]) * spec.num(n)
        want = spec.ints(sizes)
        assert chunkers.Fixed(spec.num(block), spec.num(header)).chunk_sizes(data) == want
        assert chunkers.chunk_sizes(f"fixed,{spec.num(block)},{spec.num(header)}", io.BytesIO(data)) == want


@pytest.mark.parametrize("step", [1, 7, 4096, 1 << 20])
def test_fixed_short_reads_never_make_short_chunks(step):
    data = random.Random(step).randbytes(30000)
    want = [123] + [4096] * 7 + [30000 - 123 - 7 * 4096]
    chunks = list(chunkers.Fixed(4096, 123).chunkify(ChunkedReader(data, [step])))
    assert [c.size for c in chunks] == want
    assert b"".join(c.tobytes() for c in chunks) == data


def test_fixed_from_a_bytesio_at_an_offset():
    """A BytesIO is read by its own read (one copy per chunk): from its position on, the header,
    a block, an all-zero block and the short tail, as bytes and as the staging path (a reader
    with readinto) cuts them; the position left at its end."""
    rng = random.Random(9)
    data = rng.randbytes(4196) + bytes(4096) + rng.randbytes(777)
    src = io.BytesIO(b"skipped" + data)
    src.seek(7)
    chunks = list(chunkers.Fixed(4096, 100).chunkify(src))
    assert [(c.size, c.all_zero) for c in chunks] == [(100, False), (4096, False), (4096, True), (777, False)]
    assert chunks[2].data is None and all(type(c.data) is bytes for i, c in enumerate(chunks) if i != 2)
    assert b"".join(c.tobytes() for c in chunks) == data and src.tell() == 7 + len(data)
    staged = list(chunkers.Fixed(4096, 100).chunkify(ChunkedReader(data, [3000])))
    assert [(c.size, c.all_zero, c.tobytes()) for c in staged] == [(c.size, c.all_zero, c.tobytes()) for c in chunks]


MIB = 1 << 20


def _sources(path, data):
    """Every stream source kind over the bytes of ``path`` (== ``data``): name -> opener."""
    def pipe():
        r, w = os.pipe()
        import threading
        threading.Thread(target=lambda: (os.write(w, data), os.close(w)), daemon=True).start()
        return r
    return {"fd": lambda: os.open(path, os.O_RDONLY), "FileIO": lambda: open(path, "rb", buffering=0),
            "buffered": lambda: open(path, "rb"), "BytesIO": lambda: io.BytesIO(data), "pipe": pipe,
            "short reads": lambda: ChunkedReader(data, [MIB // 3, 7])}


@pytest.mark.parametrize("block, header", [(MIB, 0), (2 * MIB + 1, 5), (4096, MIB + 3)])
def test_fixed_large_blocks_are_views_of_aligned_buffers(tmp_path, block, header):
    """Blocks (or a header) of 1 MiB and more are read straight into page-aligned read buffers of
    their size and yielded as read-only views of them (no copy), a smaller header or block as
    bytes: from every source kind, the sizes, an all-zero block, the short tail and the bytes are
    those of the in-memory cut."""
    import ctypes
    rng = random.Random(block + header)
    data = rng.randbytes(header + block) + bytes(block) + rng.randbytes(block // 2 + 1)
    path = tmp_path / "f"
    path.write_bytes(data)
    want = [(c.size, c.all_zero, c.tobytes()) for c in chunkers.Fixed(block, header).chunkify(data)]
    for name, opener in _sources(path, data).items():
        src = opener()
        try:
            chunks = list(chunkers.Fixed(block, header).chunkify(src))
        finally:
            os.close(src) if isinstance(src, int) else src.close()
        assert [(c.size, c.all_zero, c.tobytes()) for c in chunks] == want, name
        for i, c in enumerate(chunks):
            asked = header if header and i == 0 else block
            if c.data is None:
                continue
            if asked < MIB:         # a small header or block: bytes of its own
                assert type(c.data) is bytes, name
                continue
            assert isinstance(c.data, memoryview) and c.data.readonly and len(memoryview(c.data.obj)) == asked, name
            assert ctypes.addressof(ctypes.c_char.from_buffer(c.data.obj)) % mmap.PAGESIZE == 0


def test_fixed_buffers_are_reused_never_while_a_chunk_refers_to_them():
    """A kept chunk's buffer is never read into again; dropped chunks' buffers are: streams of
    1 MiB blocks keep at most two buffers alive, and a new chunker takes a collected one's
    free buffers instead of new memory. Chunks kept from the first stream keep their bytes."""
    data, other = sha_ctr(6 * MIB + 5), sha_ctr(6 * MIB + 5)[3:]
    f = chunkers.Fixed(MIB)
    kept = list(f.chunkify(io.BytesIO(data)))           # every buffer held by a kept chunk
    base = bufpool.read_buffer_bytes(reset_peak=True)[0]
    assert b"".join(c.tobytes() for c in f.chunkify(io.BytesIO(other))) == other
    assert bufpool.read_buffer_bytes()[1] - base <= 2 * MIB
    bufpool._orphan_buffers.clear()
    del f                                               # its two free buffers go to the pool
    base = bufpool.read_buffer_bytes(reset_peak=True)[0]
    assert b"".join(c.tobytes() for c in chunkers.Fixed(MIB).chunkify(io.BytesIO(other))) == other
    assert bufpool.read_buffer_bytes()[1] == base        # no new buffer
    assert b"".join(c.tobytes() for c in kept) == data


def test_fixed_small_blocks_after_a_large_header_are_bytes_of_their_own():
    """A header of 1 MiB is a view of a buffer of its own size; the 4 KiB blocks after it, all
    kept, are bytes (each held a header-sized buffer before: 2 GiB for 9 MB of data)."""
    data = sha_ctr(3 * MIB)
    base = bufpool.read_buffer_bytes(reset_peak=True)[0]
    chunks = list(chunkers.Fixed(4096, MIB).chunkify(io.BytesIO(data)))
    assert isinstance(chunks[0].data, memoryview) and len(memoryview(chunks[0].data.obj)) == MIB
    assert all(type(c.data) is bytes for c in chunks[1:]) and len(chunks) == 1 + 512
    assert bufpool.read_buffer_bytes()[1] - base <= MIB
    assert b"".join(c.tobytes() for c in chunks) == data
    small_header = list(chunkers.Fixed(MIB, 100).chunkify(io.BytesIO(data)))
    assert type(small_header[0].data) is bytes and all(len(memoryview(c.data.obj)) == MIB for c in small_header[1:])


def test_fixed_finalizer_moves_its_buffers():
    """A Fixed's finalizer moves its kept buffers to the pool: run twice (a finalizer resurrecting
    it, or called by hand) it puts each buffer there once, and the Fixed streams on with new ones."""
    data = sha_ctr(3 * MIB)
    f = chunkers.Fixed(MIB)
    assert b"".join(c.tobytes() for c in f.chunkify(io.BytesIO(data))) == data
    mine = [id(b) for b in f._buffers]
    bufpool._orphan_buffers.clear()
    f.__del__()
    f.__del__()
    assert f._buffers == [] and sorted(id(b) for b in bufpool._orphan_buffers) == sorted(mine) and len(mine) == 2
    assert b"".join(c.tobytes() for c in f.chunkify(io.BytesIO(data))) == data


def test_fixed_with_kept_buffers_pickles_and_copies():
    """Pickle and copy carry the parameters, not the read buffers: after a stream of 1 MiB
    blocks, each copy cuts the same chunks as the original."""
    f = chunkers.Fixed(MIB, 100, sparse=True)
    data = sha_ctr(3 * MIB)
    want = [c.size for c in f.chunkify(io.BytesIO(data))]
    for g in (pickle.loads(pickle.dumps(f)), copy.copy(f), copy.deepcopy(f)):
        assert (g.block_size, g.header_size, g.sparse) == (MIB, 100, True)
        assert [c.size for c in g.chunkify(io.BytesIO(data))] == want == [100, MIB, MIB, MIB - 100]


def test_fixed_constructor_limits():
    for args, error in (((0,), ParamsError), ((20971480,), ParamsError), ((64, 20971480), ParamsError),
                        ((64.0,), TypeError)):
        with pytest.raises(error):
            chunkers.Fixed(*args)
    assert chunkers.Fixed(1).chunk_sizes(b"abc") == [1, 1, 1]


# ---------------------------------------------------------------- sparse files (spec 01 8, 04 B.3)

def _holey_file(path, pieces):
    """Write ``pieces`` (bytes, or an int: a hole of that many bytes) and return the file's bytes."""
    with open(path, "wb") as f:
        for p in pieces:
            if isinstance(p, int):
                f.seek(p, os.SEEK_CUR)
            else:
                f.write(p)
        f.truncate()
    with open(path, "rb") as f:
        return f.read()


def _reports_holes(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_HOLE) < os.fstat(fd).st_size
    finally:
        os.close(fd)


SPARSE_PARAMS = ["fastcdc,10,16,12,2", "buzhash64,10,16,12,4095,2", "buzhash,10,16,12,4095", "fixed,65536",
                 "fixed,4096,100", "fixed,1048576"]


@pytest.fixture
def holey(tmp_path):
    path = tmp_path / "holey.bin"
    rng = random.Random(4)
    data = _holey_file(path, [rng.randbytes(5000), 300000, rng.randbytes(7000), 200000])
    return path, data


@pytest.mark.parametrize("params", SPARSE_PARAMS)
def test_sparse_reads_give_the_same_chunks(holey, params):
    path, data = holey
    plain = list(chunkers.make_chunker(params).chunkify(data))
    for opener in (lambda: open(path, "rb"), lambda: os.open(path, os.O_RDONLY)):
        src = opener()
        try:
            sparse = list(chunkers.make_chunker(params, sparse=True).chunkify(src))
            end = src.tell() if hasattr(src, "tell") else os.lseek(src, 0, os.SEEK_CUR)
        finally:
            src.close() if hasattr(src, "close") else os.close(src)
        assert [(c.size, c.all_zero, c.tobytes()) for c in sparse] == \
               [(c.size, c.all_zero, c.tobytes()) for c in plain]
        assert end == len(data), "the source is left at its end"


def test_sparse_fixed_example_04_b3(holey):
    path, _ = holey
    rng = random.Random(5)
    _holey_file(path, [rng.randbytes(5000), 300000, rng.randbytes(7000)])
    for sparse in (False, True):
        with open(path, "rb") as f:
            got = [(c.size, c.all_zero) for c in chunkers.Fixed(65536, sparse=sparse).chunkify(f)]
        assert got == [(65536, False)] + [(65536, True)] * 3 + [(49856, False)]


@pytest.mark.parametrize("params", SPARSE_PARAMS)
def test_sparse_holes_are_not_read(holey, params, monkeypatch):
    path, data = holey
    if not _reports_holes(path):
        pytest.skip("this file system does not report holes")
    read = []
    real = os.preadv

    def counting(fd, buffers, offset, *flags):
        n = real(fd, buffers, offset, *flags)
        read.append(n)
        return n
    monkeypatch.setattr(os, "preadv", counting)
    with open(path, "rb") as f:
        sizes = chunkers.make_chunker(params, sparse=True).chunk_sizes(f)
    assert sizes == chunkers.make_chunker(params).chunk_sizes(data)
    assert 0 < sum(read) < 64 * 1024, f"read {sum(read)} of {len(data)} bytes"


def test_sparse_from_a_later_position_and_without_hole_support(holey):
    path, data = holey
    with open(path, "rb") as f:
        f.seek(1000)
        assert chunkers.make_chunker("fastcdc,6,12,8,2", sparse=True).chunk_sizes(f) == \
            chunkers.chunk_sizes("fastcdc,6,12,8,2", data[1000:])
    with open(path, "rb") as f:                             # fileno() is not the stream: read normally
        with gzip.GzipFile(fileobj=io.BytesIO(gzip.compress(data[:30000]))) as z:
            z.fileno = f.fileno
            assert chunkers.make_chunker("fixed,4096", sparse=True).chunk_sizes(z) == \
                chunkers.chunk_sizes("fixed,4096", data[:30000])
    for src in (io.BytesIO(data), ChunkedReader(data, [5000])):     # no file descriptor: read normally
        assert chunkers.make_chunker("fixed,4096", sparse=True).chunk_sizes(src) == \
            chunkers.chunk_sizes("fixed,4096", data)
    r, w = os.pipe()                                        # not seekable: read normally
    os.write(w, data[:50000])
    os.close(w)
    try:
        assert chunkers.make_chunker("buzhash,6,12,8,65", sparse=True).chunk_sizes(r) == \
            chunkers.chunk_sizes("buzhash,6,12,8,65", data[:50000])
    finally:
        os.close(r)


# ---------------------------------------------------------------- command line

def test_cli_cut_buzhash_seed_and_sparse(holey, capsys):
    path, data = holey
    assert cli.main(["cut", "--params", "buzhash,6,12,8,65", "--seed", "1849058162", "--sparse", str(path)]) == 0
    got = [int(x) for x in capsys.readouterr().out.split()]
    assert got == model_buzhash.chunk_sizes(1849058162, 6, 12, 8, 65, data)
    assert cli.main(["cut", "--params", "fixed,4096,100", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert '"kernel": "single"' in out and '"params": ["fixed", 4096, 100]' in out
    assert cli.main(["cut", "--params", "buzhash,6,12,8,65", "--seed", str(1 << 31), str(path)]) == 2
    assert "C int" in capsys.readouterr().err
