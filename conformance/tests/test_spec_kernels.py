"""Our C chunkers reproduce the checkpoint values of spec 05 (verified against
borg 2.0.0b25) on every kernel that runs here: tables, window hashes, cut lists
(first 12 cuts, count, last 3 sizes, sizes digest) and the 12 MiB rows (the
legacy buzhash's kernels included)."""

import hashlib
import re
import struct

import pytest

import chunkers
from chunkers import buzhash64, fastcdc
from conformance.spec_values import (KEYS, SPEC_05_12MIB, SPEC_05_BH64_HASH, SPEC_05_BUZHASH, SPEC_05_BUZHASH64,
                                     SPEC_05_FASTCDC,
                                     SPEC_05_TABLES, INPUT, SC12M, cuts_of, hexval, ints, md_rows, num, sizes_digest,
                                     tup)
from conformance.tests.params import kernel_params

pytestmark = pytest.mark.ours_only
FASTCDC = kernel_params(["fastcdc"])
BUZHASH64 = kernel_params(["buzhash64"])


def _check_row(sizes, first, count, last3, digest):
    assert cuts_of(sizes)[:12] == first
    assert len(sizes) == count
    assert sizes[-3:] == last3
    if digest != "\u2014":
        assert sizes_digest(sizes) == digest
    else:
        assert cuts_of(sizes) == first


@pytest.mark.parametrize("row", [r for r in md_rows(SPEC_05_TABLES) if "u64" in r[0]], ids=lambda r: r[0] + r[1])
def test_tables_05_3(row):
    name, key = row[0], KEYS[row[1]]
    table = fastcdc.gear_table(key) if name.startswith("fastcdc") else buzhash64.table(key)
    for cell, i in zip(row[2:7], (0, 1, 2, 3, 255)):
        assert table[i] == hexval(cell)
    assert hashlib.sha256(struct.pack("<256Q", *table)).hexdigest() == re.search(r"`([0-9a-f]{64})`", row[7])[1]
    if name.startswith("buzhash64"):
        assert all(sum(t >> b & 1 for t in table) == 128 for b in range(64))


@pytest.mark.parametrize("row", md_rows(SPEC_05_BH64_HASH), ids=lambda r: r[0])
def test_buzhash64_window_hashes_05_4(row):
    table = buzhash64.table(KEYS[row[0]])
    for text, cell in zip((b"abc", b"abcdefghijklmnop", b"abcdefghijklmnopqrstuvwxyz" * 4), row[1:]):
        assert buzhash64.window_hash(table, text) == num(cell)


@pytest.mark.parametrize("family_kernel", FASTCDC)
@pytest.mark.parametrize("row", md_rows(SPEC_05_FASTCDC), ids=lambda r: "-".join(r[:3]))
def test_fastcdc_cut_lists_05_5_1(family_kernel, row):
    key, params, inp, first, count, last3, digest = row
    sizes = chunkers.FastCDC(KEYS[key], *tup(params), kernel=family_kernel[1]).chunk_sizes(INPUT(inp))
    _check_row(sizes, ints(first), num(count), ints(last3), digest)


@pytest.mark.parametrize("family_kernel", BUZHASH64)
@pytest.mark.parametrize("row", md_rows(SPEC_05_BUZHASH64), ids=lambda r: "-".join(r[:3]))
def test_buzhash64_cut_lists_05_5_2(family_kernel, row):
    key, params, inp, first, count, last3, digest = row
    sizes = chunkers.BuzHash64(KEYS[key], *tup(params), kernel=family_kernel[1]).chunk_sizes(INPUT(inp))
    _check_row(sizes, ints(first), num(count), ints(last3), digest)


@pytest.mark.parametrize("row", md_rows(SPEC_05_BUZHASH), ids=lambda r: "-".join(r[:3]))
def test_buzhash_cut_lists_05_5_3(row):
    seed, params, inp, first, count, last3, digest = row
    sizes = chunkers.BuzHash(num(seed), *tup(params)).chunk_sizes(INPUT(inp))
    _check_row(sizes, ints(first), num(count), ints(last3), digest)


@pytest.mark.parametrize("row", [r for r in md_rows(SPEC_05_12MIB) if r[0] == "buzhash"], ids=lambda r: r[1])
def test_buzhash_12mib_05_5_4(row):
    _chunker, seed, params, _inp, cuts, count, last3 = row
    sizes = chunkers.BuzHash(num(seed[5:]), *tup(params)).chunk_sizes(SC12M())
    assert (cuts_of(sizes), len(sizes), sizes[-3:]) == (ints(cuts), num(count), ints(last3))


ROWS_12M = [r for r in md_rows(SPEC_05_12MIB) if r[0] in ("fastcdc", "bh64")]


@pytest.mark.parametrize("family_kernel", FASTCDC + BUZHASH64)
def test_12mib_05_5_4(family_kernel):
    """Default-sized parameters on 12 MiB: the 8 MiB buffer, forced cuts at max and at EOF."""
    family, kernel = family_kernel
    for chunker, key, params, _inp, cuts, count, last3 in ROWS_12M:
        if {"fastcdc": "fastcdc", "bh64": "buzhash64"}[chunker] != family:
            continue
        m = re.fullmatch(r"\(([\d,]+?)(?:,normal_size=(\d+))?\)", params)
        p = tuple(int(x) for x in m.group(1).split(","))
        cls = chunkers.FastCDC if family == "fastcdc" else chunkers.BuzHash64
        c = cls(KEYS[key], *p, normal_size=int(m.group(2) or 0), kernel=kernel)
        sizes = c.chunk_sizes(SC12M())
        assert (cuts_of(sizes), len(sizes), sizes[-3:]) == (ints(cuts), num(count), ints(last3)), params
