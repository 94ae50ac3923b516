"""Computing the vector documents, checking them, and running them against an implementation.

Regeneration computes every case with every kernel of ours that runs here
and with the pure-Python model; any disagreement refuses the whole write.
The written text is byte-stable: keys sorted, fixed formatting, nothing
that depends on the machine (which kernels ran is not recorded).
"""

from __future__ import annotations

import difflib
import json
import os
from typing import NamedTuple

from vectors.impls import Model, Ours
from vectors import cases as cases_mod
from vectors import dumps, load_text, path_of, unreadable, validate
from vectors.inputs import describe, materialize, stored
from vectors.results import Run, differences, first_cut_difference, run_of

GENERATOR_VERSION = "chunkers-vectors 1"
SCHEMA_NAME = "schema.json"


class Disagreement(NamedTuple):
    """Two implementations (or kernels) that cut one case differently."""

    chunker: str
    case: str
    reference: str
    other: str
    detail: str

    def __str__(self) -> str:
        return f"{self.chunker}: {self.case}\n  {self.other} differs from {self.reference}: {self.detail}"


def implementations(family: str, model: bool = True) -> list:
    """(label, implementation, kernel) for every kernel of ours that runs here, then the model."""
    ours = Ours()
    out = [(f"ours/{k}", ours, k) for k, why in ours.kernels(family) if why is None]
    return out + ([("model", Model(), None)] if model else [])


def case_label(case) -> str:
    cred = f"key={case.key.hex()[:8]}..." if case.key is not None else (
        f"seed={case.seed}" if case.seed is not None else "")
    ns = f" normal_size={case.normal_size}" if case.normal_size else ""
    return f"params={case.params}{ns} {cred} input={describe(case.input)} ({case.comment})"


def run_case(impl, kernel, case, data=None) -> Run:
    """The Run of one case on one implementation and kernel."""
    data = materialize(case.input) if data is None else data
    return run_of(impl.chunks(case.params, data, key=case.key, seed=case.seed if case.seed is not None else 0,
                              kernel=kernel, normal_size=case.normal_size))


def _disagreement(name, case, ref_label, ref: Run, label, run: Run) -> Disagreement | None:
    if run == ref:
        return None
    if run.sizes != ref.sizes:
        detail = first_cut_difference(ref.sizes, run.sizes)
    else:
        i = next(i for i, (a, b) in enumerate(zip(ref.digests, run.digests)) if a != b)
        detail = f"same sizes, chunk {i} has other bytes"
    return Disagreement(name, case_label(case), ref_label, label, detail)


def compute(name: str, model: bool = True, progress=None) -> tuple[dict, list]:
    """The vector document of chunker ``name`` and the disagreements found computing it.

    Every case runs on every implementation of :func:`implementations`; the
    last one is the reference: the model, or without ``model`` our last
    listed kernel (the sequential one).
    """
    entry = cases_mod.CHUNKERS[name]
    runners = implementations(entry.family, model)
    ref_label = runners[-1][0]
    tests, problems = [], []
    case_list = entry.cases()
    for i, case in enumerate(case_list):
        if progress:
            progress(name, i, len(case_list))
        data = materialize(case.input)
        runs = {}
        for label, impl, kernel in runners:
            try:
                runs[label] = run_case(impl, kernel, case, data)
            except Exception as e:      # a failing implementation is a disagreement, not a crash
                problems.append(Disagreement(name, case_label(case), "its reference", label,
                                             f"raised {type(e).__name__}: {e}"))
        ref = runs.get(ref_label)
        if ref is None:
            continue
        for label, run in runs.items():
            d = _disagreement(name, case, ref_label, ref, label, run)
            if d:
                problems.append(d)
        tests.append((case, ref.result()))
    return document(entry, tests), problems


