"""The lexicon is built once and kept: the next process reads the kept one, which equals a
fresh build; a kept file that is damaged is built again and replaced; one the rules no longer
match is never read."""

from __future__ import annotations

import pytest

from hindsight.data import lexicon


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(lexicon, "_built", None)
    return tmp_path / "hindsight"


def test_the_kept_lexicon_is_the_built_one(fresh, monkeypatch):
    built = lexicon.load()
    kept = list(fresh.glob("lexicon-*.marshal"))
    assert len(kept) == 1 and kept[0].stat().st_size > 1_000_000
    monkeypatch.setattr(lexicon, "_built", None)
    monkeypatch.setattr(lexicon.bilingual, "build", lambda lines: pytest.fail("built again"))
    again = lexicon.load()
    assert again == built and again is not built and again.zh_en["测试"] == built.zh_en["测试"]


def test_a_damaged_or_stale_kept_lexicon_is_built_again(fresh, monkeypatch):
    built = lexicon.load()
    (kept,) = fresh.glob("lexicon-*.marshal")
    kept.write_bytes(b"\x00not marshal")
    stale = fresh / "lexicon-0000000000000000.marshal"
    stale.write_bytes(b"old rules")
    monkeypatch.setattr(lexicon, "_built", None)
    assert lexicon.load() == built
    assert sorted(fresh.glob("lexicon-*.marshal")) == [kept] and kept.stat().st_size > 1_000_000
