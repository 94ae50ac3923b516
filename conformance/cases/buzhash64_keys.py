"""buzhash64's key derivation (spec 03 §2): boundary keys of its table shuffle and its tables
against the model (conformance.cases.keystream gathers the keyed families' checks).

For buzhash64, the first candidate of ``random_int(n)`` in the table's first shuffle lands
exactly on the rejection bound ``n`` (the smallest rejected value) or on ``n - 1`` (the
largest accepted), for n = 255, 129, 65, 33, 17, 9, 5, 3 (``n - 1`` just past a power of
two, where half the candidates are rejected).
"""

from __future__ import annotations

from conformance.cases.keylog import key_names, recorder
from conformance.cases.scan import key_bytes
from conformance.run.engine import Mismatch

FAMILY = CHUNKER = "buzhash64"
"""The family and the chunker whose keys these are."""

BUZHASH64_BOUNDS = (255, 129, 65, 33, 17, 9, 5, 3)
"""``n`` of the ``random_int(n)`` draws whose first candidate is placed at ``n`` and at ``n - 1``."""

BOUNDARY_SEEDS = {"n=255:255": 165, "n=255:254": 119, "n=129:129": 360, "n=129:128": 107, "n=65:65": 117,
                  "n=65:64": 282, "n=33:33": 104, "n=33:32": 26, "n=17:17": 49, "n=17:16": 3, "n=9:9": 2,
                  "n=9:8": 4, "n=5:5": 1, "n=5:4": 12, "n=3:3": 0, "n=3:2": 7}
"""Target -> seed of the first key ``R<seed>`` that hits it (as ``python -m conformance.cases.keystream``
prints them)."""

WANTED = [f"n={n}:{c}" for n in BUZHASH64_BOUNDS for c in (n, n - 1)]
"""Every boundary target, in search order."""


def targets(key: bytes) -> set:
    """The buzhash64 boundary targets ``"n=<n>:<candidate>"`` the key hits in the table's first
    shuffle (spec 03 §2; see the module doc)."""
    rec = recorder(key)
    rec.shuffle(list(range(256)))
    return {f"n={n}:{rec.firsts[n]}" for n in BUZHASH64_BOUNDS if rec.firsts[n] in (n, n - 1)}


def worth_asking(key: bytes, missing: set) -> bool:
    """Whether the model could find a missing target for ``key``: always (no cheaper screen)."""
    return True


def table_mismatches(seed: int) -> list[Mismatch]:
    """buzhash64 tables (spec 03 §2) of ours vs the model: the zero key, a seeded key and the boundary keys."""
    from chunkers.buzhash64 import table
    from vectors.model import buzhash64
    out = []
    for k in ("Z", f"R{seed}") + key_names(BOUNDARY_SEEDS):
        if list(table(key_bytes(k))) != buzhash64.table(key_bytes(k)):
            out.append(Mismatch("buzhash64 table", f"key={k} ({key_bytes(k).hex()})", "the model's table",
                                "another table"))
    return out


def mismatches(seed: int) -> list[Mismatch]:
    """The main job's derivation checks of buzhash64: its tables."""
    return table_mismatches(seed)
