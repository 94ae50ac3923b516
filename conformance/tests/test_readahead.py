"""The stream driver's read-ahead (chunkers/driver.pyx, csrc/readahead.c): a file descriptor of a
regular file with more than READ_AHEAD_MIN bytes left is read by a background thread, which fills
the free part of the read buffer READ_AHEAD_PIECE bytes a read while the scan follows it. Cut points never depend on how reads are split (spec 01 §7), a
kept chunk keeps its bytes (spec 01 §8), and the thread never outlives its stream."""

import errno
import io
import os
import time

import pytest

import chunkers
from chunkers import driver
from chunkers.driver import READ_AHEAD_MIN, READ_SIZE
from vectors.generators import sha_ctr

KEY = bytes(32)
PARAMS = [(6, 10, 8, 0), (10, 16, 12, 2), (16, 21, 18, 1)]
# max_size 1 KiB: the read buffer is 1 MiB + 1 KiB, so the bytes ahead are read in pieces shorter
# than READ_SIZE and the uncut bytes move about once per READ_SIZE; 2 MiB: a chunk spans reads.


def data_of(n, seed=0):
    """n bytes: SHA-CTR with zero runs (all-zero chunks) every 700 kB."""
    b = bytearray(sha_ctr(n + seed)[seed:])
    for i in range(100000, n, 700000):
        b[i:i + 300000] = bytes(len(b[i:i + 300000]))
    return bytes(b)


@pytest.fixture
def file_of(tmp_path):
    def make(data):
        path = tmp_path / f"input{len(data)}.bin"
        path.write_bytes(data)
        return path
    return make


def threads():
    """This process's thread count (Linux: /proc/self/task)."""
    return len(os.listdir("/proc/self/task"))


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc/self/task (Linux)")


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("size, skip", [(READ_AHEAD_MIN, 0), (READ_AHEAD_MIN + 1, 0),
                                        (READ_AHEAD_MIN + 3 * READ_SIZE + 12345, 0),
                                        (READ_AHEAD_MIN + 3 * READ_SIZE + 12345, 777777),
                                        (READ_AHEAD_MIN + 3 * READ_SIZE + 12345, 3 * READ_SIZE + 12345)])
