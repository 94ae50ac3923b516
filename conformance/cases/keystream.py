"""Key-derivation boundaries (spec 01 §9 random_int, 06 §2.2 AES key expansion) and the
AES rolling steps, for the pytest suite and the main job (issue 12): the checks of each keyed
family's module (conformance.cases.buzhash64_keys, conformance.cases.aes_keys), gathered.

* **Boundary keys**: keys ``R<seed>`` (families.key_bytes) found by a seeded search
  (:func:`search`, from seed 0 upwards) and stored in each module's BOUNDARY_SEEDS (targets: the
  modules' docs). The stored keys are checked to still hit their boundary by the model
  (:func:`boundary_problems`), then compared table for table / context for context with the
  model and used as chunk-level keys (conformance.cases.classes).
* **Derivations**: each module's ``mismatches(seed)``, ours against the model: buzhash64's
  tables; the AES chunkers' contexts (also from injected key streams) and rolling steps.

A module gives FAMILY, CHUNKER (whose keys are searched), BOUNDARY_SEEDS, WANTED, ``targets(key)``,
``worth_asking(key, missing)`` and ``mismatches(seed)``.
"""

from __future__ import annotations

from conformance.cases import aes_keys, buzhash64_keys
from conformance.cases.keylog import key_names
from conformance.cases.scan import key_bytes
from conformance.run.engine import Mismatch

MODULES = {m.FAMILY: m for m in (buzhash64_keys, aes_keys)}
"""Keyed family -> the module of its key-derivation checks."""

_BY_CHUNKER = {m.CHUNKER: m for m in MODULES.values()}

BOUNDARY_SEEDS = {c: m.BOUNDARY_SEEDS for c, m in _BY_CHUNKER.items()}
"""Chunker -> target -> seed of the first key ``R<seed>`` that hits it (as ``python -m
conformance.cases.keystream`` prints them)."""

TARGETS = {c: (m.targets, m.WANTED) for c, m in _BY_CHUNKER.items()}
"""Chunker -> (key -> the targets it hits, every target)."""


def search(name: str, limit: int = 100000) -> dict:
    """Target -> smallest seed whose key ``R<seed>`` hits it, for TARGETS[name] (seeds 0..limit-1).
    RuntimeError if a target is not hit within ``limit`` seeds."""
    hits, wanted = TARGETS[name]
    found = {}
    for seed in range(limit):
        key = key_bytes(f"R{seed}")
        if not _BY_CHUNKER[name].worth_asking(key, set(wanted) - found.keys()):
            continue
        for t in hits(key) - found.keys():
            found[t] = seed
        if len(found) == len(wanted):
            return {t: found[t] for t in wanted}
    raise RuntimeError(f"{name}: no key within {limit} seeds for {sorted(set(wanted) - found.keys())}")


def boundary_keys(family: str) -> tuple:
    """Key names ``R<seed>`` of the stored boundary keys whose chunker belongs to ``family``."""
    return key_names(MODULES[family].BOUNDARY_SEEDS) if family in MODULES else ()


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


def mismatches(family: str, seed: int) -> list[Mismatch]:
    """The main job's checks for ``family`` (run once, with its reference kernel): a stale boundary
    key store, then its module's derivation checks (none for a family without a module)."""
    if family not in MODULES:
        return []
    stored = MODULES[family].CHUNKER
    out = [Mismatch("boundary keys", p, "the stored key hits its target", "it does not")
           for p in boundary_problems() if p.startswith(stored)]
    return out + MODULES[family].mismatches(seed)


if __name__ == "__main__":      # python -m conformance.cases.keystream: search the boundary keys again
    for chunker in TARGETS:
        print(chunker, search(chunker))
