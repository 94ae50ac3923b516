"""What every fuzz target shares: findings, the kernel inventory, the model,
and the two ways to run a target (libFuzzer via atheris, or replay).

A target module defines ``TestOneInput(data: bytes)`` (raises :class:`Finding`
when a checked property breaks; any other exception or a signal is a finding
too), ``decode(inp)`` (its case from a fuzz.input.Input; TestOneInput decodes
with it) and ``seeds()`` (a list of input byte strings). It runs as a libFuzzer
target with ``python TARGET.py [libFuzzer flags] [CORPUS ...]`` and replays
files by calling ``TestOneInput`` (pytest does that, see fuzz/tests).
"""

from __future__ import annotations

import functools
import inspect
import sys
import types


class Finding(AssertionError):
    """A property checked by a fuzz target does not hold for the current input."""


def check(cond: bool, message) -> None:
    """Raise :class:`Finding` with ``message`` (a str, or a callable giving one) unless ``cond``."""
    if not cond:
        raise Finding(message() if callable(message) else message)


@functools.cache
def kernel_inventory(family: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """``(runnable, not_run)`` for a kernel family (a chunkers.registry family
    name): the kernel names that run here (the family's portable reference
    kernel first) and ``(name, reason)`` for every known kernel that cannot
    (spec 01 §11.2, 06 §8.5 reasons). Never empty: the reference always runs."""
    from chunkers.registry import kernels, reference

    rows = [r for r in kernels() if r.family == family]
    runnable = sorted((r.kernel for r in rows if r.runs), key=lambda k: k != reference(family))
    return tuple(runnable), tuple((r.kernel, r.reason) for r in rows if not r.runs)


def report_not_run(target: str, family: str) -> list[str]:
    """Print (to stderr) and return one line per kernel of ``family`` this
    machine cannot run, so no kernel is left out silently."""
    lines = [f"{target}: {family} kernel {name!r} NOT exercised here: {reason}"
             for name, reason in kernel_inventory(family)[1]]
    for line in lines:
        print(line, file=sys.stderr)
    return lines


def _memo_table(fn):
    """``fn(key)`` memoized for bytes keys; every call gets its own copy of the list."""
    cache = {}

    @functools.wraps(fn)
    def table(key):
        if type(key) is not bytes:
            return fn(key)
        if key not in cache:
            cache[key] = fn(key)
        return list(cache[key])
    return table


@functools.cache
def model():
    """The independent reference model ``model``, or None (with a
    message on stderr) when this checkout does not have it.

    Its table derivations are pure Python (buzhash64's takes ~16k CSPRNG
    draws), so they are memoized per key (same values, a fresh list per call);
    harnesses only hand the model a few fixed keys.
    """
    try:
        from vectors import model as m
    except ImportError as exc:
        print(f"fuzz: model is missing ({exc}); model comparisons are skipped", file=sys.stderr)
        return None
    m.fastcdc.gear_table = _memo_table(m.fastcdc.gear_table)
    m.buzhash64.table = _memo_table(m.buzhash64.table)
    return m


def module_functions(modules):
    """Every function and method defined in ``modules`` (names of already imported modules)."""
    for name in modules:
        for obj in vars(sys.modules[name]).values():
            members = vars(obj).values() if inspect.isclass(obj) else (obj,)
            for fn in members:
                if isinstance(fn, types.FunctionType) and fn.__module__ == name:
                    yield fn


def _instrument(modules) -> None:
    """Give atheris Python-level coverage of ``modules`` (names of already
    imported modules): every function and method defined in them."""
    import atheris

    for fn in module_functions(modules):
        atheris.instrument_func(fn)


def main(test_one_input, instrument=(), mutator=None) -> None:
    """libFuzzer entry: ``python TARGET.py [-flags] [CORPUS_DIR ...]`` (needs atheris).

    ``instrument``: Python module names whose branches feed the fuzzer's
    coverage in addition to the C code (built with -fsanitize=fuzzer-no-link).
    ``mutator``: a libFuzzer custom mutator ``(data, max_size, seed) -> bytes``
    (atheris's ``custom_mutator``), or None for libFuzzer's own mutations.
    """
    import atheris

    from fuzz.launcher import libfuzzer_argv, preload_mutator_lib

    if mutator:
        preload_mutator_lib()       # may run this process again (a target calls it first: its set-up runs once)
    _instrument(instrument)
    atheris.Setup(libfuzzer_argv(sys.argv), test_one_input, **({"custom_mutator": mutator} if mutator else {}))
    atheris.Fuzz()
