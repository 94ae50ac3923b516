"""What a run under ``--impl X`` actually checked of X (issue 9), shared by the
pytest plugin and the main job.

* :class:`Counting` wraps the implementation under test and counts the calls
  that reach it, so a check that passes without ever calling X is caught
  instead of being reported as X's pass.
* :func:`kernel_differences` lists, per family, the kernels only X lists and
  the kernels only this project lists (by name; where the CPU cannot run one,
  both sides still list it).
* :data:`LEVELS` are the levels a check runs at; the adapter interface
  (impls.Implementation) has no scan entry point, so under any
  ``--impl`` other than ours the scan level is reported as not available
  (:func:`scan_note`) rather than as zero cases.
"""

from __future__ import annotations

from vectors import impls
from conformance.cases.families import FAMILIES

LEVELS = ("vectors", "chunk", "scan")
"""Golden vectors, chunk-level runs (cut points of whole inputs), scan-level (a kernel alone)."""


class Counting(impls.Implementation):
    """``inner`` seen through the adapter interface, counting calls of ``chunks`` and ``chunk_sizes``.

    ``calls`` grows by one per call that reaches ``inner`` (whether it then returns or raises).
    """

    def __init__(self, inner: impls.Implementation):
        self.inner = inner
        self.name = inner.name
        self.sparse, self.kept_chunks, self.selectors = inner.sparse, inner.kept_chunks, inner.selectors
        self.calls = 0

    def unavailable(self):
        return self.inner.unavailable()

    def kernels(self, family):
        return self.inner.kernels(family)

    def chunks(self, params, source, **kw):
        self.calls += 1
        return self.inner.chunks(params, source, **kw)

    def chunk_sizes(self, params, source, **kw):
        self.calls += 1
        return self.inner.chunk_sizes(params, source, **kw)

    def selected_kernel(self, family, value):
        return self.inner.selected_kernel(family, value)


def scan_note(impl: impls.Implementation) -> str:
    """The scan level's entry for an implementation other than ours."""
    return f"not available ({impl.name} has no scan API)"


def kernel_differences(impl: impls.Implementation, families=None) -> list[tuple[str, list[str], list[str]]]:
    """``(family, only impl, only ours)`` kernel names for every family (of ``families``; None: all)
    where the two lists differ (families one side lacks entirely included). Names come from
    ``kernels(family)`` of both sides, runnable here or not."""
    ours = impls.Ours()
    out = []
    for family in (f for f in FAMILIES if not families or f in families):    # each once, in FAMILIES order
        theirs = [k for k, _ in impl.kernels(family)]
        mine = [k for k, _ in ours.kernels(family)]
        only_theirs, only_mine = [k for k in theirs if k not in mine], [k for k in mine if k not in theirs]
        if only_theirs or only_mine:
            out.append((family, only_theirs, only_mine))
    return out


def format_differences(impl: impls.Implementation, diffs) -> list[str]:
    """Two lines naming the kernels only ``impl`` lists and only ours lists (``none`` when equal)."""
    def side(i):
        items = [f"{family}/{k}" for family, *lists in diffs for k in lists[i]]
        return ", ".join(items) or "none"
    return [f"kernels only {impl.name} lists: {side(0)}", f"kernels only ours lists: {side(1)}"]
