"""The impl_chunks target (fuzz/impl_chunks.py) and ``--impl`` in ``python -m fuzz`` and pytest:
its decoder draws only valid cases, its checks catch wrong implementations, the stand-in borg's
planted faults replay (fuzz/regressions/impl_chunks/planted-FAULT-*.json), and a wrong --impl is
one line and exit status 2. No libFuzzer needed (the campaigns are ci/borg-fuzz.sh and
``python -m fuzz planted``)."""

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from chunkers.api import make_chunker
from vectors import impls
from conformance.tests import probes
from fuzz import impl_chunks as target
from fuzz.harness import Finding, kernel_inventory
from fuzz.input import Input

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "conformance" / "tests" / "stub_borg"
PLANTED = sorted((ROOT / "fuzz" / "regressions" / "impl_chunks").glob("planted-*.json"))


@pytest.fixture(autouse=True)
def _ours():
    """Each test starts with the target's own implementation reset."""
    yield
    target._IMPL.clear()
    target._kernels.cache_clear()


@pytest.fixture
def stub_borg(monkeypatch):
    """borg.chunkers importable from the stand-in (conformance/tests/stub_borg), for this test only."""
    for mod in [m for m in sys.modules if m == "borg" or m.startswith("borg.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.syspath_prepend(str(STUB))
    monkeypatch.delenv("BORG_STUB_FAULT", raising=False)
    yield impls.Borg()
    for mod in [m for m in sys.modules if m == "borg" or m.startswith("borg.")]:
        del sys.modules[mod]


def test_decoded_cases_are_valid():
    """Any fuzzer input decodes to arguments every chunker accepts (parameter checking is not this
    target's business: chunker_stream and params_parse have it)."""
    rng = random.Random(25)
    algos = set()
    for _ in range(400):
        case = target.decode(Input(rng.randbytes(rng.randrange(0, 120))))
        params, kind = case["params"], case["kind"]
        algos.add(params[0])
        make_chunker(params, key=case["key"] if kind.credential == "key" else None,
                     seed=case["seed"] if kind.credential == "seed" else None, normal_size=case["normal_size"])
        assert case["key"] is None or len(case["key"]) == 32
    assert algos == set(target.ALGOS)


def test_seeds_cover_every_chunker_key_kind_and_read_schedule():
    cases = [target.decode(Input(s, record=True)) for s in target.seeds()]
    assert {c["params"][0] for c in cases} == set(target.ALGOS)
    keyed = [c for c in cases if c["kind"].credential == "key"]
    assert any(c["key"] in target.KEYS for c in keyed) and any(c["key"] not in target.KEYS for c in keyed)
    assert any(c["schedule"] and c["cycle"] for c in cases) and any(c["normal_size"] for c in cases)
    assert any(len(c["data"]) <= target.MODEL_MAX for c in cases)        # the model comparison runs


def test_reader_makes_short_reads_and_only_eof_is_zero():
    r = target.Reader(bytes(range(100)), [1, 7], cycle=True)
    assert [len(r.read(50)) for _ in range(4)] == [1, 7, 1, 7]
    r = target.Reader(bytes(range(20)), [3], cycle=False)
    got = [r.read(8) for _ in range(5)]
    assert [len(g) for g in got] == [3, 8, 8, 1, 0] and b"".join(got) == bytes(range(20))


@pytest.mark.parametrize("probe,needle", [(probes.OneCutMoved, "kernel=blockwise"),
                                          (probes.Raising, "raised RuntimeError")])
def test_a_wrong_implementation_is_a_finding(probe, needle):
    found = []
    for data in target.seeds():
        try:
            target.run(data, probe())
        except Finding as e:
            found.append(str(e))
    assert found and all(needle in f for f in found), found[:3]


def test_unscheduled_cases_read_through_bytesio_scheduled_ones_through_reader():
    """A case without a read schedule reaches the implementation as io.BytesIO (full reads, in C),
    one with a schedule through Reader; run() compares every kernel's chunks of either with the
    reference's of the whole input (a finding otherwise)."""
    sources = []

    class Recording(impls.Ours):
        def chunks(self, params, source, **kw):
            sources.append(type(source))
            return super().chunks(params, source, **kw)

    for seed in target.seeds():
        target.run(seed, Recording())
    assert {target.Reader, io.BytesIO} <= set(sources)


def test_inventory_names_the_kernels_that_run_and_why_others_do_not():
    inv = target.inventory(impls.Ours())
    lines = target.inventory_lines(inv)
    assert lines[0].startswith("impl ours: vectors.impls.ours.Ours")
    runs, not_run = kernel_inventory("fastcdc")
    fastcdc = next(line for line in lines if line.startswith("fastcdc: runs "))
    assert all(k in fastcdc for k in runs) and all(f"NOT run: {k} ({why})" in fastcdc for k, why in not_run)


def test_the_stand_in_borg_passes_the_seeds(stub_borg):
    for data in target.seeds():
        target.run(data, stub_borg)
    assert "stand-in" in target.inventory(stub_borg)["where"]


def test_instrumented_modules_of_the_stand_in(stub_borg):
    stub_borg.kernels("fastcdc")            # imports borg.chunkers
    assert target.instrumented_modules(stub_borg) == ["borg.chunkers"]      # not our adapter: the stand-in


@pytest.mark.parametrize("path", PLANTED, ids=[p.name for p in PLANTED])
def test_a_planted_finding_replays_under_its_fault_only(stub_borg, monkeypatch, path):
    """The minimized inputs with which `python -m fuzz planted` found the stand-in's faults: each
    fails under its fault (where this host can show it) and passes without."""
    from fuzz import campaign, planted
    data = campaign.regression_input("impl_chunks", path)
    target.run(data, stub_borg)
    fault = path.name.split("-")[1]
    if planted.unreachable(fault):
        pytest.skip(planted.unreachable(fault))
    monkeypatch.setenv("BORG_STUB_FAULT", fault)
    with pytest.raises(Finding):
        target.run(data, stub_borg)


def _fuzz(*args, env=None, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "fuzz", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=300)


@pytest.mark.parametrize("args,env,needle", [
    (["run", "impl_chunks", "--impl", "nosuch"], {}, "--impl nosuch: unknown implementation"),
    (["run", "scan_diff_fastcdc", "--impl", "borg"], {}, "checks this project's code only"),
    (["run", "impl_chunks", "--impl", "borg"], {"BORG_FUZZ_VENV": "/nonexistent/venv"}, "no instrumented borg"),
    (["replay", "impl_chunks", "--impl", "no_such_module:Adapter"], {}, "--impl no_such_module:Adapter"),
])
def test_a_wrong_impl_is_one_line_and_exit_2(args, env, needle):
    r = _fuzz(*args, "--time", "1", env=env) if args[0] == "run" else _fuzz(*args, env=env)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], (r.returncode, r.stderr)


def test_a_module_attribute_impl_that_cannot_load_is_one_line_and_exit_2():
    """module:attribute is loaded where the campaign runs (the probe of campaign.impl_inventory)."""
    pytest.importorskip("atheris")
    r = _fuzz("run", "impl_chunks", "--impl", "no_such_module:Adapter", "--time", "1")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "no_such_module" in lines[0], r.stderr


def test_replay_runs_against_the_impl_named():
    assert _fuzz("replay", "impl_chunks").returncode == 0
    r = _fuzz("replay", "impl_chunks", "--impl", "conformance.tests.probes:OneCutMoved")
    assert r.returncode == 1 and "against --impl conformance.tests.probes:OneCutMoved" in r.stdout, r.stdout


@pytest.mark.parametrize("impl_name,env,outcome", [       # not ``impl``: that name is the fixture of the
    ("conformance.tests.probes:OneCutMoved", {}, "failed"),  # tests that run under --impl X
    ("borg", {"PYTHONPATH": str(STUB)}, "passed"),
])
def test_pytest_impl_reaches_fuzz_tests(impl_name, env, outcome):
    """pytest's --impl (the plugin of pyproject's addopts) reaches fuzz/tests: the impl_chunks
    replays run against the implementation, everything else in fuzz/ is skipped."""
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "fuzz/tests/test_replay.py",
                        "--impl", impl_name, "-o", "addopts=-p conformance.plugin"], cwd=ROOT,
                       capture_output=True, text=True, env={**os.environ, "BORG_STUB_FAULT": "", **env}, timeout=300)
    tail = r.stdout.strip().splitlines()[-1]
    assert f" {outcome}" in tail and "skipped" in tail, r.stdout[-3000:]
    assert (r.returncode == 0) == (outcome == "passed"), r.stdout[-3000:]


