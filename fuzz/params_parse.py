#!/usr/bin/env python3
"""Fuzz target: arbitrary strings into parse_params (spec 01 §4.2) and the CLI's argument handling.

Checked:

* ``parse_params`` raises nothing but ParamsError for a string (TypeError
  for other types) and returns a tuple unchanged for a list or tuple;
* an accepted string gives a tuple naming a known chunker, whose canonical
  string (fields joined by commas) parses back to the same tuple;
* the parser is stricter than the constructors (spec 01 §4): every accepted
  fastcdc / buzhash64 tuple constructs a chunker, except buzhash64 windows
  below 1, which the parser passes and this implementation rejects
  (spec 01 §4.2 says not to rely on them);
* CLI HOOK: once ``chunkers/cli.py`` exists and offers ``build_parser()`` (an
  argparse parser taking ``--chunker-params``), the same string goes through
  it: argparse may only exit with status 2 (usage error); see :func:`check_cli`.
"""

import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo, after PYTHONPATH

from chunkers.api import make_chunker  # noqa: E402
from chunkers.params import ParamsError, parse_params  # noqa: E402
from fuzz.harness import check  # noqa: E402
from fuzz.input import Input, script  # noqa: E402

NAMES = {"fastcdc", "buzhash64", "buzhash", "fixed", "fail", "default", "rabin-aes", "goldilocks-aes",
         "toeplitz-aes"}
CONSTRUCTED = {"fastcdc", "buzhash64"}     # algos make_chunker builds (grow with the package)


def decode(inp: Input):
    """A str (most inputs: the remaining bytes as UTF-8, undecodable bytes kept
    as lone surrogates), or a list / bytes / int / None for the type rules."""
    kind = inp.choice("kind", ("str", "str", "str", "list", "bytes", "other"))
    text = inp.rest("text").decode("utf-8", "surrogateescape")
    if kind == "list":
        return text.split(",")
    if kind == "bytes":
        return text.encode("utf-8", "surrogateescape")
    return {"str": text, "other": None}.get(kind, text)


def check_cli(text: str) -> None:
    """CLI HOOK (not wired yet): ``chunkers/cli.py`` does not exist in this
    checkout. When it lands with ``build_parser()`` returning an
    ``argparse.ArgumentParser`` that accepts ``--chunker-params``, this
    feeds it ``["--chunker-params", text]``-style arguments; argparse may only
    exit with status 2 (usage error), anything else escaping is a finding."""
    try:
        from chunkers import cli
    except ImportError:
        return
    build_parser = getattr(cli, "build_parser", None)
    if build_parser is None:
        return
    try:
        build_parser().parse_known_args(["--chunker-params", text])
    except SystemExit as exc:
        check(exc.code == 2, f"CLI exited with {exc.code!r} for --chunker-params {text!r}")


def TestOneInput(raw: bytes) -> None:
    s = decode(Input(raw))
    if not isinstance(s, (str, list, tuple)):
        try:
            parse_params(s)
        except TypeError:
            return
        check(False, f"parse_params accepted a {type(s).__name__}")
    if isinstance(s, list):
        check(parse_params(s) == tuple(s), "a list was not returned unchanged as a tuple")
        return
    check_cli(s)
    try:
        p = parse_params(s)
    except ParamsError:
        return
    check(type(p) is tuple and p and p[0] in NAMES, f"parse_params({s!r}) gave {p!r}")
    canonical = ",".join(map(str, p))
    check(parse_params(canonical) == p, f"{p!r} does not round-trip through {canonical!r}")
    if p[0] in CONSTRUCTED and not (p[0] == "buzhash64" and p[4] < 1):
        try:
            make_chunker(p)
        except (ValueError, TypeError, OverflowError) as exc:
            check(False, f"parse_params({s!r}) accepted {p!r} but the constructor raised {exc!r}")


def seeds() -> list:
    texts = ["fastcdc,19,23,21,2", "fastcdc,15,19,17,2", "buzhash64,19,23,21,4095,2", "buzhash,19,23,21,4095",
             "19,23,21,4095", "default", "fixed,4194304", "fixed,4096,512", "fail,4096,rrrr",
             "rabin-aes,19,23,21,2", "fastcdc,19,23,21", "fastcdc,19,23,21,21", "fastcdc,20,20,20,2",
             " FastCDC , 6,7 , 7,0 ", "fastcdc ,19,23,21,2", "buzhash64,6,7,6,0,0", "buzhash64,6,7,6,-5,0",
             "fastcdc,6,23,٣,1", "fastcdc,1_9,23,21,2", "19,23,21,-4095", "fixed,63", "buzhash64,6,23,6,5,1"]
    return [script(decode, kind="str", text=t.encode()) for t in texts] + \
        [script(decode, kind=k, text=b"fastcdc,19,23,21,2") for k in ("list", "bytes", "other")]


if __name__ == "__main__":
    from fuzz.harness import main
    main(TestOneInput, instrument=("chunkers.params",))
