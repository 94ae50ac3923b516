"""Each kernel row's function is its own file's code (issue 35): compiled from the row's
``chunkers/csrc/<family>/<kernel>.c`` per the extension's DWARF (conformance.tools.isa), and
the provenance recorded at run time names that file (csrc/kernel.h, CK_RECORD).

Two portable rows of one list with their functions swapped give identical output, identical
instruction classes and (their symbols naming each other's rows) identical recorded names;
the source file is what tells them apart. Also the limit-boundary catalogue
(conformance.cases.fastcdc_limits): each case puts the lane it names at its limit, alone in its block.
"""

import os
import random
import shutil
import subprocess

import pytest

import chunkers
from conformance.cases import fastcdc_limits as limits
from conformance.cases.kernels import table
from conformance.run import cross, proof
from conformance.tools import isa
from vectors.impls import provenance
from conformance.tests.params import kernel_params

pytestmark = pytest.mark.ours_only

PARAMS = {"fastcdc": "fastcdc,6,12,8,2", "buzhash64": "buzhash64,6,12,8,65,2", "buzhash": "buzhash,6,12,8,65",
          "aes": "rabin-aes,6,12,8,2"}


def _files(family: str):
    path = isa.extension(family)
    try:
        return isa.source_problems(path, family), isa.registry(path, family)[1]
    except isa.NoDebugInfo as e:
        pytest.skip(f"{isa.NO_DEBUG_INFO}: {e}")


@pytest.mark.parametrize("family", list(isa.REGISTRIES))
def test_row_functions_are_compiled_from_their_own_files(family, record_provenance):
    problems, rows = _files(family)
    assert problems and set(problems) == {k.name for k in rows if k.symbol}, f"{family}: rows without a check"
    assert not [p for ps in problems.values() for p in ps], "\n".join(p for ps in problems.values() for p in ps)
    # the DWARF read tells the rows' files apart: one compilation unit per row, each a different file
    files = isa.defining_files(isa.extension(family))
    units = [files[k.address][0] for k in rows if k.symbol]
    assert len(set(units)) == len(units), f"{family}: rows share a compilation unit: {units}"
    for kernel in problems:
        record_provenance(family, kernel, f"source ok ({isa.own_source(family, kernel)})")


def test_a_swapped_row_is_named():
    # the check's text for a row whose function comes from another row's file (as fc-row-swap plants)
    problems, rows = _files("fastcdc")
    files = isa.defining_files(isa.extension("fastcdc"))
    scalar = next(k for k in rows if k.name == "scalar")
    unit = files[scalar.address][0]
    assert unit.endswith("chunkers/csrc/fastcdc/scalar.c")
    assert not isa._is(unit, isa.own_source("fastcdc", "blockwise"))


@pytest.mark.parametrize("family_kernel", kernel_params(list(provenance.MODULES)))
def test_recorded_provenance_names_the_rows_file(family_kernel):
    family, kernel = family_kernel
    chunker = chunkers.make_chunker(PARAMS[family], kernel=kernel)
    chunker.chunk_sizes(random.Random(35).randbytes(1 << 16))
    assert chunker.ran_kernel == kernel
    assert provenance.source(family) == f"chunkers/csrc/{family}/{kernel}.c"
    assert chunker.ran_kernel_source == f"chunkers/csrc/{family}/{kernel}.c"    # kept with the chunker


def test_a_recorded_file_of_another_row_is_a_provenance_failure():
    own = "chunkers/csrc/fastcdc/blockwise.c"
    assert provenance.wrong_code("fastcdc", "blockwise", "blockwise", source=own) is None
    text = provenance.wrong_code("fastcdc", "blockwise", "blockwise", source="chunkers/csrc/fastcdc/scalar.c")
    assert "scalar.c" in text and "blockwise.c" in text


def test_the_ran_column_reports_the_source_check():
    _files("fastcdc")
    cell = type("Cell", (), dict(family="fastcdc", kernel="scalar", mismatches=[]))()
    assert "; source ok" in proof.ran_note("ours", cell)


