"""The reference kernel of each family is a column of its kernel list (kernels.def's reference flag;
fixed: its single implementation), read through chunkers.registry.reference."""

import pytest

from chunkers import registry

SPEC_REFERENCE = {"fastcdc": "scalar", "buzhash64": "scalar", "aes": "evp", "buzhash": "single", "fixed": "single"}
"""The spec's reference (sequential, portable) kernel of each family."""


def test_every_family_has_a_spec_reference():
    assert set(registry.families()) == set(SPEC_REFERENCE)


@pytest.mark.parametrize("family", sorted(SPEC_REFERENCE))
def test_reference_is_the_spec_reference(family):
    assert registry.reference(family) == SPEC_REFERENCE[family]


@pytest.mark.parametrize("family", sorted(SPEC_REFERENCE))
def test_reference_runs_everywhere(family):
    """One row is marked; it is portable, needs no CPU feature, is built and runs here (with every
    CPU feature hidden too)."""
    (row,) = [k for k in registry.rows(family) if k.reference]
    assert row.name == registry.reference(family)
    assert row.target == registry.PORTABLE and row.cpu == () and row.here and row.built
    assert registry.why_not(family, row.name) is None


def test_reference_runs_with_every_cpu_feature_hidden(monkeypatch):
    from chunkers import cpu_features
    monkeypatch.setenv(registry.HIDE_ENV, ",".join(sorted(cpu_features(known=True))))
    for family in SPEC_REFERENCE:
        assert registry.why_not(family, registry.reference(family)) is None


def test_a_list_without_one_reference_is_refused():
    rows = [k._replace(reference=False) for k in registry.rows("fastcdc")]
    with pytest.raises(ValueError, match="exactly one reference row"):
        registry.Family.of("fastcdc", None, rows)
    avx2 = [k._replace(reference=k.name == "avx2") for k in registry.rows("fastcdc")]
    with pytest.raises(ValueError, match="portable and needing no CPU feature"):
        registry.Family.of("fastcdc", None, avx2)
