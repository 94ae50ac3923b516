"""The comparisons behind both the pytest suite and the main job.

Scan level: a kernel against its family's reference kernel (position and exit
state), and the reference against the pure-Python model. Chunk level: the cut
points of a chunker run on one kernel against those of the reference kernel
(or the model), plus the invariants every run must keep. Every mismatch is
returned as a :class:`Mismatch` whose ``reproducer`` names everything needed
to rerun it.
"""

from __future__ import annotations

import itertools
import random
from typing import Iterable, NamedTuple

from chunkers.families import CHUNKERS
from chunkers.params import parse_params
from vectors import impls
from vectors.impls import provenance
from conformance.cases.families import FAMILIES
from conformance.cases.scan import GUARD, MODEL_MAX_SPAN, ScanCase, key_bytes, seed_of
from vectors.results import first_cut_difference

_IMPL: impls.Implementation = impls.Ours()


def _checked_run(family: str, kernel: str):
    """``run(case)``: the family's native scan of ``kernel``, or
    ``"ProvenanceError: "`` + the provenance.wrong_code text (which differs from every real result)
    if other code ran."""
    run = FAMILIES[family].run

    def checked(case):
        provenance.take(family)
        result = run(case, kernel)
        text = provenance.wrong_code(family, kernel, provenance.take(family), source=provenance.source(family))
        return f"ProvenanceError: {text}" if text else result
    return checked


class Mismatch(NamedTuple):
    """A disagreement, with a minimal reproducer."""

    what: str
    reproducer: str
    expected: object
    got: object

    def __str__(self) -> str:
        return f"{self.what}: {self.reproducer}\n  expected {self.expected}\n  got      {self.got}"


def scan_mismatches(family: str, kernel: str, cases: Iterable[ScanCase], run=None) -> list[Mismatch]:
    """Cases where ``kernel`` differs from the family's reference kernel (position or exit state).

    A native kernel runs every case twice: at the case's alignment, and with the span ending
    right before a no-access page (families.GUARD), where a read past the span is a SIGSEGV.
    ``run(case) -> result`` runs ``kernel`` some other way than natively (an emulated kernel,
    see conformance.tools.emulate.runner, whose input always ends at a guard page).
    """
    fam = FAMILIES[family]
    placements = (None,) if run else (None, GUARD)
    reference, run = _checked_run(family, fam.reference), run or _checked_run(family, kernel)
    out = []
    for i, case in enumerate(cases):       # "case #i": the i-th case of the family's catalogue for the run's seed
        out += _placed_mismatch(f"{family}/{kernel} scan != {fam.reference}", i, case, placements,
                                reference(case), run)
    return out


def model_mismatches(family: str, cases: Iterable[ScanCase]) -> list[Mismatch]:
    """Cases (up to MODEL_MAX_SPAN bytes) where the reference kernel differs from the model (run at
    the case's alignment and guarded, as in scan_mismatches)."""
    fam = FAMILIES[family]
    reference = _checked_run(family, fam.reference)
    out = []
    for i, case in enumerate(cases):
        if len(case.data) <= MODEL_MAX_SPAN:
            out += _placed_mismatch(f"{family}/{fam.reference} scan != model", i, case, (None, GUARD),
                                    fam.model(case), reference)
    return out


def _placed_mismatch(what: str, i: int, case: ScanCase, placements, want, run) -> list[Mismatch]:
    """[] when ``run`` returns ``want`` for case #i at every placement (None: the case's own
    alignment; else an ``align`` value such as GUARD), else the first placement's Mismatch."""
    for placed in (case if p is None else case._replace(align=p) for p in placements):
        got = run(placed)
        if want != got:
            return [Mismatch(what, f"case #{i}: {placed.describe()}", want, got)]
    return []


def evp_failure_mismatches(kernel: str) -> list[Mismatch]:
    """06 §9.3 for AES ``kernel`` on each AES chunker: once the portable cipher context is broken
    (the ``_break_evp`` test hook; fresh contexts, the catalogue's cached ones stay intact), the
    ``evp`` scan and a single encryption raise RuntimeError naming the chunker, never return a
    cut; a hardware kernel never uses OpenSSL and returns what it returned before."""
    from chunkers.aes import NAMES, AESContext
    data = random.Random(5).randbytes(1000)
    out = []
    for name in NAMES:
        ctx = AESContext(name, bytes(32))
        what = f"aes/{kernel} with a failing OpenSSL"
        repro = f"{name} key=Z scan(Random(5) 1000 bytes, 64, 900, 0, 0xff)"
        if kernel != "evp":
            want = ctx.scan(data, 64, 900, 0, 0xFF, kernel)
            ctx._break_evp()
            got = ctx.scan(data, 64, 900, 0, 0xFF, kernel)
            if got != want:
                out.append(Mismatch(what, repro, want, got))
            continue
        ctx._break_evp()
        expected = f"RuntimeError('{name}: OpenSSL EVP encryption failed')"
        calls = (("scan", lambda: ctx.scan(data, 64, 900, 0, 0xFF, kernel)), ("encrypt(0)", lambda: ctx.encrypt(0)))
        for call, run in calls:
            try:
                got = run()
            except RuntimeError as e:
                got = f"RuntimeError({str(e)!r})"
            if got != expected:
                out.append(Mismatch(what, f"{repro}, then {call}", expected, got))
    return out


