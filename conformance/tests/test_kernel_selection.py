"""Kernel selection (spec 01 §11): argument, environment variable, default,
and the three distinct failure reasons, never a silent fallback."""

import pytest

import chunkers
from chunkers import registry as K

FAMILY_CLASS = {
    "fastcdc": lambda kernel=None: chunkers.FastCDC(bytes(32), 6, 12, 8, 0, kernel=kernel),
    "buzhash64": lambda kernel=None: chunkers.BuzHash64(bytes(32), 6, 12, 8, 64, 0, kernel=kernel),
}
ENV = {"fastcdc": "CHUNKERS_FASTCDC_KERNEL", "buzhash64": "CHUNKERS_BUZHASH64_KERNEL"}


@pytest.fixture(params=sorted(FAMILY_CLASS))
def family(request, monkeypatch):
    for var in ENV.values():
        monkeypatch.delenv(var, raising=False)
    return request.param


def _names(family):
    return [r.kernel for r in chunkers.kernels() if r.family == family]


def test_inventory_lists_platform_names(family):
    import platform
    names = _names(family)
    portable = {"fastcdc": ["seg4", "blockwise", "scalar"], "buzhash64": ["seg4", "stride4", "blockwise", "scalar"]}
    assert names[-len(portable[family]):] == portable[family]
    if platform.machine() in ("x86_64", "AMD64"):
        assert names == ["avx512", "avx2", *portable[family]]
    elif platform.machine() in ("aarch64", "arm64"):
        assert names == ["neon", *portable[family]]
    rows = [r for r in chunkers.kernels() if r.family == family]
    assert sum(r.default for r in rows) == 1
    for r in rows:
        assert r.runs == (r.reason is None)
        if r.kernel in ("scalar", "blockwise", "seg4", "stride4"):
            assert r.runs, "the portable kernels always run"


def test_every_runnable_kernel_is_reported_by_the_chunker(family):
    for r in chunkers.kernels():
        if r.family == family and r.runs:
            assert FAMILY_CLASS[family](r.kernel).kernel == r.kernel


def test_default_is_the_inventory_default(family):
    dflt = [r.kernel for r in chunkers.kernels() if r.family == family and r.default][0]
    assert FAMILY_CLASS[family]().kernel == dflt


def test_env_var_and_argument_precedence(family, monkeypatch):
    monkeypatch.setenv(ENV[family], "  BlockWise \n")
    assert FAMILY_CLASS[family]().kernel == "blockwise"        # stripped and lowercased
    assert FAMILY_CLASS[family]("scalar").kernel == "scalar"   # the argument wins
    monkeypatch.setenv(ENV[family], "")
    assert FAMILY_CLASS[family]().kernel == K.default(family)  # empty = default


@pytest.mark.parametrize("name", ["auto", "neon-x", "SSE9", "aes-ni"])
def test_unknown_name(family, monkeypatch, name):
    with pytest.raises(ValueError) as e:
        FAMILY_CLASS[family](name)
    msg = str(e.value)
    assert repr(name) in msg and K.UNKNOWN in msg and "blockwise, scalar" in msg
    monkeypatch.setenv(ENV[family], name)
    with pytest.raises(ValueError, match=ENV[family]):
        FAMILY_CLASS[family]()


def test_other_platform_name_is_unknown(family):
    import platform
    other = "neon" if platform.machine() in ("x86_64", "AMD64") else "avx2"
    with pytest.raises(ValueError, match=K.UNKNOWN):
        FAMILY_CLASS[family](other)


def test_cpu_lacks_feature(family, monkeypatch):
    """A built kernel whose CPU feature is missing fails with reason CPU, naming the feature."""
    vector = _names(family)[0]
    if vector in ("blockwise", "scalar", "neon"):
        pytest.skip("no CPU-gated kernel on this platform")
    monkeypatch.setattr(K, "_cpu_features", lambda: frozenset())
    with pytest.raises(ValueError) as e:
        FAMILY_CLASS[family](vector)
    assert K.NO_CPU in str(e.value) and repr(vector) in str(e.value)
    assert "lacks avx" in str(e.value)
    portable = [n for n in _names(family) if n not in ("avx512", "avx2", "neon")]
    assert str(e.value).endswith(f"Valid values here: {', '.join(portable)}")   # only what runs here
    # the default then falls to a portable kernel (by the kernel list's ranks)
    assert FAMILY_CLASS[family]().kernel in portable


def test_not_built(family, monkeypatch):
    fam = K._family(family)
    patched = fam._replace(kernels=[(n, False if n == fam.kernels[0][0] else b, need)
                                    for n, b, need in fam.kernels])
    monkeypatch.setitem(K._FAMILIES, family, patched)
    with pytest.raises(ValueError, match="not compiled into this build"):
        FAMILY_CLASS[family](fam.kernels[0][0])


def test_non_str_kernel(family):
    with pytest.raises(TypeError):
        FAMILY_CLASS[family](3)


def test_cpu_hide_knob(family, monkeypatch):
    """CHUNKERS_CPU_HIDE treats features as absent; a misspelt name is an error, not a no-op."""
    monkeypatch.setenv(K.HIDE_ENV, " AVX2 ,, avx512f")
    rows = {r.kernel: r for r in chunkers.kernels() if r.family == family}
    assert rows["blockwise"].runs and rows["scalar"].runs
    assert not any(r.runs for name, r in rows.items() if name in ("avx2", "avx512"))
    monkeypatch.setenv(K.HIDE_ENV, "avx-512")
    with pytest.raises(ValueError, match="CHUNKERS_CPU_HIDE: unknown CPU feature avx-512; known: .*avx512f"):
        chunkers.kernels()
