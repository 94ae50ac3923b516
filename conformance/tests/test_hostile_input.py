"""The driver and the API under hostile input (issue 11): devices with sparse reading, buffers
whose items are not data, misbehaving readers, Ctrl-C during an in-memory scan, pickling, and one
set of rules for the API, the params strings and CHUNKERS_CPU_HIDE. Expected values come from
the pure-Python model or from a plain (non-sparse, bytes) run."""

import copy
import ctypes
import os
import pickle
import random
import signal
import threading
import time

import pytest

import chunkers
from chunkers.params import ParamsError
from chunkers.registry import HIDE_ENV
from vectors.impls import Model

KEY = bytes(range(32))
SMALL = {   # params string -> what make_chunker needs besides it
    "fastcdc,6,12,8,2": dict(key=KEY),
    "buzhash64,6,12,8,63,2": dict(key=KEY),
    "buzhash,6,12,8,63": dict(seed=-5),
    "fixed,100,30": {},
    "rabin-aes,6,12,8,2": dict(key=KEY),
    "goldilocks-aes,6,12,8,2": dict(key=KEY),
    "toeplitz-aes,6,12,8,2": dict(key=KEY),
}
DATA = random.Random(11).randbytes(40_000)


def _model(params, data, **kw):
    return Model().chunk_sizes(chunkers.parse_params(params), data, key=kw.get("key", bytes(32)),
                               seed=kw.get("seed", 0))


# --- sparse reading: only regular files --------------------------------------------------------

@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("params", ["fixed,4096", "fastcdc,6,12,8,2"])
def test_sparse_on_a_character_device_reads_its_bytes(device, params):
    """A device reports size 0 and SEEK_DATA 0: hole skipping would give an empty stream."""
    chunker = chunkers.make_chunker(params, sparse=True)
    with open(device, "rb", buffering=0) as f, open(device, "rb", buffering=0) as g:
        first = next(iter(chunker.chunkify(f)))
        fd_first = next(iter(chunker.chunkify(g.fileno())))
    assert first.all_zero == fd_first.all_zero == (device == "/dev/zero")
    if device == "/dev/zero":       # the first cut of an endless zero stream, from the model
        assert first.size == fd_first.size == _model(params, bytes(8192))[0]
    else:
        assert first.size > 0 and fd_first.size > 0


def test_sparse_on_a_pipe_reads_its_bytes():
    r, w = os.pipe()
    os.write(w, DATA[:30000])
    os.close(w)
    try:
        sizes = chunkers.make_chunker("fastcdc,6,12,8,2", key=KEY, sparse=True).chunk_sizes(r)
    finally:
        os.close(r)
    assert sizes == _model("fastcdc,6,12,8,2", DATA[:30000], key=KEY)


# --- buffer formats ----------------------------------------------------------------------------

@pytest.mark.parametrize("make, fmt", [
    (lambda: (ctypes.py_object * 4)(), "O"),
    (lambda: (ctypes.c_void_p * 4)(), "P"),
    (lambda: (ctypes.c_char * 3 * 2)(), None),      # a 2-D char array is data: accepted
])
def test_only_plain_data_buffers_are_chunked(make, fmt):
    buf = make()
    chunker = chunkers.make_chunker("fastcdc,6,12,8,2")
    if fmt is None:
        assert chunker.chunk_sizes(buf) == _model("fastcdc,6,12,8,2", bytes(buf))
        return
    assert memoryview(buf).format.lstrip("<>@=!&") == fmt
    for call in (chunker.chunk_sizes, lambda b: list(chunker.chunkify(b)),
                 chunkers.make_chunker("fixed,4096").chunk_sizes):
        with pytest.raises(TypeError, match=f"format .*{fmt}.*not plain data"):
            call(buf)


# --- readers -----------------------------------------------------------------------------------

class _Readinto:
    def __init__(self, result):
        self.result = result

    def readinto(self, view):
        return self.result


class _Read:
    def __init__(self, result):
        self.result = result

    def read(self, n):
        return self.result


@pytest.mark.parametrize("reader, error", [
    (_Readinto(10.0), "readinto\\(\\) returned float, expected an int"),
    (_Readinto("10"), "readinto\\(\\) returned str, expected an int"),
    (_Readinto(True), "readinto\\(\\) returned bool, expected an int"),
    (_Read(memoryview(bytearray(8)).cast("I")), "reader returned a buffer of format 'I', expected bytes"),
    (_Read("text"), "reader returned str, expected bytes"),
])
@pytest.mark.parametrize("params", ["fastcdc,6,12,8,2", "fixed,100"])
def test_reader_results_are_checked(reader, error, params):
    with pytest.raises(TypeError, match=error):
        chunkers.make_chunker(params).chunk_sizes(reader)


def test_read_may_return_any_byte_buffer():
    class Reader:
        def __init__(self):
            self.data = memoryview(DATA)

        def read(self, n):
            out, self.data = self.data[:min(n, 777)], self.data[min(n, 777):]
            return memoryview(bytearray(out)).cast("c")

    assert chunkers.make_chunker("fastcdc,6,12,8,2").chunk_sizes(Reader()) == _model("fastcdc,6,12,8,2", DATA)


