"""Whether a newer memory says an older one changed (hindsight/rules/changes.py)."""

import pytest

from hindsight.data import lexicon
from hindsight.rules import bilingual, changes

RULE = changes.ChangeRule()


def translate(words):
    return bilingual.translate(words, lexicon.load()).split()


@pytest.mark.parametrize(
    "old, new, cosine, said",
    [
        # the same thing, changed: English, Chinese, across the two
        ("The staging database runs on db-stg-01", "The staging database moved to db-stg-02", 0.945, True),
        (
            "项目的测试服务器地址是 test-01.example.cn。",
            "项目的测试服务器地址已经换成 test-02.example.cn。",
            0.985,
            True,
        ),
        (
            "The Redis cache lives on redis-01.pantry.internal.",
            "Redis 缓存已经迁到 redis-02.pantry.internal。",
            0.902,
            True,
        ),
        # a newer memory that says something else changed, at the cosine e5 gives it
        (
            "Nginx 改完配置以后要执行 systemctl restart nginx 重启。",
            "项目的测试服务器地址已经换成 test-02.example.cn。",
            0.907,
            False,
        ),
        ("项目的测试服务器地址是 test-01.example.cn。", "项目的预发服务器现在改成 pre-02 了。", 0.929, False),
        ("Python 版本统一用 3.10。", "Node.js 现在统一用 20 LTS。", 0.911, False),
        # no change word: similar, not a change
        ("The staging database runs on db-stg-01", "The staging database runs on db-stg-02", 0.97, False),
    ],
)
def test_changes_across_scripts(old, new, cosine, said):
    assert changes.says_changed(old, new, cosine, RULE, translate) is said


def test_the_floor_follows_the_pairs_scripts():
    assert changes.floor("The API limit is 100", "The API limit is now 300", RULE) == RULE.latin
    assert changes.floor("上限是 20 个连接", "上限现在改为 50 个连接", RULE) == RULE.cjk
    assert changes.floor("The limit is 20 connections", "上限现在改为 50 个连接", RULE) == RULE.cross
    assert RULE.cross <= RULE.latin < RULE.cjk


def test_subject_words_leave_out_change_words_and_meet_across_languages():
    old = changes.subject_words("The orders database is on pg-orders-01", translate)
    new = changes.subject_words("订单数据库已经换成 pg-orders-02", translate)
    assert not any("已经" in w or "换成" in w for w in new)
    assert {"database", "数据库"} <= next(w for w in old if "database" in w)  # a word and its gloss
    assert changes.shared_share(old, new) >= RULE.shared
    assert changes.shared_share([], new) == 0.0
