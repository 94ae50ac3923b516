"""The golden vectors (vectors/): every kernel of the implementation under test
(--impl, default ours) against every vector; the files' schema, byte-stable
format, coverage and agreement with the spec's numbers; regeneration refusing
on disagreement and check reporting drift."""

import itertools
import json
import os
import shutil
import subprocess
import sys

import pytest

import vectors
from conformance.run import engine
from vectors import impls
from conformance.cases import catalogue
from conformance.cases.families import FAMILIES
from conformance import spec_values as spec
from vectors import cases as vcases
from vectors import generate
from vectors.generate import run_document
from vectors.inputs import generated, materialize, stored
from vectors.results import sizes_sha256

NAMES = vectors.names()
MODEL_MAX_INPUT = 20_000
"""Vectors with inputs up to this many bytes run on the (slow) model in the default tier; all with --slow."""


def _pairs(doc):
    return [(g, t) for g in doc["testGroups"] for t in g["tests"]]


def test_every_chunker_has_vectors():
    on_disk = sorted(f[:-5] for f in os.listdir(vectors.DIR) if f.endswith(".json") and f != "schema.json")
    assert on_disk == sorted(NAMES)
    assert {c for fam in FAMILIES.values() for c in fam.chunkers} >= set(NAMES)


@pytest.mark.level("vectors")
def test_vectors(family_kernel):
    """Every vector of the family's chunkers on this kernel of the implementation under test."""
    family, kernel = family_kernel
    impl = engine.implementation()
    for name in FAMILIES[family].chunkers:
        if name not in NAMES:
            continue
        ran, failures = run_document(impl, vectors.load(name), kernel)
        assert ran == vectors.load(name)["numberOfTests"]
        assert not failures, f"{len(failures)} of {ran} vectors fail:\n" + "\n".join(failures[:10])


@pytest.mark.ours_only
@pytest.mark.parametrize("name", NAMES)
def test_model_agrees_with_vectors(name, request):
    """The independent model reproduces the vectors (inputs up to 20 kB; all of them with --slow)."""
    limit = None if request.config.getoption("--slow") else MODEL_MAX_INPUT
    ran, failures = run_document(impls.Model(), vectors.load(name), "model", max_input=limit)
    assert ran > 15 and not failures, "\n".join(failures[:10])


@pytest.mark.parametrize("name", NAMES)
def test_schema_valid(name):
    vectors.validate(vectors.load(name))


@pytest.mark.parametrize("name", NAMES)
def test_byte_stable_format(name):
    assert vectors.dumps(vectors.load(name)) == vectors.load_text(name)


def _first(doc, pred=lambda g, t: True):
    return next(t for g, t in _pairs(doc) if pred(g, t))


def _listed(doc):
    """The first test whose result lists at least two sizes and their chunk digests."""
    return _first(doc, lambda g, t: "chunkSha256" in t["result"] and "sizes" in t["result"]
                  and t["result"]["chunkCount"] >= 2)


def _hex_input(doc):
    return _first(doc, lambda g, t: "hex" in t["input"])["input"]


def _generated_input(doc):
    return _first(doc, lambda g, t: "generator" in t["input"])["input"]


def _wrong_credential(doc):
    t = _first(doc)
    if doc["algorithm"] == "fixed":
        t["seed"] = 1
    elif doc["algorithm"] == "buzhash":
        t["key"] = "00" * 32
    else:
        t["key"] = t["key"][:62]


