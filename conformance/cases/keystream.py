"""Key-derivation boundaries (spec 01 §9 random_int, 06 §2.2 AES key expansion) and the
AES rolling steps, for the pytest suite and the main job (issue 12).

* **Boundary keys**: keys ``R<seed>`` (families.key_bytes) found by a seeded search
  (:func:`search`, from seed 0 upwards) and stored in BOUNDARY_SEEDS. For buzhash64,
  the first candidate of ``random_int(n)`` in the table's first shuffle lands exactly
  on the rejection bound ``n`` (the smallest rejected value) or on ``n - 1`` (the
  largest accepted), for n = 255, 129, 65, 33, 17, 9, 5, 3 (``n - 1`` just past a power
  of two, where half the candidates are rejected). For rabin-aes: no rejected candidate,
  an accepted candidate whose bit 0 was clear before it was forced, and a long run of
  reducible candidates. The stored keys are checked to still hit their boundary by the
  model (:func:`boundary_problems`), then compared table for table / context for
  context with the model and used as chunk-level keys (conformance.cases.classes).
* **Injected key streams**: goldilocks-aes candidates exactly at p, p - 1, p + 1 and
  2**64 - 1, rabin-aes candidates around the forced bit, expanded by our
  ``AESContext.from_stream`` and by the model from the same bytes.
* **Rolling steps**: ``AESContext.roll`` and ``roll2`` (the two-byte step of the
  stride-2 lanes, spec 06 §8.1, which toeplitz-aes kernels never take) against the
  model's UHF steps and against two single rolls, at digest edges.
"""

from __future__ import annotations

import functools
import random
import struct

from conformance.cases.aes_kernels import P
from conformance.cases.scan import key_bytes
from conformance.run.engine import Mismatch

BUZHASH64_BOUNDS = (255, 129, 65, 33, 17, 9, 5, 3)
"""``n`` of the ``random_int(n)`` draws whose first candidate is placed at ``n`` and at ``n - 1``."""

RABIN_LONG_RUN = 150
"""A rabin-aes key with at least this many reducible candidates before the accepted one (about 1 key in 20)."""

BOUNDARY_SEEDS = {
    "buzhash64": {"n=255:255": 165, "n=255:254": 119, "n=129:129": 360, "n=129:128": 107, "n=65:65": 117,
                  "n=65:64": 282, "n=33:33": 104, "n=33:32": 26, "n=17:17": 49, "n=17:16": 3, "n=9:9": 2,
                  "n=9:8": 4, "n=5:5": 1, "n=5:4": 12, "n=3:3": 0, "n=3:2": 7},
    "rabin-aes": {"no-rejection": 51, "forced-bit": 0, "long-run": 1},
}
"""Target -> seed of the first key ``R<seed>`` that hits it (as ``python -m conformance.cases.keystream``
prints them)."""


