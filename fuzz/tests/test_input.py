"""The fuzzer-bytes decoder and its seed builder agree."""

import pytest

from fuzz.input import Input, Script, from_json, script, to_json


def decode(inp):
    return (inp.int("a", -5, 5), inp.bool("b"), inp.choice("c", ("x", "y", "z")), inp.int("big", 0, 2**64 - 1),
            [inp.int("rep", 0, 300) for _ in range(inp.int("count", 0, 3))], inp.bytes("k", 4), inp.rest("tail"))


def test_script_round_trip():
    values = dict(a=-3, b=True, c="z", big=2**64 - 2, count=3, rep=[7, 299, 0], k=b"KEY!", tail=b"data")
    raw = script(decode, **values)
    want = (-3, True, "z", 2**64 - 2, [7, 299, 0], b"KEY!", b"data")
    assert decode(Input(raw)) == want


def test_exhausted_input_reads_lowest_values():
    assert decode(Input(b"")) == (-5, False, "x", 0, [], bytes(4), b"")


def test_script_rejects_out_of_range_values():
    with pytest.raises(ValueError):
        script(decode, a=6)
    with pytest.raises(ValueError):
        Script(k=b"toolong").bytes("k", 4)


def test_recorded_fields_replay_after_a_layout_change():
    raw = bytes(range(7, 60))
    inp = Input(raw, record=True)
    want = decode(inp)
    assert decode(Input(from_json(decode, to_json(inp.fields)))) == want

    def decode_v2(inp):          # a field added in front: the old fields keep their values
        inp.int("new", 0, 1000)
        return decode(inp)
    assert decode_v2(Input(from_json(decode_v2, to_json(inp.fields)))) == want
