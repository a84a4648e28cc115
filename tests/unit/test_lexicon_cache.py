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
    assert again.unglossed == built.unglossed and again.has("出差")


def test_a_damaged_or_stale_kept_lexicon_is_built_again(fresh, monkeypatch):
    built = lexicon.load()
    (kept,) = fresh.glob("lexicon-*.marshal")
    kept.write_bytes(b"\x00not marshal")
    stale = fresh / "lexicon-0000000000000000.marshal"
    stale.write_bytes(b"old rules")
    monkeypatch.setattr(lexicon, "_built", None)
    assert lexicon.load() == built
    assert sorted(fresh.glob("lexicon-*.marshal")) == [kept] and kept.stat().st_size > 1_000_000


def test_chinese_developer_words_are_glossed_in_their_developer_sense(fresh):
    # devterms.txt: words a general dictionary lacks (告警, 埋点) or glosses in another sense first
    built = lexicon.load()
    assert built.zh_en["告警"][0] == "alert" and built.zh_en["埋点"][0] == "tracking"
    assert built.zh_en["仓库"][0] == "repository" and "warehouse" in built.zh_en["仓库"]
    assert "alert" in built.zh_one["告警"]  # a whole translation: a memory that says "alert" holds 告警
    # English words keep CC-CEDICT's Chinese: "release" or "schedule" in an English question does not
    # reach every Chinese note that says 发版 or 调度
    assert "告警" not in built.en_zh.get("alert", ()) and "调度" not in built.en_zh.get("schedule", ())


def test_the_kept_lexicon_follows_the_developer_words(monkeypatch, tmp_path):
    source = tmp_path / "cedict.txt"  # the same dictionary file both times
    source.write_text("測試 测试 [ce4 shi4] /to test/\n", encoding="utf-8")
    before = lexicon.cache_file(source)
    changed = tmp_path / "devterms.txt"
    changed.write_text(lexicon.DEV_TERMS.read_text(encoding="utf-8") + "压测 压测 [-] /load test/\n", encoding="utf-8")
    monkeypatch.setattr(lexicon, "DEV_TERMS", changed)
    assert lexicon.cache_file(source) != before
