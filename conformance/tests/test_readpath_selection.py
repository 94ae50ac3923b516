"""The main job's read-path and kernel-selection rows (conformance.run.readpath, .selection): they
pass on ours and on the stub borg, say so where an implementation has no such option (the model),
and each fails for the planted fault it names: a reader that drops a trailing hole or takes a short
read for the end, chunk data overwritten by a later stream, a reference, default, precedence,
defaults-file or bad-name fault in selection. Bad input (a file that grows, shrinks or vanishes, a
file system without holes, no tmp directory) is one line in its row, never a traceback."""

import os

import pytest

import chunkers
import chunkers.fastcdc
from chunkers import registry
from vectors import impls
from conformance.run import job, readpath, selection
from conformance.tests.test_impls import stub_borg  # noqa: F401  (the fixture)

pytestmark = pytest.mark.ours_only
SEED = 5


def _rows(impl):
    return {r.check: r for r in readpath.rows(impl, SEED) + selection.rows(impl)}


def _failed(row, text):
    assert row.status == "failed" and any(text in str(p) for p in row.problems), (row.note, row.problems)


def test_ours_passes_every_row():
    rows = _rows(impls.Ours())
    assert set(rows) == {"sparse files", "hostile reads", "kept chunks", "large files", "reference", "default",
                         "precedence", "defaults file", "bad names"}
    for r in rows.values():
        assert r.status == "passed" or (r.check == "sparse files" and "reports no holes" in r.note), r
    assert rows["sparse files"].runs == len(readpath.PARAMS) * len(readpath.LAYOUTS) * 4   # sparse x how
    assert rows["kept chunks"].runs == 6
    assert rows["large files"].runs == len(readpath.LARGE_PARAMS) * 2     # by descriptor and by file object


def test_the_model_has_no_sparse_option_and_no_selection():
    rows = _rows(impls.Model())
    assert rows["sparse files"].status == "skipped" and "model has no sparse option" in rows["sparse files"].note
    assert rows["sparse files"].runs == len(readpath.PARAMS) * len(readpath.LAYOUTS) * 2   # sparse=False ran
    assert rows["hostile reads"].status == "passed"
    assert rows["kept chunks"].status == "skipped"
    assert rows["large files"].status == "skipped" and "reads a file whole" in rows["large files"].note
    assert rows["kernel selection"].status == "skipped" and "no kernel selection" in rows["kernel selection"].note


def test_the_stub_borg_reads_sparse_files_and_selects_by_demand(stub_borg):  # noqa: F811
    rows = _rows(stub_borg)
    assert {c: r.status for c, r in rows.items()} == {
        "sparse files": "passed", "hostile reads": "passed", "kept chunks": "skipped", "large files": "passed",
        "reference": "passed", "default": "passed", "demand": "passed"}
    assert "valid past its next chunk" in rows["kept chunks"].note


def test_a_borg_whose_kernel_attribute_lies_fails_demand(stub_borg, monkeypatch):  # noqa: F811
    monkeypatch.setenv("BORG_STUB_FAULT", "kernel")     # fastcdc reports scalar whatever runs
    _failed(_rows(stub_borg)["demand"], "BORG_FASTCDC_KERNEL='blockwise'")


class TrailingHoleDropped(impls.Ours):
    """sparse=True loses the zeros after a file's last data."""

    def chunks(self, params, source, *, sparse=False, **kw):
        if sparse:
            source = impls.base.as_file(source).read().rstrip(b"\0")
        return super().chunks(params, source, **kw)


class ShortReadIsTheEnd(impls.Ours):
    """Takes the first read of a file object or descriptor for the whole stream."""

    def chunks(self, params, source, **kw):
        if isinstance(source, int) or hasattr(source, "read"):
            source = impls.base.as_file(source).read(1 << 20)
        return super().chunks(params, source, **kw)


class OneBuffer(impls.Ours):
    """Every stream's chunks are views into one buffer, refilled by the next stream."""

    buf = bytearray(8 << 20)

    def chunks(self, params, source, **kw):
        data = impls.base.as_file(source).read() if hasattr(source, "read") else bytes(source)
        self.buf[:len(data)] = data
        pos = 0
        for size, _ in super().chunks(params, data, **kw):
            yield size, memoryview(self.buf)[pos:pos + size]
            pos += size


def test_a_dropped_trailing_hole_fails_the_sparse_row():
    _failed(readpath.rows(TrailingHoleDropped(), SEED)[0], "hole at the end")


def test_a_short_read_taken_for_the_end_fails_the_hostile_row():
    rows = readpath.rows(ShortReadIsTheEnd(), SEED)
    assert rows[0].status == "passed"           # a regular file gives whole reads
    _failed(rows[1], "a file object giving odd short reads")


def test_chunks_overwritten_by_a_later_stream_fail_the_kept_row():
    _failed(readpath.rows(OneBuffer(), SEED)[2], "compared after 2 later streams")


class HalfBlockIsTheEnd(impls.Ours):
    """Reads a file source through a reader whose reads stop at the first 2 MiB boundary after 4 MiB
    (a block's halves joined wrong, or the second half's bytes lost), as a FileIO would not."""

    def chunks(self, params, source, **kw):
        if isinstance(source, int) or hasattr(source, "read"):
            source = impls.base.as_file(source).read()[:(4 << 20) + (2 << 20)]
        return super().chunks(params, source, **kw)


def test_a_file_cut_short_at_a_half_block_fails_the_large_row():
    rows = readpath.rows(HalfBlockIsTheEnd(), SEED)
    _failed(rows[3], "7352377 bytes by descriptor")
    _failed(rows[3], "by unbuffered file object")


