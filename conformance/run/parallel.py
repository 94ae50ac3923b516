"""The main job's ``--jobs N`` and its handling of SIGINT / SIGTERM.

Families are independent (each has its own reference kernel and reference
sizes), so ``--jobs N`` runs them in N worker processes (forked: the
implementation under test and the walked file list are inherited, nothing is
pickled but the results). Workers ignore SIGINT; the parent turns SIGINT and
SIGTERM into :class:`Interrupted`, stops the workers and keeps what finished,
so a partial matrix and report can still be written.
"""

from __future__ import annotations

import multiprocessing
import signal
from contextlib import contextmanager


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived; ``signum`` says which (exit status 128 + signum)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def interruptible():
    """Within the block, SIGINT and SIGTERM raise Interrupted (in the main thread); the previous
    handlers are restored on exit."""
    def handler(signum, _frame):
        raise Interrupted(signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except KeyboardInterrupt:       # raised by C code that checked signals under the default handler
        raise Interrupted(signal.SIGINT) from None
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


_TASK = None    # (function, args) for the forked workers


def _work(family: str):
    fn, args = _TASK
    return family, fn(family, *args)


def map_families(fn, families: list[str], jobs: int, *args) -> dict:
    """``{family: fn(family, *args)}`` computed in ``jobs`` worker processes (in this process
    when ``jobs`` is 1). On Interrupted the workers are stopped and the exception carries
    ``partial``: the results that had finished."""
    global _TASK
    if jobs <= 1:
        return {f: fn(f, *args) for f in families}
    _TASK = (fn, args)
    results: dict = {}
    pool = multiprocessing.get_context("fork").Pool(min(jobs, len(families)), initializer=_ignore_sigint)
    try:
        for family, result in pool.imap_unordered(_work, families):
            results[family] = result
        pool.close()
    except Interrupted as e:
        pool.terminate()
        e.partial = results
        raise
    finally:
        pool.join()
        _TASK = None
    return results
