#!/usr/bin/env python3
"""Fuzz target: arbitrary strings into parse_params (spec 01 §4.2) and the CLI's argument handling.

Checked:

* ``parse_params`` raises nothing but ParamsError for a string (TypeError
  for other types) and returns a tuple unchanged for a list or tuple;
* an accepted string gives a tuple naming a known chunker, whose canonical
  string (fields joined by commas) parses back to the same tuple;
* the parser is stricter than the constructors (spec 01 §4): every accepted
  tuple but ``fail`` constructs a chunker, except what spec 01 §4.2 leaves
  to the constructor (buzhash64 and legacy buzhash windows below 1, legacy
  buzhash ``window + 2**min + 1 > 2**max``) and fixed header sizes below
  -2**63 (negative means no header; ours stores it in an int64);
* the command line (``chunkers.cli.main``) on fuzzer-built argv: ``cut``
  with ``--params`` (the same string, or a known one), ``--key``, ``--seed``,
  ``--kernel``, ``--sparse``, ``--json`` and a small temporary file, standard
  input, a missing path or a directory; ``kernels``; ``bench`` always with a
  size of at most 0 MiB (a real run takes seconds) and mostly one small
  family (the full table costs 70 ms); stray and unknown options. It returns 0, 1 or 2, or argparse exits with 0 (help) or 2
  (usage); 1 and 2 print one ``error:`` line (``cut`` returning 1: one per
  file it could not cut, the others are still cut); nothing else escapes and no
  traceback is printed. ``cut`` returning 0 printed the sizes (lines or
  JSON) that ``make_chunker`` gives for the same arguments, summing to the
  file's length.
"""

import atexit
import contextlib
import itertools
import io
import json
import os
import shutil
import sys
import tempfile

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo, after PYTHONPATH

from chunkers.api import make_chunker  # noqa: E402
from chunkers.cli import main as cli_main  # noqa: E402
from chunkers.cli import parser as cli_parser  # noqa: E402
from chunkers.families import CHUNKERS as TABLE  # noqa: E402
from chunkers.families import DEFAULT_PARAMS, FAMILIES, chunkers_of, family_of  # noqa: E402
from chunkers.params import NAMELESS, ParamsError, parse_params  # noqa: E402
from chunkers.registry import all_names  # noqa: E402
from fuzz.harness import check  # noqa: E402
from fuzz.input import Input, script  # noqa: E402

NAMES = {*TABLE, "fail", "default"}
# Chunkers by their role in the cases below (from the family table): the default one, the windowed ones
# (with normalized chunking, and borg 1.x's nameless one), the fixed-size one, the AES ones (hash "uhf").
DEFAULT = DEFAULT_PARAMS[0]
WINDOWED_NC = next(c.name for c in TABLE.values() if "window_size" in c.fields and "nc_level" in c.fields)
FIXED = next(c.name for c in TABLE.values() if "block_size" in c.fields)
AES = tuple(c.name for c in TABLE.values() if FAMILIES[c.family].hash == "uhf")
# Small valid values per params shape (chunkers.families: Chunker.fields): the k-th chunker of a shape
# takes its k-th row (cycling), so that chunkers of one shape differ in nc level and sizes.
_SMALL = {
    ("chunk_min", "chunk_max", "chunk_mask", "nc_level"): ((6, 12, 8, 2), (6, 12, 8, 2), (6, 10, 7, 0), (6, 12, 8, 0)),
    ("chunk_min", "chunk_max", "chunk_mask", "window_size", "nc_level"): ((6, 12, 8, 64, 1),),
    ("chunk_min", "chunk_max", "chunk_mask", "window_size"): ((6, 12, 8, 63),),     # an odd window
    ("block_size", "header_size"): ((64, 10),),
}


