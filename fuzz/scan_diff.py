"""Differential scan targets: every kernel of a family against its portable
reference (scalar; evp for the AES chunkers), and the reference against the
model on small spans (spec 02 §4-5.6, 03 §5-7.4, 06 §7.2-8).

Each family is one :class:`~fuzz.scan_case.ScanFamily` entry: how a fuzzer
input becomes a scan case (table or key, data span, start state, mask, ...)
and how a kernel runs on it. The target ``scan_diff_<family>`` runs the case
through every kernel this machine can run and requires the same (position,
exit state) from all of them. The span ends right before a no-access page
(conformance/cases/guard.py), so a read past its end faults. Kernels this machine cannot
run are reported on stderr when the target loads.

fastcdc, buzhash64 and the legacy buzhash are defined here, the three AES
chunkers in fuzz/scan_aes.py; a case runs on a kernel through the family's scan
adapter (chunkers.scanners). Adding a family: one FAMILIES entry whose decode
reuses fuzz/scan_case.py as far as it fits (a windowed family: _windowed_decode),
one fuzz/targets.py entry and a three-line fuzz/scan_diff_<family>.py like
scan_diff_fastcdc.py; the kernels come from ``chunkers.kernels()`` (chunkers.registry).
"""

from __future__ import annotations

import functools
import importlib
from array import array

from chunkers.families import scan_families
from chunkers.scanners import scanner
from fuzz import scan_aes
from fuzz.harness import Finding, kernel_inventory, model, report_not_run
from fuzz.input import Input, script
from fuzz.scan_case import KEYS, MAX_POSITIONS, U64, ScanFamily, data, mask, place, plant, plant_at

WINDOWS = (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4095)


def table(inp: Input, keyed) -> array:
    """A 256-entry u64 table as ``array('Q')`` (the scans copy it at once, no
    per-entry conversion): the family's keyed table for one of KEYS (cached),
    or, for a fuzzer key, the cheap fastcdc Gear derivation (kernels must be
    exact for any table; buzhash64's balanced derivation costs ~16k CSPRNG
    draws); then up to 4 entries overwritten by fuzzer values (in a copy:
    the cached arrays are never written)."""
    t = _gear(inp.bytes("key", 32)) if inp.bool("custom_key") else keyed(inp.choice("key_index", KEYS))
    n = inp.int("overrides", 0, 4)
    if n:
        t = array("Q", t)
        for _ in range(n):
            t[inp.int("override_index", 0, 255)] = inp.int("override_value", 0, U64)
    return t


@functools.lru_cache(maxsize=64)
def _gear(key: bytes) -> array:
    from chunkers.fastcdc import gear_table
    return array("Q", gear_table(key))


# fastcdc (spec 02): state fp, high masks in the chunker, but kernels must take any mask.

def _fastcdc_state_at(gear, span, state, q) -> int:
    """fp after byte q by the reference kernel with the full mask (stops early only at fp == 0:
    the plant is best effort, any mask is a valid case)."""
    from chunkers.fastcdc import scan
    from chunkers.registry import reference
    return scan(gear, span[:q + 1], state, U64, reference("fastcdc"))[1]


def _fastcdc_decode(inp: Input):
    gear = table(inp, _gear)
    m = mask(inp)
    state = inp.int("state", 0, U64)
    where = plant_at(inp)
    span = data(inp, MAX_POSITIONS)
    m = plant(m, where, len(span), lambda q: _fastcdc_state_at(gear, span, state, q))
    return gear, span, state, m


def _fastcdc_run(case, kernel):
    from chunkers.fastcdc import scan
    gear, span, state, m = case
    return scan(gear, span, state, m, kernel)


def _fastcdc_model(mod, case):
    gear, span, state, m = case
    return mod.fastcdc.scan(gear, bytes(span), state, m)


