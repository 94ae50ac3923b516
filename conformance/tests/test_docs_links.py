"""The reference pages (README.md, docs/*.md, fuzz/README.md): every relative link and #anchor
resolves, no page but the measurement log dates what it says (conformance.tools.doclinks), and
docs/kernels.md's kernel table is the kernel lists' rows. Ours-only: these check this checkout."""

import re

import pytest

import chunkers
from chunkers import registry
from chunkers.kernelrow import PORTABLE
from conformance.tools import doclinks


pytestmark = pytest.mark.ours_only     # this project's documentation


@pytest.fixture
def pages():
    found = doclinks.reference_pages()
    if not any(p.name == "kernels.md" for p in found):
        pytest.skip("not a source checkout (an installed suite has no docs/)")
    return found


def test_every_link_and_anchor_resolves(pages):
    assert [str(p) for p in pages for p in doclinks.broken_links(p)] == []


def test_no_reference_page_keeps_a_diary(pages):
    """Dates, commit hashes and "an hour before" belong in docs/measurements.md only."""
    assert [str(p) for p in pages for p in doclinks.dated_lines(p)] == []


def test_the_log_is_linked_from_the_pages_that_measure(pages):
    by_name = {p.relative_to(doclinks.ROOT).as_posix(): p.read_text() for p in pages}
    assert doclinks.LOG in by_name
    for page in ("docs/benchmarks.md", "docs/read-path.md", "docs/kernels.md", "fuzz/README.md"):
        assert "measurements.md" in by_name[page], page


@pytest.mark.parametrize("heading, slug", [
    ("Side by side with borg", "side-by-side-with-borg"),
    ("`python -m chunkers bench`", "python--m-chunkers-bench"),
    ("Defaults that fit the CPU (`tune`)", "defaults-that-fit-the-cpu-tune"),
    ("Predicted on other CPUs (llvm-mca)", "predicted-on-other-cpus-llvm-mca"),
    ("Ours / borg with read-ahead, fixed's views", "ours--borg-with-read-ahead-fixeds-views"),
    ("Fuzzing another implementation: `--impl` (borg)", "fuzzing-another-implementation---impl-borg"),
    ("2026-12-05: Zen 4 VM, AVX-512 exposed", "2026-12-05-zen-4-vm-avx-512-exposed"),
    ("See [the log](docs/measurements.md) *now*", "see-the-log-now"),
])
def test_slugs_follow_github(heading, slug):
    # the expected slugs are the anchors GitHub gives these headings
    assert doclinks.slug(heading) == slug


def _page(tmp_path, text, name="page.md"):
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## A section\n\n## A section\n")
    page = tmp_path / name
    page.write_text(text)
    return page


def test_the_checker_catches_a_planted_broken_link(tmp_path):
    page = _page(tmp_path, "# Page\n\n## Here\n\n"
                 "[ok](docs/other.md) [ok](docs/other.md#a-section) [ok](docs/other.md#a-section-1) [ok](#here)\n"
                 "[ok](https://example.org/missing) `[code](missing.md)`\n"
                 "```\n[fenced](missing.md)\n```\n"
                 "[missing file](docs/nothere.md)\n"
                 "[missing anchor](docs/other.md#a-section-2)\n"
                 "[missing own anchor](#there)\n"
                 "[ref]: docs/gone.md\n")
    found = [(p.line, p.text) for p in doclinks.broken_links(page)]
    assert found == [(10, "link to docs/nothere.md: docs/nothere.md does not exist"),
                     (11, "link to docs/other.md#a-section-2: no heading #a-section-2 in other.md"),
                     (12, "link to #there: no heading #there in page.md"),
                     (13, "link to docs/gone.md: docs/gone.md does not exist")]


def test_the_checker_catches_planted_diary_lines(tmp_path):
    page = _page(tmp_path, "# Page\n\n"
                 "Measured on 2026-12-04 (the VM ran slower than an hour before).\n"
                 "The driver at 1c3999a was slower.\n"
                 "On December 3, 2026 it was.\n"
                 "Current figures ([log](docs/measurements.md#2026-12-04-zen-5-vm)), 0x1f and 4096 bytes.\n")
    assert [(p.line, p.text.split(" (")[0]) for p in doclinks.dated_lines(page)] == [
        (3, "a date"), (4, "a commit"), (5, "a date")]


def test_the_command_line_reports_and_fails(tmp_path, capsys):
    page = _page(tmp_path, "[x](nothere.md)\n")
    assert doclinks.main([str(page)]) == 1
    assert "nothere.md does not exist" in capsys.readouterr().out
    assert doclinks.main([str(tmp_path / "docs" / "other.md")]) == 0
    assert doclinks.main([str(tmp_path / "absent.md")]) == 2


def _kernel_table(text):
    """{family: (x86-64 names, aarch64 names, elsewhere names, selector)} of the kernel table."""
    section = text.split("## The kernel lists", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("family", "---"):
            continue
        names = [tuple(re.findall(r"`([^`]+)`", c)) for c in cells[1:4]]
        out[cells[0].split()[0]] = (*names, cells[4].strip("`"))
    return out


def test_the_kernel_table_of_docs_is_the_kernel_lists(pages):
    """docs/kernels.md's table (which the README links to) lists, per family and target, the rows of
    csrc/<family>/kernels.def in their order, and the family's selector."""
    text = next(p for p in pages if p.name == "kernels.md").read_text()
    want = {}
    for family in chunkers.registry.families():
        rows = registry.rows(family)
        if len(rows) < 2:
            continue            # fixed: one implementation, no selector
        on = [tuple(k.name for k in rows if k.target in (target, PORTABLE)) for target in ("x86-64", "aarch64")]
        want[family] = (*on, tuple(k.name for k in rows if k.target == PORTABLE), registry._family(family).env_var)
    assert _kernel_table(text) == want
