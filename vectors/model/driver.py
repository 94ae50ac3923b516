"""Generic chunking drivers, written from the pure definitions of the spec.

All functions return the list of chunk **sizes** (lengths in bytes, in stream
order; their sum is ``N``).  Positions passed to callbacks are absolute
0-based indices into the stream ``S[0..N-1]``; "offset" ``k`` is relative to
the current chunk start ``a`` (the byte ``S[a+k]``).

* :func:`windowless` -- spec 01 §5.3, literally (per byte restart/feed/test).
* :func:`windowless_scan` -- the same definition, but feeding spans through a
  scan hook with the contract of 01 §5.1 / 02 §4 / 06 §7.2.
* :func:`windowed` -- spec 03 §6.2 / 04 A.5, literally (test, then roll).
* :func:`windowed_scan` -- the same with the scan contract of 03 §5.
* :func:`windowless_from_hits` / :func:`windowed_from_hits` -- the same
  definitions for chunkers whose per-position test depends only on the stream
  position (AES chunkers, 06 §5; window hashes, 03 §3), given the sorted
  positions that pass each mask.
"""

from __future__ import annotations

from bisect import bisect_left

__all__ = ["windowless", "windowless_scan", "windowed", "windowed_scan",
           "windowless_from_hits", "windowed_from_hits", "check_sizes"]


def check_sizes(N: int, min_size: int, max_size: int) -> None:
    """Basic sanity of driver arguments: ``N >= 0``, ``1 <= min_size < max_size``.
    Raises ValueError otherwise."""
    if N < 0:
        raise ValueError("N must be >= 0")
    if not 1 <= min_size < max_size:
        raise ValueError("need 1 <= min_size < max_size")


def _is_strict(nc_level: int, k: int, normal_size: int) -> bool:
    return nc_level > 0 and k < normal_size


def windowless(N, min_size, max_size, mask_s, mask_l, nc_level, normal_size,
               restart, feed, test):
    """Window-less driver, spec 01 §5.3 verbatim.

    ``restart(a) -> st`` gives the state at offset ``min_size`` of the chunk
    starting at absolute position ``a``; ``feed(st, i) -> st`` feeds the byte
    at absolute position ``i``; ``test(st, mask) -> bool`` is the cut test.
    The byte at offset ``k`` uses ``mask_s`` iff ``nc_level > 0 and k <
    normal_size``, else ``mask_l``.  A hit at offset ``k`` cuts after that
    byte (length ``k+1``); no hit -> forced cut at ``min(L, max_size)``;
    ``L <= min_size`` remaining bytes -> one final unhashed chunk.
    Returns the chunk sizes (empty list for ``N == 0``).
    """
    check_sizes(N, min_size, max_size)
    sizes = []
    a = 0
    while a < N:
        L = N - a
        if L <= min_size:
            sizes.append(L)
            break
        lim = min(L, max_size)
        st = restart(a)
        cut = lim
        for k in range(min_size, lim):
            st = feed(st, a + k)
            m = mask_s if _is_strict(nc_level, k, normal_size) else mask_l
            if test(st, m):
                cut = k + 1
                break
        sizes.append(cut)
        a += cut
    return sizes


def windowless_scan(N, min_size, max_size, mask_s, mask_l, nc_level, normal_size,
                    restart, scan):
    """Window-less driver of spec 01 §5.3 using a span scan hook.

    ``scan(p, n, st, mask) -> (r, st_out)`` feeds the bytes at absolute
    positions ``p .. p+n-1`` (end exclusive) in order, testing after each;
    ``r`` is the index (relative to ``p``) of the first hit or -1 (contract
    of 01 §5.1).  The span of one chunk is split only at the strict->loose
    switch (offset ``normal_size``), where the no-hit exit state carries over.
    A return of -2 raises RuntimeError ("backend failed", 06 §9.3).
    Same result as :func:`windowless`.
    """
    check_sizes(N, min_size, max_size)
    sizes = []
    a = 0
    while a < N:
        L = N - a
        if L <= min_size:
            sizes.append(L)
            break
        lim = min(L, max_size)
        st = restart(a)
        cut = lim
        k = min_size
        while k < lim:
            if _is_strict(nc_level, k, normal_size):
                m, end = mask_s, min(lim, normal_size)
            else:
                m, end = mask_l, lim
            r, st = scan(a + k, end - k, st, m)
            if r == -2:
                raise RuntimeError("scan backend failed")
            if r >= 0:
                cut = k + r + 1
                break
            k = end
        sizes.append(cut)
        a += cut
    return sizes


