#!/usr/bin/env python3
"""Fuzz target: the golden-vector loader on mutated vector JSON (vectors/).

A case is a small vector document cut from one chunker's file (1-3 of its
tests, renumbered), then mutated: structurally (a value replaced by a wild
or transplanted one, deleted, duplicated, an unknown key added, an int
nudged, a string or hex digit edited) and then as text (bytes deleted or
inserted anywhere). Checked, on that text:

* ``python -m vectors check``'s logic (``vectors.generate.check`` with the
  file text replaced by the mutated one and regeneration by the unmutated
  document) returns 1 with a message unless the text (ASCII JSON) holds the
  same data as what regeneration writes, in any layout, and 0 then; nothing
  escapes;
* parsing raises nothing but ValueError (JSON, non-ASCII) and
  ``vectors.validate`` nothing but ValueError (check lets anything else
  escape);
* a valid document runs (``run_document`` on this project's chunkers, inputs
  up to RUN_MAX bytes) without escaping exceptions, and no wrong "pass": a
  test passes exactly when its result means the same chunks as the truth
  for its case, where the truth is the committed result of the same case
  (params, normal size, key or seed, input) or, for a case the mutation
  made new, the model's chunks (inputs up to MODEL_MAX bytes, keys of the
  file). Sizes and digests are compared by meaning: a list against the
  SHA-256 form of the same list is the same result (schema.json).
"""

import copy
import functools
import hashlib
import json
import os
import re
import sys
from unittest import mock

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo, after PYTHONPATH

import vectors  # noqa: E402
from chunkers.families import CHUNKERS as TABLE  # noqa: E402
from fuzz.harness import check, model  # noqa: E402
from fuzz.input import Input, script  # noqa: E402
from vectors import generate  # noqa: E402

RUN_MAX = 4096              # bytes: tests with longer inputs are validated and checked, not run
MODEL_MAX = RUN_MAX         # bytes: a new case gets its truth from the model up to this input length
NAMES = tuple(vectors.names())
# two chunker names of the table as wild values (a params field naming another chunker): the one
# without a credential and the first one
_OTHER_CHUNKERS = (next(c.name for c in TABLE.values() if c.credential is None), next(iter(TABLE)))
OPS = ("replace", "transplant", "delete", "insert", "int", "str", "hex", "expand")
WILD = (None, True, False, 0, 1, -1, 7, 63, 64, 65, 255, 256, 1 << 31, 1 << 63, -(1 << 63), 10 ** 30, 0.5, "",
        "x", "00", "ff" * 32, "files/README.md", "files/..", "sha_ctr", "concat", "periodic", "constant",
        "zero_islands", "lcg", "high_bytes", *_OTHER_CHUNKERS, "Flag", [], [0], [[0, 1]], [1, 2, 3], {},
        {"label": "x"}, {"byte": 0}, {"length": 1, "hex": "00"},
        {"length": 5, "generator": "periodic", "args": {"period": 3, "label": "x"}},
        {"length": 4, "generator": "concat", "args": {"parts": [{"length": 4, "generator": "lcg", "args": {}}]}})
KEYS = ("sizes", "sizesSha256", "chunkSha256", "chunksSha256", "hex", "file", "sha256", "generator", "args", "key",
        "seed", "length", "label", "parts", "islands", "period", "byte", "tcId", "flags", "extra")
DELTAS = (1, -1, 2, -2, 8, -8, 64, -64, 1000, -1000, 1 << 32)
_FAILED_TCID = re.compile(r" tcId (\d+) \(")


@functools.cache
def _file(name: str) -> dict:
    return vectors.load(name)


@functools.cache
def _tests(name: str) -> tuple:
    """``(group index, test index, input length)`` of every test of the file, small inputs first."""
    rows = [(gi, ti, t["input"]["length"]) for gi, g in enumerate(_file(name)["testGroups"])
            for ti, t in enumerate(g["tests"])]
    return tuple(sorted(rows, key=lambda r: r[2] > RUN_MAX))


def _case_key(group: dict, test: dict) -> str:
    """What determines a test's chunks: params, normal size, key or seed, input (its object, canonical JSON)."""
    return json.dumps([group["params"], group["normalSize"], test.get("key"), test.get("seed"), test["input"]],
                      sort_keys=True)


@functools.cache
def _truths(name: str) -> dict:
    """The committed result of every case of the file, by :func:`_case_key`."""
    return {_case_key(g, t): t["result"] for g in _file(name)["testGroups"] for t in g["tests"]}