def document(entry, tests) -> dict:
    """The vector document of ``entry`` from (case, result) pairs: groups per (params, normal size)
    in order of first appearance, tcIds numbered through the file."""
    groups: dict = {}
    for case, result in tests:
        g = groups.setdefault((case.params, case.normal_size), [])
        test = {"comment": case.comment, "flags": cases_mod.flags_of(case), "input": stored(case.input),
                "result": result}
        if case.key is not None:
            test["key"] = case.key.hex()
        if case.seed is not None:
            test["seed"] = case.seed
        g.append(test)
    out, tc_id, used = [], 0, set()
    for (params, normal_size), tests_ in groups.items():
        for t in tests_:
            tc_id += 1
            t["tcId"] = tc_id
            used.update(t["flags"])
        out.append({"params": list(params), "normalSize": normal_size,
                    "paramsString": ",".join(map(str, params)) if cases_mod.parser_accepts(params) else None,
                    "tests": tests_})
    return {
        "algorithm": entry.name,
        "generatorVersion": GENERATOR_VERSION,
        "header": [
            f"Golden vectors for the {entry.name} chunker, algorithm-compatible with borg 2.0.0b25.",
            "Written by `python -m vectors regenerate`: every result was computed by every kernel of this project",
            "that ran on the generating machine and by the independent pure-Python model, and they all agreed.",
            "Inputs, results and flags are described in schema.json; shipped files in files/README.md.",
        ],
        "notes": {flag: cases_mod.NOTES[flag] for flag in sorted(used)},
        "numberOfTests": tc_id,
        "schema": SCHEMA_NAME,
        "specSection": entry.spec,
        "testGroups": out,
    }


def regenerate(names, model: bool = True, write: bool = True, out=print, progress=None, out_dir=None) -> int:
    """Compute the documents of ``names``; if every implementation agreed, write them (when ``write``)
    to their files in vectors/, or as ``<name>.json`` into the folder ``out_dir``.

    Returns 0 on success, 1 when implementations disagree (then nothing is
    written and every disagreement is printed through ``out``).
    """
    docs, problems = {}, []
    for name in names:
        try:
            docs[name], found = compute(name, model, progress)
        except RuntimeError as e:       # a planted case could not be found: the search kernel misbehaves
            found = [f"{name}: {e}"]
        problems += found
    if problems:
        out(f"refusing to write: {len(problems)} disagreement(s) between implementations")
        for p in problems[:50]:
            out(str(p))
        return 1
    if write:
        for name, doc in docs.items():
            validate(doc)
            dest = path_of(name) if out_dir is None else os.path.join(out_dir, f"{name}.json")
            tmp = dest + ".tmp"
            with open(tmp, "w") as f:
                f.write(dumps(doc))
            os.replace(tmp, dest)
            out(f"wrote {dest}: {doc['numberOfTests']} tests")
    return 0


def check(names, model: bool = False, out=print, progress=None) -> int:
    """Exit status 0 if the files of ``names`` are valid and exactly what regeneration would write
    (computed with every runnable kernel, and the model if ``model``); else 1 with a readable diff."""
    status = 0
    for name in names:
        why = None
        try:
            old_text = load_text(name)
            stored = json.loads(old_text)
            validate(stored)
        except OSError as e:                # names the file
            why = e
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
            why = f"{path_of(name)}: {unreadable(e)}"
        except ValueError as e:             # validate: the place in the document
            why = f"{path_of(name)}: {e}"
        if why is not None:
            out(f"{name}: {why}")
            status = 1
            continue
        try:
            doc, problems = compute(name, model, progress)
        except RuntimeError as e:
            out(f"{name}: {e}")
            status = 1
            continue
        for p in problems:
            out(str(p))
        # The data is the contract, a file laid out anew is no drift: compare the canonical texts (dumps
        # sorts keys), which also tell true from 1 and 1.0 from 1, where Python's == does not.
        stored_text, new_text = dumps(stored), dumps(doc)
        if problems or stored_text != new_text:
            status = 1
            if stored_text != new_text:
                out(f"{name}: drift: stored ({path_of(name)}) != computed (by the kernels that run here)")
                for line in drift(stored, doc) or _text_diff(stored_text, new_text):
                    out("  " + line)
        else:
            layout = "" if new_text == old_text else " (stored with another JSON layout than regenerate writes)"
            by = "every kernel that runs here and the model" if model else "every kernel that runs here"
            out(f"{name}: {doc['numberOfTests']} tests, no drift ({by}){layout}")
    return status


