"""The command line's reference text (``python -m chunkers --help``): the params syntax per
chunker, the kernel names, the environment variables and the exit statuses, in plain text."""

from __future__ import annotations

import argparse
import errno
import sys

from chunkers.families import CHUNKERS
from chunkers.params import DEFAULT_PARAMS

FIELD_WORDS = {"chunk_min": "MIN", "chunk_max": "MAX", "chunk_mask": "MASK", "window_size": "WINDOW",
               "nc_level": "NC", "block_size": "BLOCK", "header_size": "HEADER"}
"""The word --help shows for each params field of the family table (chunkers.families)."""


def _syntax(c) -> str:
    """``name,FIELD,...`` of chunker ``c``, its optional trailing fields in brackets."""
    words = [FIELD_WORDS[f] for f in c.fields]
    required = len(words) - c.optional
    return ",".join([c.name, *words[:required]]) + "".join(f"[,{w}]" for w in words[required:])


PARAMS_SYNTAX = (
    *((_syntax(c), c.bench + (f" ({c.note})" if c.note else "")) for c in CHUNKERS.values()),
    ("default", f"default (= {','.join(map(str, DEFAULT_PARAMS))})"),
)
"""(syntax, example) of borg's --chunker-params strings (chunkers.parse_params), from the family table."""

EXIT_STATUS = (
    (0, "success"),
    (1, "a file cannot be read, or a runtime failure"),
    (2, "bad arguments: params, key, seed, kernel name, environment variable"),
    (130, "interrupted (Ctrl-C)"),
    (141, "standard output closed early (e.g. piped into head); nothing is printed"),
)


def epilog() -> str:
    """The reference text shown after the options by ``--help``."""
    from chunkers.registry import HIDE_ENV, _family, families

    lines = ["chunker params (MIN, MAX: size exponents, 2**MIN .. 2**MAX bytes; MASK: cut probability",
             "2**-MASK per byte; NC: normalized chunking level; WINDOW: hash window in bytes):"]
    width = max(len(s) for s, _e in PARAMS_SYNTAX)
    lines += [f"  {syntax:<{width}}  e.g. {example}" for syntax, example in PARAMS_SYNTAX]
    lines += ["", "scan kernels per family (--kernel; `python -m chunkers kernels` says which run here):"]
    env = []
    for name in families():
        fam = _family(name)
        lines.append(f"  {name:<14} {', '.join(k[0] for k in fam.kernels)}")
        if fam.env_var:
            env.append(f"  {fam.env_var:<26} default {name} kernel (--kernel wins)")
    from chunkers.registry import DEFAULTS_ENV
    lines += ["", "environment variables:", *env,
              f"  {DEFAULTS_ENV:<26} a defaults file written by `tune` (what --defaults sets)",
              f"  {HIDE_ENV:<26} comma-separated CPU features treated as absent (testing)"]
    lines += ["", "exit status:", *(f"  {code:<4} {text}" for code, text in EXIT_STATUS)]
    return "\n".join(lines)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, where ``--help`` to a closed or full standard output (``| true``, ``>&-``,
    ``> /dev/full``) is exit status 141 with nothing more printed, as every other lost output of
    these commands (argparse's own ignores the write's error, or prints the help to standard error
    when standard output is closed, and a failed final flush is a traceback); subcommands' parsers
    are of this class too."""

    def print_help(self, file=None):
        out = file or sys.stdout
        try:
            if out is None:                 # started with `>&-`
                raise BrokenPipeError(errno.EPIPE, "standard output closed")
            out.write(self.format_help())
            out.flush()                     # a closed pipe or a full disk shows here for a short text
        except OSError:
            if out is not None:
                from chunkers.console import to_devnull
                to_devnull(out)             # the interpreter's final flush must not fail again
            self.exit(141)