def subdocument(name: str, picks: list) -> dict:
    """The file's document with only the tests ``picks`` (group, test index pairs), renumbered from 1,
    and the notes of their flags (validating every note costs most of the schema check)."""
    full = _file(name)
    doc = {k: copy.deepcopy(v) for k, v in full.items() if k != "testGroups"}
    groups: dict = {}
    for gi, ti in picks:
        g = full["testGroups"][gi]
        entry = groups.setdefault(gi, {**{k: copy.deepcopy(v) for k, v in g.items() if k != "tests"}, "tests": []})
        entry["tests"].append(copy.deepcopy(g["tests"][ti]))
    doc["testGroups"] = list(groups.values())
    tc = 0
    for g in doc["testGroups"]:
        for t in g["tests"]:
            tc += 1
            t["tcId"] = tc
    doc["numberOfTests"] = tc
    used = {f for g in doc["testGroups"] for t in g["tests"] for f in t["flags"]}
    doc["notes"] = {f: n for f, n in doc["notes"].items() if f in used}
    return doc


def paths(node, out=None) -> list:
    """``(container, key)`` of every value inside ``node``, depth first, in key order."""
    out = [] if out is None else out
    items = sorted(node.items()) if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        out.append((node, k))
        paths(v, out)
    return out


def _expand(inp: Input, name: str, doc: dict) -> None:
    """Give a test a result in any of the schema's forms, computed by the model, optionally for a new
    SHA-CTR input of 0..MODEL_MAX bytes and optionally with one value made wrong (a size, a chunk
    digest, the count), so that a wrong "pass" of any form is one step away. Nothing happens when the
    model cannot say (or the document is too mangled to find the test)."""
    k, new_len = inp.int("test", 0, 2), inp.int("new_length", 0, MODEL_MAX) if inp.bool("new_input") else None
    hash_sizes, hash_digests = inp.bool("hash_sizes"), inp.bool("hash_digests")
    wrong, at = inp.choice("wrong", (None, "size", "digest", "count")), inp.int("wrong_at", 0, 255)
    try:
        pairs = [(g, t) for g in doc["testGroups"] for t in g["tests"]]
        group, test = pairs[k % len(pairs)]
        if new_len is not None:
            test["input"] = {"length": new_len, "generator": "sha_ctr", "args": {"label": "fuzz"}}
        chunks = _model_chunks(name, group, test)
    except (LookupError, TypeError, ValueError, AttributeError, ZeroDivisionError):   # an already mangled shape
        return
    if chunks is None:
        return
    sizes, digests = list(chunks[0]), [d.hex() for d in chunks[1]]
    count = len(sizes)
    if wrong == "size" and count >= 2 and sizes[0] != sizes[-1]:
        sizes[0], sizes[-1] = sizes[-1], sizes[0]       # same sum: only the order is wrong
    elif wrong == "digest" and count:
        i = at % count
        digests[i] = ("1" if digests[i][0] == "0" else "0") + digests[i][1:]
    elif wrong == "count":
        count += 1
    result = {"chunkCount": count}
    if hash_sizes:
        result["sizesSha256"] = hashlib.sha256(",".join(map(str, sizes)).encode()).hexdigest()
    else:
        result["sizes"] = sizes
    if hash_digests:
        result["chunksSha256"] = hashlib.sha256(b"".join(bytes.fromhex(d) for d in digests)).hexdigest()
    else:
        result["chunkSha256"] = digests
    test["result"] = result


def _mutate(inp: Input, name: str, doc: dict) -> None:
    """One structural mutation of ``doc`` in place (nothing when the drawn op does not fit the value)."""
    where = paths(doc) or [(doc, None)]
    parent, key = where[inp.int("path", 0, (1 << 16) - 1) % len(where)]
    if key is None:                             # everything was deleted: start over with one value
        doc["extra"] = None
        return
    op = inp.choice("op", OPS)
    value = parent[key]
    if op == "expand":
        _expand(inp, name, doc)
    elif op == "replace":
        parent[key] = copy.deepcopy(inp.choice("value", WILD))
    elif op == "transplant":
        other, okey = where[inp.int("other_path", 0, (1 << 16) - 1) % len(where)]
        parent[key] = copy.deepcopy(other[okey])
    elif op == "delete":
        del parent[key]
    elif op == "insert":
        if isinstance(parent, list):
            parent.insert(key, copy.deepcopy(value))
        else:
            parent[inp.choice("new_key", KEYS)] = copy.deepcopy(inp.choice("value", WILD))
    elif op == "int" and type(value) is int:
        parent[key] = value + inp.choice("delta", DELTAS)
    elif op in ("str", "hex") and isinstance(value, str) and value:
        pos = inp.int("pos", 0, 255) % len(value)
        new = "0123456789abcdef"[inp.int("digit", 0, 15)] if op == "hex" else chr(inp.int("char", 0, 255))
        parent[key] = value[:pos] + new + value[pos + (op == "hex" or inp.bool("overwrite")):]