def set_implementation(impl: impls.Implementation) -> None:
    """Route the chunk-level checks (chunk_sizes, chunks) to ``impl`` (default: ours)."""
    global _IMPL
    _IMPL = impl


def implementation() -> impls.Implementation:
    """The implementation the chunk-level checks run."""
    return _IMPL


def _run_args(params, key: str, kernel, normal_size: int) -> tuple:
    return parse_params(params), dict(key=key_bytes(key), seed=seed_of(key), kernel=kernel, normal_size=normal_size)


def chunks(params, source, key: str = "Z", kernel: str | None = None, normal_size: int = 0):
    """``(size, data or None)`` per chunk of ``source`` from the implementation under test; ``key``
    names both the key and the buzhash seed (families.key_bytes / seed_of)."""
    p, kw = _run_args(params, key, kernel, normal_size)
    return _IMPL.chunks(p, source, **kw)


def chunk_sizes(params, data, key: str = "Z", kernel: str | None = None, normal_size: int = 0) -> list[int]:
    """Chunk sizes of a run of the implementation under test over ``data``."""
    p, kw = _run_args(params, key, kernel, normal_size)
    return _IMPL.chunk_sizes(p, data, **kw)


def our_sizes(params, data, key: str = "Z", kernel: str | None = None, normal_size: int = 0) -> list[int]:
    """Chunk sizes from our chunkers, whatever implementation is under test (to search inputs)."""
    p, kw = _run_args(params, key, kernel, normal_size)
    return impls.Ours().chunk_sizes(p, data, **kw)


def model_sizes(params, data, key: str = "Z", normal_size: int = 0) -> list[int]:
    """Chunk sizes from the pure-Python model."""
    p, kw = _run_args(params, key, None, normal_size)
    return impls.Model().chunk_sizes(p, bytes(data), **kw)


def bounds_violations(params, sizes: list[int], total: int) -> list[str]:
    """Invariants of every run: sizes sum to the input length, each is > 0, every non-final
    chunk lies within the chunker's size bounds (spec 01 §5.3, 03 §6.2)."""
    p = parse_params(params)
    problems = []
    if sum(sizes) != total:
        problems.append(f"sizes sum to {sum(sizes)}, input has {total} bytes")
    if any(s <= 0 for s in sizes):
        problems.append("empty chunk")
    fields = CHUNKERS[p[0]].fields if p[0] in CHUNKERS else ()
    if fields and "chunk_mask" not in fields:     # fixed sizes: no hash cut
        return problems
    lo, hi = 1 << p[1], 1 << p[2]
    lo += 0 if "window_size" in fields else 1     # a windowed hash may cut at min_size itself
    bad = [(i, s) for i, s in enumerate(sizes[:-1]) if not lo <= s <= hi]
    if bad:
        problems.append(f"non-final chunks outside [{lo}, {hi}]: first at index {bad[0][0]} size {bad[0][1]}")
    if sizes and sizes[-1] > hi:
        problems.append(f"final chunk {sizes[-1]} exceeds {hi}")
    return problems


def chunk_mismatch(params, data, want: list[int], *, key: str = "Z", kernel: str | None = None,
                   source: str = "", normal_size: int = 0) -> Mismatch | None:
    """Run ``params`` on ``kernel`` and compare with ``want``; also checks the bounds invariants."""
    got = chunk_sizes(params, data, key, kernel, normal_size)
    problems = bounds_violations(params, got, len(data))
    if got == want and not problems:
        return None
    ns = f" normal_size={normal_size}" if normal_size else ""
    repro = (f"params={params!r}{ns} key={key} kernel={kernel} input={source} ({len(data)} bytes); "
             f"{first_cut_difference(want, got) if got != want else '; '.join(problems)}")
    return Mismatch("chunk sizes", repro, f"{len(want)} chunks", f"{len(got)} chunks")
