#!/usr/bin/env python3
"""Fuzz target: a whole chunker, fed through a misbehaving reader (spec 01 §4.1, §5, §7, §8).

The fuzzer picks the chunker kind (fastcdc, buzhash64, the three AES
chunkers, legacy buzhash, fixed) and its parameters (valid or not), the
normal size, the key, the legacy buzhash seed, the kernel name, the data and
a read schedule (short reads, an early 0 = EOF, None, an oversized read, an
OSError). Checked:

* construction raises ValueError / TypeError / OverflowError exactly when
  the model (the model package) or the key / seed / kernel / normal size
  rules say the arguments are invalid, and nothing else escapes (a key is
  ignored by the unkeyed chunkers, a seed by all but legacy buzhash);
* the streamed chunks equal the whole-buffer chunks of the bytes the reader
  delivered, and so do the chunks of the data from a regular file by
  descriptor, read ahead by the driver's thread in reads of a drawn size
  (the driver's READ_AHEAD_MIN set to 0 and its READ_SIZE to that size, so
  fuzz-sized files move their uncut bytes between buffers while reads run);
  a reader error propagates and the chunks yielded before it are a prefix of
  the whole-buffer chunks (nothing already delivered is wrong);
* chunks reassemble to the input, stay within the size bounds (fixed: the
  header, then whole blocks), and flag all-zero chunks exactly;
* the chosen kernel gives the same chunks as the family's portable kernel
  (scalar, or evp for the AES chunkers), and (fixed keys, any seed, short
  inputs) the model's chunk sizes.

Another chunker is one more :data:`CHUNKERS` entry.
"""

import collections
import hashlib
import os
import sys
import tempfile
from typing import NamedTuple

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo, after PYTHONPATH

from chunkers import driver  # noqa: E402
from chunkers.api import credential, make_chunker  # noqa: E402
from chunkers.families import CHUNKERS as TABLE  # noqa: E402
from chunkers.families import FAMILIES  # noqa: E402
from chunkers.params import MAX_DATA_SIZE  # noqa: E402
from chunkers.registry import all_names, reference, why_not  # noqa: E402
from fuzz.harness import check, model  # noqa: E402
from fuzz.input import Input, script  # noqa: E402
from vectors.impls.base import reuse  # noqa: E402

U64 = (1 << 64) - 1
MAX_DATA = 1 << 16
MODEL_MAX = 1024
KEYS = (bytes(32), bytes(range(32)), hashlib.sha256(b"fuzz").digest())
WILD = (-(1 << 64), -(1 << 63) - 1, -(1 << 63), -(1 << 31) - 1, -(1 << 31), -1, 0, 1, 2, 23, 24, 25, 47, 48, 49,
        62, 63, 64, 65, (1 << 31) - 1, 1 << 31, 1 << 32, 1 << 63, U64, 1 << 64, MAX_DATA_SIZE, MAX_DATA_SIZE + 1)
CLEAN_ERRORS = (ValueError, TypeError, OverflowError)


class Field(NamedTuple):
    """A positional chunker parameter and the range it is usually drawn from."""

    name: str
    lo: int
    hi: int


class ChunkerKind(NamedTuple):
    """One chunker: its params-tuple name (spec 01 §2), kernel family, fields;
    ``shortest_cut``: a hash cut makes a chunk of at least min_size +
    shortest_cut bytes (1 window-less, 0 windowed; None: fixed sizes);
    ``credential``: what it is keyed with ("key", "seed" or "");
    ``normal_size``: whether it takes a normal size; ``reference``: the
    portable kernel the chosen one is compared with (the family's reference
    row)."""

    algo: str
    family: str
    fields: tuple
    shortest_cut: int | None
    credential: str = "key"
    normal_size: bool = True

    @property
    def reference(self) -> str:
        return reference(self.family)

    @property
    def hash(self) -> str:
        """Its family's rolling hash (chunkers.families: Family.hash); "uhf": an AES chunker."""
        return FAMILIES[self.family].hash


