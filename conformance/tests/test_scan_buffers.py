"""The scan entry points read any C-contiguous bytes-like object and nothing else.

They take the buffer with PyObject_GetBuffer (chunkers/bufview.pxd), not a Cython typed
memoryview: every bytes-like form of the same bytes gives the result of ``bytes``, and what
``memoryview(x).cast("B")`` refuses raises that same TypeError. The ``bytes`` results are checked
against the model elsewhere (test_spec_kernels, test_aes_scan).
"""

import re
from array import array

import pytest

import chunkers.aes
import chunkers.buzhash64
import chunkers.fastcdc
from vectors import generators

KEY = bytes(range(32))
DATA = generators.sha_ctr(200)                  # seeded: the SHA-CTR stream of spec 00
MASK = (1 << 5) - 1                         # a hit within a few dozen bytes, so r >= 0 is exercised

pytestmark = pytest.mark.ours_only          # our scan entry points called directly


def _forms(b: bytes):
    """``b`` as bytes, bytearray, memoryview (also a contiguous slice of a larger one), and an
    8-byte-item array (``cast("B")`` reinterprets its bytes)."""
    yield bytes(b)
    yield bytearray(b)
    yield memoryview(b)
    yield memoryview(b"xx" + b + b"yy")[2:-2]
    if len(b) % 8 == 0:
        yield array("Q", b)


def _calls():
    """name -> (call(data), the data it takes): every entry point that takes a bytes-like argument."""
    gear = chunkers.fastcdc.gear_table(KEY)
    table = chunkers.buzhash64.table(KEY)
    ctx = chunkers.aes.AESContext("rabin-aes", KEY)
    return {
        "fastcdc.scan": (lambda d: chunkers.fastcdc.scan(gear, d, 0, MASK, "scalar"), DATA),
        "fastcdc.scan (array table)": (lambda d: chunkers.fastcdc.scan(array("Q", gear), d, 0, MASK, "scalar"),
                                       DATA),
        "buzhash64.scan": (lambda d: chunkers.buzhash64.scan(table, 16, d, 0, MASK, "scalar"), DATA),
        "buzhash64.window_hash": (lambda d: chunkers.buzhash64.window_hash(table, d), DATA[:16]),
        "AESContext.scan": (lambda d: ctx.scan(d, 64, 100, 0, MASK, "evp"), DATA),
        "AESContext.digest": (lambda d: ctx.digest(d), DATA[:64]),
    }


@pytest.mark.parametrize("name", list(_calls()))
def test_every_bytes_like_form_gives_the_bytes_result(name):
    call, data = _calls()[name]
    want = call(data)
    for form in _forms(data):
        assert call(form) == want, type(form).__name__


@pytest.mark.parametrize("name", list(_calls()))
@pytest.mark.parametrize("bad", ["int", "str", "strided"])
def test_what_memoryview_cast_refuses_is_refused_alike(name, bad):
    call, data = _calls()[name]
    value = {"int": 5, "str": "abc", "strided": memoryview(data + data)[::2]}[bad]
    with pytest.raises(TypeError) as want:
        memoryview(value).cast("B")
    with pytest.raises(TypeError, match=re.escape(str(want.value))):
        call(value)
