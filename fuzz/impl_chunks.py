#!/usr/bin/env python3
"""Fuzz target: the implementation under test (``--impl``), chunk level, every kernel, differentially.

Goes through the adapter interface (impls.Implementation), so
``python -m fuzz run impl_chunks --impl X`` fuzzes X: ``ours`` (default),
``borg`` (borg.chunkers; the campaign runs it under the instrumented borg of
``BORG_SANITIZE=1 ci/borg-reference.sh``), ``model`` or ``module:attribute``.
borg has no scan API, so this is the chunk level: whole streams.

The fuzzer picks the chunker (fastcdc, buzhash64, rabin-aes, goldilocks-aes,
toeplitz-aes, legacy buzhash, fixed), valid parameters (the constructors'
ranges of spec 01 §4.1 / 06 §9.1, sizes up to 2^16: parameter checking is
not the point), the normal size, the key (32 bytes: the fuzzer's, as many as
it gives zero-filled, or one of three fixed keys), the legacy seed, the data
(seeded random bytes of a drawn length, then the input's; up to 64 KiB and
about 32 expected chunks: :func:`data_cap`) and a read schedule (short
reads through a file object; a read of 0 bytes is the only EOF, spec 01 §7).
Then EVERY kernel of the family the implementation runs here
(``impl.kernels(family)``, the ones without a reason) cuts the stream, and:

* its chunks equal our portable reference chunker's (``scalar`` / ``evp``; the
  single implementation of buzhash and fixed) on the whole buffer, sizes and
  bytes;
* they reassemble to the input, a chunk's data is None exactly when it is all
  zero (spec 01 §8), sizes stay within the bounds (fixed: the header, then
  whole blocks);
* on inputs up to MODEL_MAX bytes with a fixed key, the reference's sizes
  equal the pure-Python model's (impls.Model; with an implementation other
  than ours on a sample of the inputs: :func:`_model_sampled`).

Each kernel's chunks are compared with the reference's as they come
(``impl.chunk_views``), so borg's, views valid until its next chunk, are not
copied.

Anything the implementation raises is a finding, too. The implementation is
``$CHUNKERS_FUZZ_IMPL`` (default ``ours``; the campaign sets it), or the one a
caller hands to :func:`run` (pytest: ``engine.implementation()``, so
``pytest --impl borg`` replays the regressions against borg).
"""

import functools
import io
import os
import random
import sys
import time
import types
import zlib

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo, after PYTHONPATH

from chunkers.families import CHUNKERS as TABLE  # noqa: E402
from fuzz.chunker_stream import CHUNKERS, KEYS, MADE_CACHE, MODEL_MAX, make, size_bounds  # noqa: E402
from fuzz.harness import Finding, check, model, module_functions  # noqa: E402
from fuzz.input import Input, script, script_values  # noqa: E402

IMPL_ENV = "CHUNKERS_FUZZ_IMPL"
MAX_DATA = 1 << 16
MAX_CHUNKS, MIN_CAP = 32, 256       # see data_cap
GEN_MAX = 2048                      # seeded random bytes at the start of a stream (decode)
MAX_READS = 256         # scheduled (short) reads per stream; then full reads
ALGOS = tuple(CHUNKERS)             # the chunkers, each with its kernel family (CHUNKERS[algo].family)


# ---- the implementation under test -------------------------------------------------------------

_IMPL: list = []


def implementation():
    """The implementation this process fuzzes: set_implementation's, else ``$CHUNKERS_FUZZ_IMPL``."""
    if not _IMPL:
        from vectors import impls
        _IMPL.append(impls.load(os.environ.get(IMPL_ENV) or "ours"))    # impls.LoadError: one line
    return _IMPL[0]


def set_implementation(impl) -> None:
    _IMPL[:] = [impl]
    _kernels.cache_clear()


@functools.lru_cache(maxsize=None)
def _kernels(impl, family: str) -> tuple:
    return tuple(impl.kernels(family))


def runnable(impl, family: str) -> list:
    """The kernels of ``family`` that ``impl`` runs here (every one is run on every input)."""
    return [k for k, why in _kernels(impl, family) if why is None]