_SIZES = (Field("chunk_min_exp", 0, 12), Field("chunk_max_exp", 1, 16), Field("hash_mask_bits", 0, 14))
_NC = Field("nc_level", 0, 4)
_WINDOW = Field("hash_window_size", 1, 128)
_FIELDS = {"chunk_min": _SIZES[0], "chunk_max": _SIZES[1], "chunk_mask": _SIZES[2], "window_size": _WINDOW,
           "nc_level": _NC, "block_size": Field("block_size", 1, 3000), "header_size": Field("header_size", -8, 3000)}
"""The fuzzed range of each params field of the family table (chunkers.families: Chunker.fields)."""


def _kind(c) -> ChunkerKind:
    """The ChunkerKind of the family table's chunker ``c``: a hash cut is one byte past min_size at
    the least without a window parameter, at min_size with one; a chunker without a mask cuts fixed sizes."""
    shortest = None if "chunk_mask" not in c.fields else 0 if "window_size" in c.fields else 1
    return ChunkerKind(c.name, c.family, tuple(_FIELDS[f] for f in c.fields), shortest, c.credential or "",
                       "nc_level" in c.fields)


# the keyed chunkers first: an input picks its chunker by index, in the order the corpora were recorded in
CHUNKERS = {c.name: _kind(c) for c in sorted(TABLE.values(), key=lambda c: c.credential != "key")}
# Every kernel name of every platform (the same on all hosts, so an input decodes alike everywhere), none,
# spellings to normalise and one that is no kernel.
_NAMES = all_names()
KERNEL_NAMES = (*_NAMES, None, "", f" {_NAMES[0].title()} ", f" {_NAMES[-1].upper()}", "auto")


FD_READ_SIZES = (driver.READ_SIZE, 4096, 1000, 65, 64, 63, 2, 1)
FD_READS = 256      # at most this many reads per file (a read is a hand-off between threads)


class ReaderFault(OSError):
    """The error a scheduled read raises; it must reach the caller unchanged."""


class Reader:
    """A binary file over ``data`` whose reads follow ``schedule``: ("short",
    n) gives at most n bytes, ("eof",) returns 0, ("none",) None, ("over",)
    more than requested, ("fault",) raises; then full reads."""

    def __init__(self, data: bytes, schedule: list, use_read: bool):
        self.data, self.schedule, self.pos = data, list(schedule), 0
        self.ended = None                       # the schedule event that ended the stream early
        if use_read:
            self.read = self._read
        else:
            self.readinto = self._readinto

    def _next(self, want: int):
        check(self.ended is None, f"read after the stream ended with {self.ended}")
        ev = self.schedule.pop(0) if self.schedule else ("full",)
        if ev[0] == "fault":
            self.ended = "fault"
            raise ReaderFault("scheduled read failure")
        if ev[0] in ("eof", "none", "over"):
            self.ended = ev[0]
            return {"eof": 0, "none": None, "over": want + 1}[ev[0]]
        n = min(want, len(self.data) - self.pos, ev[1] if ev[0] == "short" else want)
        if n == 0:
            self.ended = "eof"
        return n

    def _readinto(self, view):
        n = self._next(len(view))
        if n is not None and n <= len(view):
            view[:n] = self.data[self.pos:self.pos + n]
            self.pos += n
        return n

    def _read(self, size):
        n = self._next(size)
        if n is None or n > size:
            return None if n is None else bytes(n)
        self.pos += n
        return self.data[self.pos - n:self.pos]


def _value(inp: Input, field: Field) -> int:
    return inp.choice(field.name + "_wild", WILD) if inp.bool(field.name + "_is_wild") \
        else inp.int(field.name, field.lo, field.hi)


def _seed(inp: Input):
    """A legacy buzhash seed: a C int, or a wild int (out of range: OverflowError)."""
    return inp.choice("seed_wild", WILD) if inp.bool("seed_is_wild") else inp.int("seed", -(1 << 31), (1 << 31) - 1)


