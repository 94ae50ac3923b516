"""The packages' import graph (conformance.tools.imports): no circle, no upward import."""

import pytest

from conformance.tools import imports


def test_no_import_circle_and_no_upward_import():
    """Every module of chunkers, vectors (its model and adapters too), conformance and fuzz (tests left out) imports
    only modules of its own layer or of a layer before it in imports.LAYERS, and no circle."""
    if not (imports.ROOT / "fuzz").is_dir() or not (imports.ROOT / "chunkers" / "driver.pyx").is_file():
        pytest.skip("not a source checkout (an installed suite has no fuzz/ and no .pyx)")
    g = imports.graph()
    assert {"chunkers.driver", "vectors.impls", "vectors.model.fastcdc", "vectors.generate", "conformance.run.job", "fuzz.harness"} <= set(g)
    assert imports.cycles(g) == []
    assert imports.upward(imports.package_edges(g)) == []


def _tree(tmp_path, files: dict):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return imports.graph(tmp_path)


def test_the_checker_sees_circles_inside_functions_and_upward_imports(tmp_path):
    """A circle held together by an import inside a function, a relative import, and a product
    module importing the suite are all found."""
    g = _tree(tmp_path, {
        "chunkers/__init__.py": "",
        "chunkers/a.py": "from . import b\n",
        "chunkers/b.py": "def f():\n    from chunkers.a import x\n",
        "chunkers/c.py": "import conformance.job\n",
        "chunkers/e.py": "import importlib\nm = importlib.import_module('vectors.gen')\n",
        "vectors/__init__.py": "",
        "vectors/gen.py": "",
        "conformance/__init__.py": "",
        "conformance/job.py": "from chunkers import c\n",
    })
    assert imports.cycles(g) == [["chunkers.a", "chunkers.b"], ["chunkers.c", "conformance.job"]]
    assert imports.upward(imports.package_edges(g)) == [("chunkers", "conformance"), ("chunkers", "vectors")]


def test_cython_cimports_of_declarations_are_no_imports(tmp_path):
    """In a .pyx and its .pxd, ``cimport`` of a .pxd alone (C declarations) imports nothing at run
    time; a cimport or import of a module is an edge, each name of a list one."""
    g = _tree(tmp_path, {
        "chunkers/__init__.py": "from chunkers import d\n",
        "chunkers/_native.pxd": "",
        "chunkers/pool.pyx": "",
        "chunkers/pool.pxd": "",
        "chunkers/d.pyx": "from chunkers._native cimport (x,\n    y)\nfrom chunkers cimport pool\n"
                           "import chunkers.a, chunkers.b\n",
        "chunkers/d.pxd": "from chunkers cimport c\n",
        "chunkers/a.py": "", "chunkers/b.py": "", "chunkers/c.pyx": "",
    })
    assert g["chunkers.d"] == {"chunkers.pool", "chunkers.a", "chunkers.b", "chunkers.c"}
    assert imports.cycles(g) == []