def inventory(impl=None) -> dict:
    """What the campaign reports: the implementation, where it comes from, and per family its
    kernels with the reason each one that does not run here does not."""
    impl = impl or implementation()
    why = impl.unavailable()
    if why:
        raise LookupError(f"--impl {impl.name}: {why}")
    families = {fam: [list(row) for row in _kernels(impl, fam)]
                for fam in dict.fromkeys(k.family for k in CHUNKERS.values())}
    where = f"{type(impl).__module__}.{type(impl).__name__}"
    chunkers_mod = sys.modules.get("borg.chunkers")
    if impl.name == "borg" and chunkers_mod is not None:
        borg = sys.modules["borg"]
        fault = os.environ.get("BORG_STUB_FAULT") or "none"
        where = (f"a stand-in borg.chunkers from {chunkers_mod.__file__} (BORG_STUB_FAULT={fault})"
                 if hasattr(chunkers_mod, "FAULTS") else
                 f"borg {getattr(borg, '__version__', '?')} from {os.path.dirname(borg.__file__)}")
    return {"impl": impl.name, "where": where, "python": sys.executable, "families": families}


def inventory_lines(inv: dict) -> list[str]:
    """The inventory as summary lines: the implementation, then per family what runs and what not."""
    lines = [f"impl {inv['impl']}: {inv['where']} (python {inv['python']})"]
    for fam, rows in inv["families"].items():
        runs = [k for k, why in rows if why is None]
        not_run = "".join(f"; NOT run: {k} ({why})" for k, why in rows if why is not None)
        lines.append(f"{fam}: runs {', '.join(runs) or 'nothing'}{not_run}" if rows
                     else f"{fam}: {inv['impl']} has no {fam} chunker")
    return lines


def instrumented_modules(impl) -> list[str]:
    """The Python modules whose branches and comparisons should guide the fuzzer: the
    implementation's own Python. For borg, every pure-Python module of borg.chunkers (a stand-in's
    fault conditions among them; borg's extensions carry their own C coverage); for a
    ``module:attribute`` implementation, its adapter's module (the implementation may be there).
    The shipped adapters (vectors.impls.REGISTRY) are not: they are ours, and their per-chunk code,
    instrumented, cost a seventh of a borg campaign's time. Of this module only the decoder is
    (DECODER: its branches tell the chunker and key kinds apart; the checks run per chunk and
    would cost more instrumented than they guide)."""
    from vectors.impls import REGISTRY
    names = [] if isinstance(impl, tuple(REGISTRY.values())) else [type(impl).__module__]
    if impl.name == "borg":
        names += [n for n, m in list(sys.modules.items())
                  if (n == "borg.chunkers" or n.startswith("borg.chunkers."))
                  and str(getattr(m, "__file__", "")).endswith(".py")]
    return list(dict.fromkeys(n for n in names if n in sys.modules))


# ---- the case --------------------------------------------------------------------------------------

def _sizes(inp: Input, lo_min: int, windowed: bool):
    """(min_exp, max_exp, window or None) valid for the constructors: min < max <= 16 and, windowed,
    window + 2^min + 1 <= 2^max (spec 01 §4.1)."""
    min_exp = inp.int("chunk_min_exp", lo_min, 12)
    window = None
    if windowed:
        window = inp.int("hash_window_size", 129, 4095) if inp.bool("wide_window") \
            else inp.int("hash_window_size", 1, 128)
    lo = min_exp + 1
    while windowed and (1 << lo) < window + (1 << min_exp) + 1:
        lo += 1
    return min_exp, inp.int("chunk_max_exp", lo, max(lo, 16)), window


def _min_exp(kind) -> int:
    """The smallest chunk_min_exp drawn for ``kind``: 6 for an AES chunker (min size at least its
    64-byte window, spec 06 §9.1), else 1."""
    return 6 if kind.hash == "uhf" else 1


def _mask(inp: Input, nc: int) -> int:
    return inp.int("hash_mask_bits", nc + 1, 24)       # mask - nc >= 1, mask + nc <= 48