def test_limit_boundary_cases_put_one_lane_at_its_limit():
    cases = limits.cases(1)
    groups = {c.group for c in cases}
    for where in ("first", "last"):
        for lane in range(8):
            for relation in limits.RELATIONS[:3] if lane == 7 else limits.RELATIONS:
                assert f"limit-boundary/{where}/lane{lane}/{relation}" in groups
    for c in cases:
        _prefix, where, lane, relation = c.group.split("/")
        lane = int(lane[4:])
        gear = table("model-fastcdc", c.key)
        states = limits._states(gear, c.data, c.state)
        p = lane if where == "first" else len(c.data) // 8 * 8 - 8 + lane
        limit, bits = limits.lane_limit(c.mask, lane)
        low = states[p] % (1 << bits)
        assert low - limit == {"below": -1, "equal": 0, "above": 1, "equal-top": 0}[relation], c.describe()
        block = range(p - lane, p - lane + 8)
        assert [q for q in block if limits.neon_candidate(states[q], c.mask, q % 8)] == \
            ([p] if relation != "above" else []), c.describe()


def test_the_cross_report_lists_the_limit_boundary_cases():
    # what ci/cross-run prints and writes for each kernel that ran its family's scan catalogue
    rows = [dict(family="fastcdc", kernel="neon", result="passed", cases=1676),
            dict(family="fastcdc", kernel="seg4", result="skipped", cases=0),
            dict(family="buzhash64", kernel="neon", result="passed", cases=900)]
    boundary = cross.boundary_cases()
    assert set(boundary) == {"fastcdc"} and len(boundary["fastcdc"]) == len(limits.cases(cross.SEED))
    lines = cross._boundary_lines(rows, boundary)
    assert len(lines) == 1 and lines[0].startswith("neon") and "of its 1676 scan cases" in lines[0]
    for where in ("first", "last"):
        assert f"{where} block equal lanes 0,1,2,3,4,5,6,7 (" in lines[0]
        assert f"{where} block equal-top lanes 0,1,2,3,4,5,6 (" in lines[0]


def test_an_extension_without_debug_info_is_not_checked_and_says_so(tmp_path, monkeypatch):
    strip = shutil.which("strip")
    if strip is None:
        pytest.skip("no strip (binutils) to make an extension without debug info")
    stripped = tmp_path / os.path.basename(isa.extension("fastcdc"))
    subprocess.run([strip, "--strip-debug", "-o", str(stripped), isa.extension("fastcdc")], check=True)
    with pytest.raises(isa.NoDebugInfo):
        isa.source_problems(str(stripped), "fastcdc")
    assert isa.main([str(stripped)]) == 0        # the instructions are still checked
    monkeypatch.setattr(isa, "extension", lambda family: str(stripped))
    proof.source_problems.cache_clear()
    try:
        assert proof.source_problems() == ({}, "source not checked: no debug info")
        cell = type("Cell", (), dict(family="fastcdc", kernel="scalar", mismatches=[]))()
        assert proof.ran_note("ours", cell).endswith("; source not checked: no debug info")
    finally:
        proof.source_problems.cache_clear()


def test_a_chunker_keeps_the_file_of_its_own_last_scan():
    """A chunker's run that made no scan (input under the minimum size) leaves its last scan's name
    and file; the thread's slot holds another chunker's file by then, which is not this one's."""
    own, other = chunkers.make_chunker(PARAMS["fastcdc"], kernel="blockwise"), \
        chunkers.make_chunker(PARAMS["fastcdc"], kernel="scalar")
    data = random.Random(36).randbytes(1 << 16)
    own.chunk_sizes(data)
    other.chunk_sizes(data)
    assert own.chunk_sizes(bytes(10)) == [10]
    assert provenance.source("fastcdc").endswith("fastcdc/scalar.c")
    assert (own.ran_kernel, own.ran_kernel_source) == ("blockwise", "chunkers/csrc/fastcdc/blockwise.c")
    provenance.check_chunker("fastcdc", "blockwise", own)
