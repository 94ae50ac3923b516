"""Vector inputs: hex, named deterministic generators, and shipped files.

An input object (schema ``input``) is one of

* ``{"length": n, "hex": "..."}`` -- small inputs, the bytes themselves;
* ``{"length": n, "generator": NAME, "args": {...}}`` -- large inputs;
* ``{"length": n, "file": "files/NAME", "sha256": "..."}`` -- a real-world
  file shipped next to the vectors (see files/README.md).

Generators (each yields exactly ``length`` bytes; ``label`` is ASCII):

* ``sha_ctr(label)``: SHA-256(label || LE64(i)) for i = 0, 1, ...
  concatenated (spec 05 §1 with label ``borg-spec``);
* ``lcg()``: x = 1; per byte x = (x * 1103515245 + 12345) mod 2**31, emit
  x mod 256 (spec 05 §1);
* ``constant(byte)``: one byte value repeated;
* ``periodic(period, label)``: the first ``period`` bytes of sha_ctr(label),
  repeated;
* ``high_bytes(label)``: sha_ctr(label) with the top bit of every byte set;
* ``zero_islands(label, islands)``: sha_ctr(label) with every ``[start,
  length]`` range of ``islands`` set to zero (clipped to the input);
* ``concat(parts)``: the input objects of ``parts`` one after the other.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os

from vectors.generators import lcg, sha_ctr

HEX_MAX = 256
"""Inputs up to this many bytes are stored as hex; longer ones by generator."""

_HIGH = bytes(b | 0x80 for b in range(256))


def _sha(length, label):
    return sha_ctr(length, label.encode("ascii"))


def _periodic(length, period, label):
    unit = _sha(period, label)
    return (unit * (length // period + 1))[:length]


def _zero_islands(length, label, islands):
    buf = bytearray(_sha(length, label))
    for start, size in islands:
        end = min(start + size, length)
        if start < end:
            buf[start:end] = bytes(end - start)
    return bytes(buf)


GENERATORS = {
    "sha_ctr": _sha,
    "lcg": lambda length: lcg(length),
    "constant": lambda length, byte: bytes([byte]) * length,
    "periodic": _periodic,
    "high_bytes": lambda length, label: _sha(length, label).translate(_HIGH),
    "zero_islands": _zero_islands,
    "concat": lambda length, parts: b"".join(materialize(p) for p in parts),
}
"""Generator name -> function(length, **args) returning ``length`` bytes."""

FILES_DIR = os.path.join(os.path.dirname(__file__), "files")


def generated(name: str, length: int, **args) -> dict:
    """The input object for generator ``name`` (no validation beyond the name)."""
    if name not in GENERATORS:
        raise ValueError(f"unknown generator {name!r}")
    return {"length": length, "generator": name, "args": args}


def real_file(name: str) -> dict:
    """The input object for the shipped file ``files/<name>`` (its length and SHA-256)."""
    with open(os.path.join(FILES_DIR, name), "rb") as f:
        data = f.read()
    return {"length": len(data), "file": f"files/{name}", "sha256": hashlib.sha256(data).hexdigest()}


def stored(spec: dict) -> dict:
    """``spec`` as it is written to a vector file: generator inputs up to HEX_MAX bytes become hex."""
    if "generator" in spec and spec["length"] <= HEX_MAX:
        return {"length": spec["length"], "hex": materialize(spec).hex()}
    return spec


def materialize(spec: dict) -> bytes:
    """The bytes of the input object ``spec``.

    Raises ValueError when the bytes do not have the stated length (or a
    file its stated SHA-256), or the generator is unknown; OSError when a
    file cannot be read.
    """
    key = json.dumps(spec, sort_keys=True)
    return _materialize_cached(key) if spec.get("length", 0) <= CACHE_MAX else _materialize(key)


CACHE_MAX = 1 << 20
"""Inputs up to this many bytes are kept (64 of them); longer ones are made again on each use
(a constant fill, or a prefix of vectors.generators' SHA-CTR stream cache): caching the 12, 16 and
20 MiB ones pushed the main job's peak memory over its 300 MB bound (issue 11)."""


@functools.lru_cache(maxsize=64)
def _materialize_cached(key: str) -> bytes:
    return _materialize(key)


def _materialize(key: str) -> bytes:
    spec = json.loads(key)
    if "hex" in spec:
        data = bytes.fromhex(spec["hex"])
    elif "file" in spec:
        with open(os.path.join(os.path.dirname(__file__), spec["file"]), "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != spec["sha256"]:
            raise ValueError(f"{spec['file']}: SHA-256 differs from the vector's")
    elif spec.get("generator") in GENERATORS:
        data = GENERATORS[spec["generator"]](spec["length"], **spec["args"])
    else:
        raise ValueError(f"not an input object: {key[:80]}")
    if len(data) != spec["length"]:
        raise ValueError(f"input has {len(data)} bytes, the vector says {spec['length']}")
    return data


def describe(spec: dict) -> str:
    """A short human-readable name of an input object, e.g. ``sha_ctr(1048576, label=borg-spec)``."""
    if "hex" in spec:
        return f"hex({spec['length']} bytes)"
    if "file" in spec:
        return f"{spec['file']} ({spec['length']} bytes)"
    args = ", ".join(f"{k}={v}" for k, v in sorted(spec["args"].items()) if k not in ("parts", "islands"))
    return f"{spec['generator']}({spec['length']}{', ' + args if args else ''})"