def decode(inp: Input) -> dict:
    """The fuzzer's case: chunker, stream, key / seed, valid parameters, normal size, read schedule,
    data. The fields that make a case long and keyed come first, so that short inputs reach them:
    ``gen_len`` bytes of seeded random data (Random(gen_seed)) start the stream, then the input's
    own bytes (``repeat`` times); the fuzzer's key takes only as many input bytes as ``key_len``
    says (zero-filled to 32), placed early, so that libFuzzer's table of compared values (a key
    compared with something) can rewrite them in short inputs too."""
    algo = inp.choice("chunker", ALGOS)
    kind = CHUNKERS[algo]
    key, seed, normal_size = None, 0, 0
    gen_len, gen_seed = inp.int("gen_len", 0, GEN_MAX), inp.int("gen_seed", 0, 255)
    if kind.credential == "key":        # the fuzzer's key by default (an all-zero input: 32 zero bytes)
        key = inp.choice("key_index", KEYS) if inp.bool("fixed_key") else \
            inp.bytes("key", inp.int("key_len", 0, 32)).ljust(32, b"\0")
    fields = TABLE[algo].fields
    if "chunk_mask" not in fields:      # fixed sizes
        params = (algo, inp.int("block_size", 1, 4096), inp.int("header_size", -8, 4096))
    else:
        mn, mx, w = _sizes(inp, _min_exp(kind), "window_size" in fields)
        nc = inp.int("nc_level", 0, 3) if "nc_level" in fields else 0
        params = (algo, mn, mx, _mask(inp, nc)) + ((w,) if w is not None else ()) + \
            ((nc,) if "nc_level" in fields else ())
    if kind.normal_size and inp.bool("normal_size_set"):
        normal_size = inp.int("normal_size", 0, 1 << 16)
    schedule = [inp.int("read_size", 1, 4096) for _ in range(inp.int("reads", 0, 16))]
    cycle = inp.bool("cycle_reads")
    repeat = inp.int("repeat", 1, 32)
    if kind.credential == "seed":
        seed = inp.int("seed", -(1 << 31), (1 << 31) - 1)
    cap = data_cap(params)
    data = _generated(gen_seed, min(gen_len, cap)) + inp.rest("data") * repeat
    data = data[:cap]
    return dict(kind=kind, params=params, key=key, seed=seed, normal_size=normal_size, schedule=schedule,
                cycle=cycle, data=data)


@functools.lru_cache(maxsize=64)
def _generated(seed: int, n: int) -> bytes:
    return random.Random(seed).randbytes(n)


def data_cap(params: tuple) -> int:
    """The most bytes a case of ``params`` chunks: MAX_DATA, or about MAX_CHUNKS chunks of the
    expected size (2^min + 2^(mask - nc), at most 2^max; fixed: the header and MAX_CHUNKS blocks),
    at least MIN_CAP bytes. Every kernel's chunks cost Python time (~10-40 us each under the
    sanitizers), and 1-byte minimum sizes would otherwise make thousands per input."""
    fields = TABLE[params[0]].fields
    if "chunk_mask" not in fields:      # fixed sizes
        expected = max(params[2], 0) + MAX_CHUNKS * params[1]
    else:
        mn, mx, mask, nc = params[1], params[2], params[3], params[-1] if "nc_level" in fields else 0
        expected = MAX_CHUNKS * min((1 << mn) + (1 << max(mask - nc, 0)), 1 << mx)
    return min(MAX_DATA, max(MIN_CAP, expected))


class Reader(io.RawIOBase):
    """A binary file over ``data`` whose reads return at most the scheduled sizes (the schedule
    repeats when ``cycle``; after MAX_READS reads, or the schedule, full reads); 0 only at EOF."""

    def __init__(self, data: bytes, schedule: list, cycle: bool):
        super().__init__()
        self.data, self.schedule, self.cycle, self.pos, self.reads = data, schedule, cycle, 0, 0

    def readable(self):
        return True

    def read(self, size=-1):
        # not RawIOBase.read: that allocates ``size`` bytes per call (a reader asks for its free
        # buffer space, up to max_size), which under ASan cost more than the chunking; one Python
        # frame per read (they were a tenth of a replayed borg execution)
        n = len(self.data) - self.pos
        if size is not None and 0 <= size < n:
            n = size
        if self.schedule and self.reads < MAX_READS and (self.cycle or self.reads < len(self.schedule)):
            n = min(n, self.schedule[self.reads % len(self.schedule)])
        self.reads += 1
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def readinto(self, view):
        piece = self.read(len(view))
        view[:len(piece)] = piece
        return len(piece)