@pytest.mark.parametrize("change, says", [
    (lambda path: open(path, "ab").write(b"x" * 100), "changed during the check"),
    (lambda path: os.truncate(path, 10), "changed during the check"),
    (os.remove, "vanished during the check"),
])
def test_a_file_that_changes_during_the_sparse_check_is_one_line(monkeypatch, change, says):
    done = []
    read = readpath.read_file

    def changing(impl, params, path, how, sparse):
        got = read(impl, params, path, how, sparse)
        if not done:
            done.append(path)
            change(path)
        return got
    monkeypatch.setattr(readpath, "read_file", changing)
    row = readpath.rows(impls.Ours(), SEED)[0]
    assert row.status == "passed" and f"{done[0]} (hole at the start) {says}" in row.note
    assert row.note.count(says) == 1
    compared = len(readpath.PARAMS) * len(readpath.LAYOUTS) * 4
    assert row.runs == compared - 4 * len(readpath.PARAMS)     # that file not compared from then on, all others


def test_a_file_system_without_holes_is_said(monkeypatch):
    monkeypatch.setattr(readpath, "holes_reported", lambda path: False)
    row = readpath.rows(impls.Ours(), SEED)[0]
    assert row.status == "skipped" and "reports no holes (SEEK_HOLE): sparse reads ran on dense files" in row.note
    assert row.runs == len(readpath.PARAMS) * len(readpath.LAYOUTS) * 4


def test_a_tmp_directory_that_cannot_hold_files_is_one_row(tmp_path):
    (row,) = readpath.rows(impls.Ours(), SEED, tmp=str(tmp_path / "missing"))
    assert row.status == "skipped" and row.note.startswith("no files could be made in the tmp directory")


class Raising(impls.Model):
    """Raises on every input, the bytes in memory included; has selectors it cannot answer."""

    selectors = {"fastcdc": "X_KERNEL"}

    def chunks(self, params, source, **kw):
        raise OSError("no")

    def kernels(self, family):
        raise RuntimeError("no list")


def test_an_adapter_that_raises_fails_each_row_in_one_line():
    rows = readpath.rows(Raising(), SEED) + selection.rows(Raising())
    assert [r.status for r in rows] == ["failed", "failed", "skipped", "skipped", "failed", "failed", "failed"]
    # no kept chunks; a model reads whole
    assert "OSError: no" in str(rows[0].problems[0]) and "RuntimeError: no list" in str(rows[-1].problems[0])


def _rotated_defaults(monkeypatch):
    """The built-in preference order rotated by one: every family's default is then another kernel
    than documented, on any CPU (whichever order this machine and CPU have)."""
    preference = registry.preference
    monkeypatch.setattr(registry, "preference", lambda family: (*preference(family)[1:], *preference(family)[:1]))


def _env_over_kernel(monkeypatch):
    resolve = chunkers.fastcdc.resolve
    monkeypatch.setattr(chunkers.fastcdc, "resolve",
                        lambda family, requested=None: resolve(family, os.environ.get("CHUNKERS_FASTCDC_KERNEL")
                                                               or requested))


def _file_read_once(monkeypatch):
    cache = {}

    def loaded(path, source=registry.DEFAULTS_ENV):
        if path not in cache:
            cache[path] = registry.load(path, source)
        return cache[path]
    monkeypatch.setattr(registry, "loaded", loaded)


def _fallback_for_bad_names(monkeypatch):
    resolve = chunkers.fastcdc.resolve

    def lenient(family, requested=None):
        try:
            return resolve(family, requested)
        except ValueError:
            return resolve(family, None)
    monkeypatch.setattr(chunkers.fastcdc, "resolve", lenient)


@pytest.mark.parametrize("plant, row, says", [
    (lambda mp: mp.setattr(registry, "reference", lambda f: registry.rows(f)[0].name), "reference",
     "fastcdc: the reference kernel chunkers.registry uses"),
    (_rotated_defaults, "default", "fastcdc: the kernel of a chunker made without one"),
    (_env_over_kernel, "precedence", "fastcdc: kernel= and the variable"),
    (_file_read_once, "defaults file", "read before, once CHUNKERS_CPU_HIDE="),
    (_fallback_for_bad_names, "bad names", "fastcdc: kernel='no-such-kernel'"),
])
def test_each_selection_fault_fails_its_row(monkeypatch, plant, row, says):
    if row == "defaults file" and selection._needing_feature(
            {f: selection._runnable(f) for f in ("fastcdc", "buzhash64", "aes")}) is None:
        pytest.skip("no kernel that runs here needs a CPU feature")
    plant(monkeypatch)
    rows = {r.check: r for r in selection.rows(impls.Ours())}
    _failed(rows[row], says)


def test_the_user_s_selection_variables_do_not_decide_and_are_restored(monkeypatch):
    monkeypatch.setenv("CHUNKERS_FASTCDC_KERNEL", "scalar")
    assert all(r.status == "passed" for r in selection.rows(impls.Ours()))
    assert os.environ["CHUNKERS_FASTCDC_KERNEL"] == "scalar"


def test_the_main_job_prints_the_rows_and_fails_on_one(monkeypatch, capsys):
    monkeypatch.setattr(job, "_run_all", lambda *a, **kw: None)     # the kernel cells: other tests
    _file_read_once(monkeypatch)
    assert job.run([], SEED, 4096, None, tier_choice="native") == 1
    out = capsys.readouterr().out
    assert "│ read path │ sparse files" in out and "│ selection │ precedence" in out
    assert "FAILED selection/defaults file" in out and f"replay: python -m conformance --seed {SEED}\n" in out