def windowed(N, min_size, max_size, w, mask_s, mask_l, nc_level, normal_size,
             window_hash, roll, test=None):
    """Windowed driver (buzhash64 / buzhash), spec 03 §6.2 verbatim.

    ``window_hash(x) -> h`` is the hash of the ``w`` bytes ``S[x .. x+w-1]``;
    ``roll(h, x) -> h'`` moves the window starting at ``x`` to ``x+1``
    (out ``S[x]``, in ``S[x+w]``); ``test(h, m)`` defaults to ``h & m == 0``.
    Window start offset ``k`` uses ``mask_s`` iff ``nc_level > 0 and k <
    normal_size``.  Test first, then roll; a hit at window start ``k`` cuts
    **before** the window (length ``k``).  Windows starting at offsets
    ``min_size .. lim-w-1`` are tested; ``L <= min_size + w`` remaining bytes
    form one final unhashed chunk.  Returns the chunk sizes.
    """
    check_sizes(N, min_size, max_size)
    if test is None:
        def test(h, m):
            return h & m == 0
    sizes = []
    a = 0
    while a < N:
        L = N - a
        if L <= min_size + w:
            sizes.append(L)
            break
        lim = min(L, max_size)
        h = window_hash(a + min_size)
        cut = lim
        for k in range(min_size, lim - w):
            m = mask_s if _is_strict(nc_level, k, normal_size) else mask_l
            if test(h, m):
                cut = k
                break
            h = roll(h, a + k)
        sizes.append(cut)
        a += cut
    return sizes


def windowed_scan(N, min_size, max_size, w, mask_s, mask_l, nc_level, normal_size,
                  window_hash, scan):
    """Windowed driver of spec 03 §6.2 using the scan contract of 03 §5.

    ``scan(x, n, h, m) -> (j, h_out)``: ``h`` is the hash of the window
    starting at absolute ``x``; performs at most ``n`` test-then-roll steps
    and returns the number ``j`` of rolls done, stopping early (``j < n``)
    when the window at ``x+j`` passes the test.  With ``j == n`` the window at
    ``x+n`` has been computed but not tested.  Same result as
    :func:`windowed`.
    """
    check_sizes(N, min_size, max_size)
    sizes = []
    a = 0
    while a < N:
        L = N - a
        if L <= min_size + w:
            sizes.append(L)
            break
        lim = min(L, max_size)
        h = window_hash(a + min_size)
        cut = lim
        k = min_size
        last = lim - w          # window starts k < last are tested
        while k < last:
            if _is_strict(nc_level, k, normal_size):
                m, end = mask_s, min(last, normal_size)
            else:
                m, end = mask_l, last
            n = end - k
            j, h = scan(a + k, n, h, m)
            if j < n:
                cut = k + j
                break
            k = end
        sizes.append(cut)
        a += cut
    return sizes


def _first_hit(hits, lo, hi):
    """Smallest element ``x`` of the sorted list ``hits`` with ``lo <= x < hi``,
    or None."""
    idx = bisect_left(hits, lo)
    if idx < len(hits) and hits[idx] < hi:
        return hits[idx]
    return None


def windowless_from_hits(N, min_size, max_size, nc_level, normal_size, hits_s, hits_l):
    """Spec 01 §5.3 for position-pure tests (AES chunkers, 06 §5).

    ``hits_s`` / ``hits_l``: sorted absolute positions ``i`` whose test passes
    under the strict / loose mask (the byte at ``i`` is the one just fed).
    Offsets ``k < normal_size`` (when ``nc_level > 0``) use ``hits_s``.
    Same result as :func:`windowless` whenever the test outcome at position
    ``i`` does not depend on the chunk start.
    """
    check_sizes(N, min_size, max_size)
    sizes = []
    a = 0
    while a < N:
        L = N - a
        if L <= min_size:
            sizes.append(L)
            break
        lim = min(L, max_size)
        x = None
        k = min_size
        if nc_level > 0 and k < normal_size:
            end = min(lim, normal_size)
            x = _first_hit(hits_s, a + k, a + end)
            k = end
        if x is None and k < lim:
            x = _first_hit(hits_l, a + k, a + lim)
        cut = lim if x is None else x - a + 1
        sizes.append(cut)
        a += cut
    return sizes


def windowed_from_hits(N, min_size, max_size, w, nc_level, normal_size, hits_s, hits_l):
    """Spec 03 §6.2 for position-pure window tests.

    ``hits_s`` / ``hits_l``: sorted absolute window **start** positions ``x``
    whose window hash ``H(S[x..x+w-1])`` passes the strict / loose mask.
    Same result as :func:`windowed` (the window hash depends only on the
    window content, 03 §3).
    """
    check_sizes(N, min_size, max_size)
    sizes = []
    a = 0
    while a < N:
        L = N - a
        if L <= min_size + w:
            sizes.append(L)
            break
        lim = min(L, max_size)
        last = lim - w
        x = None
        k = min_size
        if nc_level > 0 and k < normal_size:
            end = min(last, normal_size)
            if end > k:
                x = _first_hit(hits_s, a + k, a + end)
            k = max(k, end)
        if x is None and k < last:
            x = _first_hit(hits_l, a + k, a + last)
        cut = lim if x is None else x - a
        sizes.append(cut)
        a += cut
    return sizes