def _describe(case: dict, impl_name: str, kernel) -> str:
    key = case["key"]
    k = "" if key is None else f" key={key.hex() if key not in KEYS else 'KEYS[%d]' % KEYS.index(key)}"
    s = f" seed={case['seed']}" if case["kind"].credential == "seed" else ""
    ns = f" normal_size={case['normal_size']}" if case["normal_size"] else ""
    reads = f" reads={case['schedule']}{'(cycled)' if case['cycle'] else ''}" if case["schedule"] else ""
    return f"{impl_name} {case['params']}{k}{s}{ns} kernel={kernel}{reads} ({len(case['data'])} bytes)"


def check_chunks(name: str, chunks: list, data: bytes, bounds) -> None:
    """Reassembly, sizes > 0 within bounds, data None exactly for all-zero chunks. ``data`` is only
    counted and compared in place (no slice copies: under the sanitizers each is a malloc)."""
    pos, view = 0, memoryview(data)
    for i, (size, piece) in enumerate(chunks):
        lo, hi = bounds(i)
        last = i == len(chunks) - 1
        check((1 if last else lo) <= size <= hi,
              lambda: f"{name}: chunk {i} of {len(chunks)} has size {size}, bounds [{lo}, {hi}]")
        check(pos + size <= len(data), lambda: f"{name}: chunks sum past the input's {len(data)} bytes")
        zero = data.count(0, pos, pos + size) == size
        check((piece is None) == zero, lambda: f"{name}: chunk {i} data is {'None' if piece is None else 'bytes'}"
                                               f" but it is {'' if zero else 'not '}all zero")
        check(piece is None or piece == view[pos:pos + size], lambda: f"{name}: chunk {i} bytes differ from the input's")
        pos += size
    check(pos == len(data), lambda: f"{name}: chunks cover {pos} of {len(data)} bytes")


def _reference(case: dict) -> tuple:
    """Our reference chunker of ``case`` and its chunks of the whole input: ``(size, data)``, data
    a view into ``case["data"]`` (a bytes-like source: our chunks are zero-copy views of it)."""
    kind = case["kind"]
    ref = make(case["params"], case["key"], case["seed"], kind.reference, case["normal_size"])
    return ref, [(c.size, c.data) for c in ref.chunkify(case["data"])]


def _same(want: list, got) -> str | None:
    """None when the chunks of ``got`` (an iterable of ``(size, data)``; each data may be valid only
    until the next: Implementation.chunk_views) equal ``want``, compared as they come; else where
    they first differ: a chunk's size or data, or the number of chunks (``got`` is then run out)."""
    got = iter(got)
    pos = n = 0
    for size, piece in got:
        if n == len(want):
            return f"{len(want)} chunks in the reference, {n + 1 + sum(1 for _ in got)} got (offset {pos})"
        w = want[n]
        if w[0] != size or (w[1] is None) != (piece is None) or (piece is not None and w[1] != piece
                                                                 and bytes(w[1]) != bytes(piece)):
            # (bytes(): the bytes of a view of another item format, compared again only when unequal)
            what = "size" if w[0] != size else "data"
            return f"chunk {n} at offset {pos}: {what} differs (reference {w[0]} bytes, got {size})"
        pos += size
        n += 1
    return None if n == len(want) else f"{len(want)} chunks in the reference, {n} got (offset {pos})"


