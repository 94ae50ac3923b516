"""Per-family scan-level conformance: case catalogues, kernel runs, the model.

A :class:`ScanCase` is one call of a family's scan kernel (spec 02 §4,
03 §5): data, span alignment, start state, mask and window. Each family knows
how to build its adversarial case catalogue from a seed, run a case on a
named kernel, and run it on the pure-Python model. Kernel results are
compared with the family's reference kernel; the reference is compared with
the model.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from conformance import catalogue, mask_shapes, segments
from conformance.catalogue import ALIGNMENTS, MASK_WIDTHS, SPAN_LENGTHS

KEYS = {"Z": bytes(32), "KS": bytes(range(32))}
"""Named chunker keys (spec 05 §1); a seeded random key is added as ``R<seed>``."""

SEEDS = {"Z": 0, "KS": 1849058162}
"""The legacy buzhash seed used where a key is named (spec 05 §1 seeds); ``R<seed>`` is random."""

M32 = 0xFFFFFFFF

MODEL_MAX_SPAN = 600
"""Cases up to this many bytes are also run on the pure-Python model."""

GUARD = -1
"""``ScanCase.align`` of a span that ends right before a no-access page (conformance/guard.py):
a kernel that reads past its span faults (SIGSEGV) instead of reading heap bytes unnoticed."""


class ScanCase(NamedTuple):
    """One scan call. ``data`` holds the span's bytes (windowed families: the
    window at the span start plus the n bytes that enter), placed at
    ``align`` bytes past a 64-byte boundary of the kernel's input buffer."""

    family: str
    group: str
    key: str
    data: bytes
    align: int
    state: int
    mask: int
    window: int = 0

    def describe(self) -> str:
        """A reproducer: everything needed to rebuild the call."""
        w = f", window={self.window}" if self.window else ""
        align = "guard" if self.align == GUARD else self.align
        return (f"{self.family} scan [{self.group}] key={self.key} len={len(self.data)} align={align} "
                f"state={self.state:#018x} mask={self.mask:#018x}{w} data={self.data.hex()[:96]}"
                f"{'...' if len(self.data) > 48 else ''}")


def key_bytes(name: str) -> bytes:
    """The 32-byte key called ``name``: ``Z``, ``KS`` or ``R<seed>`` (seeded random)."""
    if name in KEYS:
        return KEYS[name]
    return random.Random(int(name[1:])).randbytes(32)


def seed_of(name: str) -> int:
    """The legacy buzhash seed (a C int) for the key called ``name`` (see key_bytes)."""
    if name in SEEDS:
        return SEEDS[name]
    return random.Random(int(name[1:])).getrandbits(32) - (1 << 31)


_ARENA: list = []       # the one GuardedArena of this process, grown on demand


def aligned(data: bytes, align: int) -> memoryview:
    """A view of ``data`` starting ``align`` bytes past a 64-byte boundary, or (``align`` = GUARD)
    ending right before a no-access page; the guarded view is valid until the next guarded call."""
    if align == GUARD:
        if not _ARENA or _ARENA[0].size < len(data):
            from conformance.guard import GuardedArena
            _ARENA[:] = [GuardedArena(max(len(data), 1 << 16))]
        return _ARENA[0].place(data)
    buf = bytearray(64 + align + len(data))
    base = (-_address(buf)) % 64
    buf[base + align:base + align + len(data)] = data
    return memoryview(buf)[base + align:base + align + len(data)]


def _address(buf: bytearray) -> int:
    import ctypes
    return ctypes.addressof((ctypes.c_char * max(len(buf), 1)).from_buffer(buf))


def mask_of(width: int, high: bool) -> int:
    from chunkers.params import mask
    return mask(width, high)


@dataclass
class Family:
    """A chunker family as the conformance suite sees it (no scan callables: chunk level only)."""

    name: str
    reference: str                                   # kernel every other kernel is compared with
    cases: Callable[[int], list] | None              # seed -> list[ScanCase]
    run: Callable[[ScanCase, str], tuple] | None     # (case, kernel) -> result
    model: Callable[[ScanCase], tuple] | None        # case -> result, from the pure-Python model
    chunk_params: list = field(default_factory=list)  # params strings/tuples for chunk-level checks
    chunkers: tuple = ()                             # chunker names whose params belong to this family


_TABLES: dict = {}


def _table(kind: str, key: str):
    if (kind, key) not in _TABLES:
        if kind == "fastcdc":
            from chunkers.fastcdc import gear_table
            _TABLES[kind, key] = gear_table(key_bytes(key))
        elif kind == "buzhash64":
            from chunkers.buzhash64 import table
            _TABLES[kind, key] = table(key_bytes(key))
        elif kind == "model-fastcdc":
            from conformance.model import fastcdc
            _TABLES[kind, key] = fastcdc.gear_table(key_bytes(key))
        else:
            from conformance.model import buzhash64
            _TABLES[kind, key] = buzhash64.table(key_bytes(key))
    return _TABLES[kind, key]