def _known() -> tuple:
    """A valid params string per chunker of the table (a shape without _SMALL values: none), in its
    order, with ``default`` after the fourth (where the corpora have it: an input picks one by index)
    and borg's test chunker ``fail`` last."""
    rows = {shape: itertools.cycle(values) for shape, values in _SMALL.items()}
    out = [",".join(map(str, (c.name, *next(rows[c.fields])))) for c in TABLE.values() if c.fields in rows]
    return (*out[:4], "default", *out[4:], "fail,4096,rrrr")


KNOWN_PARAMS = _known()
KEYS = ("00" * 32, "0f" * 32, "AB" * 32, "00" * 31, "00" * 33, "zz" * 32, "", " " + "00" * 32, "0" * 63)
SEEDS = ("0", "-1", "2147483647", "2147483648", "-2147483649", "99999999999999999999", "0x10", "1.5", "", " 7")
# every kernel name of every build target (the same on all hosts), a spelling to normalise, and names that
# are none (a near miss, a non-ASCII look-alike)
_NAMES = all_names()
KERNELS = (*_NAMES, "", f" {_NAMES[-1].upper()} ", "auto", f"{_NAMES[0]}9", f"\u00e9{_NAMES[-1][1:]}")
COMMANDS = ("cut",) * 6 + ("kernels", "--help", "", "nonsense", "bench")
BENCH_SIZES = ("0", "-1", "-3", "x", "")      # MiB; nothing positive: a real benchmark runs for seconds
OPTIONS = ("--params", "--params", "--key", "--seed", "--kernel", "--sparse", "--json", "FILE", "FILE", "-",
           "--size", "--repeat", "--family", "--no-scan", "-h", "--", "--bogus", "cut")

# bench --family values: a family of several chunkers, the default's, one without a scan, none; a bench run
# takes a cheap one: without a scan or the seeded one (no key table to derive)
_NO_SCAN = next(f.name for f in FAMILIES.values() if not f.scan)
FAMILY_OPTIONS = (next(f for f in FAMILIES if len(chunkers_of(f)) > 1), family_of(DEFAULT), _NO_SCAN, "nope")
BENCH_FAMILIES = (_NO_SCAN, family_of(NAMELESS), "nope")

_tmp = tempfile.mkdtemp(prefix="fuzz-params-parse-")
atexit.register(shutil.rmtree, _tmp, True)
DATA_FILE = os.path.join(_tmp, "data.bin")
PATHS = (DATA_FILE, DATA_FILE, DATA_FILE, os.path.join(_tmp, "missing"), _tmp)


TEXT = object()
"""Stands for the fuzzed string in an argv until it is decoded (it is the input's last field)."""


def _cli(inp: Input) -> dict:
    """argv for chunkers.cli.main (with TEXT for the fuzzed string), the bytes of the data file and of stdin."""
    argv = []
    command = inp.choice("command", COMMANDS)
    if command:
        argv.append(command)
    for _ in range(inp.int("options", 0, 8)):
        opt = inp.choice("option", OPTIONS)
        if opt == "FILE":
            argv.append(inp.choice("path", PATHS))
            continue
        argv.append(opt)
        if opt == "--params":
            argv.append(TEXT if inp.bool("params_text") else inp.choice("params", KNOWN_PARAMS))
        elif opt in ("--key", "--seed", "--kernel", "--size", "--repeat", "--family"):
            values = {"--key": KEYS, "--seed": SEEDS, "--kernel": KERNELS, "--size": BENCH_SIZES,
                      "--repeat": ("0", "1", "-1", "x"), "--family": FAMILY_OPTIONS}[opt]
            argv.append(inp.choice(opt[2:], values))
    if command == "bench":      # the last --size wins: never a real benchmark run; mostly a family or two
        argv += ["--size", inp.choice("bench_size", ("0", "-1")), "--repeat", "1",
                 "--family", inp.choice("bench_family", BENCH_FAMILIES)]
    content = inp.bytes("file", inp.int("file_len", 0, 2000))
    return dict(argv=argv, file=content, stdin=inp.bytes("stdin", inp.int("stdin_len", 0, 300)))