def run(raw: bytes, impl=None) -> str:
    """One input against ``impl`` (default: :func:`implementation`); the chunker it ran (fastcdc,
    rabin-aes, ...: :class:`Steering` counts by it). Finding when a check fails."""
    impl = impl or implementation()
    case = decode(Input(raw))
    kind, params, data = case["kind"], case["params"], case["data"]
    family = CHUNKERS[params[0]].family
    ref, want = _reference(case)
    bounds = size_bounds(kind, ref)
    check_chunks(_describe(case, "ours", kind.reference), want, data, bounds)
    if model() is not None and len(data) <= MODEL_MAX and (case["key"] is None or case["key"] in KEYS) \
            and _model_sampled(raw, impl):
        from vectors.impls import Model
        sizes = Model().chunk_sizes(params, data, key=case["key"], seed=case["seed"],
                                    normal_size=case["normal_size"])
        check([s for s, _ in want] == sizes, lambda: f"{_describe(case, 'ours', kind.reference)}: sizes "
                                                     f"{[s for s, _ in want]}, the model {sizes}")
    for kernel in runnable(impl, family):     # none: impl lacks the family or runs none of its kernels here
        source = _source(case)
        kw = dict(key=case["key"] if kind.credential == "key" else None, seed=case["seed"], kernel=kernel,
                  normal_size=case["normal_size"])
        try:
            differs = _same(want, impl.chunk_views(params, source, **kw))
        except Finding:
            raise
        except Exception as exc:
            raise Finding(f"{_describe(case, impl.name, kernel)}: raised {exc!r}") from exc
        if differs:
            _differs(case, impl, kernel, want, bounds, differs, kw)
    return params[0]


MODEL_SAMPLE = 8
"""Against an implementation other than ours, the model checks our reference on one input in
MODEL_SAMPLE (:func:`_model_sampled`)."""


def _model_sampled(raw: bytes, impl) -> bool:
    """Whether this input's reference chunks are compared with the model: always for ours; for any
    other implementation on the inputs whose CRC-32 is 0 mod MODEL_SAMPLE (the same inputs in every
    replay). That comparison is about our reference, not the implementation under test (which is
    compared with the reference on every input), and the pure-Python model cost about a twelfth of
    a replayed borg execution; the scan targets and chunker_stream compare ours with the model on
    every input."""
    return impl.name == "ours" or zlib.crc32(raw) % MODEL_SAMPLE == 0


def _source(case: dict):
    """The stream a kernel reads: Reader with the case's read schedule, or without one io.BytesIO,
    whose full reads run in C (Reader's Python reads cost about a tenth of a borg execution)."""
    data = case["data"]
    return Reader(data, case["schedule"], case["cycle"]) if case["schedule"] else io.BytesIO(data)


def _differs(case: dict, impl, kernel: str, want: list, bounds, differs: str, kw: dict) -> None:
    """Raise the Finding for a kernel whose chunks differ from the reference's (``differs``: where,
    seen as they came): the kernel is run again with its chunks kept (Implementation.chunks) for
    check_chunks' more specific words (bounds, reassembly, all-zero data) and the first difference."""
    name = _describe(case, impl.name, kernel)
    try:
        got = [(size, None if piece is None else bytes(piece))
               for size, piece in impl.chunks(case["params"], _source(case), **kw)]
    except Exception as exc:
        raise Finding(f"{name}: chunks differ from our reference kernel {case['kind'].reference}: {differs}; "
                      f"run again it raised {exc!r}") from exc
    check_chunks(name, got, case["data"], bounds)
    again = _same(want, got) or "not on a second run"
    raise Finding(f"{name}: chunks differ from our reference kernel {case['kind'].reference}: {differs}"
                  + ("" if again == differs else f" (run again: {again})"))


DECODER = (decode, _sizes, _mask)
"""The functions of this module atheris instruments in a campaign (instrumented_modules)."""


def TestOneInput(raw: bytes) -> None:
    run(raw)