def _fastcdc_seeds():
    from vectors import generators
    out = []
    for n in (0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 100, 1023, 1024):
        out.append(dict(mask_kind="high", mask_bits=8, data=generators.sha_ctr(n)))
    for bits in (1, 6, 7, 8, 9, 13, 20, 48, 64):
        out.append(dict(mask_kind="high", mask_bits=bits, state=0x0123456789ABCDEF, data=generators.lcg(300)))
        out.append(dict(mask_kind="low", mask_bits=bits, data=generators.sha_ctr(200)))
    for byte in (0x00, 0x41, 0xFF):
        out.append(dict(mask_kind="high", mask_bits=8, repeat=40, data=bytes([byte]) * 100))
    # a cut planted at each lane of the first block and at each of the last 16 bytes, for every
    # span length 16..31 (all block / tail splits of the 8- and 16-byte loops)
    for n in range(16, 32):
        for k in range(16):
            out.append(dict(mask_kind="high", mask_bits=40, plant=True, plant_from_end=True, plant_pos=k,
                            data=generators.sha_ctr(n)))
    for k in range(8):
        out.append(dict(mask_kind="high", mask_bits=40, plant=True, plant_pos=k, data=generators.sha_ctr(40)))
    # a zero table entry makes every lane a true hit
    out.append(dict(overrides=1, override_index=0, override_value=0, mask_kind="high", mask_bits=30,
                    offset=5, data=bytes(40)))
    return out


# buzhash64 (spec 03): window w, data holds pr[0 .. n+w-1]; state = hash of the window at pr[0].

@functools.lru_cache(maxsize=len(KEYS))
def _bz_table(key: bytes) -> array:
    from chunkers.buzhash64 import table as bz_table
    return array("Q", bz_table(key))


class _ModelRotated:
    """The model's Trot[x] = rotl64(T[x], w) (spec 03 §4), computed per lookup:
    a short model scan reads a few entries, building all 256 costs more."""

    def __init__(self, mod, t, w: int):
        self.rotl64, self.t, self.w = mod.buzhash64.rotl64, t, w

    def __getitem__(self, x: int) -> int:
        return self.rotl64(self.t[x], self.w)


def _windowed_decode(family: str, bits: int, table_of):
    """``decode(inp) -> (table, w, span, state, mask)`` of a windowed family (buzhash64 with 64-bit
    states, spec 03; the legacy buzhash with 32-bit ones, spec 04 A.3), through its scan adapter
    (chunkers.scanners): window w, the span holds pr[0 .. n+w-1]; state = hash of the window at pr[0].
    ``table_of(inp)``: the adapter's table from the input. A 64-bit mask is cut to ``bits`` bits
    as the suite's catalogue does (its low bits, or its high bits moved down when those are 0)."""
    adapter = scanner(family)
    word = (1 << bits) - 1

    def state_at(t, w, span, state, q) -> int:
        """The hash of the window at step q by the reference kernel with the full mask (stops early
        only at a zero hash: the plant is best effort)."""
        from chunkers.registry import reference
        return adapter.scan(t, w, span[:q + w], state, word, reference(family))[1]

    def decode(inp: Input):
        t = table_of(inp)
        m = mask(inp)
        m = m if bits == 64 else (m & word) or m >> (64 - bits)
        w = inp.choice("window", WINDOWS) if inp.bool("special_window") else inp.int("window_any", 1, 300)
        state_kind = inp.choice("state_kind", ("window", "any", "match"))
        state = inp.int("state", 0, word)
        where = plant_at(inp)
        span = data(inp, MAX_POSITIONS + w - 1)
        if len(span) < w:                           # the scan needs a whole first window
            w = max(1, len(span))
            span = span if len(span) else place(b"\0")
        if state_kind == "window":
            state = adapter.state(t, span[:w])
        elif state_kind == "match":
            state &= ~m & word                      # matches on entry: zero steps
        m = plant(m, where, len(span) - w + 1, lambda q: state_at(t, w, span, state, q))
        return t, w, span, state, m

    return decode


