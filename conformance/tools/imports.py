"""The import graph of the project's packages: no circle, no upward import.

The packages are layered, each importing only those before it in
:data:`LAYERS`: the product (``chunkers``), the independent model
(``vectors.model``), the implementation adapters (``vectors.impls``), the
golden vectors (the rest of ``vectors``), the suite, the fuzz targets. A
module belongs to the longest layer name that prefixes it.
Every import counts, at module level or inside a function, Python (``ast``,
with ``importlib.import_module`` / ``__import__`` of a literal name) and Cython
(``.pyx`` and its ``.pxd``: ``cimport`` and ``import`` lines); tests are left
out (they may import anything). Not seen: names built at run time (the
``--impl module:attribute`` form, ``python -m`` subprocesses). ``python -m conformance.tools.imports``
prints the edges between packages and exits 1 on a circle or an upward edge.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("chunkers", "vectors.model", "vectors.impls", "vectors", "conformance", "fuzz")
PACKAGES = tuple(dict.fromkeys(layer.split(".")[0] for layer in LAYERS))
"""The top-level packages the layers live in."""
_CYTHON_FROM = re.compile(r"\s*from\s+([\w.]+)\s+c?import\s+\(?\s*([\w\s,]+)")
_CYTHON_IMPORT = re.compile(r"\s*c?import\s+([\w.\s,]+)")
_DYNAMIC = {"import_module", "__import__"}     # importlib.import_module("a.b"), __import__("a"): literal names


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Module name -> source file, for every package in PACKAGES (tests and build outputs left out)."""
    out = {}
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*")):
            rel = p.relative_to(root)
            if p.suffix not in (".py", ".pyx") or "tests" in rel.parts or any(
                    x.startswith(".") or x == "build" for x in rel.parts):
                continue
            name = ".".join(rel.with_suffix("").parts)
            out[name.removesuffix(".__init__")] = p
    return out


def _resolve(name: str, mods) -> str | None:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def _declarations_only(name: str, root: Path) -> bool:
    """True if module ``name`` is a .pxd alone (C declarations, cimported: nothing imported at run time)."""
    stem = root.joinpath(*name.split("."))
    return stem.with_suffix(".pxd").exists() and not any(stem.with_suffix(x).exists() for x in (".pyx", ".py"))


def _cython_imports(src: str, root: Path) -> list[str]:
    """Dotted names a .pyx/.pxd imports or cimports (line by line; a .pxd alone is no import)."""
    found = []
    for line in src.splitlines():
        m = _CYTHON_FROM.match(line)
        if m and not _declarations_only(m.group(1), root):
            found += [f"{m.group(1)}.{n.strip()}" for n in m.group(2).split(",") if n.strip()]
        elif not m and (m := _CYTHON_IMPORT.match(line)):
            found += [n.split()[0] for n in m.group(1).split(",") if n.strip() and not
                      _declarations_only(n.split()[0], root)]
    return found


def _python_imports(name: str, path: Path, src: str) -> list[str]:
    """Dotted names a Python module imports: import statements anywhere (functions too) and
    importlib.import_module / __import__ of a literal name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(src, str(path))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            found += [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in _DYNAMIC \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            found.append(node.args[0].value)
    return found


def _imports(name: str, path: Path, mods, root: Path) -> set[str]:
    if path.suffix == ".pyx":
        pxd = path.with_suffix(".pxd")
        found = _cython_imports(path.read_text() + "\n" + (pxd.read_text() if pxd.exists() else ""), root)
    else:
        found = _python_imports(name, path, path.read_text())
    return {t for t in (_resolve(f, mods) for f in found) if t and t != name}


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    mods = modules(root)
    return {name: _imports(name, path, mods, root) for name, path in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(g) + 100))
    try:
        for v in sorted(g):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def layer_of(module: str) -> str:
    """The layer of ``module``: the longest name in LAYERS that is the module or a package above it."""
    return max((x for x in LAYERS if module == x or module.startswith(x + ".")), key=len)


def package_edges(g: dict[str, set[str]]) -> Counter:
    """(layer, layer it imports) -> number of module-level edges."""
    return Counter((layer_of(m), layer_of(t)) for m, ts in g.items() for t in ts if layer_of(m) != layer_of(t))


def upward(edges: Counter) -> list[tuple[str, str]]:
    """The package edges that point up LAYERS (a lower package importing a higher one)."""
    return sorted(e for e in edges if LAYERS.index(e[0]) < LAYERS.index(e[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m conformance.tools.imports", description=__doc__.split("\n\n")[0])
    ap.parse_args(argv)
    try:
        g = graph()
    except SyntaxError as e:
        print(f"error: cannot read the imports of {e.filename}:{e.lineno}: {e.msg}", file=sys.stderr)
        return 2
    edges = package_edges(g)
    for (a, b), n in sorted(edges.items(), key=lambda e: (LAYERS.index(e[0][0]), LAYERS.index(e[0][1]))):
        print(f"{a:13} -> {b:13} {n:3} module edges")
    bad = 0
    for comp in cycles(g):
        print("import circle: " + " <-> ".join(comp))
        bad += 1
    for a, b in upward(edges):
        who = sorted(m for m, ts in g.items() if layer_of(m) == a and any(layer_of(t) == b for t in ts))
        print(f"upward import: {a} -> {b} (from {', '.join(who)})")
        bad += 1
    print(f"{len(g)} modules in {len(LAYERS)} layers ({len(PACKAGES)} packages; {' < '.join(LAYERS)}): "
          + ("no import circle, no upward import" if not bad else f"{bad} problems"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