def drift(old: dict, new: dict) -> list[str]:
    """Readable differences between two documents, test by test (matched on tcId)."""
    lines = []
    for key in sorted(set(old) | set(new)):
        if key != "testGroups" and old.get(key) != new.get(key):
            lines.append(f"{key}: stored {json.dumps(old.get(key))[:100]}, computed {json.dumps(new.get(key))[:100]}")
    old_tests, new_tests = _tests(old), _tests(new)
    for tc in sorted(set(old_tests) | set(new_tests)):
        a, b = old_tests.get(tc), new_tests.get(tc)
        if a == b:
            continue
        if a is None or b is None:
            lines.append(f"tcId {tc}: {'computed only (not stored)' if a is None else 'stored only (not computed)'}")
            continue
        what = [f"{k}: stored {_short(a.get(k))}, computed {_short(b.get(k))}" for k in sorted(set(a) | set(b))
                if k != "result" and a.get(k) != b.get(k)]
        if a.get("result") != b.get("result"):
            what += [f"result {line}" for line in _result_diff(a["result"], b["result"])]
        lines.append(f"tcId {tc} ({a.get('comment', '')}): " + "; ".join(what))
    return lines


def _tests(doc) -> dict:
    return {t["tcId"]: {**t, "params": g["params"], "normalSize": g["normalSize"]}
            for g in doc.get("testGroups", []) for t in g["tests"]}


def _short(v) -> str:
    s = json.dumps(v)
    return s if len(s) <= 60 else s[:57] + "..."


def _result_diff(a: dict, b: dict) -> list[str]:
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            if k == "sizes" and a.get(k) and b.get(k):
                out.append(f"sizes (stored vs computed): {first_cut_difference(a[k], b[k])}")
            else:
                out.append(f"{k}: stored {_short(a.get(k))}, computed {_short(b.get(k))}")
    return out


def _text_diff(old: str, new: str, limit: int = 40) -> list[str]:
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "stored", "computed", lineterm=""))
    return lines[:limit] + ([f"... {len(lines) - limit} more diff lines"] if len(lines) > limit else [])


def run_vector(impl, doc: dict, group: dict, test: dict, kernel) -> list[str]:
    """Run one vector test on ``impl`` with ``kernel``; the readable differences (empty: it passes)."""
    data = materialize(test["input"])
    run = run_of(impl.chunks(tuple(group["params"]), data, key=bytes.fromhex(test["key"]) if "key" in test else None,
                             seed=test.get("seed", 0), kernel=kernel, normal_size=group["normalSize"]))
    return differences(test["result"], run)


def run_document(impl, doc: dict, kernel, max_input: int | None = None) -> tuple[int, list[str]]:
    """Run every test of ``doc`` (inputs up to ``max_input`` bytes) on ``impl`` with ``kernel``.

    Returns (tests run, failure descriptions). An exception while running a
    test counts as its failure.
    """
    ran, failures = 0, []
    for group in doc["testGroups"]:
        for test in group["tests"]:
            if max_input is not None and test["input"]["length"] > max_input:
                continue
            ran += 1
            try:
                diff = run_vector(impl, doc, group, test, kernel)
            except Exception as e:      # a crash of the implementation under test is a failure
                diff = [f"raised {type(e).__name__}: {e}"]
            if diff:
                failures.append(f"{doc['algorithm']} tcId {test['tcId']} ({test['comment']}; params "
                                f"{group['params']}, {describe(test['input'])}) on {impl.name}/{kernel}: "
                                + "; ".join(diff))
    return ran, failures
