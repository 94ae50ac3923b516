"""Deliberately wrong adapters that test the suite itself (issue 9), used as
``--impl conformance.tests.probes:NAME`` by test_probes.py:

* :class:`Raising`: lists our kernels but raises on every chunking call, so a
  run under it must report 0 passed (every verdict under --impl is about the
  implementation);
* :class:`OneCutMoved`: our chunkers, except that the first cut of every run of
  one kernel (:data:`FAMILY`/:data:`KERNEL`) is moved one byte later, so both
  pytest and the main job must fail naming exactly that kernel.
"""

from vectors import impls
from vectors.impls.families import family_of

FAMILY, KERNEL = "fastcdc", "blockwise"
"""The corrupted kernel of OneCutMoved (blockwise: it runs on every CPU and is not the default)."""


class Raising(impls.Ours):
    """Every call that would chunk raises; the kernel lists are ours."""

    name = "probe-raising"

    def chunks(self, params, source, **kw):
        raise RuntimeError("probe-raising: this adapter raises on every call")

    def chunk_sizes(self, params, source, **kw):
        raise RuntimeError("probe-raising: this adapter raises on every call")


class OneCutMoved(impls.Ours):
    """Our chunkers with the first cut of each FAMILY/KERNEL run one byte later (chunk 0 one byte
    longer, chunk 1 one byte shorter; runs of fewer than two chunks or a 1-byte second chunk are
    left alone)."""

    name = "probe-one-cut"

    def chunks(self, params, source, *, kernel, **kw):
        got = list(super().chunks(params, source, kernel=kernel, **kw))
        if family_of(params[0]) != FAMILY or kernel != KERNEL or len(got) < 2 or got[1][0] < 2:
            return iter(got)
        (a, da), (b, db) = got[:2]
        whole = (bytes(a) if da is None else bytes(da)) + (bytes(b) if db is None else bytes(db))
        first, second = whole[:a + 1], whole[a + 1:]
        got[:2] = [(a + 1, None if first.count(0) == len(first) else first),
                   (b - 1, None if second.count(0) == len(second) else second)]
        return iter(got)

    def chunk_sizes(self, params, source, **kw):
        return [size for size, _ in self.chunks(params, source, **kw)]
