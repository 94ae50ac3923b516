"""Regression replay: every target's seeds and every file in fuzz/regressions/TARGET/
(JSON fields re-encoded for the current decoder, or raw inputs) go through the
target under plain pytest (no atheris, normal build).

The targets that go through the adapter (Target.impl: impl_chunks) replay
against the implementation ``--impl`` names (the ``impl`` fixture: ours by
default), so ``pytest --impl borg fuzz`` replays them against borg (the rest of
fuzz/ is skipped then, fuzz/tests/conftest.py).

The corpora carried in the repository (fuzz/corpora/TARGET/, the last campaign's merged corpus)
are replayed too; set FUZZ_REPLAY_CORPUS=1 to replay the local working corpora (fuzz/corpus/) as well.
"""

import os

import pytest

from fuzz import campaign, targets


PLAIN = [n for n, t in targets.TARGETS.items() if not t.impl]
IMPL = [n for n, t in targets.TARGETS.items() if t.impl]


def _cases(names):
    found = False
    for name in names:
        dirs = [campaign.REGRESSION_ROOT / name, campaign.CARRIED_ROOT / name]
        if os.environ.get("FUZZ_REPLAY_CORPUS"):
            dirs.append(campaign.CORPUS_ROOT / name)
        for d in dirs:
            if d.is_dir():
                for f in sorted(d.iterdir()):
                    found = True
                    yield pytest.param(name, f, id=f"{name}/{d.name}/{f.name}")
    if not found:
        yield pytest.param(None, None, marks=pytest.mark.skip(reason="no regressions recorded yet"), id="none")


@pytest.mark.parametrize("name", PLAIN)
def test_seeds(name):
    mod = targets.load(name)
    seeds = mod.seeds()
    assert seeds and len(set(seeds)) == len(seeds)
    for data in seeds:
        mod.TestOneInput(data)


@pytest.mark.parametrize("name", list(targets.TARGETS))
def test_seeds_fit_max_len(name):
    """libFuzzer cuts a corpus input longer than -max_len when it loads it: such a
    seed would lose its tail (the data, a planted cut) in every campaign."""
    max_len = targets.TARGETS[name].max_len
    long = sorted({len(s) for s in targets.load(name).seeds() if len(s) > max_len})
    assert not long, f"{name}: seeds of {long} bytes exceed max_len={max_len}"


def _replay_bytes(name, path):
    corpus = path.parent.parent in (campaign.CORPUS_ROOT, campaign.CARRIED_ROOT)
    return path.read_bytes() if corpus else campaign.regression_input(name, path)


@pytest.mark.parametrize("name,path", list(_cases(PLAIN)))
def test_regression(name, path):
    targets.load(name).TestOneInput(_replay_bytes(name, path))


@pytest.mark.parametrize("name", IMPL)
def test_impl_seeds(name, impl):
    """The seeds of a Target.impl target against the implementation under test (--impl)."""
    mod = targets.load(name)
    seeds = mod.seeds()
    assert seeds and len(set(seeds)) == len(seeds)
    for data in seeds:
        mod.run(data, impl)


@pytest.mark.parametrize("name,path", list(_cases(IMPL)))
def test_impl_regression(name, path, impl):
    """A regression of a Target.impl target against the implementation under test (--impl)."""
    targets.load(name).run(_replay_bytes(name, path), impl)
