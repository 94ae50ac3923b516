"""The fixed chunker's two-thread reads (chunkers/driver.pyx HalvesReader, chunkers/fixed.py): a
block of at least HALVES_MIN bytes from a regular file with more than READ_AHEAD_MIN bytes left is
read in two halves at once, the first by pread(2) in the consumer's thread, the second by the
read-ahead thread (csrc/readahead.c). The cuts depend only on the stream length (spec 04 Part B),
so the chunks must be the in-memory chunks, bytes included, and the descriptor must end where
sequential reads leave it."""

import errno
import os

import pytest

import chunkers
from chunkers import driver
from chunkers.driver import HALVES_MIN, READ_AHEAD_MIN, HalvesReader
from chunkers.sources import open_source
from conformance.tests.test_readahead import data_of, file_of, needs_proc, run_script, threads  # noqa: F401

MIB = 1 << 20
HALF_4M = 2 * MIB               # the first half of a 4 MiB block


def chunks_of(fd_or_file, block, header):
    return [(c.size, None if c.data is None else c.tobytes())
            for c in chunkers.Fixed(block, header).chunkify(fd_or_file)]


@pytest.mark.parametrize("block, header, size, skip", [
    (4 * MIB, 0, READ_AHEAD_MIN + 1, 0),                  # just over the threshold: one byte past a block
    (4 * MIB, 0, 3 * 4 * MIB, 0),                          # whole blocks only
    (4 * MIB, 0, 2 * 4 * MIB + HALF_4M, 0),                # the file ends where a second half starts
    (4 * MIB, 0, 2 * 4 * MIB + HALF_4M - 1, 0),            # ... one byte inside the first half
    (4 * MIB, 0, 2 * 4 * MIB + HALF_4M + 1, 0),            # ... one byte into the second half
    (4 * MIB, 0, 3 * 4 * MIB + 12345, 777777),             # from an offset within the file
    (HALVES_MIN, 0, READ_AHEAD_MIN + 3 * HALVES_MIN + 5, 0),   # the smallest block read in halves
    (HALVES_MIN - 1, 0, READ_AHEAD_MIN + 5 * MIB + 7, 0),      # one byte less: one thread
    (2 * MIB + 4097, 3 * MIB + 5, READ_AHEAD_MIN + 9 * MIB + 3, 0),   # odd halves (rounded to 4 KiB), a header
])
def test_halves_chunks_are_the_memory_chunks(file_of, block, header, size, skip):
    """The chunks of the descriptor and of an unbuffered file object are those of the same bytes in
    memory (all-zero chunks included: data_of has zero runs), and the descriptor ends at the end
    of the file, at the edges of a block's halves and on both sides of HALVES_MIN."""
    data = data_of(size)
    want = chunks_of(data[skip:], block, header)
    path = file_of(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.lseek(fd, skip, os.SEEK_SET)
        assert chunks_of(fd, block, header) == want
        assert os.lseek(fd, 0, os.SEEK_CUR) == size
    finally:
        os.close(fd)
    with open(path, "rb", buffering=0) as f:
        f.seek(skip)
        assert chunks_of(f, block, header) == want
        assert f.tell() == size


@needs_proc
@pytest.mark.parametrize("block, extra", [(HALVES_MIN, 1), (HALVES_MIN - 1, 0)])
def test_the_second_thread_runs_only_for_large_blocks_and_while_the_stream_does(file_of, block, extra):
    """Blocks of HALVES_MIN bytes have the read-ahead thread while the stream runs (so the tests
    above read in halves); one byte less has none; the thread is gone when the stream ends and
    when the consumer closes it halfway."""
    path = file_of(data_of(READ_AHEAD_MIN + 4 * block + 1))
    base = threads()
    fd = os.open(path, os.O_RDONLY)
    try:
        it = chunkers.Fixed(block).chunkify(fd)
        next(it)
        assert threads() == base + extra
        it.close()
        assert threads() == base
        os.lseek(fd, 0, os.SEEK_SET)
        assert sum(c.size for c in chunkers.Fixed(block).chunkify(fd)) == READ_AHEAD_MIN + 4 * block + 1
        assert threads() == base
    finally:
        os.close(fd)


@pytest.mark.parametrize("left", [0, 1, HALF_4M - 1, HALF_4M, HALF_4M + 1, 4 * MIB - 1, 4 * MIB, 4 * MIB + 1])
def test_read_returns_what_sequential_reads_would(file_of, left):
    """HalvesReader.read of a 4 MiB view with ``left`` bytes before the end of the file: the bytes
    sequential reads would give, and the offset where they leave it."""
    pos = 5 * MIB
    data = data_of(pos + left, seed=1)
    fd = os.open(file_of(data), os.O_RDONLY)
    try:
        os.lseek(fd, pos, os.SEEK_SET)
        reader = HalvesReader(open_source(fd))
        buf = bytearray(4 * MIB)
        got = reader.read(memoryview(buf))
        reader.close()
        assert got == min(left, 4 * MIB)
        assert buf[:got] == data[pos:pos + got]
        assert os.lseek(fd, 0, os.SEEK_CUR) == pos + got
    finally:
        os.close(fd)


def test_a_short_first_half_is_the_end_even_if_the_second_half_read_more(file_of, monkeypatch):
    """A first half that ends short (the file ended when it was read; here a pread made to stop at
    1000 bytes) ends the block there, and the descriptor is left after those bytes, though the
    second half read on (fails when the second half's bytes are returned after a gap)."""
    data = data_of(READ_AHEAD_MIN + 8 * MIB, seed=2)
    fd = os.open(file_of(data), os.O_RDONLY)
    real = os.preadv
    monkeypatch.setattr(os, "preadv", lambda f, views, off: real(f, [views[0][:1000 - off]], off) if off < 1000 else 0)
    try:
        reader = HalvesReader(open_source(fd))
        buf = bytearray(4 * MIB)
        assert reader.read(memoryview(buf)) == 1000
        reader.close()
        assert buf[:1000] == data[:1000]
        assert os.lseek(fd, 0, os.SEEK_CUR) == 1000
    finally:
        os.close(fd)


def test_file_that_shrinks_mid_stream_ends_where_it_now_ends(file_of):
    """A file truncated to 10 MiB + 5 after its first 4 MiB block ends there: the chunks join to its
    first 10 MiB + 5 bytes, the last one short."""
    data = data_of(24 * MIB, seed=3)
    path = file_of(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        it = chunkers.Fixed(4 * MIB).chunkify(fd)
        chunks = [next(it)]
        os.truncate(path, 10 * MIB + 5)
        chunks += list(it)
    finally:
        os.close(fd)
    assert [c.size for c in chunks] == [4 * MIB, 4 * MIB, 2 * MIB + 5]
    assert b"".join(bytes(c.size) if c.data is None else c.tobytes() for c in chunks) == data[:10 * MIB + 5]


@needs_proc
def test_read_error_is_an_os_error_after_both_halves_ended(file_of):
    """Reads that fail (a regular file over the threshold opened write-only: EBADF, in both
    threads) are an OSError with its errno, and the thread is gone."""
    fd = os.open(file_of(data_of(READ_AHEAD_MIN + 1)), os.O_WRONLY)
    base = threads()
    try:
        with pytest.raises(OSError) as e:
            list(chunkers.Fixed(4 * MIB).chunkify(fd))
        assert e.value.errno == errno.EBADF
    finally:
        os.close(fd)
    assert threads() == base


FORK_CHILD = """
import faulthandler, os, sys
import chunkers
fd = os.open(sys.argv[1], os.O_RDONLY)
it = chunkers.Fixed(4 << 20).chunkify(fd)
first = next(it).size
pid = os.fork()
if pid == 0:
    faulthandler.dump_traceback_later(20, exit=True)     # a hang is the bug: exit instead
    os._exit(0 if first + sum(c.size for c in it) == os.fstat(fd).st_size else 4)
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
os.lseek(fd, first, os.SEEK_SET)        # the child moved the shared offset: read the parent's rest again
print(code, first + sum(c.size for c in it))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_stream_continued_in_a_forked_child_reads_in_one_thread(file_of, tmp_path):
    """A child forked mid-stream has no read-ahead thread: it reads the rest in its own thread (the
    whole file, not a hang on the parent's thread), and the parent's stream goes on too."""
    size = READ_AHEAD_MIN + 4 * MIB + 3
    code, out, err = run_script(tmp_path, FORK_CHILD, file_of(data_of(size)))
    assert code == 0, err
    assert out.split() == ["0", str(size)], err


def test_halves_reader_is_used_only_where_it_pays(file_of):
    """halves_reader: a reader for a regular file's descriptor with more than READ_AHEAD_MIN bytes
    left and blocks of HALVES_MIN or more; None for smaller blocks, a file at the threshold, or a
    pipe."""
    fd = os.open(file_of(data_of(READ_AHEAD_MIN + 1)), os.O_RDONLY)
    r, w = os.pipe()
    try:
        assert isinstance(driver.halves_reader(open_source(fd), HALVES_MIN), HalvesReader)
        assert driver.halves_reader(open_source(fd), HALVES_MIN - 1) is None
        os.lseek(fd, 1, os.SEEK_SET)
        assert driver.halves_reader(open_source(fd), HALVES_MIN) is None
        assert driver.halves_reader(open_source(r), HALVES_MIN) is None
    finally:
        for x in (fd, r, w):
            os.close(x)