def test_configuration_is_where_the_data_starts_and_the_chunker():
    """The custom mutator's split: every byte before it is a configuration field, the rest the data."""
    head = target.script(target.decode, chunker="rabin-aes", fixed_key=False, key_len=32, key=bytes(range(32)),
                         reads=2, read_size=[5, 9])
    for data in (b"", b"\x01", random.Random(32).randbytes(300)):
        assert target.configuration(head + data) == (len(head), "rabin-aes")
    assert target.configuration(head[:5])[0] > 5                # an input that ends inside the configuration
    assert target.configuration(target.script(target.decode, chunker="buzhash64"))[1] == "buzhash64"


class _Atheris:
    """A stand-in for atheris.Mutate: marks every byte it was handed (so a test sees what was mutated)."""
    @staticmethod
    def Mutate(data, max_size):
        return bytes(b ^ 0xff for b in data)[:max_size]


def test_mutate_keeps_the_configuration_unless_steered_to_change_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "atheris", _Atheris)
    raw = target.script(target.decode, chunker="buzhash64", data=bytes(64))
    split, _ = target.configuration(raw)
    steering = target.Steering(impls.Ours())
    monkeypatch.setattr(target, "_STEERING", [steering])
    monkeypatch.setattr(target, "STREAM_MUTATION_RATE", 0.0)
    steering._rates["buzhash64"] = 0.0                           # data only: the configuration byte for byte
    steering._rates["fastcdc"] = 1.0                             # (another chunker's rate is not this case's)
    out = target.mutate(raw, 4096, seed=7)
    assert out[:split] == raw[:split] and out[split:] == bytes([0xff]) * 64
    assert target.mutate(raw[:split], 4096, seed=7) == raw[:split] + b"\xff"   # no data: data from one byte
    short = raw[:split - 3]                                      # ends inside its configuration
    out = target.mutate(short, 4096, seed=7)
    assert out == short + bytes(3) + b"\xff"                     # written out: the same configuration
    assert {k: v for k, v in target.decode(Input(out)).items() if k != "data"} == \
        {k: v for k, v in target.decode(Input(short)).items() if k != "data"}
    assert target.mutate(raw, split, seed=7) == _Atheris.Mutate(raw, split)     # no room for data: whole
    steering._rates["buzhash64"] = 1.0                           # libFuzzer's whole-input mutation
    assert target.mutate(raw, 4096, seed=7) == _Atheris.Mutate(raw, 4096)


