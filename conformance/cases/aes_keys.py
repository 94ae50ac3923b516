"""The AES chunkers' key derivation (spec 06 §2.2, 08 §2) and rolling steps (06 §8.1): rabin-aes
boundary keys, injected key streams and the UHF steps against the model (conformance.cases.keystream
gathers the keyed families' checks).

* **Boundary keys** (rabin-aes): no rejected candidate, an accepted candidate whose bit 0 was
  clear before it was forced, and a long run of reducible candidates.
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
from conformance.cases.keylog import key_names, recorder
from conformance.cases.scan import key_bytes
from conformance.run.engine import Mismatch

FAMILY, CHUNKER = "aes", "rabin-aes"
"""The family, and the chunker whose boundary keys are searched (its UHF candidates are rejected
and forced, spec 08 §2)."""

RABIN_LONG_RUN = 150
"""A rabin-aes key with at least this many reducible candidates before the accepted one (about 1 key in 20)."""

BOUNDARY_SEEDS = {"no-rejection": 51, "forced-bit": 0, "long-run": 1}
"""Target -> seed of the first key ``R<seed>`` that hits it (as ``python -m conformance.cases.keystream``
prints them)."""

WANTED = ["no-rejection", "forced-bit", "long-run"]
"""Every boundary target, in search order."""


def targets(key: bytes) -> set:
    """The rabin-aes boundary targets the key hits, by the model's key expansion (spec 06 §2.2, 08 §2)."""
    from vectors.model import aes
    rec = recorder(key)
    aes.expand_key(CHUNKER, stream=rec)
    rejected = (len(rec.log) - 16) // 8 - 1        # A, then 8-byte candidates; the last one accepted
    out = set()
    if rejected == 0:
        out.add("no-rejection")
    if rejected >= RABIN_LONG_RUN:
        out.add("long-run")
    if not rec.log[-8] & 1:
        out.add("forced-bit")
    return out


def worth_asking(key: bytes, missing: set) -> bool:
    """Whether the (slow) model could find a missing target for ``key``: our key expansion's rejection
    count screens the keys first (each hit is then confirmed by the model)."""
    if "forced-bit" in missing:
        return True
    from chunkers.aes import AESContext
    rejected = AESContext(CHUNKER, key).candidates_rejected
    return rejected == 0 and "no-rejection" in missing or rejected >= RABIN_LONG_RUN and "long-run" in missing


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


def context_mismatches(seed: int) -> list[Mismatch]:
    """AES key expansion (spec 06 §2.2) of ours vs the model: (A, UHF material, rejected candidates)
    for the zero key, a seeded key, the boundary keys and the injected streams."""
    rng = random.Random(f"injected/{seed}")
    out = []
    for name in ("rabin-aes", "goldilocks-aes", "toeplitz-aes"):
        runs = [(f"key={k}", key_bytes(k), None) for k in ("Z", f"R{seed}") + key_names(BOUNDARY_SEEDS)]
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


def mismatches(seed: int) -> list[Mismatch]:
    """The main job's derivation checks of the AES chunkers: their contexts and rolling steps."""
    return context_mismatches(seed) + step_mismatches(seed)
