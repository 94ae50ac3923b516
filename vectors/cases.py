"""What the vectors contain: per chunker, the cases (parameters, key or seed,
input, flags, comment) whose results regeneration computes.

Each chunker is one :class:`Entry` of CHUNKERS. The content-defined
chunkers share one builder driven by a :class:`Shape` (parameter tuple
layout, window, normalized chunking, smallest min exponent) plus their spec
05 rows; adding a chunker (e.g. the AES ones) is one entry. Planted cases
(a first cut at a chosen length) are found by a seeded search over random
inputs with the independent model, so the cases never depend on the code
under test; regeneration then runs them on every kernel like every other case.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, NamedTuple

from chunkers.families import family_of
from chunkers.params import parse_params
from vectors.impls import Model
from vectors import grid
from vectors.inputs import generated, real_file

KEYS = {
    "Z": bytes(32),
    "KS": bytes(range(32)),
    "K0": bytes.fromhex("ad9f89095817f0566337dc9ee292fcd59b70f054a8200151f1df5f21704824da"),
    "K1": bytes.fromhex("f1088c7e9e6ae83557ad1558ff36c44a369ea719d1081c29684f52ffccb72cb8"),
}
"""Chunker keys (spec 05 §1)."""

SEEDS = (0, 1849058162, -1, 1234567653)
"""Legacy buzhash seeds (spec 05 §1, §5.3)."""

REAL_FILES = ("cc0-1.0.txt", "pluck-pcm16.wav", "idle_256.png")
"""Real-world files shipped in vectors/files (see files/README.md)."""

CATALOGUE_LENGTH = 65536

NOTES = {
    "AllZeroChunks": "chunks whose bytes are all zero (reported without data, spec 01 8)",
    "BlockSizeExtreme": "fixed block size at a limit: 1 (constructor only), 64 (parser minimum) or 20,971,479",
    "ConstantData": "one byte value repeated",
    "ConstructorOnly": "parameters the constructor accepts but the parameter string parser rejects (spec 01 4)",
    "CutAtMax": "the longest hash cut: max - 1 bytes (window-less) or max - w - 1 (windowed)",
    "CutAtMin": "the shortest hash cut: min + 1 bytes (window-less) or min (windowed)",
    "EmptyInput": "no bytes: no chunk",
    "EvenWindow": "even buzhash window: seeds 0 and -1 give the same cuts (spec 04 A.4)",
    "ExactMultiple": "the input length is a multiple of the block size: no empty chunk at the end",
    "ExplicitNormalSize": "normal_size given explicitly, at or beyond the size bounds (spec 01 3.2)",
    "ForcedMaxCut": "chunks cut at max size without a hash hit",
    "HeaderChunk": "fixed chunker header: a first chunk of its own size (zero or negative: none)",
    "HighBytes": "every byte >= 0x80",
    "LaneCut": "the first cut at each position of the first three 8-byte blocks of a scan (every lane)",
    "LargeInput": "input larger than the 8 MiB buffer of the default parameters",
    "LcgData": "spec 05 LCG bytes (period 256)",
    "MaskWidthExtreme": "mask width at a limit: 1, 48, mask - nc = 1, mask + nc = 48, or >= 32 bits for buzhash",
    "NormalSizeBoundary": "first chunk of normal_size - 1, normal_size or normal_size + 1 bytes (spec 01 5.4)",
    "NormalizedChunking": "nc_level > 0: strict and loose masks",
    "NcLevelRange": "one of every nc_level the rules allow for mask widths 8, 12, 24, 40 (mask - nc >= 1, "
                    "mask + nc <= 48), with the automatic and an explicit normal size",
    "PeriodicData": "a pseudo-random unit repeated with a fixed period",
    "PseudoRandomData": "SHA-256 counter stream bytes",
    "RealFile": "a real-world file shipped with the vectors",
    "SeedExtreme": "buzhash seed at the ends of the C int range",
    "ShorterThanMin": "input too short to be hashed: one final chunk",
    "SizeExtreme": "chunk size exponents at a limit: min 0, min + 1 = max, or max 24",
    "SpecExample": "an example whose numbers the spec states (spec 04 / 05 / 10)",
    "LengthBoundary": "input length just around min, max or a multiple of max: the final chunk's length",
    "TailLength": "a cut in the tail of a scan span (after the kernels' full blocks), span lengths 33..40",
    "WindowExtreme": "window at a limit: 1, 2, 32 / 64 (rotation 0), or w + min + 1 = max",
    "ZeroIsland": "runs of zero bytes inside other data",
}
"""Flag -> what a test with that flag exercises."""


class Case(NamedTuple):
    """A vector test before its result is known."""

    params: tuple
    input: dict
    flags: tuple = ()
    comment: str = ""
    key: bytes | None = None      # keyed chunkers
    seed: int | None = None       # legacy buzhash
    normal_size: int = 0


@dataclass(frozen=True)
class Entry:
    """A chunker of the vectors: its name, spec sections and cases."""

    name: str
    spec: str
    cases: Callable[[], list]

    @property
    def family(self) -> str:
        """Its conformance family (the family table's, chunkers.families)."""
        return family_of(self.name)


@dataclass(frozen=True)
class Shape:
    """How a content-defined chunker's parameters look (spec 01 §2)."""

    name: str
    window: int | None      # default window of a windowed chunker; None: window-less
    nc: bool                # has nc_level
    seeded: bool = False    # takes a seed (legacy buzhash), not a key
    min_floor: int = 0      # smallest chunk_min_exp its constructor accepts

    def params(self, mn: int, mx: int, mask: int, nc: int = 0, w: int | None = None) -> tuple:
        return ((self.name, mn, mx, mask) + ((w or self.window,) if self.window else ())
                + ((nc,) if self.nc else ()))

    def credential(self, i: int) -> dict:
        """The i-th key (or seed) of the rotation, as Case keywords."""
        return {"seed": SEEDS[i % len(SEEDS)]} if self.seeded else {"key": list(KEYS.values())[i % len(KEYS)]}

    def cut_length(self, min_size: int, j: int) -> int:
        """Length of the chunk cut by a hit at scan position ``j`` (0 = the first position tested):
        the window-less driver cuts after the matching byte, the windowed one before the window."""
        return min_size + j + (0 if self.window else 1)


def catalogue_input(kind: str, length: int = CATALOGUE_LENGTH) -> dict:
    """The input object standing for the conformance catalogue kind ``kind`` (grid.PATTERNS)."""
    if kind == "random":
        return generated("sha_ctr", length, label="random")
    if kind.startswith("const-"):
        return generated("constant", length, byte=int(kind[6:], 16))
    if kind.startswith("periodic-"):
        return generated("periodic", length, period=int(kind[9:]), label="periodic")
    if kind == "high-bytes":
        return generated("high_bytes", length, label="high-bytes")
    if kind == "zero-islands":
        rng = random.Random(length)
        islands, pos = [], 0
        while True:
            pos += rng.randrange(1, 6000)
            size = rng.choice((1, 7, 63, 64, 65, 4096, 7000))
            if pos >= length:
                return generated("zero_islands", length, label="zero-islands", islands=islands)
            islands.append([pos, size])
            pos += size
    if kind == "lcg":
        return generated("lcg", length)
    if kind == "sha-ctr":
        return generated("sha_ctr", length, label="borg-spec")
    raise ValueError(f"unknown catalogue kind {kind!r}")


def sc(n: int) -> dict:
    """SHA-CTR(n) of spec 05 §1."""
    return generated("sha_ctr", n, label="borg-spec")


def content_flags(spec: dict) -> set:
    """Flags that follow from an input object alone."""
    gen = spec.get("generator")
    flags = {"constant": {"ConstantData"}, "periodic": {"PeriodicData"}, "high_bytes": {"HighBytes"},
             "zero_islands": {"ZeroIsland"}, "lcg": {"LcgData"}, "sha_ctr": {"PseudoRandomData"}}.get(gen, set())
    if gen == "constant" and spec["args"]["byte"] == 0:
        flags = flags | {"AllZeroChunks"}
    if gen == "concat":
        for part in spec["args"]["parts"]:
            flags |= content_flags(part)
        if "AllZeroChunks" in flags:
            flags = (flags - {"AllZeroChunks"}) | {"ZeroIsland"}
    if "file" in spec:
        flags.add("RealFile")
    if spec["length"] > 8 << 20:
        flags.add("LargeInput")
    if spec["length"] == 0:
        flags.add("EmptyInput")
    return flags


def parser_accepts(params: tuple) -> bool:
    """Whether the parameter string for ``params`` parses back to ``params`` (spec 01 §4.2)."""
    try:
        return parse_params(",".join(map(str, params))) == tuple(params)
    except ValueError:
        return False


# ---------------------------------------------------------------- content-defined chunkers

def cdc_cases(shape: Shape, spec_cases: list) -> list:
    """The spec rows, then every catalogue kind, boundaries, planted cuts, extremes and real files."""
    return (spec_cases + _catalogue(shape) + _boundaries(shape) + _planted(shape) + _extremes(shape)
            + _real(shape) + _nc_range(shape))


def _catalogue(shape: Shape) -> list:
    """Every catalogue kind under two parameter sets (with nc: two nc levels per kind, each level 0..3
    about equally often)."""
    out = []
    for j, kind in enumerate(grid.PATTERNS):
        if shape.nc:
            lo = max(6, shape.min_floor)
            sets = [(shape.params(lo, 12, 8, nc), f", nc_level {nc}") for nc in (j % 4, (j + 2) % 4)]
        else:
            sets = [(shape.params(6, 12, 8), ""), (shape.params(7, 13, 9, w=4095), "")]
        for i, (params, note) in enumerate(sets):
            out.append(Case(params, catalogue_input(kind), (), f"catalogue kind {kind}{note}",
                            **shape.credential(2 * j + i)))
    return out


def _boundaries(shape: Shape) -> list:
    mn = max(4, shape.min_floor)
    lo, hi = 1 << mn, 1 << (mn + 3)
    params = shape.params(mn, mn + 3, 5, 1, w=5)
    w = 5 if shape.window else 0
    lengths = sorted({0, 1, lo - 1, lo, lo + 1, lo + w, lo + w + 1, hi - 1, hi, hi + 1, 2 * hi + 1})
    out = []
    for i, n in enumerate(lengths):
        flags = ("LengthBoundary",) if n > lo + w else ()
        out.append(Case(params, generated("sha_ctr", n, label="tail"), flags, f"{n} bytes: min {lo}, max {hi}"
                        + (f", window {w}" if w else ""), **shape.credential(i)))
    return out


def _planted(shape: Shape) -> list:
    """First cuts planted at the size boundaries, the normal size, every position of the first three
    blocks of a scan, and in the tail of spans of every length mod 8."""
    mn = max(4, shape.min_floor)
    lo, hi, w = 1 << mn, 1 << (mn + 4), 16
    normal = 32 if lo < 32 else lo + 32       # the default 2**6 - 2**5 when it lies above min
    ns = 0 if normal == 32 or not shape.nc else normal
    params = shape.params(mn, mn + 4, 6, 1, w=w)
    first = shape.cut_length(lo, 0)
    targets = {("CutAtMin", f"first chunk {first} bytes"): first}
    if shape.nc:
        for f in (normal - 1, normal, normal + 1):
            targets[("NormalSizeBoundary", f"first chunk {f} bytes, normal size {normal}")] = f
    out = _search(shape, params, ns, targets, normal + 64)
    params = shape.params(mn, mn + 4, 5, 0, w=w)
    out += _search(shape, params, 0, {("LaneCut", f"first cut at scan position {j} (block {j // 8}, lane {j % 8})"):
                                      shape.cut_length(lo, j) for j in range(24)}, lo + w + 48)
    for n in range(33, 41):     # spans of n positions: tails of n mod 8 (blockwise), 8 + n mod 8 (vector kernels)
        last = n - 1 if shape.window else n - 2     # a window-less hit at n - 1 cuts where the input ends anyway
        positions = sorted({last, 8 * (n // 8), n - 8 - n % 8} & set(range(last + 1)))
        out += _search(shape, params, 0, {("TailLength", f"span of {n} positions, cut at position {j}"):
                                          shape.cut_length(lo, j) for j in positions},
                       lo + (w if shape.window else 0) + n)
    hi >>= 1
    longest = hi - 1 - (w if shape.window else 0)
    params = shape.params(mn, mn + 3, 9, 0, w=w)
    out += _search(shape, params, 0, {("CutAtMax", f"first chunk {longest} bytes"): longest}, hi + 8)
    return out


def _search(shape: Shape, params: tuple, normal_size: int, targets: dict, length: int,
            tries: int = 400000) -> list:
    """For each target ((flag, comment) -> wanted length of the first chunk), the first input of a
    seeded random sequence (keys / seeds rotating) whose first chunk has that length by the model,
    as a hex Case."""
    impl, rng = Model(), random.Random(repr((params, normal_size, length)))
    wanted = {f: t for t, f in targets.items()}
    found = {}
    for i in range(tries):
        cred = shape.credential(i)
        data = rng.randbytes(length)
        first = impl.chunk_sizes(params, data, key=cred.get("key"), seed=cred.get("seed", 0), kernel=None,
                                 normal_size=normal_size)[0]
        target = wanted.get(first)
        if target and target not in found:
            found[target] = Case(params, {"length": length, "hex": data.hex()}, (target[0],),
                                 f"planted: {target[1]}", normal_size=normal_size, **cred)
            if len(found) == len(targets):
                return [found[t] for t in targets]
    raise RuntimeError(f"{params}: no input found for {[t for t in targets if t not in found]}")


def _extremes(shape: Shape) -> list:
    p, out = shape.params, []
    lo = max(6, shape.min_floor)

    def add(params, spec, flags, comment, normal_size=0):
        out.append(Case(params, spec, flags, comment, normal_size=normal_size, **shape.credential(len(out))))

    if shape.min_floor == 0:
        add(p(0, 2, 1, w=2) if shape.window else p(0, 1, 1), sc(600), ("SizeExtreme", "MaskWidthExtreme"),
            "smallest sizes the constructor takes")
    add(p(lo, lo + 1, 3, w=(1 << lo) - 1), sc(20000), ("SizeExtreme",) + (("WindowExtreme",) if shape.window else ()),
        "min + 1 = max" + (" and w + min + 1 = max" if shape.window else ""))
    add(p(lo, 24, 48), generated("constant", (1 << 24) + 1000, byte=0x41),
        ("SizeExtreme", "MaskWidthExtreme", "ForcedMaxCut"), "max 2**24, a 48-bit mask never hits")
    add(p(lo, 12, 1), sc(65536), ("MaskWidthExtreme",), "1-bit mask")
    add(p(lo, 12, 48), sc(65536), ("MaskWidthExtreme", "ForcedMaxCut"), "48-bit mask")
    add(p(7, 15, 4), generated("lcg", 100000), (), "mask below min (the kind of the spec 05 7 grids)")
    if shape.nc:
        add(p(lo, 12, 4, 3), sc(65536), ("MaskWidthExtreme",), "mask - nc_level = 1")
        add(p(lo, 12, 45, 3), sc(65536), ("MaskWidthExtreme",), "mask + nc_level = 48")
        for ns, what in ((1 << lo, "= min: strict mask never used"), ((1 << lo) + 1, "= min + 1"),
                         (1001, "inside the size range, odd: spans end mid-block"),
                         (4096, "= max: loose mask never used")):
            add(p(lo, 12, 8, 2), sc(65536), ("ExplicitNormalSize",), f"normal_size {ns} {what}", ns)
    if shape.window:
        for w in (1, 2, 31, 32, 33, 64, 65, 4095):
            add(p(6, 13, 8, w=w), sc(65536), ("WindowExtreme",), f"window {w}")
    return out


def _nc_range(shape: Shape) -> list:
    """Every nc_level of the nc grid (vectors.grid; 0 up to the largest the rules allow per mask
    width), automatic and explicit normal size, on SHA-CTR bytes."""
    if not shape.nc:
        return []
    out = []
    for bits in grid.NC_MASK_BITS:
        for nc in range(grid.max_nc(bits) + 1):
            for ns in (0, grid.NORMAL_SIZES[(bits + nc) % len(grid.NORMAL_SIZES)]):
                out.append(Case(shape.params(max(6, shape.min_floor), 12, bits, nc, w=63),
                                generated("sha_ctr", grid.NC_LENGTH, label="nc"), ("NcLevelRange",),
                                f"mask {bits}, nc_level {nc}, normal_size {ns or 'automatic'}", normal_size=ns,
                                **shape.credential(len(out))))
    return out


def _real(shape: Shape) -> list:
    out = []
    for i, name in enumerate(REAL_FILES):
        sets = (shape.params(max(6, shape.min_floor), 12, 8, 2), shape.params(8, 13, 10, 1, w=4095))
        for j, params in enumerate(sets):
            out.append(Case(params, real_file(name), (), f"{name}", **shape.credential(i + j)))
    return out


def _spec_rows(shape: Shape, rows, inputs: dict) -> list:
    """Cases for spec 05 §5 rows ``(credential, params, input name)``."""
    out = []
    for cred, params, inp in rows:
        kw = {"seed": cred} if shape.seeded else {"key": KEYS[cred]}
        out.append(Case((shape.name,) + params, inputs[inp], ("SpecExample",), f"spec 05 5: {inp}", **kw))
    return out


SPEC_INPUTS = {"SC": sc(1 << 20), "LCG": generated("lcg", 100000), "ZERO1000": generated("constant", 1000, byte=0)}


def _rows(creds, params_list, inputs):
    return [(c, p, i) for c in creds for p in params_list for i in inputs]


def _fastcdc() -> list:
    shape = Shape("fastcdc", None, True)
    spec = _spec_rows(shape, _rows(("Z", "KS"), [(6, 12, 8, 0), (6, 12, 8, 2), (10, 16, 14, 2), (6, 10, 8, 0)],
                                   ("SC", "LCG", "ZERO1000")), SPEC_INPUTS)
    spec += _large_spec(shape, [("Z", (19, 23, 21, 2), 0), ("KS", (19, 23, 21, 2), 0),
                                ("Z", (19, 23, 21, 2), 1000000), ("KS", (19, 23, 21, 2), 1000000)])
    spec += _small_spec(shape, (6, 12, 8, 0))
    spec.append(Case(("fastcdc", 6, 10, 8, 0), generated("concat", 3001, parts=[
        generated("constant", 3000, byte=0), {"length": 1, "hex": "78"}]), ("SpecExample", "AllZeroChunks"),
        "spec 05 6: 3000 zero bytes and one byte: 33 all-zero chunks of 90 bytes", key=KEYS["Z"]))
    return cdc_cases(shape, spec)


def _buzhash64() -> list:
    shape = Shape("buzhash64", 64, True)
    spec = _spec_rows(shape, _rows(("Z", "KS"), [(6, 12, 8, 64, 0), (6, 12, 8, 63, 2), (6, 12, 8, 4000, 0),
                                                 (10, 16, 14, 4095, 2)], ("SC", "LCG", "ZERO1000")), SPEC_INPUTS)
    spec += _large_spec(shape, [("Z", (19, 23, 21, 4095, 2), 0), ("KS", (19, 23, 21, 4095, 2), 0)])
    spec += _small_spec(shape, (6, 12, 8, 64, 0))
    return cdc_cases(shape, spec)


def _buzhash() -> list:
    shape = Shape("buzhash", 65, False, seeded=True)
    spec = _spec_rows(shape, _rows((0, 1849058162, -1), [(6, 12, 8, 65), (6, 12, 8, 63), (10, 16, 14, 4095)],
                                   ("SC", "LCG")), SPEC_INPUTS)
    spec += _large_spec(shape, [(0, (19, 23, 21, 4095), 0), (1849058162, (19, 23, 21, 4095), 0),
                                (-1, (19, 23, 21, 4095), 0)])
    trace = b"foobarboobaz" * 3
    spec.append(Case(("buzhash", 1, 23, 2, 2), {"length": len(trace), "hex": trace.hex()}, ("SpecExample",),
                     "spec 04 A.6 trace: fooba, rboobaz x 3", seed=0))
    for seed in (0, -1):
        spec.append(Case(("buzhash", 6, 12, 8, 64), sc(1 << 20), ("SpecExample", "EvenWindow"),
                         "spec 04 A.4: even window, seeds 0 and -1 cut alike", seed=seed))
    for seed in (-(1 << 31), (1 << 31) - 1):
        spec.append(Case(("buzhash", 6, 12, 8, 65), sc(65536), ("SeedExtreme",), f"seed {seed}", seed=seed))
    for bits in (32, 48):
        spec.append(Case(("buzhash", 6, 12, bits, 65), sc(65536), ("MaskWidthExtreme",),
                         f"{bits}-bit mask (>= 32: all 32 bits)", seed=1849058162))
    return cdc_cases(shape, spec)


def _large_spec(shape: Shape, rows) -> list:
    """spec 05 §5.4: default-sized parameters on SHA-CTR(12 MiB)."""
    out = []
    for cred, params, ns in rows:
        kw = {"seed": cred} if shape.seeded else {"key": KEYS[cred]}
        out.append(Case((shape.name,) + params, sc(12 << 20), ("SpecExample",),
                        f"spec 05 5.4: SHA-CTR(12 MiB){f', normal_size {ns}' if ns else ''}", normal_size=ns, **kw))
    return out


def _small_spec(shape: Shape, params) -> list:
    """spec 05 §6: SC[:n] around the minimum size (key Z)."""
    return [Case((shape.name,) + params, sc(n), ("SpecExample",), f"spec 05 6: SC[:{n}]", key=KEYS["Z"])
            for n in (0, 1, 64, 65, 66, 128, 129, 130)]


# ---------------------------------------------------------------- fixed

def _fixed() -> list:
    out = []
    for n, block, header in ((10000, 4096, 123), (10000, 4096, 0), (50, 4096, 123), (0, 4096, 0), (8192, 4096, 0),
                             (250, 100, -5)):
        flags = ("SpecExample", "HeaderChunk") + (("ExactMultiple",) if n and n % block == 0 and header <= 0 else ())
        out.append(Case(("fixed", block, header), generated("constant", n, byte=7), flags,
                        f"spec 05 6: {n} bytes of value 7"))
    holes = generated("concat", 312000, parts=[generated("sha_ctr", 5000, label="data"),
                                               generated("constant", 300000, byte=0),
                                               generated("sha_ctr", 7000, label="more data")])
    out.append(Case(("fixed", 65536, 0), holes, ("SpecExample", "AllZeroChunks"),
                    "spec 04 B.3: 5000 data bytes, a 300,000-byte hole, 7000 data bytes"))
    for kind in grid.PATTERNS:
        for params in (("fixed", 4096, 123), ("fixed", 64, 0)):
            out.append(Case(params, catalogue_input(kind), (), f"catalogue kind {kind}"))
    for n in (4095, 4096, 4097, 8191, 8192, 8193):
        out.append(Case(("fixed", 4096, 0), sc(n), ("LengthBoundary",) + (("ExactMultiple",) if n % 4096 == 0 else ()),
                        f"{n} bytes, block 4096"))
    for params, n, flags, comment in (
            (("fixed", 1, 0), 300, ("BlockSizeExtreme",), "block 1"),
            (("fixed", 64, 0), 1000, ("BlockSizeExtreme",), "block 64 (parser minimum)"),
            (("fixed", 20971479, 0), 65536, ("BlockSizeExtreme",), "block 20,971,479 (the maximum)"),
            (("fixed", 20971479, 100), (20971479 + 100) + 5, ("BlockSizeExtreme", "HeaderChunk", "LargeInput"),
             "block 20,971,479 after a header"),
            (("fixed", 64, 20971479), 70000, ("HeaderChunk",), "header 20,971,479 longer than the input"),
            (("fixed", 64, 1000), 1000, ("HeaderChunk",), "header = input length"),
            (("fixed", 64, 1001), 1000, ("HeaderChunk",), "header = input length + 1"),
            (("fixed", 64, -1), 1000, ("HeaderChunk",), "negative header: none"),
            (("fixed", 100, 100), 300, ("HeaderChunk", "ExactMultiple"), "header = block size")):
        out.append(Case(params, sc(n), flags, comment))
    for name in REAL_FILES:
        for params in (("fixed", 4096, 0), ("fixed", 1000, 123)):
            out.append(Case(params, real_file(name), (), name))
    return out


AES_SC = generated("sha_ctr", 262144, label="")
"""SC of spec 10 §1: SHA-256(LE64(i)) concatenated (an empty label)."""


def _aes(name: str) -> list:
    """An AES chunker (spec 06-09): window-less, nc, chunk_min_exp >= 6; the spec 10 §6-7 rows."""
    shape = Shape(name, None, True, min_floor=6)
    spec = [Case((name,) + params, AES_SC, ("SpecExample",), "spec 10 6: SC", key=KEYS[k])
            for params in ((10, 16, 12, 0), (10, 16, 12, 2), (6, 15, 7, 3), (12, 17, 12, 0)) for k in ("Z", "K0")]
    spec += [Case((name,) + params, generated("constant", 300000, byte=byte), ("SpecExample",),
                  f"spec 10 7.1: 300000 bytes of {byte:#04x}", key=KEYS["Z"])
             for byte in (0, 0x42) for params in ((10, 16, 12, 2), (6, 15, 1, 0), (6, 15, 2, 1))]
    spec += [Case((name,) + params, generated("lcg", 100000), ("SpecExample",), "spec 10 7.2: LCG", key=KEYS["Z"])
             for params in ((10, 16, 12, 0), (6, 15, 4, 2))]
    spec += [Case((name, 10, 16, 1, 0), generated("sha_ctr", n, label=""), ("SpecExample",), f"spec 10 7.3: SC[:{n}]",
                  key=KEYS["Z"]) for n in (0, 1, 64, 1024, 1025, 1026, 1100)]
    return cdc_cases(shape, spec)


CHUNKERS = {
    "fastcdc": Entry("fastcdc", "spec 02; golden values spec 05 5.1, 5.4, 6", _fastcdc),
    "buzhash64": Entry("buzhash64", "spec 03; golden values spec 05 5.2, 5.4, 6", _buzhash64),
    "buzhash": Entry("buzhash", "spec 04 part A; golden values spec 04 A.6, spec 05 5.3, 5.4",
                     _buzhash),
    "fixed": Entry("fixed", "spec 04 part B; golden values spec 05 6", _fixed),
    "rabin-aes": Entry("rabin-aes", "spec 06, 08; golden values spec 10 6, 7", lambda: _aes("rabin-aes")),
    "goldilocks-aes": Entry("goldilocks-aes", "spec 06, 09; golden values spec 10 6, 7",
                            lambda: _aes("goldilocks-aes")),
    "toeplitz-aes": Entry("toeplitz-aes", "spec 06, 07; golden values spec 10 6, 7",
                          lambda: _aes("toeplitz-aes")),
}
"""Chunker name -> Entry, in the order the vectors are generated."""


def flags_of(case: Case) -> list:
    """The case's flags plus those that follow from its input and parameters, sorted."""
    flags = set(case.flags) | content_flags(case.input)
    p, n = case.params, case.input["length"]
    if p[0] == "fixed":
        if p[1] < 64:
            flags.add("ConstructorOnly")
        return sorted(flags)
    if not parser_accepts(p):
        flags.add("ConstructorOnly")
    windowed = p[0] in ("buzhash64", "buzhash")
    if 0 < n <= (1 << p[1]) + (p[4] if windowed else 0):
        flags.add("ShorterThanMin")
    if p[0] != "buzhash" and p[-1] > 0:
        flags.add("NormalizedChunking")
    return sorted(flags)