def _key(inp: Input):
    kind = inp.choice("key_kind", ("fixed", "custom", "length", "type"))     # a fixed key: not a family
    if kind == "fixed":     # not a family
        return inp.choice("key_index", KEYS)
    if kind == "custom":
        return inp.bytes("key", 32)
    if kind == "length":
        return inp.bytes("key", inp.int("key_len", 0, 64))
    kinds = {"none": None, "str": "0" * 32, "bytearray": bytearray(32), "int": 0}   # None: the zero key
    return kinds[inp.choice("key_type", tuple(kinds))]


def decode(inp: Input) -> dict:
    """The fuzzer's case: chunker kind, arguments, reader, data."""
    kind = CHUNKERS[inp.choice("chunker", tuple(CHUNKERS))]
    values = tuple(_value(inp, f) for f in kind.fields)
    normal_size = 0
    if inp.bool("normal_size_set"):
        normal_size = inp.choice("normal_size_wild", WILD) if inp.bool("normal_size_is_wild") \
            else inp.int("normal_size", 0, 1 << 16)
    key = _key(inp)
    seed = _seed(inp) if kind.credential == "seed" else 0
    kernel = inp.choice("kernel", KERNEL_NAMES)
    schedule = []
    for _ in range(inp.int("reads", 0, 16)):
        ev = inp.choice("read_kind", ("short", "short", "short", "eof", "none", "over", "fault"))
        schedule.append((ev, inp.int("read_size", 1, 4096)) if ev == "short" else (ev,))
    use_read = inp.bool("use_read")
    fd_read_size = inp.choice("fd_read_size", FD_READ_SIZES)
    repeat = inp.int("repeat", 1, 32)
    data = (inp.rest("data") * repeat)[:MAX_DATA]
    return dict(kind=kind, values=values, normal_size=normal_size, key=key, seed=seed, kernel=kernel,
                schedule=schedule, use_read=use_read, fd_read_size=fd_read_size, data=data)


def invalid_because(case: dict):
    """Why construction must fail (a short reason), None if it must succeed,
    or ``...`` when unknown (no model in this checkout)."""
    key, kernel, kind, values = case["key"], case["kernel"], case["kind"], case["values"]
    if kind.credential == "key" and key is not None and (not isinstance(key, bytes) or len(key) != 32):
        return "key"                            # None: make_chunker's zero key
    if kernel is not None and kernel.strip() and why_not(kind.family, kernel.strip().lower()):
        return "kernel"
    if not 0 <= case["normal_size"] <= U64:
        return "normal_size"
    if case["normal_size"] and not kind.normal_size:
        return "normal_size without normalized chunking"
    if kind.shortest_cut is None:              # fixed sizes
        if not (values[0] <= MAX_DATA_SIZE and -(1 << 63) <= values[1] <= MAX_DATA_SIZE):
            return "fixed size bound"           # ours (Fixed docstring); borg and the model check nothing
    elif not all(0 <= e <= 64 for e in values[:2]):   # 2**e would be absurd; invalid by 01 §4.1 checks 1-2
        return "size exponent"
    m = model()
    if m is None:
        return ...
    try:
        if kind.hash == "uhf":                  # the checks of 06 §9.1 without the (slow) key expansion
            m.aes.check_params(*values)
        else:
            m.chunk_sizes((kind.algo, *values), b"", seed=case["seed"])
    except (AssertionError, ValueError, TypeError, OverflowError) as exc:
        return f"model: {exc}"
    return None


_made: collections.OrderedDict = collections.OrderedDict()
MADE_CACHE = [64]
"""The most chunkers :func:`make` keeps, least recently used out (a one-item list: impl_chunks's
campaign raises it to its corpus's configurations, CAMPAIGN_CACHE there)."""