def seeds() -> list:
    from vectors import generators
    out = []
    base = dict(chunk_min_exp=6, chunk_max_exp=10, hash_mask_bits=7, hash_window_size=16, nc_level=0,
                seed=-12345, block_size=700, header_size=100, fixed_key=True)
    for algo in ALGOS:
        b = dict(base, chunker=algo)
        out.append(dict(b, data=generators.lcg(1000)))                              # the model compares too
        out.append(dict(b, nc_level=2, data=generators.sha_ctr(5000)))
        out.append(dict(b, fixed_key=False, key_len=32, key=bytes(range(1, 33)), reads=3, read_size=[1, 100, 700],
                        data=generators.lcg(3000)))
        out.append(dict(b, reads=2, read_size=[1, 7], cycle_reads=True, data=generators.sha_ctr(2000)))
        out.append(dict(b, key_index=KEYS[2], normal_size_set=True, normal_size=300, repeat=4,
                        data=generators.sha_ctr(4000)))
        out.append(dict(b, repeat=20, data=bytes(500)))                         # all-zero chunks
        out.append(dict(b, repeat=16, data=bytes(100) + generators.lcg(300)))       # zero runs between data
        out.append(dict(b, chunk_min_exp=_min_exp(CHUNKERS[algo]), chunk_max_exp=8, hash_mask_bits=3,
                        hash_window_size=5, block_size=1, header_size=-1, data=generators.sha_ctr(600)))
    windowed = next(a for a in ALGOS if "window_size" in TABLE[a].fields)     # the first: a keyed one
    out.append(dict(base, chunker=windowed, wide_window=True, hash_window_size=4095, chunk_min_exp=12,
                    chunk_max_exp=13, data=generators.sha_ctr(8000), repeat=2))
    return list(dict.fromkeys(script(decode, **v) for v in out))


CAMPAIGN_CACHE = 1024
"""Chunkers per chunker (fastcdc, rabin-aes, ...) an adapter with a ``cache_size`` (vectors.impls.Borg)
keeps during a campaign: libFuzzer cycles through its corpus, each entry with its own parameters and
key, and some of borg's chunkers take long to construct under the sanitizers (rabin-aes ~19 ms,
buzhash64 ~7 ms per chunker and kernel; fastcdc, goldilocks-aes, buzhash and fixed under 0.2 ms). Kept
per chunker, the cheap ones' many new configurations do not push the expensive ones out. Each holds
1-220 KiB (buzhash64 the most), so the cache stays under about 0.7 GiB. Our reference chunkers
(chunker_stream.make, one cache for all) are kept as many per chunker: made afresh, they cost a
twentieth of a replayed borg corpus's time."""

CONSTRUCTION_SHARE = 0.1
"""The share of a chunker's executions' time that constructing the implementation's chunkers may take
(see :class:`Steering`)."""


class Steering:
    """How often the campaign's mutations may change a case's configuration (chunker, parameters,
    key, seed), per chunker, so that constructing chunkers takes about CONSTRUCTION_SHARE of that
    chunker's executions' time. Every new configuration makes the implementation construct a
    chunker per kernel; some of borg's take milliseconds to tens of milliseconds each under the
    sanitizers (buzhash64, rabin-aes), as long as tens to hundreds of executions, others
    microseconds (fastcdc, goldilocks-aes), and with libFuzzer's mutations of the whole input about
    a third of the executions have a new configuration. The other mutations change only the data
    and the stream (:func:`mutate`), whose chunkers the implementation has made already
    (``cache_size``). Steered per chunker, not per kernel family: rabin-aes's constructions cost a
    hundred times goldilocks-aes's.

    ``rate(chunker)`` starts at 1 (libFuzzer's own mutations of the whole input). A window of a
    chunker's executions closes after WINDOW of them, and only once one of them constructed (or
    after MAX_WINDOW): at a low rate most runs of WINDOW executions construct nothing, and the rate
    must not rise for that alone. When it closes, the rate is multiplied by CONSTRUCTION_SHARE /
    share (the window's share of time spent constructing: ``Implementation.construction_seconds``,
    counted to the chunker of the execution it happened in), by at most STEP up (by STEP after a
    window that constructed nothing) and STEP squared down, and kept within [MIN_RATE, 1]. A
    chunker that is cheap to make (and every chunker of ours, the model and the stand-in) keeps 1."""

    WINDOW = 256
    MAX_WINDOW = 16 * WINDOW
    MIN_RATE = 0.001
    STEP = 2.0

    def __init__(self, impl):
        self.impl, self._made = impl, impl.construction_seconds
        self._rates: dict = {}
        self._windows: dict = {}        # chunker -> [executions, seconds, seconds constructing]

    def rate(self, chunker: str) -> float:
        """The probability that a mutation of a case of ``chunker`` may change its configuration."""
        return self._rates.get(chunker, 1.0)

    def ran(self, chunker: str, seconds: float) -> None:
        """Count one execution of ``chunker`` that took ``seconds`` (the construction since the last
        count among them); when its window closes, set its rate."""
        made, self._made = self.impl.construction_seconds - self._made, self.impl.construction_seconds
        window = self._windows.setdefault(chunker, [0, 0.0, 0.0])
        window[0] += 1
        window[1] += seconds
        window[2] += made
        if window[0] < self.WINDOW or (window[2] == 0 and window[0] < self.MAX_WINDOW):
            return
        share = window[2] / max(window[1], 1e-9)
        factor = min(self.STEP, max(self.STEP ** -2, CONSTRUCTION_SHARE / share)) if share > 0 else self.STEP
        self._rates[chunker] = min(1.0, max(self.MIN_RATE, self.rate(chunker) * factor))
        window[:] = [0, 0.0, 0.0]


