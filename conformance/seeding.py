"""Replayable Hypothesis runs for the pytest suite (issue 12): every property test draws its
examples deterministically, so a failure reproduces on the next run and on any machine.

Profiles (``CHUNKERS_HYPOTHESIS_PROFILE``, default ``conformance``):

* ``conformance``: ``derandomize=True`` (examples are a pure function of the test), no
  example database (nothing carried over from earlier runs), the failing example printed
  with its ``@reproduce_failure`` blob;
* ``explore``: random examples for a local search; Hypothesis prints the seed of a failing
  run (``--hypothesis-seed`` replays it). Never the default, so CI stays deterministic.
"""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE_ENV = "CHUNKERS_HYPOTHESIS_PROFILE"

settings.register_profile("conformance", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, print_blob=True)


def load() -> str:
    """Load the profile named by the environment (default ``conformance``); returns its name.
    ValueError (from Hypothesis) for an unknown profile name."""
    name = os.environ.get(PROFILE_ENV) or "conformance"
    settings.load_profile(name)
    return name


def header(name: str) -> str:
    """The pytest header line saying how the examples are drawn."""
    how = "derandomized, replayable" if settings.get_profile(name).derandomize else "random; a failure prints its seed"
    return f"hypothesis profile: {name} ({how}; {PROFILE_ENV} selects another)"