# ---------------------------------------------------------------- fastcdc

def _fastcdc_run(case: ScanCase, kernel: str) -> tuple:
    from chunkers.fastcdc import scan
    return scan(_table("fastcdc", case.key), aligned(case.data, case.align), case.state, case.mask, kernel)


def _fastcdc_model(case: ScanCase) -> tuple:
    from conformance.model import fastcdc
    return fastcdc.scan(_table("model-fastcdc", case.key), case.data, case.state, case.mask)


def _plant(family: str, rng: random.Random, keys: list, make, accept, tries: int = 4000):
    """A case from ``make(rng, key)`` whose reference result satisfies ``accept``, or None."""
    fam = FAMILIES[family]
    for _ in range(tries):
        case = make(rng, rng.choice(keys))
        if accept(case, fam.run(case, fam.reference)):
            return case
    return None


def _common_cases(family: str, seed: int, make_case) -> list:
    """The catalogue shared by the scan families; ``make_case(group, key, data, align, state, mask)``."""
    rng = random.Random(seed)
    keys = ["Z", "KS", f"R{seed}"]
    widths = MASK_WIDTHS
    out = []
    for i, n in enumerate(SPAN_LENGTHS):
        for high in (True, False):
            width = widths[(i + high) % len(widths)]
            state = (0, rng.getrandbits(64))[i % 2]
            out.append(make_case("span", keys[i % 3], rng.randbytes(n), 0, state, mask_of(width, high)))
    for align in ALIGNMENTS:
        for n in (7, 8, 9, 15, 16, 17, 31, 33, 100):
            out.append(make_case("align", keys[align % 3], rng.randbytes(n), align, rng.getrandbits(64),
                                 mask_of(rng.choice((5, 6, 7, 8, 9, 12)), family == "fastcdc")))
    for width in widths:
        for high in (True, False):
            out.append(make_case("mask", rng.choice(keys), rng.randbytes(rng.randrange(200, 400)), 0,
                                 rng.getrandbits(64), mask_of(width, high)))
    for kind in catalogue.PATTERNS:
        for n in (100, 1000, 10000):
            for width in (4, 6, 8, 12, 20):
                out.append(make_case(kind, rng.choice(keys), catalogue.pattern(rng, kind, n), rng.randrange(64),
                                     rng.getrandbits(64), mask_of(width, family == "fastcdc")))
    return out + mask_shapes.cases(family, seed, make_case)


def _lane_cases(family: str, seed: int, make_case) -> list:
    """Cuts planted in each lane 0..7 of a block (past the first 16 bytes, inside the
    vector loop) and at the last byte of a span, for several mask widths."""
    rng = random.Random(seed + 1)
    keys = ["Z", "KS", f"R{seed}"]
    high = family == "fastcdc"
    out = []
    for width in (3, 5, 6, 7, 8, 9):
        for lane in range(8):
            c = _plant(family, rng, keys,
                       lambda r, k: make_case(f"lane-{lane}", k, r.randbytes(r.randrange(40, 90)), r.randrange(64),
                                              r.getrandbits(64), mask_of(width, high)),
                       lambda case, res: res[0] >= 16 and res[0] % 8 == lane)
            if c:
                out.append(c)
        for n in (17, 24, 31, 32, 33, 40):
            c = _plant(family, rng, keys,
                       lambda r, k: make_case("last-byte", k, r.randbytes(n), r.randrange(64), r.getrandbits(64),
                                              mask_of(width, high)),
                       lambda case, res: res[0] == n - 1)
            if c:
                out.append(c)
    return out


def _fastcdc_cases(seed: int) -> list:
    def make(group, key, data, align, state, mask):
        return ScanCase("fastcdc", group, key, data, align, state, mask)
    return _common_cases("fastcdc", seed, make) + _lane_cases("fastcdc", seed, make) + segments.cases("fastcdc", seed)


# ---------------------------------------------------------------- buzhash64

BUZHASH64_WINDOWS = (1, 2, 63, 64, 65, 4095)
"""Windows of the scan catalogue; the last one only in the 'windows' group."""


def _buzhash64_run(case: ScanCase, kernel: str) -> tuple:
    from chunkers.buzhash64 import scan
    return scan(_table("buzhash64", case.key), case.window, aligned(case.data, case.align), case.state,
                case.mask, kernel)


def _buzhash64_model(case: ScanCase) -> tuple:
    from conformance.model import buzhash64
    table = _table("model-buzhash64", case.key)
    return buzhash64.scan(table, buzhash64.rotated(table, case.window), case.data, case.window, case.state, case.mask)


