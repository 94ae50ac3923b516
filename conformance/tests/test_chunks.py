"""Chunk-level identity through the whole driver (spec 01 §5, 03 §6): every
kernel against the pure-Python model on the catalogue, nc_level 0..3, edge
parameters, cuts planted at the size boundaries, and split invariance."""

import functools
import io
import os
import random

import pytest

from conformance.cases import catalogue
from conformance.run import engine
from conformance.run.engine import bounds_violations, chunk_mismatch, chunk_sizes, model_sizes
from conformance.cases.families import FAMILIES

SEED = 7
MODEL_INPUT = 1 << 16       # bytes per catalogue input compared with the model


@functools.lru_cache(maxsize=None)
def corpus():
    return catalogue.corpus(SEED, MODEL_INPUT)


@functools.lru_cache(maxsize=None)
def expected(params, name, key="Z", normal_size=0):
    data = {i.name: i.data for i in corpus()}[name]
    return model_sizes(params, data, key, normal_size)


def _params_of(family):
    # the fast parameter sets; 19,23,21 needs megabytes per chunk and runs in the slow tier
    return [p for p in FAMILIES[family].chunk_params if ",19,23," not in p]


def test_corpus_identity(family_kernel):
    family, kernel = family_kernel
    for params in _params_of(family):
        for item in corpus():
            for key in ("Z", "KS"):
                m = chunk_mismatch(params, item.data, expected(params, item.name, key), key=key, kernel=kernel,
                                   source=item.name)
                assert m is None, str(m)


# Edge parameter sets (constructor level, spec 01 §4.1): min + 1 == max, and
# for buzhash64 window + min + 1 == max; explicit normal sizes around min/max.
EDGE = {
    "fastcdc": [(("fastcdc", 0, 1, 1, 0), 0), (("fastcdc", 6, 7, 3, 0), 0), (("fastcdc", 6, 10, 5, 2), 65),
                (("fastcdc", 6, 10, 5, 2), 64), (("fastcdc", 6, 10, 5, 2), 1024), (("fastcdc", 6, 10, 5, 3), 5000)],
    "buzhash64": [(("buzhash64", 6, 7, 4, 63, 0), 0), (("buzhash64", 0, 2, 1, 2, 0), 0),
                  (("buzhash64", 6, 10, 5, 64, 2), 64), (("buzhash64", 6, 10, 5, 64, 2), 900),
                  (("buzhash64", 6, 10, 5, 1, 3), 5000)],
    "buzhash": [(("buzhash", 6, 7, 4, 63), 0), (("buzhash", 0, 2, 1, 2), 0), (("buzhash", 6, 10, 33, 32), 0),
                (("buzhash", 6, 10, 48, 1), 0)],
    "fixed": [(("fixed", 1, 0), 0), (("fixed", 64, 65), 0), (("fixed", 130, -1), 0), (("fixed", 5000, 5001), 0)],
    "aes": [(("toeplitz-aes", 6, 7, 3, 0), 0), (("rabin-aes", 6, 10, 5, 2), 65), (("goldilocks-aes", 6, 10, 5, 2), 64),
            (("toeplitz-aes", 6, 10, 5, 2), 1024), (("rabin-aes", 6, 10, 5, 3), 5000)],
}


def test_edge_params(family_kernel):
    family, kernel = family_kernel
    rng = random.Random(SEED)
    for params, normal_size in EDGE.get(family, []):
        for n in (0, 1, 2, 63, 64, 65, 127, 128, 129, 130, 1000, 5000):
            data = rng.randbytes(n)
            want = model_sizes(params, data, "KS", normal_size)
            m = chunk_mismatch(params, data, want, key="KS", kernel=kernel, source=f"random({n})",
                               normal_size=normal_size)
            assert m is None, str(m)


def _search(params, accept, size, normal_size=0, tries=100000, seed=SEED):
    """Inputs whose first chunk length (by the independent model) ``accept`` takes, with the
    model's size lists. Searching with the model, not the code under test, keeps a driver
    fault from steering the search away from the inputs that would expose it."""
    rng = random.Random(seed)
    found = []
    for i in range(tries):
        key, data = f"R{i % 16}", rng.randbytes(size)
        want = model_sizes(params, data, key, normal_size)
        if accept(want[0], found):
            found.append((key, data, want))
            if len(found) == accept.wanted:
                return found
    pytest.fail(f"{params}: found only {len(found)} of {accept.wanted} inputs")


class FirstChunk:
    """Accept one input per first-chunk length in ``targets``."""

    def __init__(self, targets):
        self.targets, self.wanted = set(targets), len(targets)

    def __call__(self, first, found):
        return first in self.targets and first not in {f[2][0] for f in found}


PLANTED = {
    # params, first-chunk sizes: the shortest hash cut (min + 1 / min), past the normal size, max - 1,
    # the longest hash cut of buzhash64 (max - w - 1) and max (hit or forced). Keys vary: the shortest
    # fastcdc cut needs a Gear entry that passes the strict mask on its own.
    "fastcdc": (("fastcdc", 6, 9, 8, 1), (65, 66, 129, 511, 512)),
    "buzhash64": (("buzhash64", 6, 9, 8, 16, 1), (64, 65, 129, 495, 512)),
    "buzhash": (("buzhash", 6, 9, 7, 16), (64, 65, 129, 495, 512)),
    "aes": (("toeplitz-aes", 6, 9, 8, 1), (65, 66, 129, 511, 512)),
}
NO_NC = ("buzhash", "fixed")
"""Families without normalized chunking."""