def _windowed_run(family: str):
    scan = scanner(family).scan

    def run(case, kernel):
        t, w, span, state, m = case
        return scan(t, w, span, state, m, kernel)
    return run


def _buzhash64_model(mod, case):
    t, w, span, state, m = case
    return mod.buzhash64.scan(t, _ModelRotated(mod, t, w), bytes(span), w, state, m)


def _buzhash64_seeds():
    from vectors import generators
    out = []
    for w in (1, 2, 63, 64, 65):
        for n in (0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 33, 100):
            out.append(dict(mask_kind="low", mask_bits=6, special_window=True, window=w,
                            data=generators.sha_ctr(w + n)))
    for bits in (1, 8, 9, 20, 48, 64):
        out.append(dict(mask_kind="low", mask_bits=bits, special_window=True, window=4095,
                        data=generators.lcg(4200)))
    out.append(dict(mask_kind="low", mask_bits=8, state_kind="match", state=U64, data=generators.sha_ctr(50)))
    # a cut planted at each lane of the first block and at each of the last 16 steps, for every
    # span length 16..31 (all block / tail splits of the 8- and 16-step loops)
    for n in range(16, 32):
        for k in range(16):
            out.append(dict(mask_kind="low", mask_bits=40, special_window=True, window=64, plant=True,
                            plant_from_end=True, plant_pos=k, data=generators.sha_ctr(64 + n)))
    for k in range(8):
        out.append(dict(mask_kind="low", mask_bits=40, special_window=True, window=3, plant=True, plant_pos=k,
                        data=generators.sha_ctr(50)))
    for byte in (0x00, 0x41, 0xFF):
        out.append(dict(mask_kind="low", mask_bits=8, window_any=64, repeat=30, data=bytes([byte]) * 100))
    return out


# the legacy buzhash (spec 04 A.3): its table is its seed (a C int), 32-bit states and masks

SEEDS = (0, 1, -1, 0x7FFFFFFF, -0x80000000)


def _buzhash_seed(inp: Input) -> int:
    """One of SEEDS, or any C int."""
    return inp.int("seed", -(1 << 31), (1 << 31) - 1) if inp.bool("custom_seed") else inp.choice("seed_index", SEEDS)


def _buzhash_model(mod, case):
    seed, w, span, state, m = case
    t = mod.buzhash.table(seed)
    return mod.buzhash.scan(t, mod.buzhash.rotated(t, w), bytes(span), w, state, m)


def _buzhash_seeds():
    """buzhash64's seeds (their masks cut to 32 bits by the decode; those with a wider start state
    left out), the window sizes around the 32-bit rotation wrap (w mod 32 = 31, 0, 1) and a fuzzer seed."""
    out = [values for values in _buzhash64_seeds() if values.get("state", 0) <= 0xFFFFFFFF]
    from vectors import generators
    for w in (31, 32, 33, 4095):
        out.append(dict(mask_kind="low", mask_bits=6, special_window=True, window=w, data=generators.sha_ctr(w + 40)))
    out.append(dict(custom_seed=True, seed=-12345, mask_kind="low", mask_bits=4, special_window=True, window=65,
                    data=generators.lcg(300)))
    return out