def _edit(inp: Input, raw: bytes) -> bytes:
    """One text edit: delete 0..8 bytes at a position and insert 0..8 fuzzer bytes there."""
    pos = inp.int("edit_pos", 0, (1 << 16) - 1) % (len(raw) + 1)
    cut = inp.int("edit_delete", 0, 8)
    return raw[:pos] + inp.bytes("edit_insert", inp.int("edit_insert_len", 0, 8)) + raw[pos + cut:]


def decode(inp: Input) -> dict:
    """``name``, the unmutated sub-document ``truth`` and its text, and the mutated ``raw`` text (bytes)."""
    name = inp.choice("chunker", NAMES)
    rows = _tests(name)
    picks = []
    for _ in range(inp.int("tests", 1, 3)):
        small = sum(r[2] <= RUN_MAX for r in rows)
        pool = rows if inp.bool("any_size") or not small else rows[:small]
        gi, ti, _ = pool[inp.int("test_index", 0, 1023) % len(pool)]
        if (gi, ti) not in picks:
            picks.append((gi, ti))
    truth = subdocument(name, sorted(picks))
    doc = copy.deepcopy(truth)
    for _ in range(inp.int("mutations", 0, 4)):
        _mutate(inp, name, doc)
    raw = json.dumps(doc).encode() if inp.bool("compact") else vectors.dumps(doc).encode()
    for _ in range(inp.int("edits", 0, 3)):
        raw = _edit(inp, raw)
    return dict(name=name, truth=truth, raw=raw)


def check_command(case: dict):
    """``vectors check`` on the mutated text, against the unmutated document as the regenerated one.

    Returns the document when check found it valid (check parses the ASCII
    text and validates it; its validation is recorded and reused, it costs
    most of an execution), else None."""
    name, raw, lines, valid = case["name"], case["raw"], [], []

    def validate(doc):
        vectors.validate(doc)
        valid.append(doc)

    with mock.patch.object(generate, "load_text", lambda n: raw.decode("ascii")), \
            mock.patch.object(generate, "validate", validate), \
            mock.patch.object(generate, "compute", lambda n, model=False, progress=None: (case["truth"], [])):
        status = generate.check([name], out=lines.append)
    try:                # the data is what check compares: a text laid out anew with the same data passes
        same = vectors.dumps(json.loads(raw.decode("ascii"))) == vectors.dumps(case["truth"])
    except (ValueError, RecursionError):  # canonical texts, not ==: true is not 1, 1.0 is not 1
        same = False
    check(status == (0 if same else 1), f"vectors check gave {status} for {'the same' if same else 'changed'} data")
    check(lines, "vectors check printed nothing")
    return valid[0] if valid else None


def _meaning(result: dict) -> tuple:
    """(chunk count, SHA-256 of the sizes string, SHA-256 of the chunk digests) of a valid result object."""
    sizes = result.get("sizesSha256") or hashlib.sha256(",".join(map(str, result["sizes"])).encode()).hexdigest()
    digests = result.get("chunksSha256") or hashlib.sha256(
        b"".join(bytes.fromhex(d) for d in result["chunkSha256"])).hexdigest()
    return result["chunkCount"], sizes, digests


@functools.cache
def _file_keys(name: str) -> frozenset:
    return frozenset(t.get("key") for g in _file(name)["testGroups"] for t in g["tests"])


def _fields(chunker) -> tuple:
    """The params fields of ``chunker`` in the family table (chunk_min for a content-defined one)."""
    row = TABLE.get(chunker) if isinstance(chunker, str) else None
    return row.fields if row else ("chunk_min",)


def _model_chunks(name: str, group: dict, test: dict):
    """``(sizes, SHA-256 digests)`` of the model's chunks for a test's case, or None when the model
    cannot say cheaply (input over MODEL_MAX bytes, a key the file does not use, no model) or at all."""
    from vectors.inputs import materialize
    try:
        params = group["params"]
        if (model() is None or test["input"]["length"] > MODEL_MAX or test.get("key") not in _file_keys(name)
                or "chunk_min" in _fields(params[0]) and not all(type(e) is int and 0 <= e <= 64 for e in params[1:3])):
            return None                         # the model would compute 2**exponent for any int
        data = materialize(test["input"])
        from vectors.impls import Model
        sizes = Model().chunk_sizes(tuple(group["params"]), data, seed=test.get("seed", 0),
                                    key=bytes.fromhex(test["key"]) if "key" in test else None,
                                    normal_size=group["normalSize"])
    except Exception:       # a mangled case, or the model rejects it: no truth to compare with
        return None
    pos, digests = 0, []
    for s in sizes:
        digests.append(hashlib.sha256(data[pos:pos + s]).digest())
        pos += s
    return sizes, digests


