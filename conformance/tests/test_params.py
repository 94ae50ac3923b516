"""Parameter rules: the string parser (spec 01 §4.2), the constructor checks
(01 §4.1), masks and normalized chunking (01 §3)."""

import re

import pytest

import chunkers
from chunkers.params import ParamsError, decimal, mask, nc_masks, parse_params


@pytest.mark.parametrize("text, want", [
    ("fastcdc,19,23,21,2", ("fastcdc", 19, 23, 21, 2)),
    (" FastCDC, 19 ,23,21,2 ", ("fastcdc", 19, 23, 21, 2)),
    ("19,23,21,4095", ("buzhash", 19, 23, 21, 4095)),
    ("buzhash,19,23,21,4095", ("buzhash", 19, 23, 21, 4095)),
    ("buzhash64,19,23,21,4095,2", ("buzhash64", 19, 23, 21, 4095, 2)),
    ("buzhash64,6,12,8,64,0", ("buzhash64", 6, 12, 8, 64, 0)),
    ("rabin-aes,19,23,21,2", ("rabin-aes", 19, 23, 21, 2)),
    ("goldilocks-aes,6,15,7,3", ("goldilocks-aes", 6, 15, 7, 3)),
    ("toeplitz-aes,10,16,12,0", ("toeplitz-aes", 10, 16, 12, 0)),
    ("fixed,4096", ("fixed", 4096, 0)),
    ("fixed,4096,123", ("fixed", 4096, 123)),
    ("fixed,4096,-5", ("fixed", 4096, -5)),
    ("default", ("default",)),
    ("fail,4096,RRE", ("fail", 4096, "RRE")),
])
def test_parse_examples(text, want):
    assert parse_params(text) == want


def test_sequences_pass_through_unvalidated():
    assert parse_params(["fastcdc", 1, 2, 3, 4]) == ("fastcdc", 1, 2, 3, 4)


@pytest.mark.parametrize("text, rule", [
    ("fastcdc,19,23,21", "fastcdc,chunk_min,chunk_max,chunk_mask,nc_level"),
    ("fastcdc,19,23,21,21", "nc_level"),
    ("fastcdc,19,23,24,2", "chunk_min <= chunk_mask <= chunk_max"),
    ("fastcdc,20,20,20,2", "chunk_min < chunk_max"),
    ("fastcdc,5,23,21,2", "chunk_min must be >= 6"),
    ("fastcdc,6,24,21,2", "chunk_max must be <= 23"),
    ("fastcdc ,19,23,21,2", "invalid chunker params"),
    ("buzhash64,19,23,21,4095", "buzhash64,chunk_min"),
    ("buzhash64,6,7,6,64,0", "window_size"),
    ("buzhash64,19,23,21,4095,-1", "nc_level"),
    ("buzhash,19,23,21,4096", "odd"),
    ("19,23,21,+4095", "invalid chunker params"),
    ("fixed,63", "block_size must be >= 64"),
    ("fixed,20971480", "block_size must be <="),
    ("fixed,4096,20971480", "header_size"),
    ("nonsense", "invalid chunker params"),
    ("rabin-aes,19,23,21", "rabin-aes,chunk_min"),
    ("buzhash,19,23,21,4095,2", "buzhash,chunk_min,chunk_max,chunk_mask,window_size"),
    ("fixed,4096,0,1", "fixed,block_size[,header_size]"),
])
def test_parse_errors(text, rule):
    with pytest.raises(ParamsError) as e:
        parse_params(text)
    assert rule in str(e.value)


@pytest.mark.parametrize("text", ["fastcdc,19,x,21,2", "fastcdc,1_9,23,21,2", "fastcdc,\u0661\u0669,23,21,2",
                                  "fixed,4_096", "buzhash64,19,23,21,4095,\uff12",
                                  "rabin-aes,19,23,21,\x1c2", "fastcdc,19,23,21,\xa02"])     # not ASCII space
def test_non_numeric_field_is_a_value_error(text):
    """Only ASCII decimal fields: int() would read '1_9' as 19 and Arabic-Indic or full-width digits."""
    with pytest.raises(ValueError, match="decimal integers"):
        parse_params(text)


