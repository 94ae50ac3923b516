"""``ours``: this project's chunkers, every kernel of chunkers.kernels(), each run's provenance checked."""

from __future__ import annotations

import functools

import chunkers
from chunkers.api import credential, make_chunker

from vectors.impls.base import Implementation
from vectors.impls.families import family_of
from vectors.impls.provenance import check_chunker


class Ours(Implementation):
    """This project's chunkers (chunkers.make_chunker), every kernel of the inventory."""

    name = "ours"
    sparse = True
    kept_chunks = True

    def kernels(self, family):
        return [(r.kernel, r.reason) for r in chunkers.kernels() if r.family == family]

    def chunks(self, params, source, *, key, seed, kernel, normal_size=0, sparse=False):
        chunker = _chunker(params, key, seed, kernel, normal_size, sparse)
        for c in chunker.chunkify(source):
            yield c.size, c.data
        _check_provenance(params, kernel, chunker)

    def chunk_sizes(self, params, source, *, key, seed, kernel, normal_size=0):
        chunker = _chunker(params, key, seed, kernel, normal_size)
        sizes = chunker.chunk_sizes(source)
        _check_provenance(params, kernel, chunker)
        return sizes


def _check_provenance(params, kernel, chunker):
    # raises vectors.impls.provenance.ProvenanceError when the code that ran is not the kernel's own
    check_chunker(family_of(params[0]), kernel, chunker)


@functools.lru_cache(maxsize=256)
def _chunker(params, key, seed, kernel, normal_size, sparse=False):
    # cached: chunkers are reusable, and table derivation costs more than a short run
    takes = credential(params)      # each chunker gets only what it takes (make_chunker refuses the rest)
    return make_chunker(params, key=key if takes == "key" else None, seed=seed if takes == "seed" else None,
                        kernel=kernel, normal_size=normal_size, sparse=sparse)