@functools.lru_cache(maxsize=None)
def planted(family):
    params, targets = PLANTED[family]
    return params, _search(params, FirstChunk(targets), 700)


def test_cuts_planted_at_boundaries(family_kernel):
    family, kernel = family_kernel
    if family not in PLANTED:
        pytest.skip(f"{family} cuts do not depend on content")
    params, found = planted(family)
    for key, data, want in found:
        m = chunk_mismatch(params, data, want, key=key, kernel=kernel, source=f"planted cut at {want[0]}")
        assert m is None, str(m)


NORMAL = 200


@functools.lru_cache(maxsize=None)
def normal_boundary(family, nc):
    name = FAMILIES[family].chunkers[0]
    params = (name, 6, 11, 5, 16, nc) if name == "buzhash64" else (name, 6, 11, 5, nc)
    return params, _search(params, FirstChunk((NORMAL - 1, NORMAL, NORMAL + 1)), 400, NORMAL, seed=nc)


@pytest.mark.parametrize("nc", [1, 2, 3])
def test_cut_at_normal_size_boundary(family_kernel, nc):
    """The strict/loose switch: chunks ending at normal_size - 1, normal_size, normal_size + 1
    are decided with the mask the spec prescribes (01 §5.4, 03 §6.2)."""
    family, kernel = family_kernel
    if family in NO_NC:
        pytest.skip(f"{family} has no normalized chunking")
    params, found = normal_boundary(family, nc)
    for key, data, want in found:
        m = chunk_mismatch(params, data, want, key=key, kernel=kernel, source="normal-size boundary",
                           normal_size=NORMAL)
        assert m is None, str(m)


class ChunkedReader(io.RawIOBase):
    """A binary file whose reads return at most the next size of ``schedule`` (cycled; 0 not included)."""

    def __init__(self, data, schedule):
        self.data, self.pos, self.schedule, self.i = data, 0, schedule, 0

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), self.schedule[self.i % len(self.schedule)], len(self.data) - self.pos)
        self.i += 1
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


@pytest.mark.parametrize("reads", [[1], [7], [4095], [4096], [4097], "random"])
def test_split_invariance(family_kernel, reads):
    family, kernel = family_kernel
    rng = random.Random(SEED)
    data = catalogue.pattern(rng, "zero-islands", 40000 if reads == [1] else 300000)
    schedule = [rng.randrange(1, 9000) for _ in range(100)] if reads == "random" else reads
    for params in _params_of(family)[:3] + [FAMILIES[family].chunk_params[-1]]:
        whole = chunk_sizes(params, data, kernel=kernel)
        streamed = chunk_sizes(params, ChunkedReader(data, schedule), kernel=kernel)
        assert streamed == whole, params


@pytest.mark.ours_only
def test_sources_agree(family_kernel, tmp_path):
    """bytes, bytearray, memoryview, BufferedReader, raw fd and a read()-only object give the same chunks."""
    family, kernel = family_kernel
    data = random.Random(3).randbytes(200000)
    params = _params_of(family)[0]
    want = chunk_sizes(params, data, kernel=kernel)
    path = tmp_path / "input.bin"
    path.write_bytes(data)

    class ReadOnly:
        def __init__(self, f):
            self.read = f.read

    with open(path, "rb") as f:
        assert chunk_sizes(params, f, kernel=kernel) == want
    with open(path, "rb") as f:
        assert chunk_sizes(params, ReadOnly(f), kernel=kernel) == want
    fd = os.open(path, os.O_RDONLY)
    try:
        assert chunk_sizes(params, fd, kernel=kernel) == want
    finally:
        os.close(fd)
    assert chunk_sizes(params, bytearray(data), kernel=kernel) == want
    assert chunk_sizes(params, memoryview(data), kernel=kernel) == want


def test_reassembly_and_bounds(family_kernel):
    """Chunks concatenate to the input and keep the size bounds, streamed or in memory."""
    family, kernel = family_kernel
    rng = random.Random(5)
    data = catalogue.pattern(rng, "zero-islands", 500000)
    for params in _params_of(family):
        for source in (data, io.BytesIO(data)):
            chunks = [(size, None if piece is None else bytes(piece))
                      for size, piece in engine.chunks(params, source, "KS", kernel)]
            assert b"".join(bytes(size) if piece is None else piece for size, piece in chunks) == data
            assert not bounds_violations(params, [size for size, _ in chunks], len(data))
            for size, piece in chunks:
                assert piece is None or (len(piece) == size and piece != bytes(size))


@pytest.mark.slow
def test_default_params_12mib(family_kernel):
    """The default-sized parameters on 12 MiB: the 8 MiB buffer, forced cuts and EOF, against the model."""
    family, kernel = family_kernel
    from vectors.generators import sha_ctr
    data = sha_ctr(12 << 20)
    params = FAMILIES[family].chunk_params[-1]
    m = chunk_mismatch(params, data, model_sizes(params, data), kernel=kernel, source="SHA-CTR(12 MiB)")
    assert m is None, str(m)
