"""The targets' checks fail when a kernel, a chunker or a reader misbehaves."""

import pytest

from fuzz import chunker_stream, params_parse, scan_diff
from fuzz.harness import Finding, kernel_inventory
from fuzz.input import Input


@pytest.mark.parametrize("family", list(scan_diff.FAMILIES))
def test_scan_diff_reports_a_differing_kernel(monkeypatch, family):
    fam = scan_diff.FAMILIES[family]
    wrong = kernel_inventory(fam.registry_family)[0][-1]     # not the reference when another kernel runs here

    def run(case, kernel):
        pos, state = fam.run(case, kernel)
        return (pos, state ^ (kernel == wrong))  # the exit state off by one bit

    monkeypatch.setitem(scan_diff.FAMILIES, family, fam._replace(run=run))
    test_one_input, _, seeds = scan_diff.target(family)
    with pytest.raises(Finding, match=fam.reference if wrong == fam.reference else repr(wrong)):
        test_one_input(seeds()[0])


@pytest.mark.parametrize("family", ["fastcdc", "toeplitz_aes"])
def test_scan_diff_compares_the_reference_with_the_model(monkeypatch, family):
    fam = scan_diff.FAMILIES[family]
    monkeypatch.setitem(scan_diff.FAMILIES, family, fam._replace(model=lambda m, case: (-2, 0)))
    test_one_input, _, seeds = scan_diff.target(family)
    with pytest.raises(Finding, match="model"):
        test_one_input(seeds()[0])


@pytest.mark.parametrize("family", ["rabin_aes", "goldilocks_aes", "toeplitz_aes"])
def test_aes_seeds_reach_every_position_kind(family):
    """The AES seeds hit at the first position, inside groups, in tails, past an evp batch, and not at all."""
    fam = scan_diff.FAMILIES[family]
    _, decode, seeds = scan_diff.target(family)
    hits = set()
    for raw in seeds():
        case = decode(Input(raw))
        r, _ = fam.run(case, "evp")
        hits.add((r, fam.span(case) - r))
    positions, from_end = {r for r, _ in hits}, {k for r, k in hits if 0 <= r < 40}
    assert {-1, 0, 511, 512, 1023} <= positions and set(range(1, 11)) <= from_end


def test_chunk_checks_catch_bad_chunks():
    from chunkers import FastCDC
    bounds = chunker_stream.size_bounds(chunker_stream.CHUNKERS["fastcdc"], FastCDC(bytes(32), 6, 8, 7, 0))
    good = [(65, False, b"a" * 65, False), (10, True, bytes(10), True)]
    chunker_stream._check_chunks("t", good, b"a" * 65 + bytes(10), bounds)
    with pytest.raises(Finding, match="reassemble"):
        chunker_stream._check_chunks("t", good, b"a" * 75, bounds)
    with pytest.raises(Finding, match="bounds"):
        chunker_stream._check_chunks("t", good[::-1], bytes(10) + b"a" * 65, bounds)
    with pytest.raises(Finding, match="all-zero"):
        chunker_stream._check_chunks("t", [(3, False, bytes(3), False)], bytes(3), bounds)


def test_fixed_chunks_are_whole_blocks_after_the_header():
    from chunkers import Fixed
    bounds = chunker_stream.size_bounds(chunker_stream.CHUNKERS["fixed"], Fixed(4, 2))
    chunks = [(n, False, b"a" * n, False) for n in (2, 4, 4, 1)]
    chunker_stream._check_chunks("t", chunks, b"a" * 11, bounds)
    with pytest.raises(Finding, match="chunk 1 of 3 has size 3"):
        chunker_stream._check_chunks("t", [(n, False, b"a" * n, False) for n in (2, 3, 4)], b"a" * 9, bounds)


def test_reader_follows_its_schedule():
    r = chunker_stream.Reader(b"abcdef", [("short", 2), ("short", 100)], use_read=True)
    assert (r.read(10), r.read(10), r.read(10)) == (b"ab", b"cdef", b"")
    assert r.ended == "eof"
    with pytest.raises(Finding, match="after the stream ended"):
        r.read(10)
    r = chunker_stream.Reader(b"abc", [("over",)], use_read=False)
    assert r.readinto(bytearray(5)) == 6 and r.ended == "over"
    with pytest.raises(chunker_stream.ReaderFault):
        chunker_stream.Reader(b"abc", [("fault",)], use_read=True).read(3)


def test_make_keeps_the_most_recently_used_chunkers(monkeypatch):
    """chunker_stream.make reuses a chunker for the same arguments and, past MADE_CACHE, drops the
    least recently used one (not every one: impl_chunks's campaign cycles through its corpus)."""
    monkeypatch.setattr(chunker_stream, "_made", type(chunker_stream._made)())
    monkeypatch.setattr(chunker_stream, "MADE_CACHE", [2])
    made = [chunker_stream.make(("buzhash", 1, 8, 5, 16), None, seed, None, 0) for seed in (1, 2)]
    assert chunker_stream.make(("buzhash", 1, 8, 5, 16), None, 1, None, 0) is made[0]     # 1 is now the newest
    chunker_stream.make(("buzhash", 1, 8, 5, 16), None, 3, None, 0)                         # drops 2, keeps 1
    assert chunker_stream.make(("buzhash", 1, 8, 5, 16), None, 1, None, 0) is made[0]
    assert chunker_stream.make(("buzhash", 1, 8, 5, 16), None, 2, None, 0) is not made[1]


def test_chunker_stream_rejects_a_validity_mismatch(monkeypatch):
    monkeypatch.setattr(chunker_stream, "invalid_because", lambda case: "planted")
    with pytest.raises(Finding, match="was accepted"):
        chunker_stream.TestOneInput(chunker_stream.seeds()[0])


def test_params_parse_flags_undocumented_exceptions(monkeypatch):
    def parse(s):
        raise KeyError(s)
    monkeypatch.setattr(params_parse, "parse_params", parse)
    with pytest.raises(KeyError):
        params_parse.TestOneInput(params_parse.seeds()[0])