def _windowed_cases(family: str, seed: int, windows: tuple, bits: int) -> list:
    """The catalogue of a windowed family with ``bits``-bit states: 64-bit high masks are moved to the
    top of ``bits`` bits; the window in front of each span repeats the span's pattern."""
    rng = random.Random(seed + {64: 2, 32: 3}[bits])
    word = (1 << bits) - 1

    def make(group, key, data, align, state, mask):
        w = rng.choice(windows[:-1])
        prefix = (data * (w // len(data) + 1))[:w] if data else rng.randbytes(w)
        return ScanCase(family, group, key, prefix + data, align, state & word, (mask & word) or mask >> bits, w)

    out = _common_cases(family, seed, make) + _lane_cases(family, seed, make)
    for w in windows:
        for n in (0, 1, 7, 8, 9, 15, 16, 17, 100, 1000):
            for state in (0, rng.getrandbits(bits)):     # state 0 matches every mask on entry
                out.append(ScanCase(family, "windows", rng.choice(["Z", "KS"]), rng.randbytes(w + n),
                                    rng.randrange(64), state, mask_of(rng.choice((4, 6, 8, 10)), False), w))
    return out


def _buzhash64_cases(seed: int) -> list:
    return _windowed_cases("buzhash64", seed, BUZHASH64_WINDOWS, 64) + segments.cases("buzhash64", seed)


# ---------------------------------------------------------------- buzhash (legacy, 32-bit)

BUZHASH_WINDOWS = (1, 2, 31, 32, 33, 63, 64, 65, 4095)
"""Windows around the 32-bit rotation wrap (w mod 32 = 31, 0, 1); the last one only in the 'windows' group."""


def _buzhash_run(case: ScanCase, kernel: str) -> tuple:
    from chunkers.buzhash import scan
    return scan(seed_of(case.key), case.window, aligned(case.data, case.align), case.state, case.mask, kernel)


def _buzhash_model(case: ScanCase) -> tuple:
    from conformance.model import buzhash
    table = buzhash.table(seed_of(case.key))
    return buzhash.scan(table, buzhash.rotated(table, case.window), case.data, case.window, case.state, case.mask)


def _buzhash_cases(seed: int) -> list:
    return _windowed_cases("buzhash", seed, BUZHASH_WINDOWS, 32) + segments.cases("buzhash", seed)


# ---------------------------------------------------------------- aes (rabin-aes, goldilocks-aes, toeplitz-aes)

def _aes(name: str):
    """conformance.aes_family.<name>, imported on first use (that module builds on this one)."""
    def call(*args):
        from conformance import aes_family
        return getattr(aes_family, name)(*args)
    return call


FAMILIES: dict[str, Family] = {
    "fastcdc": Family("fastcdc", "scalar", _fastcdc_cases, _fastcdc_run, _fastcdc_model,
                      ["fastcdc,6,12,8,0", "fastcdc,6,12,8,1", "fastcdc,6,12,8,2", "fastcdc,6,12,8,3",
                       "fastcdc,10,16,12,2", "fastcdc,19,23,21,2"], ("fastcdc",)),
    "buzhash64": Family("buzhash64", "scalar", _buzhash64_cases, _buzhash64_run, _buzhash64_model,
                        ["buzhash64,6,12,8,64,0", "buzhash64,6,12,8,63,1", "buzhash64,6,12,8,63,2",
                         "buzhash64,6,12,8,65,3", "buzhash64,10,16,12,4095,2", "buzhash64,19,23,21,4095,2"],
                        ("buzhash64",)),
    "buzhash": Family("buzhash", "single", _buzhash_cases, _buzhash_run, _buzhash_model,
                      ["buzhash,6,12,8,65", "buzhash,6,12,8,63", ("buzhash", 6, 12, 4, 1), "buzhash,10,16,12,4095",
                       "buzhash,19,23,21,4095"], ("buzhash",)),
    "fixed": Family("fixed", "single", None, None, None,
                    ["fixed,64", "fixed,4096,123", "fixed,1000,-5", "fixed,65536,100000"], ("fixed",)),
    "aes": Family("aes", "evp", _aes("cases"), _aes("run"), _aes("model"),
                  ["toeplitz-aes,6,12,8,0", "rabin-aes,6,12,8,1", "goldilocks-aes,6,12,8,2", "toeplitz-aes,6,12,8,3",
                   "rabin-aes,10,16,12,2", "goldilocks-aes,19,23,21,2"],
                  ("toeplitz-aes", "rabin-aes", "goldilocks-aes")),
}


def scan_families() -> list[str]:
    """The families with scan-level checks (a scan entry point and a model scan)."""
    return [name for name, fam in FAMILIES.items() if fam.cases]


def family_of(chunker: str) -> str:
    """The family whose kernels run the chunker called ``chunker`` (e.g. ``rabin-aes``); ValueError if none."""
    for name, fam in FAMILIES.items():
        if chunker in fam.chunkers:
            return name
    raise ValueError(f"no conformance family runs the chunker {chunker!r}")