def decode(inp: Input):
    """``(value, cli)``: a str (most inputs: the remaining bytes as UTF-8,
    undecodable bytes kept as lone surrogates, as a command line gets them),
    or a list / bytes / None for the type rules; ``cli``: None or the
    command line built around the string (see :func:`_cli`)."""
    kind = inp.choice("kind", ("str", "str", "str", "list", "bytes", "other"))
    cli = _cli(inp) if inp.bool("cli") and kind == "str" else None
    text = inp.rest("text").decode("utf-8", "surrogateescape")
    if cli:                                     # the string is the last field: fill it in where drawn
        cli["argv"] = [text if a is TEXT else a for a in cli["argv"]]
    if kind == "list":
        return text.split(","), None
    if kind == "bytes":
        return text.encode("utf-8", "surrogateescape"), None
    return {"str": text, "other": None}.get(kind, text), cli


def _cut_sizes(argv: list, stdout: str, data_file: bytes, stdin: bytes) -> None:
    """A successful ``cut`` printed the sizes make_chunker cuts for its arguments, summing to the input length."""
    args = cli_parser().parse_args(argv)
    if len(args.files) != 1:        # several files: each line is prefixed with its file name
        return
    data = stdin if args.files[0] == "-" else data_file
    got = json.loads(stdout)["sizes"] if args.json else [int(x) for x in stdout.split()]
    check(sum(got) == len(data), f"CLI {argv!r}: sizes {got} do not sum to {len(data)}")
    key = None if args.key is None else bytes.fromhex(args.key)
    want = make_chunker(parse_params(args.params), key=key, seed=args.seed, kernel=args.kernel,
                        sparse=args.sparse).chunk_sizes(data)
    check(got == want, f"CLI {argv!r}: sizes {got}, make_chunker gives {want}")


def check_cli(cli: dict) -> None:
    """Run the command line; only its documented outcomes may happen (see the module doc)."""
    argv = cli["argv"]
    with open(DATA_FILE, "wb") as f:
        f.write(cli["file"])
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")          # like sys.stdout
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")  # like sys.stderr
    stdin = io.TextIOWrapper(io.BytesIO(cli["stdin"]), encoding="utf-8")
    old_stdin, sys.stdin = sys.stdin, stdin
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli_main(argv)
            except SystemExit as exc:
                check(exc.code in (0, 2), f"CLI {argv!r}: argparse exit {exc.code!r}")
                status = None
    finally:
        sys.stdin = old_stdin
    out.flush()
    err.flush()
    stdout, stderr = out.buffer.getvalue().decode(), err.buffer.getvalue().decode()
    check("Traceback" not in stderr, lambda: f"CLI {argv!r} printed a traceback:\n{stderr}")
    if status is None:
        return
    check(status in (0, 1, 2), f"CLI {argv!r} returned {status!r}")
    if status:      # cut names each file it cannot read and goes on: one line per argument at most
        most = len(argv) if status == 1 and argv[0] == "cut" else 1
        lines = stderr.split("\n")
        check(lines[-1] == "" and 1 <= len(lines) - 1 <= most and all(x.startswith("error: ") for x in lines[:-1]),
              lambda: f"CLI {argv!r} returned {status} with stderr {stderr!r}")
        return
    if argv[0] == "cut":
        _cut_sizes(argv, stdout, cli["file"], cli["stdin"])


def _constructs(p: tuple) -> bool:
    """Whether the parser's tuple must construct (see the module doc for the exceptions)."""
    if p[0] not in TABLE:                       # fail (default is resolved by make_chunker)
        return p[0] != "fail"
    fields = dict(zip(TABLE[p[0]].fields, p[1:]))
    window = fields.get("window_size")
    if window is not None and window < 1:
        return False
    if p[0] == NAMELESS and window + (1 << fields["chunk_min"]) + 1 > (1 << fields["chunk_max"]):
        return False
    return not fields.get("header_size", 0) < -(1 << 63)