def _chunker_fields(raw: bytes) -> list:
    inp = Input(raw, record=True)
    target.decode(inp)
    return [(n, v) for n, v in inp.fields if n not in target.STREAM_FIELDS]


def test_with_chunkers_of_takes_the_stream_of_one_case_and_the_chunker_of_the_other():
    keyed = target.script(target.decode, chunker="rabin-aes", fixed_key=False, key_len=32, key=bytes(range(32)),
                          reads=2, read_size=[5, 9], repeat=3, data=b"abc")
    other = target.script(target.decode, chunker="fastcdc", fixed_key=True, key_index=target.KEYS[1],
                          gen_len=700, gen_seed=9, reads=3, read_size=[1, 2, 4], cycle_reads=True, data=b"xyz" * 50)
    mixed = target.with_chunkers_of(keyed, other)
    case = target.decode(Input(mixed))
    assert _chunker_fields(mixed) == _chunker_fields(keyed)
    assert case["params"][0] == "rabin-aes" and case["key"] == bytes(range(32))
    assert case["schedule"] == [1, 2, 4] and case["cycle"] and case["data"] == target._generated(9, 700) + b"xyz" * 50
    assert target.with_chunkers_of(keyed, keyed) == keyed


def test_mutate_may_change_the_stream_but_not_the_chunker(monkeypatch):
    monkeypatch.setitem(sys.modules, "atheris", _Atheris)            # every byte flipped: every field changes
    raw = target.script(target.decode, chunker="rabin-aes", fixed_key=False, key_len=32, key=bytes(range(32)),
                        reads=2, read_size=[5, 9], data=bytes(64))
    steering = target.Steering(impls.Ours())
    steering._rates["rabin-aes"] = 0.0
    monkeypatch.setattr(target, "_STEERING", [steering])
    monkeypatch.setattr(target, "STREAM_MUTATION_RATE", 1.0)
    out = target.mutate(raw, 4096, seed=7)
    assert _chunker_fields(out) == _chunker_fields(raw)
    assert target.decode(Input(out))["schedule"] != [5, 9]
    assert len(target.mutate(raw, 100, seed=7)) <= 100