def test_read_ahead_chunks_are_the_memory_chunks(file_of, params, size, skip):
    """At the read-ahead threshold (plain reads), just and well above it, from an offset that
    leaves more than it and one that leaves exactly it: the chunks of the fd (and of an unbuffered
    file object) are those of the same bytes in memory, each chunk's bytes included, and the
    descriptor ends at the end of the file."""
    data = data_of(size)
    want = list(chunkers.FastCDC(KEY, *params).chunkify(data[skip:]))
    path = file_of(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.lseek(fd, skip, os.SEEK_SET)
        got = list(chunkers.FastCDC(KEY, *params).chunkify(fd))
        assert os.lseek(fd, 0, os.SEEK_CUR) == size
    finally:
        os.close(fd)
    assert [c.size for c in got] == [c.size for c in want]
    assert [c.tobytes() for c in got] == [c.tobytes() for c in want]
    with open(path, "rb", buffering=0) as f:
        f.seek(skip)
        assert [c.size for c in chunkers.FastCDC(KEY, *params).chunkify(f)] == [c.size for c in want]
        assert f.tell() == size


@pytest.mark.parametrize("piece", [1, 4095, 65537, READ_SIZE, 4 * READ_SIZE])
def test_read_ahead_pieces_do_not_change_the_chunks(file_of, monkeypatch, piece):
    """Fills read in pieces of 1 byte, odd sizes, READ_SIZE and more than the free space (the
    piece is at most READ_SIZE): the chunks of the fd are the memory chunks, bytes included
    (fails when the scan takes bytes of a piece not yet reported, or misses a piece's end)."""
    monkeypatch.setattr(driver, "READ_AHEAD_PIECE", piece)
    size = READ_AHEAD_MIN + (3 * READ_SIZE if piece > 1 else 12345) + 4321
    data = data_of(size, seed=piece % 7)
    params = (10, 16, 12, 2) if piece > 1 else (16, 21, 18, 1)   # 1-byte reads: few, large chunks
    fd = os.open(file_of(data), os.O_RDONLY)
    try:
        got = list(chunkers.FastCDC(KEY, *params).chunkify(fd))
    finally:
        os.close(fd)
    want = list(chunkers.FastCDC(KEY, *params).chunkify(data))
    assert [c.size for c in got] == [c.size for c in want]
    assert b"".join(c.tobytes() for c in got) == data


def test_file_that_shrinks_during_a_fill_ends_where_it_now_ends(file_of):
    """A file truncated while its stream is suspended (the thread at most a buffer ahead: 3 MiB)
    ends at its new size: a read of the fill returns 0, the bytes before it are chunked, the
    chunks concatenate to the file's first 10 MiB (fails when the end of a fill is taken for a
    full buffer, or the bytes read before it are lost)."""
    data = data_of(24 << 20, seed=3)
    path = file_of(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        it = chunkers.FastCDC(KEY, 16, 21, 18, 1).chunkify(fd)
        chunks = [next(it)]
        os.truncate(path, 10 << 20)
        chunks += list(it)
    finally:
        os.close(fd)
    assert b"".join(c.tobytes() for c in chunks) == data[:10 << 20]


@needs_proc
@pytest.mark.parametrize("size, extra", [(READ_AHEAD_MIN, 0), (READ_AHEAD_MIN + 1, 1)])
def test_read_ahead_thread_lives_only_while_its_stream_does(file_of, size, extra):
    """A stream of a file over the threshold has one thread more while it runs (none at or under
    it); it is gone when the stream ends, and when the consumer closes it halfway."""
    path = file_of(data_of(size))
    base = threads()
    with open(path, "rb", buffering=0) as f:
        it = chunkers.FastCDC(KEY, 6, 10, 8, 0).chunkify(f)
        next(it)
        assert threads() == base + extra
        for _ in range(3000):
            next(it)
        it.close()
        assert threads() == base
    fd = os.open(path, os.O_RDONLY)
    try:
        assert sum(c.size for c in chunkers.FastCDC(KEY, 10, 16, 12, 2).chunkify(fd)) == size
    finally:
        os.close(fd)
    assert threads() == base


def test_kept_chunks_keep_their_bytes_while_reads_run_ahead(file_of):
    """Every chunk of an 8 MiB file kept while the thread reads ahead into the same buffer keeps
    its bytes (fails when the uncut bytes move, or a read lands, while a chunk refers to them)."""
    data = data_of(8 << 20, seed=5)
    fd = os.open(file_of(data), os.O_RDONLY)
    try:
        kept = list(chunkers.FastCDC(KEY, 6, 10, 8, 0).chunkify(fd))
    finally:
        os.close(fd)
    assert b"".join(c.tobytes() for c in kept) == data


@needs_proc
def test_read_error_in_the_read_ahead_thread_is_an_os_error(file_of):
    """A read that fails in the read-ahead thread is an OSError with its errno in the consumer (a
    regular file over the threshold opened write-only: EBADF), and the thread is gone."""
    path = file_of(data_of(READ_AHEAD_MIN + 1))
    fd = os.open(path, os.O_WRONLY)
    base = threads()
    try:
        with pytest.raises(OSError) as e:
            list(chunkers.FastCDC(KEY, 6, 10, 8, 0).chunkify(fd))
        assert e.value.errno == errno.EBADF
    finally:
        os.close(fd)
    assert threads() == base


def test_stream_reads_its_file_when_the_descriptor_number_is_reused(file_of):
    """The thread reads its own duplicate of the descriptor: when the caller's number is made a
    pipe's mid-stream (as a closed and reused number would be), the stream still gives the file's
    chunks and the pipe keeps its bytes (fails when the thread reads the caller's number)."""
    data = data_of(READ_AHEAD_MIN + 4 * READ_SIZE)
    want = chunkers.FastCDC(KEY, 6, 10, 8, 0).chunk_sizes(data)
    fd = os.open(file_of(data), os.O_RDONLY)
    r, w = os.pipe()
    try:
        it = chunkers.FastCDC(KEY, 6, 10, 8, 0).chunkify(fd)
        got = [next(it).size]
        os.dup2(r, fd)
        os.write(w, b"the pipe's own bytes")
        os.close(w)
        got += [c.size for c in it]
        assert got == want
        assert os.read(fd, 100) == b"the pipe's own bytes"
    finally:
        os.close(fd)
        os.close(r)


def test_buffered_and_other_readers_are_unchanged(file_of):
    """Only a descriptor or an unbuffered OS file is read ahead; a buffered reader and a BytesIO
    give the same chunks through the plain path."""
    data = data_of(READ_AHEAD_MIN + READ_SIZE + 1)
    want = chunkers.FastCDC(KEY, 10, 16, 12, 2).chunk_sizes(data)
    with open(file_of(data), "rb") as f:
        assert [c.size for c in chunkers.FastCDC(KEY, 10, 16, 12, 2).chunkify(f)] == want
    assert [c.size for c in chunkers.FastCDC(KEY, 10, 16, 12, 2).chunkify(io.BytesIO(data))] == want


def run_script(tmp_path, text, *args, launcher=()):
    """Run ``text`` as a Python script with this interpreter and sys.path (a normal exit: the
    coverage build writes its counters): (exit code, stdout, stderr)."""
    import subprocess
    import sys
    script = tmp_path / "script.py"
    script.write_text(text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([*launcher, sys.executable, str(script), *map(str, args)], env=env,
                         capture_output=True, text=True, timeout=120)
    return run.returncode, run.stdout, run.stderr


STREAM_THEN_FORK = """
import ctypes, faulthandler, os, sys
import chunkers
fd = os.open(sys.argv[1], os.O_RDONLY)
it = chunkers.FastCDC(bytes(32), 6, 10, 8, 0).chunkify(fd)
first = next(it).size


def continue_in_child():
    faulthandler.dump_traceback_later(20, exit=True)     # a hang is the bug: exit instead
    try:
        for _ in it:
            pass
        sys.exit(4)
    except RuntimeError as e:
        sys.exit(0 if "forked child" in str(e) else 5)
"""

FORK_CHILD = STREAM_THEN_FORK + """
pid = os.fork()
if pid == 0:
    continue_in_child()
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(code, first + sum(c.size for c in it))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_stream_continued_in_a_forked_child_is_refused(file_of, tmp_path):
    """A child forked while a stream is read ahead has no reader thread: continuing the stream
    there is a RuntimeError saying so (not a hang on the parent's thread), and the parent's stream
    goes on to the end of the file."""
    size = READ_AHEAD_MIN + 4 * READ_SIZE
    code, out, err = run_script(tmp_path, FORK_CHILD, file_of(data_of(size)))
    assert code == 0, err
    assert out.split() == ["0", str(size)], err


FALLBACK = """
import os, resource, sys
import chunkers
mode, path = sys.argv[1], sys.argv[2]
c = chunkers.FastCDC(bytes(32), 6, 10, 8, 0)
with open(path, "rb") as f:
    want = c.chunk_sizes(f.read())
fd = os.open(path, os.O_RDONLY)
with open(path, "rb") as f:     # a first stream (plain reads): c keeps its two read buffers
    assert sum(x.size for x in c.chunkify(f)) == sum(want)
os.lseek(fd, 0, os.SEEK_SET)
fillers = []
if mode == "descriptors":       # no descriptor left for the thread's duplicate
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    try:
        while True:
            fillers.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        pass
else:                           # no room for the thread's stack
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, ((vm << 10) + (2 << 20), resource.RLIM_INFINITY))
it = c.chunkify(fd)
got = [next(it).size]
for x in fillers:
    os.close(x)
threads = len(os.listdir("/proc/self/task"))
got += [x.size for x in it]
print(threads, got == want)
"""


@needs_proc
@pytest.mark.parametrize("mode", ["descriptors", "memory"])
def test_no_thread_to_be_had_means_plain_reads(file_of, tmp_path, mode):
    """When the thread's descriptor (RLIMIT_NOFILE) or its stack (RLIMIT_AS) cannot be had, the
    stream reads in the consumer's thread: no second thread, the same chunks."""
    code, out, err = run_script(tmp_path, FALLBACK, mode, file_of(data_of(READ_AHEAD_MIN + 2 * READ_SIZE)))
    assert code == 0, err
    assert out.split() == ["1", "True"], err


PIDNS_CHILD = STREAM_THEN_FORK + """
pid = os.fork()
if pid == 0:                # a new pid namespace: its first process is pid 1, as the starter is
    if ctypes.CDLL(None, use_errno=True).unshare(0x20000000) != 0:     # CLONE_NEWPID
        os._exit(7)
    g = os.fork()
    if g == 0:
        continue_in_child()
    os._exit(os.waitstatus_to_exitcode(os.waitpid(g, 0)[1]))
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


@pytest.mark.skipif(not hasattr(os, "fork") or not os.path.exists("/usr/bin/unshare"), reason="needs unshare(1)")
def test_fork_check_holds_when_the_child_has_the_starters_pid(file_of, tmp_path):
    """Pid 1 of a pid namespace starts a stream; its child forks a grandchild in a new namespace,
    pid 1 again. The grandchild continuing the stream is refused (the fork count, not the pid,
    tells it), not a hang on a thread it does not have."""
    import subprocess
    if subprocess.run(["unshare", "-p", "--fork", "true"], capture_output=True).returncode:
        pytest.skip("no permission for a pid namespace here")
    path = file_of(data_of(READ_AHEAD_MIN + 4 * READ_SIZE))
    code, _, err = run_script(tmp_path, PIDNS_CHILD, path, launcher=("unshare", "-p", "--fork"))
    if code == 7:
        pytest.skip("no permission to unshare a pid namespace from Python here")
    assert code == 0, err


def _offset_at_least(fd, n):
    """Wait until the read-ahead thread's reads (the open file's offset, shared with its
    duplicate) have passed ``n`` bytes; a cap of 120 s, not a timed assertion."""
    for _ in range(120000):
        if os.lseek(fd, 0, os.SEEK_CUR) >= n:
            return
        time.sleep(0.001)
    pytest.fail(f"the read-ahead thread never read {n} bytes")


def _thread_fd(fd):
    """The read-ahead thread's duplicate of ``fd`` (same file, another number; /proc/self/fd)."""
    target = os.readlink(f"/proc/self/fd/{fd}")
    dups = [int(n) for n in os.listdir("/proc/self/fd")
            if int(n) != fd and os.path.exists(f"/proc/self/fd/{n}") and os.readlink(f"/proc/self/fd/{n}") == target]
    assert len(dups) == 1, dups
    return dups[0]


@needs_proc
def test_a_stream_closed_during_a_fill_stops_its_reads(file_of, monkeypatch):
    """Closing a stream while its thread fills the buffer (1-byte pieces: a fill of about 1 MiB
    is a million reads) stops the reads at the next piece: the file's offset stays far below
    where the fill would end (fails when stop waits for the fill to complete)."""
    monkeypatch.setattr(driver, "READ_AHEAD_PIECE", 1)
    data = data_of(READ_AHEAD_MIN + 12345, seed=11)
    fd = os.open(file_of(data), os.O_RDONLY)
    base = threads()
    try:
        it = chunkers.FastCDC(KEY, 6, 10, 8, 0).chunkify(fd)
        first = next(it)
        _offset_at_least(fd, 4096)
        it.close()
        offset = os.lseek(fd, 0, os.SEEK_CUR)
    finally:
        os.close(fd)
    assert first.size <= 1024 and threads() == base
    assert offset < READ_SIZE + 1024, offset     # the whole first fill: READ_SIZE + max_size bytes


@needs_proc
def test_a_read_failing_after_landed_pieces_chunks_them_first(file_of, monkeypatch):
    """A read of the thread that fails after pieces of its fill landed (its descriptor closed
    under it: EBADF) is an OSError only after every landed byte was scanned: the chunks cover the
    file up to at most max_size before where the reads stopped, and are its bytes (fails when
    the error is reported before the bytes that came with the fill)."""
    monkeypatch.setattr(driver, "READ_AHEAD_PIECE", 1)
    data = data_of(READ_AHEAD_MIN + 12345, seed=12)
    fd = os.open(file_of(data), os.O_RDONLY)
    chunks = []
    try:
        it = chunkers.FastCDC(KEY, 6, 10, 8, 0).chunkify(fd)
        chunks.append(next(it))
        _offset_at_least(fd, 256 << 10)         # far more than the consumer has seen, far less than the fill
        os.close(_thread_fd(fd))
        with pytest.raises(OSError) as e:
            for c in it:
                chunks.append(c)
        read = os.lseek(fd, 0, os.SEEK_CUR)
    finally:
        os.close(fd)
    assert e.value.errno == errno.EBADF
    got = b"".join(c.tobytes() for c in chunks)
    assert got == data[:len(got)] and read - 1024 <= len(got) <= read, (len(got), read)