def make(params: tuple, key, seed: int, kernel, normal_size: int):
    """make_chunker, reusing the chunker built for the same arguments (a chunker
    is reusable, spec 01 §8, and buzhash64's table derivation is slow under
    ASan). Arguments that did not construct are tried again every time."""
    def made():
        takes = credential(params)      # make_chunker refuses a key or seed the chunker does not take
        return make_chunker(params, key=key if takes == "key" else None, seed=seed if takes == "seed" else None,
                            kernel=kernel, normal_size=normal_size)
    if key is not None and type(key) is not bytes:      # a bytearray or view: not hashable, made afresh
        return made()
    return reuse(_made, (params, key, seed, kernel, normal_size), made, MADE_CACHE[0])


def _chunks(chunker, source) -> list:
    return [(c.size, c.all_zero, c.tobytes(), c.data is None) for c in chunker.chunkify(source)]


def fd_chunks(chunker, data: bytes, read_size: int) -> list:
    """The chunks of ``data`` from a regular file by descriptor, the driver reading ahead in
    reads of ``read_size`` bytes (raised so that a file takes at most FD_READS reads)."""
    saved = driver.READ_AHEAD_MIN, driver.READ_SIZE
    driver.READ_AHEAD_MIN, driver.READ_SIZE = 0, max(read_size, len(data) // FD_READS + 1)
    try:
        with tempfile.TemporaryFile() as f:
            f.write(data)
            f.flush()
            f.seek(0)
            return _chunks(chunker, f.fileno())
    finally:
        driver.READ_AHEAD_MIN, driver.READ_SIZE = saved


def size_bounds(kind: ChunkerKind, chunker):
    """``bounds(i) -> (lo, hi)``: the size range of chunk i when it is not the last one."""
    if kind.shortest_cut is None:               # fixed: the header chunk, then whole blocks
        head, block = chunker.header_size, chunker.block_size
        return lambda i: (head, head) if i == 0 and head > 0 else (block, block)
    lo, hi = chunker.min_size + kind.shortest_cut, chunker.max_size
    return lambda i: (lo, hi)


def _check_chunks(name: str, chunks: list, data: bytes, bounds) -> None:
    check(b"".join(c[2] for c in chunks) == data, f"{name}: chunks do not reassemble to the input")
    for i, (size, zero, raw, no_data) in enumerate(chunks):
        lo, hi = bounds(i)
        last = i == len(chunks) - 1
        check((1 if last else lo) <= size <= hi, f"{name}: chunk {i} of {len(chunks)} has size {size}, "
                                                 f"bounds [{lo}, {hi}]")
        check(zero == no_data == (raw.count(0) == size), f"{name}: chunk {i} all-zero flag {zero} is wrong")


def TestOneInput(raw: bytes) -> None:
    case = decode(Input(raw))
    kind, data = case["kind"], case["data"]
    params = (kind.algo, *case["values"])
    why = invalid_because(case)
    key, seed = case["key"], case["seed"]
    try:
        chunker = make(params, key, seed, case["kernel"], case["normal_size"])
    except CLEAN_ERRORS as exc:
        check(why is not None, lambda e=exc: f"valid {params} (normal_size {case['normal_size']}, kernel "
                                             f"{case['kernel']!r}) was rejected: {e!r}")
        return
    check(why is None or why is ..., f"invalid {params} ({why}) was accepted")
    name = f"{params} kernel={chunker.kernel}"

    whole = _chunks(chunker, data)
    _check_chunks(name, whole, data, size_bounds(kind, chunker))
    if chunker.kernel != kind.reference:
        ref = make(params, key, seed, kind.reference, case["normal_size"])
        check(_chunks(ref, data) == whole, f"{name}: chunks differ from kernel {kind.reference!r}")
    if model() is not None and (kind.credential != "key" or key is None or key in KEYS) and len(data) <= MODEL_MAX:
        from vectors.impls import Model    # caches the AES model's key expansion
        want = Model().chunk_sizes(params, data, key=key, seed=seed, normal_size=case["normal_size"])
        check([c[0] for c in whole] == want, f"{name}: sizes {[c[0] for c in whole]}, the model {want}")
    check(fd_chunks(chunker, data, case["fd_read_size"]) == whole,
          f"{name}: chunks read ahead from a file in reads of {case['fd_read_size']} bytes differ")

    reader = Reader(data, case["schedule"], case["use_read"])
    got = []
    expected_error = {"none": BlockingIOError, "over": ValueError, "fault": ReaderFault}
    try:
        for c in chunker.chunkify(reader):
            got.append((c.size, c.all_zero, c.tobytes(), c.data is None))
    except (BlockingIOError, ValueError, ReaderFault) as exc:
        check(isinstance(exc, expected_error.get(reader.ended, ())),
              f"{name}: {exc!r} after a reader that ended with {reader.ended}")
        check(got == whole[:len(got)], f"{name}: chunks before the reader error are not a prefix")
        return
    check(reader.ended in (None, "eof"), f"{name}: reader ended with {reader.ended} but no error was raised")
    delivered = data[:reader.pos]
    check(got == (whole if reader.pos == len(data) else _chunks(chunker, delivered)),
          f"{name}: streamed chunks ({len(delivered)} bytes delivered) differ from whole-buffer chunks")


def seeds() -> list:
    from vectors import generators
    out = []
    for algo in CHUNKERS:
        base = dict(chunker=algo, chunk_min_exp=6, chunk_max_exp=10, hash_mask_bits=7, hash_window_size=16,
                    seed=-12345, block_size=700, header_size=100, kernel=None)
        out.append(dict(base, data=generators.lcg(1000)))
        for nc in (0, 2):
            out.append(dict(base, nc_level=nc, data=generators.sha_ctr(5000)))
            out.append(dict(base, nc_level=nc, reads=3, read_kind="short", read_size=[1, 100, 700],
                            data=generators.lcg(3000)))
        out.append(dict(base, reads=2, read_kind=["short", "eof"], read_size=500, data=generators.sha_ctr(3000)))
        for ev in ("none", "over", "fault"):
            out.append(dict(base, reads=2, read_kind=["short", ev], read_size=1500, use_read=ev == "over",
                            data=generators.sha_ctr(3000)))
        out.append(dict(base, chunk_min_exp_is_wild=True, chunk_min_exp_wild=-1, data=b"x"))
        out.append(dict(base, repeat=20, data=bytes(500)))
        for size in (1, 64, 1000):          # fd reads shorter than a chunk, the buffer's slack, its size
            out.append(dict(base, fd_read_size=size, repeat=8, data=generators.sha_ctr(8000)))
        out.append(dict(base, chunk_min_exp=6, chunk_max_exp=7, hash_window_size=63, block_size=1,
                        header_size=-1, data=generators.sha_ctr(900)))
    for algo in (a for a, k in CHUNKERS.items() if k.hash == "uhf"):    # the window-size minimum (spec 06 §9.1)
        out.append(dict(chunker=algo, chunk_min_exp=5, chunk_max_exp=10, hash_mask_bits=7, kernel=None, data=b"x"))
        out.append(dict(chunker=algo, chunk_min_exp=6, chunk_max_exp=7, hash_mask_bits=2, kernel="aes-ni",
                        data=generators.lcg(700)))
    seeded = next(a for a, k in CHUNKERS.items() if k.credential == "seed")
    out.append(dict(chunker=seeded, chunk_min_exp=6, chunk_max_exp=10, hash_window_size=16, seed_is_wild=True,
                    seed_wild=1 << 31, kernel="single", data=b"x"))
    fixed = next(a for a, k in CHUNKERS.items() if k.shortest_cut is None)      # fixed sizes, no normal size
    out.append(dict(chunker=fixed, block_size=64, header_size=0, normal_size_set=True, normal_size=5, kernel=None,
                    data=b"x"))
    return list(dict.fromkeys(script(decode, **v) for v in out))    # nc_level is no field of buzhash, fixed


if __name__ == "__main__":
    from fuzz.harness import main
    main(TestOneInput, instrument=("chunkers.params", "chunkers.registry", "chunkers.api"))
