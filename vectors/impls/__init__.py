"""Implementations under test, seen through a small adapter interface.

The golden vectors and the chunk-level checks reach an implementation only
through :class:`Implementation`: which kernels it has per conformance family
(``fastcdc``, ``buzhash64``, ``buzhash``, ``fixed``, ...), and the chunks it
cuts from a bytes-like input or a binary file object. Shipped adapters:

* ``ours`` (default): this project's chunkers, every kernel of chunkers.kernels();
* ``borg``: BorgBackup's ``borg.chunkers`` when installed (skipped otherwise);
* ``model``: the pure-Python model (the model package), one "kernel" ``model``.

:func:`get` also accepts ``module:attribute`` naming an Implementation
subclass or instance, for adapters that live elsewhere.
"""

from __future__ import annotations

import importlib

from vectors.impls.base import Implementation
from vectors.impls.borg import Borg
from vectors.impls.model import Model
from vectors.impls.ours import Ours

REGISTRY = {"ours": Ours, "borg": Borg, "model": Model}
"""The shipped adapters by name."""


def get(name: str) -> Implementation:
    """The implementation called ``name`` (see REGISTRY) or given as ``module:attribute``.

    Raises ValueError for an unknown name or an attribute that is not an Implementation.
    """
    if name in REGISTRY:
        return REGISTRY[name]()
    if ":" not in name:
        raise ValueError(f"unknown implementation {name!r}; known: {', '.join(REGISTRY)} or module:attribute")
    module, _, attr = name.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    impl = obj() if isinstance(obj, type) else obj
    if not isinstance(impl, Implementation):
        raise ValueError(f"{name} is not an impls.Implementation")
    if type(impl).kernels is Implementation.kernels or type(impl).chunks is Implementation.chunks:
        raise ValueError(f"{name} does not implement kernels() and chunks() (an abstract adapter)")
    return impl


class LoadError(LookupError):
    """Why ``--impl NAME`` cannot be used, as one line starting ``--impl NAME:``."""


def load(name: str, available: bool = True) -> Implementation:
    """:func:`get` as every ``--impl`` option uses it (the main job, pytest, conformance.run.cross, the
    fuzz targets): LoadError (one line) when ``name`` cannot be loaded and, with ``available``,
    when the implementation is unavailable here (``unavailable()``; the callers that offer
    --allow-missing ask with ``available=False`` and decide themselves)."""
    try:
        impl = get(name)
    except (ValueError, ImportError, AttributeError) as e:
        raise LoadError(f"--impl {name}: {e}".replace("\n", " ")) from None
    reason = impl.unavailable() if available else None
    if reason:
        raise LoadError(f"--impl {name}: {reason}")
    return impl
