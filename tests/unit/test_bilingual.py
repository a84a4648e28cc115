"""The bilingual lexicon of the keyword channel (hindsight/rules/bilingual.py)."""

from hindsight.data import lexicon
from hindsight.rules import bilingual, changes
from hindsight.rules.text import keyword_text

LINES = [
    "# CC-CEDICT (a comment line)",
    "測試 测试 [ce4 shi4] /to test (machinery etc)/to test (students)/test/quiz/exam/beta (software)/",
    "服務器 服务器 [fu2 wu4 qi4] /server (computer)/CL:臺|台[tai2]/",
    "伺服器 伺服器 [si4 fu2 qi4] /server (computer)/",
    "超時 超时 [chao1 shi2] /to exceed the time limit/(to work) overtime/(computing) timeout/",
    "修 修 [xiu1] /surname Xiu/to decorate/to repair/to build/to write/",
    "為了 为了 [wei4 le5] /in order to/for the purpose of/so as to/",
    "訂單 订单 [ding4 dan1] /(purchase) order/",
    "3P 3P [san1 P] /(slang) threesome/",
    "not a cedict line",
]


def lex():
    return bilingual.build(LINES)


def test_glosses_give_content_words_and_skip_references():
    assert bilingual.gloss_words("to test (machinery etc)") == ["test"]
    assert bilingual.gloss_words("CL:個|个[ge4]") == []
    assert bilingual.gloss_words("surname Xiu") == []
    assert bilingual.gloss_words("variant of 修[xiu1]") == []
    # a description, not a translation
    assert bilingual.gloss_words("the flower of a plant that grows in wet places near rivers") == []


def test_chinese_words_map_to_their_first_glosses():
    found = lex()
    assert found.zh_en["测试"] == ("test",)  # the first three usable glosses, each word once
    assert found.zh_en["服务器"] == ("server",)  # parentheses are notes, not translations
    assert found.zh_en["超时"] == ("exceed", "time", "limit", "overtime", "timeout")
    assert found.zh_en["修"] == ("decorate", "repair", "build")  # not the surname
    assert "3P" not in found.zh_en  # no Chinese in it


def test_english_words_map_to_the_chinese_glossed_by_exactly_that_word():
    found = lex()
    assert set(found.en_zh["server"]) == {"服务器", "伺服器"}
    assert found.en_zh["order"] == ("订单",)  # "in order to" is not the word "order"
    assert "purpose" not in found.en_zh


def test_a_query_gets_the_other_languages_words_once_and_none_of_its_own():
    found = lex()
    assert bilingual.translate(["测试", "服务器", "test"], found) == "server"
    assert bilingual.translate(["orders", "the", "tests"], found) == "订单 测试"
    assert bilingual.translate(["BatchEta", "xyz"], found) == ""


def test_one_lexicon_gives_one_glosses_function_so_the_words_read_from_a_text_are_kept():
    found = lex()
    assert bilingual.glosses(found) is bilingual.glosses(found)
    assert bilingual.glosses(found)(["测试", "orders"]) == ["test", "订单"]
    text = "测试服务器 was moved to test-02"
    changes._subject_words.cache_clear()
    first = changes.subject_words(text, bilingual.glosses(found))
    again = changes.subject_words(text, bilingual.glosses(found))  # a later call, the same text
    assert again is first
    assert changes._subject_words.cache_info().hits == 1


def test_query_words_are_the_keyword_texts_chinese_and_latin_words():
    assert bilingual.query_words(keyword_text("测试服务器 on prod-01")) == ["测试", "服务器", "on", "prod", "prod"]


def test_a_word_is_known_through_its_exact_translations_not_a_word_of_a_phrase():
    found = lex()  # 超时: "to exceed the time limit" is a phrase; "overtime", "timeout" translate it
    assert bilingual.translate(["超时"], found).split() == ["exceed", "time", "limit", "overtime", "timeout"]
    assert bilingual.exact_glosses(["超时"], found) == ["overtime", "timeout"]
    assert bilingual.term_groups(["超时", "orders"], found) == ["超时 overtime timeout", "orders order 订单"]


def test_the_shipped_lexicon_knows_a_meeting_room_only_as_itself():
    found = lexicon.load()  # 会议室: "meeting room", "conference room"; no memory holding "room" holds it
    assert {"meeting", "room"} <= set(bilingual.translate(["会议室"], found).split())
    assert bilingual.exact_glosses(["会议室"], found) == []
    assert "monitor" in bilingual.exact_glosses(["显示器"], found)


def test_the_shipped_lexicon_translates_both_ways():
    found = lexicon.load()
    assert len(found) > 50_000
    zh = bilingual.translate(bilingual.query_words(keyword_text("测试服务器地址是什么")), found).split()
    assert {"test", "server", "address"} <= set(zh)
    en = bilingual.translate(bilingual.query_words(keyword_text("Where is the metadata database?")), found).split()
    assert {"元数据", "数据库"} <= set(en)


def test_every_word_the_keyword_index_drops_is_a_stop_word():
    """A word PostgreSQL's `english` dictionary drops is never in the index, so no memory can
    be found holding it: it must not count as a question word that no memory holds."""
    from pathlib import Path

    import pgserver

    stop_file = Path(pgserver.__file__).parent / "pginstall/share/postgresql/tsearch_data/english.stop"
    dropped = set(stop_file.read_text(encoding="utf-8").split())
    assert {"against", "after", "now", "through"} <= dropped
    assert dropped <= bilingual.STOP_EN
    assert [w for forms in bilingual.word_forms(["against", "production", "now"]) for w in forms] == ["production"]


def test_words_put_ahead_gloss_a_chinese_word_first_and_leave_english_words_alone():
    general = bilingual.build(["倉庫 仓库 [cang1 ku4] /warehouse/depot/", "提交 提交 [ti2 jiao1] /to submit/"])
    ours = bilingual.build(["仓库 仓库 [-] /repository/repo/", "告警 告警 [-] /alert/"])
    both = bilingual.ahead(ours, general)
    assert both.zh_en["仓库"] == ("repository", "repo", "warehouse", "depot")
    assert both.zh_en["告警"] == ("alert",) and both.zh_one["告警"] == ("alert",)
    assert both.zh_en["提交"] == ("submit",)
    assert both.en_zh == general.en_zh  # "repository" finds no Chinese word through our list
    # the same as reading our lines before the general ones, without building the general ones twice
    together = bilingual.build(
        [
            "仓库 仓库 [-] /repository/repo/",
            "告警 告警 [-] /alert/",
            "倉庫 仓库 [cang1 ku4] /warehouse/depot/",
            "提交 提交 [ti2 jiao1] /to submit/",
        ]
    )
    assert both.zh_en == together.zh_en and both.zh_one == together.zh_one and both.unglossed == together.unglossed


def test_the_lexicon_knows_every_word_the_dictionary_has_however_it_is_glossed():
    """出差 is glossed by a description ("to go on an official or business trip"): no translation
    for the keyword channel, yet a word, not a fragment the segmenter left (升到)."""
    found = bilingual.build(["出差 出差 [chu1 chai1] /to go on an official or business trip/", "告警 告警 [-] /alert/"])
    assert "出差" not in found.zh_en and found.unglossed == {"出差"} and found.has("出差") and found.has("告警")
    assert lexicon.load().has("出差") and not lexicon.load().has("升到")
