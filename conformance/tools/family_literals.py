"""Family literals: no chunker or family name written as a string outside the family table.

chunkers/families.py is the one place that lists the chunkers and their kernel
families; everything else reads it. A *family literal* is a string constant
that is a chunker or family name of that table (``"buzhash64"``, ``"aes"``) or a
params string starting with one (``"fastcdc,19,23,21,2"``). Python sources are
read with ``ast`` (docstrings and comments are prose, never literals); Cython
sources (``.pyx``, ``.pxd``, ``.pxi``) line by line, their quoted strings.

Allowed, and nowhere else:

- the table itself, the tests (any ``tests`` directory, conftest.py), the docs;
- each family's own modules: a module whose file name holds a word of a family's
  name or of its chunkers' (``chunkers/fastcdc.pyx``, ``vectors/model/goldilocks.py``,
  ``fuzz/scan_diff_buzhash.py``, ``conformance/cases/aes_kernels.py``) may name
  that family and its chunkers, not another one;
- the files of :data:`ALLOWED`, each with its reason (the mutation catalogue,
  the spec's data, the model's own dispatch);
- a line whose comment says ``not a family``: the word in another sense (the AES CPU
  feature ``aes``, a ``fixed`` key).

``python -m conformance.tools.family_literals`` prints every family literal
found outside those places (``path:line: 'name'``) and exits 1 if there is any
(conformance/tests/test_family_literals.py).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import NamedTuple

from conformance.tools.imports import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
TABLE = "chunkers/families.py"
MARK = "# not a family"

ALLOWED = {
    TABLE: "the family table",
    "conformance/tools/mutants/catalogue.py": "the mutation catalogue: faults planted in named files",
    "conformance/spec_values.py": "spec data: the spec's checkpoint values per chunker",
    "vectors/cases.py": "spec data: the golden vectors' cases per chunker (a family's vector cases)",
    "vectors/model/__init__.py": "the model's own dispatch: the model imports nothing of the project",
}
"""Files that may name any family, and why."""

class Literal(NamedTuple):
    """One family literal: where, and the family or chunker it names."""

    path: str
    line: int
    name: str


def table_names(root: Path = ROOT) -> dict[str, str]:
    """Every chunker and family name of the table -> its family (a family names itself), read from
    ``root``'s chunkers/families.py by ``ast`` (no import: the checker also runs on other trees)."""
    tree = ast.parse((root / TABLE).read_text())
    out = {}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("Family", "Chunker"):
            args = [a.value for a in call.args[:2] if isinstance(a, ast.Constant)]
            if call.func.id == "Family" and args:
                out.setdefault(args[0], args[0])
            elif len(args) == 2:
                out[args[0]] = args[1]
    return out


def _named(value: str, names) -> str | None:
    """The name ``value`` is, or the chunker whose params string it is, else None."""
    if value in names:
        return value
    head, comma, _ = value.partition(",")
    return head if comma and head in names else None


def _python_strings(src: str):
    """(line, text) of every string constant of a Python source but its docstrings."""
    tree = ast.parse(src)
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


_QUOTED = re.compile(r"""(?<![\w"'])(?:"([^"\\\n]*)"|'([^'\\\n]*)')""")


def _cython_strings(src: str):
    """(line, text) of every one-line quoted string of a Cython source outside comments."""
    for i, line in enumerate(src.splitlines(), 1):
        code = line.split("#", 1)[0]
        for m in _QUOTED.finditer(code):
            yield i, m.group(1) if m.group(1) is not None else m.group(2)


def sources(root: Path = ROOT) -> list[Path]:
    """The source files checked: every .py/.pyx/.pxd/.pxi of the packages of PACKAGES, and setup.py;
    tests, conftest.py and build outputs left out."""
    out = [root / "setup.py"] if (root / "setup.py").is_file() else []
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*")):
            rel = p.relative_to(root)
            if p.suffix in (".py", ".pyx", ".pxd", ".pxi") and "tests" not in rel.parts and p.name != "conftest.py" \
                    and not any(x.startswith(".") or x == "build" for x in rel.parts):
                out.append(p)
    return out


def _marked(line: str) -> bool:
    """True if the line's comment says MARK's words (the name in another sense)."""
    code, hash_, comment = line.partition("#")
    return bool(hash_) and MARK.removeprefix("# ") in comment


def literals(root: Path = ROOT, names: dict | None = None) -> list[Literal]:
    """Every family literal of :func:`sources` (lines marked MARK left out)."""
    names = table_names(root) if names is None else names
    out = []
    for p in sources(root):
        src = p.read_text()
        lines = src.splitlines()
        found = _python_strings(src) if p.suffix == ".py" else _cython_strings(src)
        for line, text in found:
            name = _named(text, names)
            if name is not None and not _marked(lines[line - 1]):
                out.append(Literal(str(p.relative_to(root)), line, name))
    return out


def _words(text: str) -> set:
    return set(re.split(r"[_\-./]", text)) - {""}


def owns(path: str, name: str, names: dict) -> bool:
    """True if the module at ``path`` is one of the own modules of ``name``'s family: its file name
    holds a word of the family's name or of one of its chunkers' names."""
    family = names[name]
    words = set().union(*(_words(n) for n, f in names.items() if f == family))
    return bool(_words(Path(path).stem) & words)


def outside(found: list[Literal], names: dict) -> list[Literal]:
    """The literals outside the allowed places."""
    return [x for x in found if x.path not in ALLOWED and not owns(x.path, x.name, names)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m conformance.tools.family_literals", description=__doc__.split("\n")[0])
    ap.parse_args(argv)
    names = table_names()
    found = literals(names=names)
    bad = outside(found, names)
    for x in bad:
        print(f"{x.path}:{x.line}: {x.name!r} outside the family table ({TABLE})")
    print(f"{len(found)} family literals in {len({x.path for x in found})} files, "
          f"{len(bad)} outside the table, its allowed places and the families' own modules")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