CORRUPTIONS = {
    "result without chunkCount": lambda d: _first(d)["result"].pop("chunkCount"),
    "result with sizes and sizesSha256": lambda d: _listed(d)["result"].update(sizesSha256="0" * 64),
    "result without chunk digests": lambda d: _listed(d)["result"].pop("chunkSha256"),
    "chunk digest not hex": lambda d: _listed(d)["result"]["chunkSha256"].__setitem__(0, "x" * 64),
    "negative chunk size": lambda d: _listed(d)["result"]["sizes"].__setitem__(0, -1),
    "sizes not summing to the input": lambda d: _listed(d)["result"]["sizes"].__setitem__(
        0, _listed(d)["result"]["sizes"][0] + 1),
    "odd hex input": lambda d: _hex_input(d).update(hex="abc"),
    "hex input of another length": lambda d: _hex_input(d).update(length=_hex_input(d)["length"] + 1),
    "unknown generator": lambda d: _generated_input(d).update(generator="urandom"),
    "input without length": lambda d: _first(d)["input"].pop("length"),
    "flag not described in notes": lambda d: _first(d).update(flags=["NoSuchFlag"]),
    "flag not a name": lambda d: _first(d).update(flags=["cut at min"]),
    "tcId repeated": lambda d: _pairs(d)[1][1].update(tcId=1),
    "numberOfTests wrong": lambda d: d.update(numberOfTests=1),
    "unknown field": lambda d: _first(d).update(expected=1),
    "params of another chunker": lambda d: d["testGroups"][0]["params"].__setitem__(0, "other"),
    "unknown algorithm": lambda d: d.update(algorithm="rabin"),
    "key or seed the chunker does not take": _wrong_credential,
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_corrupted_vector_fails_validation(name, corruption):
    doc = vectors.load(name)
    CORRUPTIONS[corruption](doc)
    with pytest.raises(ValueError):
        vectors.validate(doc)


def test_a_wrong_digest_in_a_long_listed_result_fails():
    """Found by fuzz/vectors_load: listed chunk digests of more than DIGESTS_MAX chunks went unchecked."""
    from vectors.results import DIGESTS_MAX, Run, differences
    digests = [bytes([i]) * 32 for i in range(DIGESTS_MAX + 4)]
    run = Run([1] * len(digests), digests)
    listed = {"chunkCount": len(digests), "sizes": run.sizes, "chunkSha256": [d.hex() for d in digests]}
    assert differences(listed, run) == []
    listed["chunkSha256"][DIGESTS_MAX + 1] = "00" * 32
    assert differences(listed, run) == [f"chunkSha256: first at chunk {DIGESTS_MAX + 1}"]


# ---------------------------------------------------------------- coverage: the vectors exercise what they claim

REQUIRED_FLAGS = {"ConstantData", "PeriodicData", "ZeroIsland", "HighBytes", "LcgData", "PseudoRandomData",
                  "LengthBoundary", "EmptyInput", "RealFile", "SpecExample", "AllZeroChunks"}
CDC_FLAGS = {"LaneCut", "TailLength", "CutAtMin", "CutAtMax", "ForcedMaxCut", "MaskWidthExtreme", "ShorterThanMin",
             "SizeExtreme", "ConstructorOnly", "LargeInput"}
NC_FLAGS = {"NormalizedChunking", "NormalSizeBoundary", "ExplicitNormalSize"}
FIXED_FLAGS = {"HeaderChunk", "BlockSizeExtreme", "ExactMultiple"}


@pytest.mark.parametrize("name", NAMES)
def test_coverage(name):
    doc = vectors.load(name)
    pairs = _pairs(doc)
    flags = {f for _, t in pairs for f in t["flags"]}
    algo = doc["algorithm"]
    want = REQUIRED_FLAGS | (FIXED_FLAGS if algo == "fixed" else CDC_FLAGS)
    if algo in ("fastcdc", "buzhash64") or algo.endswith("-aes"):
        want |= NC_FLAGS
        assert {g["params"][-1] for g, _ in pairs} >= {0, 1, 2, 3}, "nc_level 0..3"
    if algo in ("buzhash64", "buzhash"):
        want |= {"WindowExtreme"}
    assert want <= flags, f"missing flags {sorted(want - flags)}"
    inputs = [t["input"] for _, t in pairs]
    for kind in catalogue.PATTERNS:
        assert vcases.catalogue_input(kind) in inputs, f"catalogue kind {kind} missing"
    for f in vcases.REAL_FILES:
        assert any(i.get("file") == f"files/{f}" for i in inputs), f
    if algo != "fixed":
        creds = {t.get("key", t.get("seed")) for _, t in pairs}
        assert len(creds) >= 3


def _shape(params):
    windowed = params[0] in ("buzhash64", "buzhash")
    return 1 << params[1], 1 << params[2], (params[4] if windowed else 0), windowed


@pytest.mark.parametrize("name", [n for n in NAMES if n != "fixed"])
def test_planted_cuts_are_where_the_flags_say(name):
    """CutAtMin, CutAtMax, NormalSizeBoundary, LaneCut and TailLength tests really cut there (per their
    results): lanes at every position of the first three blocks, tails of every span length mod 8."""
    lanes, tails = set(), set()
    for g, t in _pairs(vectors.load(name)):
        if "sizes" not in t["result"] or not t["result"]["sizes"]:
            continue
        first = t["result"]["sizes"][0]
        lo, hi, w, windowed = _shape(g["params"])
        j = first - lo - (0 if windowed else 1)         # scan position of the hit
        if "CutAtMin" in t["flags"]:
            assert j == 0, t["tcId"]
        if "CutAtMax" in t["flags"]:
            assert first == (hi - w - 1 if windowed else hi - 1), t["tcId"]
        if "NormalSizeBoundary" in t["flags"]:
            normal = g["normalSize"] or (1 << g["params"][3]) - (1 << (g["params"][3] - g["params"][-1]))
            assert first - normal in (-1, 0, 1), t["tcId"]
        if "LaneCut" in t["flags"]:
            lanes.add(j)
        if "TailLength" in t["flags"]:
            n = t["input"]["length"] - lo - w             # positions of the only scan span
            assert n - 16 <= j < n and t["result"]["chunkCount"] == 2, t["tcId"]
            tails.add((n % 8, j >= 8 * (n // 8)))
    assert lanes == set(range(24))
    assert {m for m, _ in tails} == set(range(8)) and {m for m, in_last_block in tails if in_last_block} >= \
        set(range(2, 8))


# ---------------------------------------------------------------- the vectors against the spec's own numbers

def _find(doc, params, cred, input_spec, normal_size=0):
    for g, t in _pairs(doc):
        if (tuple(g["params"]) == tuple(params) and g["normalSize"] == normal_size
                and t.get("key", t.get("seed")) == cred and t["input"] == stored(input_spec)):
            return t["result"]
    raise AssertionError(f"no vector for {params} {cred} {input_spec.get('generator')}")


def _spec_input(name):
    return vcases.SPEC_INPUTS[name]


def _cred(algo, text):
    return spec.num(text) if algo == "buzhash" else spec.KEYS[text].hex()


@pytest.mark.parametrize("algo,table", [("fastcdc", spec.SPEC_05_FASTCDC), ("buzhash64", spec.SPEC_05_BUZHASH64),
                                        ("buzhash", spec.SPEC_05_BUZHASH)])
def test_vectors_agree_with_spec_05_5(algo, table):
    doc = vectors.load(algo)
    for cred, params, inp, first, count, _last3, digest in spec.md_rows(table):
        r = _find(doc, (algo,) + spec.tup(params), _cred(algo, cred), _spec_input(inp))
        assert r["chunkCount"] == spec.num(count), (cred, params, inp)
        if digest == "\u2014":
            assert list(itertools.accumulate(r["sizes"])) == spec.ints(first)
        else:
            got = r.get("sizesSha256") or sizes_sha256(r["sizes"])
            assert got[:16] == digest, (cred, params, inp)


def test_vectors_agree_with_spec_05_5_4():
    names = {"fastcdc": "fastcdc", "bh64": "buzhash64", "buzhash": "buzhash"}
    for chunker, cred, params, _inp, cuts, count, _last3 in spec.md_rows(spec.SPEC_05_12MIB):
        inner = params.strip("()")
        ns = int(inner.split("normal_size=")[1]) if "normal_size" in inner else 0
        p = tuple(int(x) for x in inner.split(",normal_size")[0].split(","))
        algo = names[chunker]
        c = spec.num(cred[5:]) if cred.startswith("seed=") else spec.KEYS[cred].hex()
        r = _find(vectors.load(algo), (algo,) + p, c, vcases.sc(12 << 20), ns)
        assert list(itertools.accumulate(r["sizes"])) == spec.ints(cuts)
        assert r["chunkCount"] == spec.num(count)


def test_vectors_agree_with_spec_05_6():
    for row in spec.md_rows(spec.SPEC_05_SMALL):
        n = spec.num(row[0])
        for algo, params, sizes in (("fastcdc", (6, 12, 8, 0), row[1]), ("buzhash64", (6, 12, 8, 64, 0), row[2])):
            r = _find(vectors.load(algo), (algo,) + params, bytes(32).hex(), vcases.sc(n))
            assert r["sizes"] == spec.ints(sizes), (algo, n)
    for n, block, header, sizes in spec.md_rows(spec.SPEC_05_FIXED):
        data = bytes([7]) * spec.num(n)
        hits = [t["result"] for g, t in _pairs(vectors.load("fixed"))
                if g["params"] == ["fixed", spec.num(block), spec.num(header)] and materialize(t["input"]) == data]
        assert hits and hits[0]["sizes"] == spec.ints(sizes)


def _ends(result):
    return list(itertools.accumulate(result["sizes"])) if "sizes" in result else None


def test_vectors_agree_with_spec_10():
    """The AES chunkers' vectors against spec 10 §6-7 (where a vector lists its sizes: the cut lists too)."""
    kz = spec.KEYS["KZ"].hex()
    for params, name, key, first, count, _ends_digest in spec.spec10_chunk_rows():
        r = _find(vectors.load(name), (name,) + params, spec.KEYS[key].hex(), vcases.AES_SC)
        assert r["chunkCount"] == int(count), (name, params)
        if _ends(r):
            assert _ends(r)[:12] == spec.ints(first)
    for name, source, params, _c, count, first4, last2 in spec.md_rows(spec.SPEC_10_CONST):
        inp = generated("constant", 300000, byte=int(source.split("0x")[1], 16))
        r = _find(vectors.load(name), (name,) + spec.tup(params), kz, inp)
        assert r["chunkCount"] == int(count)
        if _ends(r):
            assert (_ends(r)[:4], _ends(r)[-2:]) == (spec.ints(first4), spec.ints(last2))
    for name, params, count, first, last2 in spec.md_rows(spec.SPEC_10_LCG):
        r = _find(vectors.load(name), (name,) + spec.tup(params), kz, generated("lcg", 100000))
        assert r["chunkCount"] == int(count)
        if _ends(r):
            assert _ends(r)[:len(spec.ints(first))] == spec.ints(first) and _ends(r)[-2:] == spec.ints(last2)
    for row in spec.md_rows(spec.SPEC_10_TINY):
        for name, cell in zip(("toeplitz-aes", "rabin-aes", "goldilocks-aes"), row[1:]):
            r = _find(vectors.load(name), (name, 10, 16, 1, 0), kz, generated("sha_ctr", int(row[0]), label=""))
            assert _ends(r) == [int(x) for x in cell.strip("[]").split(",") if x.strip()], (name, row[0])


# ---------------------------------------------------------------- regeneration and check

def _few_cases(name):
    """A small stand-in case list (a spec example and a planted-kind input) for regeneration tests."""
    key = vcases.KEYS["KS"]
    return [vcases.Case(("fastcdc", 6, 12, 8, 2), vcases.sc(20000), ("SpecExample",), "a", key=key),
            vcases.Case(("fastcdc", 6, 10, 8, 0), vcases.sc(300), (), "b", key=key)]


@pytest.fixture
def tiny_fastcdc(monkeypatch, tmp_path):
    """Regeneration of a two-case 'fastcdc' document written under tmp_path."""
    monkeypatch.setitem(vcases.CHUNKERS, "fastcdc",
                        vcases.Entry("fastcdc", "spec 02", lambda: _few_cases("fastcdc")))
    monkeypatch.setattr(generate, "path_of", lambda name: str(tmp_path / f"{name}.json"))
    monkeypatch.setattr(generate, "load_text", lambda name: (tmp_path / f"{name}.json").read_text())
    return tmp_path / "fastcdc.json"


class Broken(impls.Ours):
    """Our chunkers with the first cut of every run moved one byte later (a deliberately broken kernel)."""

    def chunks(self, params, source, **kw):
        got = list(super().chunks(params, source, **kw))
        if len(got) >= 2:
            data = bytes(source)
            a = got[0][0] + 1
            rest = got[1][0] - 1
            got[:2] = [(a, data[:a])] + ([(rest, data[a:a + rest])] if rest else [])
        return iter(got)


def test_regenerate_refuses_a_broken_kernel(tiny_fastcdc, monkeypatch):
    path = tiny_fastcdc
    real = generate.implementations
    monkeypatch.setattr(generate, "implementations",
                        lambda family, model=True: [("ours/broken", Broken(), None)] + real(family, model))
    out = []
    assert generate.regenerate(["fastcdc"], out=out.append) == 1
    assert not path.exists(), "nothing may be written"
    text = "\n".join(out)
    assert "refusing to write" in text and "ours/broken differs from model" in text
    assert "chunk 0: cut at offset" in text


def test_regenerate_writes_valid_byte_stable_files(tiny_fastcdc):
    assert generate.regenerate(["fastcdc"], out=lambda s: None) == 0
    first = tiny_fastcdc.read_bytes()
    vectors.validate(json.loads(first))
    assert generate.regenerate(["fastcdc"], out=lambda s: None) == 0
    assert tiny_fastcdc.read_bytes() == first
    assert generate.check(["fastcdc"], out=lambda s: None) == 0


def test_check_reports_drift_readably(tiny_fastcdc):
    generate.regenerate(["fastcdc"], out=lambda s: None)
    doc = json.loads(tiny_fastcdc.read_text())
    sizes = doc["testGroups"][1]["tests"][0]["result"]["sizes"]
    sizes[0], sizes[1] = sizes[0] + 1, sizes[1] - 1          # still schema-valid
    tiny_fastcdc.write_text(vectors.dumps(doc))
    out = []
    assert generate.check(["fastcdc"], out=out.append) == 1
    text = "\n".join(out)
    assert "drift: stored" in text and "computed" in text and "tcId 2" in text
    assert "sizes (stored vs computed): chunk 0: cut at offset" in text
    tiny_fastcdc.write_text(tiny_fastcdc.read_text().replace('"tcId": 2', '"tcId": 7'))
    out.clear()
    assert generate.check(["fastcdc"], out=out.append) == 1
    assert "tcIds must run" in "\n".join(out)


def test_check_reads_data_not_layout(tiny_fastcdc):
    """A stored file laid out anew (same data) is no drift, and the check says how it is stored;
    the regenerated layout is what test_byte_stable_format keeps for this repository's files."""
    generate.regenerate(["fastcdc"], out=lambda s: None)
    tiny_fastcdc.write_text(json.dumps(json.loads(tiny_fastcdc.read_text())))
    out = []
    assert generate.check(["fastcdc"], out=out.append) == 0
    assert out == ["fastcdc: 2 tests, no drift (every kernel that runs here) "
                   "(stored with another JSON layout than regenerate writes)"]


def test_check_tells_json_types_apart(tiny_fastcdc, monkeypatch):
    """1.0 where regeneration writes 1 is drift, though Python's == calls them equal (validation is
    stubbed here: this is the comparison's own check, the schema's is test_corrupted_vector_fails_validation)."""
    generate.regenerate(["fastcdc"], out=lambda s: None)
    doc = json.loads(tiny_fastcdc.read_text())
    doc["testGroups"][0]["tests"][0]["result"]["chunkCount"] *= 1.0
    tiny_fastcdc.write_text(vectors.dumps(doc))
    monkeypatch.setattr(generate, "validate", lambda d: None)
    out = []
    assert generate.check(["fastcdc"], out=out.append) == 1
    assert out[0].startswith("fastcdc: drift: stored")


def test_check_reports_json_nested_too_deep(tiny_fastcdc):
    """A stored file nested deeper than Python's JSON reader recurses is one line and status 1,
    not a RecursionError traceback."""
    tiny_fastcdc.write_text("[" * 100000 + "]" * 100000)
    out = []
    assert generate.check(["fastcdc"], out=out.append) == 1
    assert out == [f"fastcdc: {tiny_fastcdc}: JSON nested too deep to read"]


def test_check_names_a_file_that_is_not_json(tiny_fastcdc):
    tiny_fastcdc.write_text("{")
    out = []
    assert generate.check(["fastcdc"], out=out.append) == 1
    assert out == [f"fastcdc: {tiny_fastcdc}: not a JSON document: Expecting property name enclosed in double "
                   "quotes: line 1 column 2 (char 1)"]


def test_load_names_a_file_that_is_not_json(monkeypatch, tmp_path):
    """The main job reads the vectors with vectors.load: a broken file is a ValueError naming it
    (the job's cell then says which file), not a bare JSONDecodeError."""
    bad = tmp_path / "fixed.json"
    bad.write_bytes(b"{\xff")
    monkeypatch.setattr(vectors, "path_of", lambda name: str(tmp_path / f"{name}.json"))
    monkeypatch.setattr(vectors, "_load", lambda name: vectors.load_text(name))
    with pytest.raises(ValueError, match=f"^{bad}: not a JSON document: 'ascii' codec can't decode"):
        vectors.load("fixed")
    bad.write_text("[" * 100000)
    with pytest.raises(ValueError, match=f"^{bad}: JSON nested too deep to read$"):
        vectors.load("fixed")


def test_check_cli_on_a_fresh_copy(tmp_path):
    """``python -m vectors check`` runs from a copy of the repository files (here: fixed only)."""
    root = os.path.dirname(vectors.DIR)
    for sub in ("vectors", "chunkers"):     # vectors (its model and adapters within) needs no conformance
        shutil.copytree(os.path.join(root, sub), tmp_path / sub, ignore=shutil.ignore_patterns("__pycache__", "*.c"))
    r = subprocess.run([sys.executable, "-m", "vectors", "check", "--chunker", "fixed"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no drift" in r.stdout
    doc = json.loads((tmp_path / "vectors" / "fixed.json").read_text())
    doc["testGroups"][0]["tests"][0]["result"]["chunkCount"] += 1
    (tmp_path / "vectors" / "fixed.json").write_text(vectors.dumps(doc))
    r = subprocess.run([sys.executable, "-m", "vectors", "check", "--chunker", "fixed"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "fixed" in r.stdout


def test_the_schema_names_the_family_table():
    """vectors/schema.json, the vectors' published format, names every chunker of the family table
    (chunkers.families) and no other, and asks a key of the keyed ones, a seed of the seeded one
    and neither of the rest, as the table says."""
    from chunkers.families import CHUNKERS
    s = vectors.schema()
    assert s["properties"]["algorithm"]["enum"] == list(CHUNKERS)
    asked = {}
    for rule in s["allOf"]:
        cond = rule["if"]["properties"]["algorithm"]
        tests = rule["then"]["properties"]["testGroups"]["items"]["properties"]["tests"]["items"]
        kind = tests.get("required", [None])[0]
        for name in cond.get("enum", [cond.get("const")]):
            asked[name] = kind
    assert asked == {c.name: c.credential for c in CHUNKERS.values()}
