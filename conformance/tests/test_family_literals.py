"""The family table holds the tree (conformance.tools.family_literals): no chunker or family name
written as a string outside chunkers/families.py and the places allowed to."""

import pytest

from chunkers.families import CHUNKERS, FAMILIES
from conformance.tools import family_literals as fl


def _source_checkout():
    if not (fl.ROOT / "fuzz").is_dir() or not (fl.ROOT / "chunkers" / "driver.pyx").is_file():
        pytest.skip("not a source checkout (an installed suite has no fuzz/ and no .pyx)")


def test_no_family_literal_outside_the_table():
    """Every family literal of the tree is in the table, a family's own module, an allowed file, a
    line marked as another sense."""
    _source_checkout()
    names = fl.table_names()
    found = fl.literals(names=names)
    assert fl.outside(found, names) == []


def test_the_checker_reads_the_table():
    """table_names reads every chunker and family of chunkers/families.py, each with its family
    (by ast, so that it also reads a tree it does not import)."""
    _source_checkout()
    assert fl.table_names() == {**{f: f for f in FAMILIES}, **{c.name: c.family for c in CHUNKERS.values()}}


def _tree(tmp_path, files: dict):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return fl.literals(tmp_path)


TABLE = ('FAMILIES = [Family("hashy", "CHUNKERS_HASHY_KERNEL", ()), Family("blocky", None, None)]\n'
         'CHUNKERS = [Chunker("hashy", "hashy", "Hashy"), Chunker("hashy-two", "hashy", "HashyTwo"),\n'
         '            Chunker("blocky", "blocky", "Blocky")]\n')


def test_the_checker_catches_a_planted_literal(tmp_path):
    """In a tree whose table lists the families hashy (chunkers hashy, hashy-two) and blocky: a name
    and a params string planted in a product module and in a Cython module are found, as is a
    family named in another family's own module; the table, tests, docstrings, comments, a
    family's own module naming its own chunkers and a line marked 'not a family' are not."""
    found = _tree(tmp_path, {
        "chunkers/families.py": TABLE,
        "chunkers/api.py": 'def f(a):\n    """hashy in a docstring."""\n    return a == "hashy-two"  # hashy\n',
        "chunkers/bench.py": 'P = ["hashy,1,2,3"]\nQ = "hashy2"\n',
        "chunkers/driver.pyx": 'def g():\n    # "blocky" in a comment\n    return "blocky"\n',
        "chunkers/hashy.pyx": 'NAME = "hashy"\nOTHER = "hashy-two"\n',
        "vectors/model/two.py": 'NAME = "hashy-two"\n',
        "vectors/model/blocky.py": 'X = "hashy"\nY = "blocky"\n',
        "fuzz/scan_diff_hashy.py": 'T = "hashy"\n',
        "vectors/x.py": 'KIND = ("blocky", "custom")    # a blocky key: not a family\n',
        "conformance/tests/test_x.py": 'N = "hashy"\n',
        "conformance/conftest.py": 'N = "blocky"\n',
    })
    names = fl.table_names(tmp_path)
    assert names == {"hashy": "hashy", "blocky": "blocky", "hashy-two": "hashy"}
    got = sorted((x.path, x.line, x.name) for x in fl.outside(found, names))
    assert got == [("chunkers/api.py", 3, "hashy-two"), ("chunkers/bench.py", 1, "hashy"),
                   ("chunkers/driver.pyx", 3, "blocky"), ("vectors/model/blocky.py", 1, "hashy")]
    assert ("vectors/model/two.py", 1, "hashy-two") not in got     # "two": a word of hashy-two's name