# --- Ctrl-C during an in-memory scan -----------------------------------------------------------

@pytest.mark.parametrize("params", ["fastcdc,19,23,21,2", "rabin-aes,19,23,21,2"])
def test_ctrl_c_interrupts_an_in_memory_scan(params):
    """A SIGINT sent while chunk_sizes() runs on a large buffer is raised inside chunk_sizes (the
    driver checks signals every few MiB), not after it returns. Without the checks the
    KeyboardInterrupt could only surface in Python code between two calls.
    Python's own SIGINT handler is installed for the test: a process started in the background
    by a non-interactive shell (a CI lane, the mutant runner) inherits SIGINT ignored, and
    Python then keeps it ignored, so the signal would never arrive."""
    chunker = chunkers.make_chunker(params)
    data = bytearray(64 << 20)
    started = threading.Event()
    timer = threading.Thread(target=lambda: (started.wait(), time.sleep(0.05), os.kill(os.getpid(), signal.SIGINT)))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as exc:
            for _ in range(10_000):      # bounded: the signal arrives during one of these calls
                started.set()
                chunker.chunk_sizes(data)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert any(entry.name.endswith("chunk_sizes") and "driver" in str(entry.path) for entry in exc.traceback)


# --- pickling and copies -----------------------------------------------------------------------

@pytest.mark.parametrize("params", sorted(SMALL))
def test_chunkers_pickle_and_copy(params):
    kw = SMALL[params]
    kernel = "blockwise" if params.startswith(("fastcdc", "buzhash64")) else None
    c = chunkers.make_chunker(params, kernel=kernel, sparse=True, **kw)
    want = _model(params, DATA, **kw)
    for other in (pickle.loads(pickle.dumps(c)), copy.copy(c), copy.deepcopy(c)):
        assert type(other) is type(c) and other is not c
        assert (other.params_tuple, other.kernel, other.sparse) == (c.params_tuple, c.kernel, True)
        assert other.chunk_sizes(DATA) == want


def test_an_uninitialized_chunker_does_not_pickle():
    with pytest.raises(TypeError, match="not initialized"):
        pickle.dumps(chunkers.FastCDC.__new__(chunkers.FastCDC))


# --- sparse must be a bool ---------------------------------------------------------------------

@pytest.mark.parametrize("params", sorted(SMALL))
@pytest.mark.parametrize("sparse", ["no", 1, None])
def test_sparse_must_be_a_bool(params, sparse):
    with pytest.raises(TypeError, match="sparse must be a bool"):
        chunkers.make_chunker(params, sparse=sparse, **SMALL[params])


# --- one set of rules --------------------------------------------------------------------------

@pytest.mark.parametrize("params, kw, error", [
    ("fixed,4096", dict(key=KEY), "fixed takes no key"),
    ("buzhash,19,23,21,4095", dict(key=KEY), "buzhash takes no key \\(it takes a seed\\)"),
    ("fastcdc,19,23,21,2", dict(seed=5), "only the legacy buzhash takes a seed, not fastcdc"),
    ("rabin-aes,19,23,21,2", dict(seed=0), "only the legacy buzhash takes a seed"),
    ("fixed,4096", dict(seed=0), "only the legacy buzhash takes a seed, not fixed"),
])
def test_api_refuses_a_key_or_seed_the_chunker_does_not_take(params, kw, error):
    with pytest.raises(ParamsError, match=error):
        chunkers.chunk_sizes(params, b"abc", **kw)
    with pytest.raises(ParamsError, match=error):
        chunkers.make_chunker(params, **kw)


def test_api_takes_the_key_or_seed_a_chunker_takes():
    assert chunkers.chunk_sizes("buzhash,6,12,8,63", DATA, seed=-5) == _model("buzhash,6,12,8,63", DATA, seed=-5)
    assert chunkers.chunk_sizes("fastcdc,6,12,8,2", DATA, key=KEY) == _model("fastcdc,6,12,8,2", DATA, key=KEY)


@pytest.mark.parametrize("params", [(), [], (5, 6), [None]])
def test_a_params_tuple_must_start_with_a_name(params):
    with pytest.raises(ParamsError, match="starts with the chunker name"):
        chunkers.make_chunker(params)


@pytest.mark.parametrize("text, error", [
    ("buzhash64,19,23,21,0,2", "hash_window_size=0 is out of range"),
    ("fixed,4096,-9223372036854775809", "header_size=.* is out of range"),
])
def test_parse_params_enforces_the_constructor_rules(text, error):
    with pytest.raises(ParamsError, match=error):
        chunkers.parse_params(text)


@pytest.mark.parametrize("params", ["fixed,4096", "buzhash,19,23,21,4095"])
def test_cpu_hide_is_validated_for_every_family(monkeypatch, params):
    """A misspelt CHUNKERS_CPU_HIDE is an error also for the single-implementation chunkers."""
    monkeypatch.setenv(HIDE_ENV, "junk")
    with pytest.raises(ValueError, match="CHUNKERS_CPU_HIDE: unknown CPU feature junk"):
        chunkers.make_chunker(params)
    with pytest.raises(ValueError, match="CHUNKERS_CPU_HIDE: unknown CPU feature junk"):
        chunkers.kernels()