class _Constructing(impls.Ours):
    """An adapter whose constructions take a chosen share of each window's time."""
    construction_seconds = 0.0


def _windows(steering, impl, chunker, share, windows=1, length=target.Steering.WINDOW):
    """``windows`` runs of ``length`` executions of ``chunker``, each of 1 ms, with ``share`` of the
    run's time spent constructing, in its last execution."""
    for _ in range(windows):
        for i in range(length):
            impl.construction_seconds += share * 0.001 * length if i == length - 1 else 0.0
            steering.ran(chunker, 0.001)


@pytest.mark.parametrize("share, rate", [(0.0, 1.0), (0.05, 1.0), (0.1, 1.0), (0.2, 0.5), (0.3, 1 / 3),
                                         (0.4, 0.25), (0.8, 0.25)])
def test_steering_moves_a_rate_toward_the_share_by_at_most_a_step(share, rate):
    impl = _Constructing()
    steering = target.Steering(impl)
    _windows(steering, impl, "rabin-aes", share)
    assert steering.rate("rabin-aes") == pytest.approx(rate)     # from 1: 1 * 0.1 / share, in [1/4, 1]
    _windows(steering, impl, "rabin-aes", 0.0, length=target.Steering.MAX_WINDOW)   # none constructed: up by STEP
    assert steering.rate("rabin-aes") == pytest.approx(min(1.0, rate * target.Steering.STEP))


def test_steering_holds_each_chunker_to_its_share():
    """An expensive chunker's rate falls to MIN_RATE and recovers by at most STEP a window; a cheap
    one's, interleaved with it (of the same family), stays 1: its executions are not charged the
    other's constructions."""
    impl = _Constructing()
    steering = target.Steering(impl)
    for _ in range(8):
        _windows(steering, impl, "rabin-aes", 50.0)
        _windows(steering, impl, "goldilocks-aes", 0.0)
    assert steering.rate("rabin-aes") == target.Steering.MIN_RATE and steering.rate("goldilocks-aes") == 1.0
    _windows(steering, impl, "rabin-aes", 0.0, length=target.Steering.MAX_WINDOW)
    assert steering.rate("rabin-aes") == target.Steering.MIN_RATE * target.Steering.STEP
    assert steering.rate("buzhash") == 1.0                       # a chunker not run yet