def _recorder(key: bytes):
    """A model key stream (spec 01 §9) that logs the bytes it hands out (``log``) and the first
    candidate of every ``random_int(n)`` (``firsts``: n -> value after the mask)."""
    from vectors.model.csprng import KeyStream

    class Recorder(KeyStream):
        def __init__(self):
            super().__init__(key)
            self.log, self.firsts = bytearray(), {}

        def random_bytes(self, n):
            out = super().random_bytes(n)
            self.log += out
            return out

        def random_int(self, n):
            start = len(self.log)
            value = super().random_int(n)
            if n > 1 and n not in self.firsts:
                bits = (n - 1).bit_length()
                self.firsts[n] = int.from_bytes(self.log[start:start + (bits + 7) // 8], "big") & ((1 << bits) - 1)
            return value

    return Recorder()


def buzhash64_targets(key: bytes) -> set:
    """The buzhash64 boundary targets ``"n=<n>:<candidate>"`` the key hits in the table's first
    shuffle (spec 03 §2; see the module doc)."""
    rec = _recorder(key)
    rec.shuffle(list(range(256)))
    return {f"n={n}:{rec.firsts[n]}" for n in BUZHASH64_BOUNDS if rec.firsts[n] in (n, n - 1)}


def rabin_targets(key: bytes) -> set:
    """The rabin-aes boundary targets the key hits, by the model's key expansion (spec 06 §2.2, 08 §2)."""
    from vectors.model import aes
    rec = _recorder(key)
    aes.expand_key("rabin-aes", stream=rec)
    rejected = (len(rec.log) - 16) // 8 - 1        # A, then 8-byte candidates; the last one accepted
    out = set()
    if rejected == 0:
        out.add("no-rejection")
    if rejected >= RABIN_LONG_RUN:
        out.add("long-run")
    if not rec.log[-8] & 1:
        out.add("forced-bit")
    return out


TARGETS = {
    "buzhash64": (buzhash64_targets, [f"n={n}:{c}" for n in BUZHASH64_BOUNDS for c in (n, n - 1)]),
    "rabin-aes": (rabin_targets, ["no-rejection", "forced-bit", "long-run"]),
}


def _worth_asking(name: str, key: bytes, missing: set) -> bool:
    """Whether the (slow) model could find a missing target for ``key``: for rabin-aes our key expansion's
    rejection count screens the keys first (each hit is then confirmed by the model)."""
    if name != "rabin-aes" or "forced-bit" in missing:
        return True
    from chunkers.aes import AESContext
    rejected = AESContext(name, key).candidates_rejected
    return rejected == 0 and "no-rejection" in missing or rejected >= RABIN_LONG_RUN and "long-run" in missing


def search(name: str, limit: int = 100000) -> dict:
    """Target -> smallest seed whose key ``R<seed>`` hits it, for TARGETS[name] (seeds 0..limit-1).
    RuntimeError if a target is not hit within ``limit`` seeds."""
    hits, wanted = TARGETS[name]
    found = {}
    for seed in range(limit):
        key = key_bytes(f"R{seed}")
        if not _worth_asking(name, key, set(wanted) - found.keys()):
            continue
        for t in hits(key) - found.keys():
            found[t] = seed
        if len(found) == len(wanted):
            return {t: found[t] for t in wanted}
    raise RuntimeError(f"{name}: no key within {limit} seeds for {sorted(set(wanted) - found.keys())}")


def boundary_keys(family: str) -> tuple:
    """Key names ``R<seed>`` of the stored boundary keys whose chunker belongs to ``family``."""
    names = {"fastcdc": (), "buzhash64": ("buzhash64",), "aes": ("rabin-aes",)}.get(family, ())
    return tuple(sorted({f"R{s}" for n in names for s in BOUNDARY_SEEDS[n].values()}, key=lambda k: int(k[1:])))


def boundary_problems() -> list[str]:
    """Stored boundary keys that no longer hit their target by the model (the store is stale)."""
    out = []
    for name, seeds in BOUNDARY_SEEDS.items():
        hits, wanted = TARGETS[name]
        if sorted(seeds) != sorted(wanted):
            out.append(f"{name}: stored targets {sorted(seeds)} differ from {sorted(wanted)}")
        for target, seed in seeds.items():
            if target not in hits(key_bytes(f"R{seed}")):
                out.append(f"{name}: key R{seed} does not hit {target}")
    return out


# ---------------------------------------------------------------- derivation checks (ours vs the model)

def _le64s(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}Q", *values)


INJECTED = {
    "goldilocks-aes": [_le64s(P), _le64s(P, P - 1), _le64s((1 << 64) - 1, P + 1, P, 0), _le64s(P - 2),
                       _le64s(1 << 63, P - 1), _le64s(P + (1 << 31), (1 << 32) - 1)],
    "rabin-aes": [_le64s(0), _le64s(1), _le64s(2, 3), _le64s(0x1B), _le64s((1 << 64) - 2),
                  _le64s(*range(0, 256, 2))],
}
"""UHF candidate sequences after a 16-byte A; each ends with (or before) an accepted candidate."""


def _ours_context(name: str, key: bytes | None = None, stream: bytes | None = None):
    from chunkers.aes import AESContext
    return AESContext(name, key) if stream is None else AESContext.from_stream(name, stream)


def _model_context(name: str, key: bytes | None = None, stream: bytes | None = None):
    from vectors.model import aes
    from vectors.model.csprng import ByteStream
    return aes.expand_key(name, key) if stream is None else aes.expand_key(name, stream=ByteStream(stream))


def _context_view(ctx, model: bool) -> tuple:
    """(A, UHF material, rejected candidates) of our context or the model's."""
    if not model:
        return ctx.A, ctx.material, ctx.candidates_rejected
    u = ctx.uhf
    material = {"goldilocks-aes": lambda: u.K, "rabin-aes": lambda: u.P, "toeplitz-aes": lambda: list(u.T)}
    return ctx.A, material[ctx.name](), u.candidates_rejected


def table_mismatches(seed: int) -> list[Mismatch]:
    """buzhash64 tables (spec 03 §2) of ours vs the model: the zero key, a seeded key and the boundary keys."""
    from chunkers.buzhash64 import table
    from vectors.model import buzhash64
    out = []
    for k in ("Z", f"R{seed}") + boundary_keys("buzhash64"):
        if list(table(key_bytes(k))) != buzhash64.table(key_bytes(k)):
            out.append(Mismatch("buzhash64 table", f"key={k} ({key_bytes(k).hex()})", "the model's table",
                                "another table"))
    return out


def context_mismatches(seed: int) -> list[Mismatch]:
    """AES key expansion (spec 06 §2.2) of ours vs the model: (A, UHF material, rejected candidates)
    for the zero key, a seeded key, the boundary keys and the injected streams."""
    rng = random.Random(f"injected/{seed}")
    out = []
    for name in ("rabin-aes", "goldilocks-aes", "toeplitz-aes"):
        runs = [(f"key={k}", key_bytes(k), None) for k in ("Z", f"R{seed}") + boundary_keys("aes")]
        tail = rng.randbytes(2048)      # the toeplitz table / more candidates after the injected ones
        runs += [(f"stream A+{s.hex()}+...", None, rng.randbytes(16) + s + tail) for s in INJECTED.get(name, [])]
        for label, key, stream in runs:
            want = _context_view(_model_context(name, key, stream), True)
            got = _context_view(_ours_context(name, key, stream), False)
            if got != want:
                out.append(Mismatch(f"{name} key expansion", label, f"(A, material, rejected)=({want[0].hex()}, "
                                    f"{str(want[1])[:40]}, {want[2]})", f"({got[0].hex()}, {str(got[1])[:40]}, "
                                    f"{got[2]})"))
    return out


EDGE_DIGESTS = (0, 1, (1 << 32) - 1, 1 << 32, P - 2, P - 1, (1 << 63), (1 << 64) - 1)


@functools.lru_cache(maxsize=None)
def _step_contexts(seed: int) -> list:
    out = []
    for name in ("toeplitz-aes", "rabin-aes", "goldilocks-aes"):
        for k in ("Z", "KS", f"R{seed}"):
            out.append((f"{name}/{k}", _ours_context(name, key_bytes(k)), _model_context(name, key_bytes(k))))
    return out


def step_mismatches(seed: int, count: int = 200) -> list[Mismatch]:
    """roll and roll2 of every AES chunker (three keys each) against the model's UHF steps, and
    roll2 against two single rolls: ``count`` seeded steps per context plus every edge digest
    (goldilocks: reduced below p first, digests are field elements) with bytes 0x00 / 0xff."""
    rng = random.Random(f"steps/{seed}")
    out = []
    for label, ours, model in _step_contexts(seed):
        edges = [(d % P if "goldilocks" in label else d, b, b, b, b) for d in EDGE_DIGESTS for b in (0, 0xff)]
        limit = P if "goldilocks" in label else 1 << 64
        steps = edges + [(rng.randrange(limit), *rng.randbytes(4)) for _ in range(count)]
        for d, o0, o1, i0, i1 in steps:
            want1, want2 = model.uhf.roll(d, o0, i0), model.uhf.roll2(d, o0, o1, i0, i1)
            got1, got2 = ours.roll(d, o0, i0), ours.roll2(d, o0, o1, i0, i1)
            two = ours.roll(ours.roll(d, o0, i0), o1, i1)
            if (got1, got2, two) != (want1, want2, want2):
                out.append(Mismatch(f"{label} roll/roll2", f"d={d:#x} out={o0:#04x},{o1:#04x} in={i0:#04x},"
                                    f"{i1:#04x}", f"roll {want1:#x}, roll2 {want2:#x}",
                                    f"roll {got1:#x}, roll2 {got2:#x}, two rolls {two:#x}"))
    return out


def mismatches(family: str, seed: int) -> list[Mismatch]:
    """The main job's checks for ``family`` (run once, with its reference kernel): a stale boundary
    key store, then buzhash64 tables, or AES contexts and rolling steps."""
    stored = {"buzhash64": "buzhash64", "aes": "rabin-aes"}.get(family, "-")
    out = [Mismatch("boundary keys", p, "the stored key hits its target", "it does not")
           for p in boundary_problems() if p.startswith(stored)]
    if family == "buzhash64":
        out += table_mismatches(seed)
    if family == "aes":
        out += context_mismatches(seed) + step_mismatches(seed)
    return out


if __name__ == "__main__":      # python -m conformance.cases.keystream: search the boundary keys again
    for chunker in TARGETS:
        print(chunker, search(chunker))