def TestOneInput(raw: bytes) -> None:
    s, cli = decode(Input(raw))
    if cli is not None:
        check_cli(cli)
    if not isinstance(s, (str, list, tuple)):
        try:
            parse_params(s)
        except TypeError:
            return
        check(False, f"parse_params accepted a {type(s).__name__}")
    if isinstance(s, list):
        check(parse_params(s) == tuple(s), "a list was not returned unchanged as a tuple")
        return
    try:
        p = parse_params(s)
    except ParamsError:
        return
    check(type(p) is tuple and p and p[0] in NAMES, f"parse_params({s!r}) gave {p!r}")
    canonical = ",".join(map(str, p))
    check(parse_params(canonical) == p, f"{p!r} does not round-trip through {canonical!r}")
    if _constructs(p):
        try:
            make_chunker(p)
        except (ValueError, TypeError, OverflowError) as exc:
            check(False, f"parse_params({s!r}) accepted {p!r} but the constructor raised {exc!r}")


def seeds() -> list:
    d, w, b = DEFAULT, WINDOWED_NC, FIXED
    texts = [TABLE[d].bench, f"{d},15,19,17,2", TABLE[w].bench, TABLE[NAMELESS].bench,
             "19,23,21,4095", "default", TABLE[b].bench, f"{b},4096,512", "fail,4096,rrrr",
             TABLE[AES[0]].bench, f"{d},19,23,21", f"{d},19,23,21,21", f"{d},20,20,20,2",
             f" {TABLE[d].cls} , 6,7 , 7,0 ", f"{d} ,19,23,21,2", f"{w},6,7,6,0,0", f"{w},6,7,6,-5,0",
             f"{d},6,23,٣,1", f"{d},1_9,23,21,2", "19,23,21,-4095", f"{b},63", f"{w},6,23,6,5,1",
             f"{NAMELESS},6,7,6,99", f"{b},64,-99999999999999999999", f"{AES[1 % len(AES)]},6,7,7,0"]
    out = [dict(kind="str", text=t.encode()) for t in texts]
    out += [dict(kind=k, text=TABLE[d].bench.encode()) for k in ("list", "bytes", "other")]
    cut = dict(kind="str", cli=True, command="cut", file_len=1500, file=bytes(range(256)) * 5 + bytes(220))
    for params in KNOWN_PARAMS:
        out.append(dict(cut, options=2, option=["--params", "FILE"], params=params, text=b""))
    out += [
        dict(cut, options=5, option=["--params", "--key", "--kernel", "--json", "FILE"], params_text=True,
             key=KEYS[1], kernel="aes-ni", text=f"{AES[-1]},6,10,7,1".encode()),
        dict(cut, options=4, option=["--params", "--seed", "--sparse", "FILE"], params_text=True, seed="-1",
             text=f"{NAMELESS},6,10,7,31".encode()),
        dict(cut, options=3, option=["--params", "--seed", "FILE"], params_text=True, seed="2147483648",
             text=f"{NAMELESS},6,10,7,31".encode()),
        dict(cut, options=3, option=["--params", "--key", "FILE"], params_text=True, key="zz" * 32,
             text=f"{AES[0]},6,10,7,1".encode()),
        dict(cut, options=2, option=["--params", "-"], params_text=True, stdin_len=300, stdin=bytes(300),
             text=f"{b},64,-5".encode()),
        dict(cut, options=2, option=["--params", "FILE"], path=PATHS[3], text=f"{d},6,12,8,0".encode()),
        dict(cut, options=2, option=["--params", "FILE"], path=_tmp, text=f"{d},6,12,8,0".encode()),
        dict(cut, options=1, option="--bogus", text=b""),
        dict(kind="str", cli=True, command="kernels", options=1, option="--json", text=b""),
        dict(kind="str", cli=True, command="bench", options=2, option=["--family", "--no-scan"], family=_NO_SCAN,
             text=b""),
        dict(kind="str", cli=True, command="--help", text=b""),
    ]
    return [script(decode, **v) for v in out]


if __name__ == "__main__":
    from fuzz.harness import main
    main(TestOneInput, instrument=("chunkers.params", "chunkers.cli"))