_STEERING: list = []
_CONSTANTS: list = []       # harvest_constants of the instrumented modules (main)

KEY_MUTATION_RATE = 0.1
"""The share of mutations that write one of the implementation's constants into the case's key
(:func:`mutate_key`), when the implementation's code has any; times ``Steering.rate`` (a new
key is a new configuration)."""


def harvest_constants(modules) -> list[bytes]:
    """The byte strings of 2 to 32 bytes, and the 2- to 8-byte integers (little- and big-endian),
    that the code of ``modules`` holds as constants (every function and method, nested code
    included): the values the implementation may compare a key with. A dictionary taken from the
    code under test, as libFuzzer's and AFL's from a binary's strings and comparison operands;
    nothing here names a value of its own."""
    found: dict = {}

    def walk(code):
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                walk(c)
            elif isinstance(c, bytes) and 2 <= len(c) <= 32:
                found[c] = None
            elif isinstance(c, int) and not isinstance(c, bool) and 2 <= (c.bit_length() + 7) // 8 <= 8 and c > 0:
                n = (c.bit_length() + 7) // 8
                found[c.to_bytes(n, "little")] = found[c.to_bytes(n, "big")] = None

    for fn in module_functions(modules):
        walk(fn.__code__)
    return list(found)


def mutate_key(raw: bytes, constants: list, rnd: random.Random, max_size: int) -> bytes | None:
    """``raw`` with one of ``constants`` written into its case's key (a fuzzer key of 32 bytes; at
    the key's start half the time, elsewhere otherwise) and at least 256 generated bytes of data (a
    key check shows in cuts: a short input decodes to an empty stream), the rest of the case kept;
    None when the case's chunker takes no key or the result is longer than ``max_size`` (libFuzzer's
    current length limit). The structured key field lets a compared constant land where a key check
    looks, which libFuzzer's comparison table rarely manages here (it is shared with every string
    comparison of the implementation)."""
    inp = Input(raw, record=True)
    if decode(inp)["kind"].credential != "key":
        return None
    values = script_values(inp.fields)
    word = rnd.choice(constants)
    at = 0 if rnd.random() < 0.5 else rnd.randrange(33 - len(word))
    key = values["key"][0] if "key" in values else b""
    key = key.ljust(max(len(key), at + len(word)), b"\0")      # as few key bytes as hold the word
    values.update(fixed_key=[False], key_len=[len(key)], key=[key[:at] + word + key[at + len(word):]],
                  gen_len=[max(values["gen_len"][0], rnd.randrange(256, GEN_MAX + 1))])   # a stream with cuts
    values.pop("key_index", None)
    out = script(decode, **values)
    if not values["data"][0]:       # the fields after the key at their lowest: zero bytes, as a short input reads
        out = out.rstrip(b"\0")
    return out if len(out) <= max_size else None


def configuration(raw: bytes) -> tuple[int, str]:
    """How many leading bytes a case's configuration takes: where :func:`decode` starts reading the
    data of ``raw`` (more than ``len(raw)`` when the input ends inside the configuration; its
    missing fields read as their lowest values), and its chunker (fastcdc, rabin-aes, ...)."""
    inp = _Split(raw)
    case = decode(inp)
    return inp.split, case["params"][0]


class _Split(Input):
    """An Input that notes where the data field (the last one) starts."""
    split = 0

    def rest(self, name: str) -> bytes:
        self.split = self._pos
        return super().rest(name)