def _own_family(family: str) -> ScanFamily:
    """The scan target of a window-less family of the table (chunkers.families) without an entry here:
    one of KEYS, any mask and start state, an optional planted cut, through its scan adapter
    (chunkers.scanners) and its model module's (``model.<family>``: scan_table, scan_window)."""
    adapter = scanner(family)
    keyed = functools.lru_cache(maxsize=len(KEYS))(adapter.table)

    def decode(inp: Input):
        from chunkers.registry import reference
        key = inp.choice("key_index", KEYS)
        t, m, state = keyed(key), mask(inp), inp.int("state", 0, U64)
        where = plant_at(inp)
        span = data(inp, MAX_POSITIONS)
        m = plant(m, where, len(span), lambda q: adapter.scan(t, 0, span[:q + 1], state, U64, reference(family))[1])
        return key, t, span, state, m

    def run(case, kernel):
        _, t, span, state, m = case
        return adapter.scan(t, 0, span, state, m, kernel)

    def model_of(mod, case):
        key, _, span, state, m = case
        own = importlib.import_module(f"{mod.__name__}.{family}")     # the package imports only its own
        return own.scan_window(own.scan_table(key), 0, bytes(span), state, m)

    def seeds():
        from vectors import generators
        out = [dict(mask_kind="high", mask_bits=8, data=generators.sha_ctr(n)) for n in (0, 1, 7, 8, 9, 33, 100, 1024)]
        out += [dict(mask_kind="low", mask_bits=bits, state=0x0123456789ABCDEF, data=generators.lcg(300))
                for bits in (1, 8, 20, 64)]
        out += [dict(mask_kind="high", mask_bits=40, plant=True, plant_pos=k, data=generators.sha_ctr(40)) for k in range(8)]
        return out

    return ScanFamily(family, decode, run, model_of, lambda case: len(case[2]), seeds)


FAMILIES = {
    "fastcdc": ScanFamily("fastcdc", _fastcdc_decode, _fastcdc_run, _fastcdc_model,
                          lambda case: len(case[1]), _fastcdc_seeds),
    "buzhash64": ScanFamily("buzhash64", _windowed_decode("buzhash64", 64, lambda inp: table(inp, _bz_table)),
                            _windowed_run("buzhash64"), _buzhash64_model, lambda case: len(case[2]) - case[1],
                            _buzhash64_seeds),
    "buzhash": ScanFamily("buzhash", _windowed_decode("buzhash", 32, _buzhash_seed), _windowed_run("buzhash"),
                          _buzhash_model, lambda case: len(case[2]) - case[1], _buzhash_seeds),
    **scan_aes.FAMILIES,
}
FAMILIES.update({name: _own_family(name) for name in scan_families()
                 if not any(f.registry_family == name for f in FAMILIES.values())})


def _resolve_once() -> None:
    """Let chunkers' ``scan`` functions resolve each kernel name once per process.

    They call chunkers.registry.resolve on every call (CPU features and the
    environment again: ~10 us under the sanitizers, a tenth of a small case's
    cost). A target runs with a fixed environment, so a memo gives the same
    answers (errors are not memoized)."""
    from chunkers import registry
    memo = functools.lru_cache(maxsize=None)(registry.resolve)
    for family in scan_families():
        importlib.import_module(f"chunkers.{family}").resolve = memo


def target(family: str):
    """``(TestOneInput, decode, seeds)`` of the target ``scan_diff_<family>``."""
    fam = FAMILIES[family]
    name = f"scan_diff_{family}"
    _resolve_once()
    report_not_run(name, fam.registry_family)
    kernels = [k for k in kernel_inventory(fam.registry_family)[0] if k != fam.reference]
    ref_name = fam.reference

    decode, run, span_of, model_max, model_of = fam.decode, fam.run, fam.span, fam.model_max, fam.model
    mod = model()

    def test_one_input(raw: bytes) -> None:
        # Runs once per fuzzer execution: names bound once above, no closures unless a check fails.
        case = decode(Input(raw))
        ref = run(case, ref_name)
        for k in kernels:
            got = run(case, k)
            if got != ref:
                raise Finding(f"{name}: kernel {k!r} gave {got}, {ref_name} gave {ref} "
                              f"(span {span_of(case)} positions)")
        if mod is not None and span_of(case) <= model_max:
            want = model_of(mod, case)
            if want is not None and tuple(want) != tuple(ref):
                raise Finding(f"{name}: {ref_name} gave {ref}, the model {want}")

    def seeds() -> list[bytes]:
        return [script(fam.decode, **values) for values in fam.seeds()]

    return test_one_input, fam.decode, seeds