def _model_meaning(name: str, group: dict, test: dict):
    """The model's chunks of a new case as a :func:`_meaning` tuple, or None (see :func:`_model_chunks`)."""
    chunks = _model_chunks(name, group, test)
    if chunks is None:
        return None
    return (len(chunks[0]), hashlib.sha256(",".join(map(str, chunks[0])).encode()).hexdigest(),
            hashlib.sha256(b"".join(chunks[1])).hexdigest())


def check_run(name: str, doc: dict) -> None:
    """Run a valid document; every test with a known truth passes exactly when its result means the truth."""
    from vectors.impls import Ours
    _, failures = generate.run_document(Ours(), doc, None, max_input=RUN_MAX)
    failed = {}
    for f in failures:
        m = _FAILED_TCID.search(f)
        check(m is not None, f"a failure does not name its test: {f!r}")
        failed[int(m.group(1))] = f
    truths = _truths(name)
    for g in doc["testGroups"]:
        for t in g["tests"]:
            if t["input"]["length"] > RUN_MAX:
                continue
            known = truths.get(_case_key(g, t))
            truth = _meaning(known) if known is not None else _model_meaning(name, g, t)
            if truth is None:
                continue
            right = _meaning(t["result"]) == truth
            if right and known is None and "raised" in failed.get(t["tcId"], ""):
                continue                        # a new case ours rejects (e.g. a tuple without nc_level)
            if right != (t["tcId"] not in failed):
                check(False, f"{name} tcId {t['tcId']}: result {'means' if right else 'does not mean'} the truth "
                             f"{truth} but the run {'failed' if right else 'passed'}: {str(t['result'])[:300]}")


def TestOneInput(raw: bytes) -> None:
    case = decode(Input(raw))
    doc = check_command(case)       # parse and validation errors other than ValueError escape from check
    if doc is not None:
        check_run(case["name"], doc)


def _path_index(doc: dict, *keys) -> int:
    """The index in :func:`paths` of the value at ``keys`` (for seeds)."""
    parent = doc
    for k in keys[:-1]:
        parent = parent[k]
    return next(i for i, (p, k) in enumerate(paths(doc)) if p is parent and k == keys[-1])


def seeds() -> list:
    out = []
    for name in NAMES:
        rows = _tests(name)
        small = [i for i, r in enumerate(rows) if r[2] <= RUN_MAX]
        base = dict(chunker=name, tests=1, test_index=small[0] if small else 0)
        out.append(dict(base))
        out.append(dict(base, tests=3, test_index=small[:3] if len(small) >= 3 else 0))
        out.append(dict(base, any_size=True, test_index=len(rows) - 1))
        doc = subdocument(name, [rows[base["test_index"]][:2]])
        result = ("testGroups", 0, "tests", 0, "result")
        res = doc["testGroups"][0]["tests"][0]["result"]
        out.append(dict(base, mutations=1, path=_path_index(doc, *result, "chunkCount"), op="int", delta=1))
        if res.get("sizes"):
            out.append(dict(base, mutations=1, path=_path_index(doc, *result, "sizes", 0), op="int", delta=-1))
        digest = "chunkSha256" if "chunkSha256" in res else "chunksSha256"
        out.append(dict(base, mutations=1, path=_path_index(doc, *result, digest), op="hex", pos=5, digit=3))
        if "key" in doc["testGroups"][0]["tests"][0]:
            out.append(dict(base, mutations=1, path=_path_index(doc, "testGroups", 0, "tests", 0, "key"), op="hex",
                            pos=0, digit=1))
        out.append(dict(base, mutations=1, path=_path_index(doc, "testGroups", 0, "params", 1), op="int", delta=1))
        out.append(dict(base, mutations=1, path=_path_index(doc, "numberOfTests"), op="replace", value=7))
        out.append(dict(base, edits=1, edit_pos=40, edit_delete=1, edit_insert_len=1, edit_insert=b"\xff"))
        out.append(dict(base, edits=1, edit_pos=0, edit_delete=0, edit_insert_len=8, edit_insert=b"[[[[[[[["))
        out.append(dict(base, compact=True))
    return [script(decode, **v) for v in out]


if __name__ == "__main__":
    from fuzz.harness import main
    main(TestOneInput, instrument=("vectors", "vectors.generate", "vectors.inputs", "vectors.results"))