def test_a_field_past_4300_digits_is_a_params_error_with_a_short_message():
    """int() refuses more than 4300 digits with its own ValueError (sys.set_int_max_str_digits):
    a ParamsError here, its message cut to a line; 4300 digits parse (and are out of range)."""
    with pytest.raises(ParamsError, match=r"decimal integers of at most 4300 digits: '9+'\.\.\. \(4309 characters\)"):
        parse_params("fastcdc," + "9" * 4301 + ",23,21,2")
    with pytest.raises(ParamsError, match="chunk_min"):
        parse_params("fastcdc," + "9" * 4300 + ",23,21,2")


@pytest.mark.parametrize("text, value", [("19", 19), (" -5 ", -5), ("+0", 0), ("007", 7)])
def test_decimal_takes_what_a_params_field_takes(text, value):
    assert decimal(text) == value


@pytest.mark.parametrize("text", ["", "1_0", "\u0665", "\uff15", "5.0", "0x10", "\xa05", "9" * 4301, None])
def test_decimal_refuses_the_rest(text):
    with pytest.raises(ValueError):
        decimal(text)


def test_non_str_params_are_a_type_error():
    with pytest.raises(TypeError):
        parse_params(19)


def test_masks_examples_01_3_2():
    assert nc_masks(21, 2, 0, True) == (0xfffffe0000000000, 0xffffe00000000000, 1572864)
    assert nc_masks(21, 0, 999, True) == (0xfffff80000000000, 0xfffff80000000000, 0)
    assert nc_masks(21, 2, 0, False)[:2] == (0x7fffff, 0x7ffff)
    assert nc_masks(17, 2, 0, True) == (mask(19, True), mask(15, True), 98304)
    assert mask(0, True) == 0 and mask(64, False) == mask(64, True) == (1 << 64) - 1


KEY = bytes(32)


@pytest.mark.parametrize("args, error", [
    ((6, 25, 8, 0), "exceeds"),               # max size > 20,971,479
    ((12, 12, 8, 0), "must not exceed"),      # min + 1 > max
    ((6, 12, 8, -1), "nc_level"),
    ((6, 12, 2, 2), "hash_mask_bits - nc_level"),
    ((6, 12, 47, 2), "hash_mask_bits + nc_level"),
    ((-1, 12, 8, 0), "out of range"),
])
def test_constructor_checks(args, error):
    with pytest.raises(ValueError, match=re.escape(error)):
        chunkers.FastCDC(KEY, *args)
    with pytest.raises(ValueError, match=re.escape(error)):
        chunkers.BuzHash64(KEY, args[0], args[1], args[2], 1, args[3])


def test_constructor_accepts_what_the_parser_rejects():
    """borg's own grids use min < 6 and mask < min (spec 05 §7)."""
    chunkers.FastCDC(KEY, 1, 15, 4, 0)
    chunkers.BuzHash64(KEY, 4, 15, 4, 65, 0)


def test_window_checks():
    with pytest.raises(ValueError, match="window"):
        chunkers.BuzHash64(KEY, 6, 7, 4, 64, 0)     # 64 + 64 + 1 > 128
    chunkers.BuzHash64(KEY, 6, 7, 4, 63, 0)
    with pytest.raises(ValueError, match="out of range"):
        chunkers.BuzHash64(KEY, 6, 12, 8, 0, 0)


@pytest.mark.parametrize("key, exc", [(bytes(31), ValueError), (bytes(33), ValueError), (None, TypeError),
                                      (bytearray(32), TypeError), ("0" * 32, TypeError)])
def test_key_errors(key, exc):
    with pytest.raises(exc):
        chunkers.FastCDC(key, 6, 12, 8, 0)
    with pytest.raises(exc):
        chunkers.BuzHash64(key, 6, 12, 8, 64, 0)


@pytest.mark.parametrize("bad", [2**64, -1, 1.5, "8"])
def test_out_of_range_ints_are_rejected(bad):
    with pytest.raises((ValueError, TypeError, OverflowError)):
        chunkers.FastCDC(KEY, 6, 12, 8, 1, normal_size=bad)
    with pytest.raises((ValueError, TypeError, OverflowError)):
        chunkers.FastCDC(KEY, 6, 12, bad, 0)


def test_normal_size_ignored_with_nc0_05_8():
    from vectors.generators import sha_ctr
    data = sha_ctr(1 << 18)
    a = chunkers.FastCDC(KEY, 8, 12, 10, 0).chunk_sizes(data)
    assert chunkers.FastCDC(KEY, 8, 12, 10, 0, normal_size=999).chunk_sizes(data) == a