def test_a_window_without_construction_stays_open():
    """At a low rate most WINDOW executions construct nothing: the window stays open until one does
    (then the share over all of it sets the rate) or until MAX_WINDOW, so the rate does not double
    on every quiet stretch."""
    impl = _Constructing()
    steering = target.Steering(impl)
    steering._rates["rabin-aes"] = 0.01
    quiet = target.Steering.MAX_WINDOW - 5
    _windows(steering, impl, "rabin-aes", 0.0, length=quiet)
    assert steering.rate("rabin-aes") == 0.01                    # still open
    # then one construction: 10 % of the time of all MAX_WINDOW - 1 executions, the rate kept
    _windows(steering, impl, "rabin-aes", 0.1 * (quiet + 4) / 4, length=4)
    assert steering.rate("rabin-aes") == pytest.approx(0.01)
    _windows(steering, impl, "rabin-aes", 0.4)                   # a window of WINDOW with 40 %: a quarter
    assert steering.rate("rabin-aes") == pytest.approx(0.0025)


class _Module:
    """A stand-in implementation module for harvest_constants."""


def test_harvest_constants_takes_bytes_and_ints_of_the_code(monkeypatch):
    src = ("def check(key, n):\n"
           "    def inner(x):\n        return x == b'\\x01\\x02\\x03'\n"
           "    return key[:2] == b'\\x5a\\xa5' or n == 0x1234 or inner(key) or key == b'x' or n == 7\n"
           "class C:\n    def m(self, v):\n        return v == b'\\xee\\xff'\n")
    mod = type(sys)("harvest_probe")
    exec(compile(src, "harvest_probe.py", "exec"), mod.__dict__)
    for obj in (mod.check, mod.C.m):
        obj.__module__ = "harvest_probe"
    monkeypatch.setitem(sys.modules, "harvest_probe", mod)
    found = target.harvest_constants(["harvest_probe"])
    assert set(found) == {b"\x5a\xa5", b"\x01\x02\x03", b"\xee\xff", b"\x34\x12", b"\x12\x34"}   # 1-byte ones left out


def test_mutate_key_writes_a_constant_into_the_key_and_keeps_the_rest():
    raw = target.script(target.decode, chunker="rabin-aes", fixed_key=True, key_index=target.KEYS[1],
                        chunk_min_exp=6, chunk_max_exp=10, hash_mask_bits=7, data=b"\x07" * 100)
    rnd, starts, elsewhere = random.Random(5), 0, 0
    for _ in range(200):
        out = target.mutate_key(raw, [b"\x5a\xa5"], rnd, 4096)
        case = target.decode(Input(out))
        assert case["params"] == ("rabin-aes", 6, 10, 7, 0) and case["data"][-100:] == b"\x07" * 100
        assert len(case["data"]) >= 256 and b"\x5a\xa5" in case["key"] and len(case["key"]) == 32
        starts += case["key"][:2] == b"\x5a\xa5"
        elsewhere += case["key"][:2] != b"\x5a\xa5"
    assert starts > 50 and elsewhere > 50
    assert target.mutate_key(raw, [b"\x5a\xa5"], rnd, 8) is None             # over libFuzzer's length limit
    unkeyed = target.script(target.decode, chunker="buzhash", data=b"abc")
    assert target.mutate_key(unkeyed, [b"\x5a\xa5"], rnd, 4096) is None


def test_mutate_key_of_a_short_input_is_short():
    # libFuzzer starts with inputs of a few bytes: the rewritten case must fit its limit to be taken
    raw = target.script(target.decode, chunker="rabin-aes")[:1]
    for seed in range(50):
        out = target.mutate_key(raw, [b"\x5a\xa5"], random.Random(seed), 64)
        key = target.decode(Input(out))["key"]
        # chunker, gen_len, gen_seed, fixed_key, key_len, then the key up to the word's end
        assert len(out) == 6 + key.index(b"\x5a\xa5") + 2, (seed, out)


