"""The main job's kernel-selection rows (issue 35), family ``selection``: which kernel a chunker
gets, checked against the spec's and the docs' text, not the registry's own answers.

Ours (chunkers.make_chunker and its ``kernel`` attribute):

* ``reference``: each family's reference kernel is the one the spec names (SPEC_REFERENCE);
* ``default``: the kernel used when none is named is the documented one for this machine and CPU
  (documented_defaults, docs/kernels.md "Built-in defaults": the first that runs here);
* ``precedence``: ``kernel=`` wins over CHUNKERS_<FAMILY>_KERNEL, the variable over the defaults
  file named by CHUNKERS_DEFAULTS, the file over the built-in default (docs/kernels.md);
* ``defaults file``: a file naming a kernel that cannot run here is refused, also once a CPU
  feature it needs is hidden (CHUNKERS_CPU_HIDE) after the file was read;
* ``bad names``: an unknown or unusable name (kernel=, the variable) is a one-line ValueError.

Another implementation with kernel selectors (``selectors``, impls.Borg: BORG_*_KERNEL, spec 01
§11, 06 §8.4) through its provenance (the ``kernel`` attribute, ``selected_kernel``):
``reference`` (the spec's reference names are accepted and reported), ``default`` (spec 01
§11.3, 2.0.0b25) and ``demand`` (every kernel it lists as runnable is given when named, stripped
and lowercased; one that cannot run here, ``auto`` or an unknown name is a ValueError: no
fallback). An implementation without selectors gets one skipped row saying so.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
from contextlib import ExitStack

from chunkers.families import CHUNKERS, FAMILIES as TABLE, chunkers_of
from conformance import spec_values
from conformance.run.engine import Mismatch
from conformance.run.readpath import Row, guarded

FAMILY = "selection"

SPEC_REFERENCE = spec_values.REFERENCE_KERNELS
"""The reference kernel per family (spec 02 §4, 01 §11.2, 01 §11.4, 06 §8.4)."""

DOCUMENTED_DEFAULTS = spec_values.DOCUMENTED_DEFAULTS
"""docs/kernels.md "Built-in defaults": machine -> family -> first that runs."""

BORG_DEFAULTS = spec_values.BORG_DEFAULTS
"""Spec 01 §11.3, borg 2.0.0b25: machine -> family -> first that runs."""

SPEC_NAMES = spec_values.BORG_KERNEL_NAMES
"""Every kernel name of borg's selectors on any target (spec 01 §11.2, 06 §8.4): one its build does
not list here is refused like any unknown name."""

_PROBE_FIELDS = {"chunk_min": 10, "chunk_max": 16, "chunk_mask": 12, "window_size": 63, "nc_level": 2}
SELECTABLE = tuple(f.name for f in TABLE.values() if f.env_var)
"""The families with a kernel selector (the family table's ``env_var``), in table order."""

PROBE = {f: ",".join([c, *(str(_PROBE_FIELDS[x]) for x in CHUNKERS[c].fields)])
         for f in SELECTABLE for c in chunkers_of(f)[:1]}
"""Params of the chunker made per selection check: the family's first chunker, small (only its
``kernel`` is looked at)."""

VARIABLES = {f: TABLE[f].env_var for f in SELECTABLE}
"""The selector per family (the family table; docs/kernels.md, "The kernel lists")."""
DEFAULTS_FILE, HIDE = "CHUNKERS_DEFAULTS", "CHUNKERS_CPU_HIDE"


def machine() -> str:
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def rows(impl) -> list[Row]:
    """The selection rows of ``impl`` (an impls.Implementation)."""
    if impl.name == "ours":
        with _clean_env():
            return [guarded(name, lambda: _row(name, check())) for name, check in (
                ("reference", ours_reference), ("default", ours_default), ("precedence", ours_precedence),
                ("defaults file", ours_defaults_file), ("bad names", ours_bad_names))]
    if not impl.selectors:
        return [Row("kernel selection", "skipped", f"{impl.name} has no kernel selection: not checked", [])]
    return [guarded(name, lambda: _row(name, check(impl))) for name, check in (
        ("reference", other_reference), ("default", other_default), ("demand", other_demand))]


def _row(check: str, found: tuple) -> Row:
    """A row from ``(checks made, problems (text, expected, got), note)``."""
    made, problems, note = found
    return Row(check, "failed" if problems else "passed", "; ".join(filter(None, [f"{made} checks", note])),
               [Mismatch("selection", what, want, got) for what, want, got in problems])


class _clean_env:
    """The selection variables unset for the block (a user's own settings must not decide a check),
    restored after."""

    NAMES = (*VARIABLES.values(), DEFAULTS_FILE)

    def __enter__(self):
        self.saved = {v: os.environ.pop(v) for v in self.NAMES if v in os.environ}

    def __exit__(self, *exc):
        for v in self.NAMES:
            os.environ.pop(v, None)
        os.environ.update(self.saved)


def _env(**values):
    """Set (None: unset) environment variables for a with block."""
    from vectors.impls.base import env
    stack = ExitStack()
    for var, value in values.items():
        stack.enter_context(env(var, value))
    return stack


def _made(family: str, kernel=None, **variables):
    """The ``kernel`` of a new chunker of ``family`` (``kernel=``, ``variables`` set), or the
    exception its construction raised."""
    from chunkers.api import credential, make_chunker
    params = PROBE[family]
    takes = credential(params)
    try:
        with _env(**variables):
            return make_chunker(params, key=bytes(32) if takes == "key" else None,
                                seed=0 if takes == "seed" else None, kernel=kernel).kernel
    except Exception as e:      # noqa: BLE001  (judged by the caller: a ValueError may be the answer)
        return e


def _runnable(family: str) -> list[str]:
    import chunkers
    return [k.kernel for k in chunkers.kernels() if k.family == family and k.runs]


def _one_line_refusal(what: str, got, name: str, problems: list) -> None:
    """``got`` must be a ValueError of one line naming ``name`` (spec 01 §11.2: in repr form)."""
    if not isinstance(got, ValueError) or "\n" in str(got) or repr(name) not in str(got):
        problems.append((what, f"a one-line ValueError naming {name!r}",
                         f"{type(got).__name__}: {got}" if isinstance(got, Exception) else f"kernel {got!r}"))


def ours_reference() -> tuple:
    from chunkers import registry
    from conformance.cases.families import FAMILIES
    problems = []
    for family, want in SPEC_REFERENCE.items():
        for whose, got in (("chunkers.registry", registry.reference(family)),
                           ("the main job", FAMILIES[family].reference)):
            if got != want:
                problems.append((f"{family}: the reference kernel {whose} uses", want, got))
    return 2 * len(SPEC_REFERENCE), problems, ""


def documented_defaults(ident=None) -> dict:
    """The documented defaults (DOCUMENTED_DEFAULTS) for this machine and the CPU ``ident`` (a
    chunkers.cpuinfo.Identity; default: this CPU's): family -> the kernels, first that runs. The CPU
    class is the documented one (DOCUMENTED_SEQUENTIAL_FIRST), matched as chunkers.cpuinfo matches."""
    from chunkers.cpuinfo import sequential_first
    if machine() == "x86_64" and sequential_first(ident, (spec_values.DOCUMENTED_SEQUENTIAL_FIRST,)):
        return DOCUMENTED_DEFAULTS["x86_64 sequential first"]
    return DOCUMENTED_DEFAULTS.get(machine(), DOCUMENTED_DEFAULTS["*"])


def ours_default() -> tuple:
    table = documented_defaults()
    problems = []
    for family, order in table.items():
        runs = _runnable(family)
        want = next((k for k in order if k in runs), None)
        got = _made(family)
        if got != want:
            problems.append((f"{family}: the kernel of a chunker made without one ({machine()})",
                             f"{want} (first that runs of {', '.join(order)})", got))
    return len(table), problems, ""


def _defaults_file(d: str, defaults: dict) -> str:
    from chunkers.registry import FORMAT
    path = os.path.join(d, f"defaults-{len(os.listdir(d))}.json")
    with open(path, "w") as f:
        json.dump({"format": FORMAT, "defaults": defaults}, f)
    return path


def ours_precedence() -> tuple:
    problems, made, skipped = [], 0, []
    with tempfile.TemporaryDirectory(prefix="conformance-selection-") as d:
        for family, var in VARIABLES.items():
            runs = _runnable(family)
            if len(runs) < 2:
                skipped.append(family)
                continue
            a, b = runs[-1], runs[-2]       # two kernels that run here; neither need be the default
            path = _defaults_file(d, {family: b})
            for what, kernel, variables, want in (
                    ("kernel= and the variable", b, {var: a}, b),
                    ("the variable alone", None, {var: a}, a),
                    ("the variable and a defaults file", None, {var: a, DEFAULTS_FILE: path}, a),
                    ("a defaults file alone", None, {DEFAULTS_FILE: path}, b),
                    ("kernel= and a defaults file", a, {DEFAULTS_FILE: path}, a)):
                got = _made(family, kernel, **variables)
                made += 1
                if got != want:
                    setting = ", ".join([*([f"kernel={kernel!r}"] if kernel else []),
                                         *(f"{v}={x!r}" for v, x in variables.items())])
                    problems.append((f"{family}: {what} ({setting})", want, got))
    note = f"fewer than two kernels run here for {', '.join(skipped)}: not checked there" if skipped else ""
    return made, problems, note


def _needing_feature(runs_by_family: dict) -> tuple | None:
    """(family, kernel, feature) for a kernel that runs here and needs a CPU feature (the lists'
    own requirements: what a hidden feature takes away), the first family's in table order; None if none."""
    from chunkers import registry
    for family in runs_by_family:
        for k in registry.rows(family):
            if k.name in runs_by_family[family] and k.cpu:
                return family, k.name, k.cpu[-1]
    return None


def ours_defaults_file() -> tuple:
    problems, made, note = [], 0, ""
    with tempfile.TemporaryDirectory(prefix="conformance-selection-") as d:
        first = SELECTABLE[0]
        bad = _defaults_file(d, {first: "no-such-kernel"})
        made += 1
        _one_line_refusal("a defaults file naming an unknown kernel", _made(first, **{DEFAULTS_FILE: bad}),
                          "no-such-kernel", problems)
        found = _needing_feature({f: _runnable(f) for f in SELECTABLE})
        if found is None:
            note = "no kernel that runs here needs a CPU feature: the hidden-feature refusal not checked"
        else:
            family, kernel, feature = found
            path = _defaults_file(d, {family: kernel})
            made += 2
            got = _made(family, **{DEFAULTS_FILE: path})      # read and accepted first
            if got != kernel:
                problems.append((f"{family}: a defaults file naming {kernel}", kernel, got))
            _one_line_refusal(f"{family}: the defaults file naming {kernel}, read before, once {HIDE}={feature}",
                              _made(family, **{DEFAULTS_FILE: path, HIDE: feature}), kernel, problems)
    return made, problems, note


def ours_bad_names() -> tuple:
    problems, made = [], 0
    for family, var in VARIABLES.items():
        runs = _runnable(family)
        cannot = [n for n in dict.fromkeys(k for t in DOCUMENTED_DEFAULTS.values() for k in t[family])
                  if n not in runs]           # documented names that cannot run here (other targets, this CPU)
        for name in ("no-such-kernel", "auto", *cannot[:2]):
            made += 2
            _one_line_refusal(f"{family}: kernel={name!r}", _made(family, name), name, problems)
            _one_line_refusal(f"{family}: {var}={name!r}", _made(family, **{var: name}), name, problems)
    found = _needing_feature({f: _runnable(f) for f in SELECTABLE})
    if found:
        family, kernel, feature = found
        made += 1
        _one_line_refusal(f"{family}: kernel={kernel!r} with {HIDE}={feature}",
                          _made(family, kernel, **{HIDE: feature}), kernel, problems)
    return made, problems, ""


def _other_runnable(impl, family: str) -> list[str]:
    return [k for k, why in impl.kernels(family) if why is None]


def _selected(impl, family: str, value):
    try:
        return impl.selected_kernel(family, value)
    except Exception as e:      # noqa: BLE001  (judged by the caller)
        return e


def other_reference(impl) -> tuple:
    problems = []
    for family in impl.selectors:
        want = SPEC_REFERENCE[family]
        got = _selected(impl, family, want)
        if got != want:
            problems.append((f"{family}: {impl.selectors[family]}={want!r}", want, got))
    return len(impl.selectors), problems, ""


def other_default(impl) -> tuple:
    table = BORG_DEFAULTS.get(machine(), BORG_DEFAULTS["*"])
    problems = []
    for family in impl.selectors:
        runs = _other_runnable(impl, family)
        want = next((k for k in table[family] if k in runs), None)
        got = _selected(impl, family, None)
        if got != want:
            problems.append((f"{family}: {impl.selectors[family]} unset ({machine()})",
                             f"{want} (first that runs of {', '.join(table[family])})", got))
    return len(impl.selectors), problems, "spec 01 §11.3 (2.0.0b25)"


def other_demand(impl) -> tuple:
    problems, made = [], 0
    for family, var in impl.selectors.items():
        listed = impl.kernels(family)
        listed += [(n, "not listed by this build") for n in SPEC_NAMES.get(family, ()) if n not in dict(listed)]
        for name, why in listed:
            made += 1
            got = _selected(impl, family, name)
            if why is None and got != name:
                problems.append((f"{family}: {var}={name!r} (runs here)", name, got))
            elif why is not None:           # a demand: no fallback to another kernel
                _one_line_refusal(f"{family}: {var}={name!r} ({why})", got, name, problems)
        runs = [n for n, why in listed if why is None]
        if runs:
            made += 1
            spelled = f" {runs[0].upper()} "
            got = _selected(impl, family, spelled)
            if got != runs[0]:
                problems.append((f"{family}: {var}={spelled!r} (stripped and lowercased)", runs[0], got))
        for name in ("auto", "no-such-kernel"):
            made += 1
            _one_line_refusal(f"{family}: {var}={name!r}", _selected(impl, family, name), name, problems)
    return made, problems, ""