STREAM_FIELDS = frozenset({"gen_len", "gen_seed", "reads", "read_size", "cycle_reads", "repeat", "data"})
"""The fields of a case (:func:`decode`) that shape its stream but not its chunkers: changing only
these constructs nothing (the adapters reuse a chunker for the same chunker, key, parameters,
normal size and seed)."""

STREAM_MUTATION_RATE = 0.25
"""The share of the mutations that keep a case's configuration (:func:`mutate`) that may change its
stream fields as well as its data."""


def with_chunkers_of(raw: bytes, mutated: bytes) -> bytes:
    """The case with ``mutated``'s STREAM_FIELDS and every other field (chunker, key, parameters,
    normal size, seed) ``raw``'s: ``mutated``'s stream cut by ``raw``'s chunkers."""
    fields = []
    for source, stream in ((raw, False), (mutated, True)):
        inp = Input(source, record=True)
        decode(inp)
        fields += [(name, value) for name, value in inp.fields if (name in STREAM_FIELDS) == stream]
    return script(decode, **script_values(fields))


def mutate(raw: bytes, max_size: int, seed: int) -> bytes:
    """The campaign's libFuzzer custom mutator. Drawn from libFuzzer's ``seed``: with probability
    ``KEY_MUTATION_RATE * Steering.rate(chunker)`` (``raw``'s chunker) one of the
    implementation's constants written into the key (:func:`mutate_key`); else with probability
    ``Steering.rate(chunker)``, or when no data fits in ``max_size``, libFuzzer's own mutation of
    the whole input (its comparison-guided ones among them); else with probability
    STREAM_MUTATION_RATE that mutation with the case's chunker kept (:func:`with_chunkers_of`: the
    read schedule and the generated stream change, no chunker is constructed); otherwise
    libFuzzer's own mutation of the data alone (started from one byte when there is none yet: a
    case's data may all be generated), the configuration kept: byte for byte, or written out to
    its end when the input ends inside it (a case libFuzzer shortened; mutated whole at every step,
    with a new configuration each time, such cases took nine tenths of a borg campaign's
    construction time)."""
    import atheris
    rnd = random.Random(seed)
    split, chunker = configuration(raw)
    rate = _STEERING[0].rate(chunker) if _STEERING else 1.0
    if _CONSTANTS and rnd.random() < KEY_MUTATION_RATE * rate:     # a new key is a new configuration
        keyed = mutate_key(raw, _CONSTANTS, rnd, max_size)
        if keyed is not None:
            return keyed
    if split >= max_size or rnd.random() < rate:
        return atheris.Mutate(raw, max_size)
    if rnd.random() < STREAM_MUTATION_RATE:
        return with_chunkers_of(raw, atheris.Mutate(raw, max_size))[:max_size]
    # an input that ends inside its configuration reads its missing fields as zero bytes (Input):
    # written out, the configuration and its chunkers stay the same
    return raw[:split].ljust(split, b"\0") + atheris.Mutate(raw[split:] or b"\0", max_size - split)


def _steered(raw: bytes) -> None:
    start = time.perf_counter()
    chunker = run(raw)
    _STEERING[0].ran(chunker, time.perf_counter() - start)


def main() -> None:
    import atheris

    from fuzz.harness import main as fuzz_main
    from fuzz.launcher import preload_mutator_lib
    preload_mutator_lib()       # before the set-up: it may run this process again
    impl = implementation()
    if hasattr(impl, "cache_size"):
        impl.cache_size = max(impl.cache_size, CAMPAIGN_CACHE)
    MADE_CACHE[0] = max(MADE_CACHE[0], CAMPAIGN_CACHE * len(ALGOS))     # our reference chunkers, likewise
    for line in inventory_lines(inventory(impl)):       # imports what the adapter wraps
        print(f"impl_chunks: {line}", file=sys.stderr)
    for fn in DECODER:
        atheris.instrument_func(fn)
    _STEERING[:] = [Steering(impl)]
    modules = instrumented_modules(impl)
    _CONSTANTS[:] = harvest_constants(modules)
    print(f"impl_chunks: {len(_CONSTANTS)} constants of {', '.join(modules)} for keys", file=sys.stderr)
    fuzz_main(_steered, instrument=modules, mutator=mutate)


if __name__ == "__main__":
    main()