def test_mutate_takes_the_key_route_at_its_rate(monkeypatch):
    monkeypatch.setitem(sys.modules, "atheris", _Atheris)
    monkeypatch.setattr(target, "_CONSTANTS", [b"\x5a\xa5"])
    raw = target.script(target.decode, chunker="rabin-aes", data=bytes(64))
    keyed = sum(b"\x5a\xa5" in target.decode(Input(target.mutate(raw, 4096, seed)))["key"] for seed in range(2000))
    assert 0.5 * target.KEY_MUTATION_RATE * 2000 < keyed < 1.5 * target.KEY_MUTATION_RATE * 2000


class _OneBuffer(impls.Ours):
    """Chunks as views into one buffer that the next chunk overwrites (as borg's are: valid until its
    next chunk), optionally with one byte of chunk ``flip`` changed."""

    def __init__(self, flip=None):
        self.flip = flip

    def chunk_views(self, params, source, **kw):
        buf = bytearray(1 << 17)
        for i, (size, piece) in enumerate(self.chunks(params, source, **kw)):
            if piece is None:
                yield size, None
                continue
            buf[:size] = piece
            if i == self.flip:
                buf[size // 2] ^= 1
            yield size, memoryview(buf)[:size]
            buf[:size] = bytes(size)        # gone once the next chunk is asked for


def test_views_valid_until_the_next_chunk_are_compared_as_they_come():
    """run() compares each chunk of Implementation.chunk_views before asking for the next: an
    implementation whose views are overwritten then passes every seed, and one changed byte is a
    finding that names the chunk and says data."""
    for data in target.seeds():
        target.run(data, _OneBuffer())
    found = []
    for data in target.seeds():
        try:
            target.run(data, _OneBuffer(flip=1))
        except Finding as e:
            found.append(str(e))
    assert found and all("chunk 1 at offset" in f and "data differs" in f for f in found), found[:3]


@pytest.mark.parametrize("got,words", [
    ([(3, b"abc"), (2, None)], None),
    ([(3, memoryview(b"abc")), (2, None)], None),
    ([(4, b"abcd")], "chunk 0 at offset 0: size differs (reference 3 bytes, got 4)"),
    ([(3, b"abd"), (2, None)], "chunk 0 at offset 0: data differs"),
    ([(3, b"abc"), (2, b"\0\0")], "chunk 1 at offset 3: data differs"),
    ([(3, b"abc")], "2 chunks in the reference, 1 got (offset 3)"),
    ([(3, b"abc"), (2, None), (1, b"x"), (1, b"y")], "2 chunks in the reference, 4 got (offset 5)"),
])
def test_same_says_where_chunks_first_differ(got, words):
    want = [(3, memoryview(b"abc")), (2, None)]
    said = target._same(want, iter(got))
    assert said == words if words is None else said.startswith(words)


def test_the_model_checks_every_input_for_ours_and_a_crc_sample_for_another(monkeypatch, stub_borg):
    """The model's comparison of our reference runs on every qualifying input with --impl ours, and
    on the inputs whose CRC-32 is 0 mod MODEL_SAMPLE with any other implementation."""
    import zlib
    calls = []
    real = impls.Model.chunk_sizes

    def counted(self, params, data, **kw):
        calls.append(bytes(data))
        return real(self, params, data, **kw)

    monkeypatch.setattr(impls.Model, "chunk_sizes", counted)
    rng = random.Random(7)
    inputs = target.seeds() + [s + rng.randbytes(rng.randrange(1, 40)) for s in target.seeds() for _ in range(3)]
    qualifying = []
    for raw in inputs:
        calls.clear()
        target.run(raw, impls.Ours())
        qualifying.append(bool(calls))
        calls.clear()
        target.run(raw, stub_borg)
        assert bool(calls) == (qualifying[-1] and zlib.crc32(raw) % target.MODEL_SAMPLE == 0)
    sampled = sum(q and zlib.crc32(r) % target.MODEL_SAMPLE == 0 for q, r in zip(qualifying, inputs))
    assert sum(qualifying) > 40 and 0 < sampled < sum(qualifying)
