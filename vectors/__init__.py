"""Golden digest vectors for every chunker: data files with a schema.

One JSON file per chunker (``vectors/<name>.json``) in the style of Project
Wycheproof: test groups per parameter set, tests with an id, a comment,
flags naming what they exercise, the key or seed, the input (hex, a named
generator or a shipped file) and the expected result (chunk count, sizes or
their SHA-256, SHA-256 of each chunk or of their list). ``schema.json``
describes the format; :func:`validate` checks a document against it and
against the rules a schema cannot express.

``python -m vectors regenerate`` writes the files, ``python -m vectors
check`` reports drift; see :mod:`vectors.generate`.

The subpackages are what the vectors are made and checked with, layered
below the rest of this package: :mod:`vectors.model`, the independent
pure-Python model of the spec (it imports nothing of this project), and
:mod:`vectors.impls`, the adapters through which any implementation (ours,
borg, the model) is run (``--impl``). They live here, not as top-level
packages, so that installing the project adds no generic top-level names.
"""

from __future__ import annotations

import functools
import json
import os

DIR = os.path.dirname(os.path.abspath(__file__))
SCHEMA_PATH = os.path.join(DIR, "schema.json")


def path_of(name: str) -> str:
    """The vector file of chunker ``name``."""
    return os.path.join(DIR, f"{name}.json")


def names() -> list[str]:
    """Every chunker with vectors, in generation order."""
    from vectors.cases import CHUNKERS
    return list(CHUNKERS)


def load_text(name: str) -> str:
    """The text of chunker ``name``'s vector file (OSError if missing)."""
    with open(path_of(name), encoding="ascii") as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def _load(name: str) -> str:
    return load_text(name)


def load(name: str) -> dict:
    """Chunker ``name``'s vector document (a fresh copy; the file is read once per process).
    OSError if the file cannot be read, ValueError naming the file if it is not JSON (the schema
    is checked by validate)."""
    try:
        return json.loads(_load(name))
    except (ValueError, RecursionError) as e:      # JSONDecodeError, UnicodeDecodeError, nesting
        raise ValueError(f"{path_of(name)}: {unreadable(e)}") from None


def unreadable(e: Exception) -> str:
    """Why a vector file's text is not a JSON document, for a message naming the file."""
    return "JSON nested too deep to read" if isinstance(e, RecursionError) else f"not a JSON document: {e}"


@functools.lru_cache(maxsize=None)
def schema() -> dict:
    with open(SCHEMA_PATH, encoding="ascii") as f:
        return json.load(f)


def validate(doc: dict) -> None:
    """Raise ValueError (naming the place) unless ``doc`` is a valid vector document.

    Beyond the schema: tcIds run 1..numberOfTests, every flag is described
    in ``notes``, hex inputs have their stated length, the result's lists
    have chunkCount entries and the sizes sum to the input length.
    """
    import jsonschema
    try:
        jsonschema.Draft202012Validator(schema(), format_checker=jsonschema.FormatChecker()).validate(doc)
    except jsonschema.ValidationError as e:
        where = "/".join(map(str, e.absolute_path)) or "(top)"
        raise ValueError(f"schema: {where}: {e.message[:300]}") from None
    ids = [t["tcId"] for g in doc["testGroups"] for t in g["tests"]]
    if ids != list(range(1, len(ids) + 1)) or len(ids) != doc["numberOfTests"]:
        raise ValueError(f"tcIds must run 1..numberOfTests ({doc['numberOfTests']})")
    for g in doc["testGroups"]:
        if g["params"][0] != doc["algorithm"]:
            raise ValueError(f"group params {g['params']} do not belong to {doc['algorithm']}")
        for t in g["tests"]:
            where = f"tcId {t['tcId']}"
            undefined = set(t["flags"]) - set(doc["notes"])
            if undefined:
                raise ValueError(f"{where}: flags {sorted(undefined)} are not described in notes")
            inp, res = t["input"], t["result"]
            if "hex" in inp and len(inp["hex"]) != 2 * inp["length"]:
                raise ValueError(f"{where}: hex input is not {inp['length']} bytes")
            for key in ("sizes", "chunkSha256"):
                if key in res and len(res[key]) != res["chunkCount"]:
                    raise ValueError(f"{where}: {key} has {len(res[key])} entries, chunkCount {res['chunkCount']}")
            if "sizes" in res and sum(res["sizes"]) != inp["length"]:
                raise ValueError(f"{where}: sizes sum to {sum(res['sizes'])}, input has {inp['length']} bytes")


LINE = 100
"""Objects and lists whose one-line form is at most this long are written on one line."""

FIELD_DEPTH = 5
"""Nesting depth of a test's fields: their values are always written on one line."""


def dumps(doc: dict) -> str:
    """Byte-stable text of a document: keys sorted, ASCII, two-space indent, one line per field of
    a test, any other object or list on one line when that fits in LINE characters, a final newline."""
    return _dump(doc, "", 0) + "\n"


def _dump(o, pad: str, depth: int) -> str:
    line = json.dumps(o, sort_keys=True)
    if len(line) <= LINE or depth >= FIELD_DEPTH or (isinstance(o, list) and all(isinstance(x, int) for x in o)):
        return line
    inner = pad + "  "
    if isinstance(o, dict):
        return ("{\n" + ",\n".join(f"{inner}{json.dumps(k)}: {_dump(o[k], inner, depth + 1)}" for k in sorted(o))
                + f"\n{pad}}}")
    if isinstance(o, list):
        return "[\n" + ",\n".join(inner + _dump(x, inner, depth + 1) for x in o) + f"\n{pad}]"
    return line
