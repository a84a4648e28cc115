"""Relative time in English and Chinese resolves to the right window, or to none."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from hindsight.rules import timeparse

WED = datetime(2024, 6, 12, 15, 0, tzinfo=timezone.utc)  # a Wednesday afternoon
MON = datetime(2026, 6, 1, 2, 0, tzinfo=timezone.utc)  # a Monday morning
SINGAPORE = ZoneInfo("Asia/Singapore")


def days(query, as_of=WED, tz=None):
    got = timeparse.resolve(query, as_of, tz)
    assert got is not None, query
    return got.start.date().isoformat(), got.end.date().isoformat()


@pytest.mark.parametrize(
    "query, start, end",
    [
        ("what did I fix yesterday", "2024-06-11", "2024-06-12"),
        ("errors last week", "2024-06-03", "2024-06-10"),
        ("the meeting in May", "2024-05-01", "2024-06-01"),
        ("in December", "2023-12-01", "2024-01-01"),
        ("in March 2023", "2023-03-01", "2023-04-01"),
        ("3 days ago", "2024-06-09", "2024-06-10"),
        ("last month", "2024-05-01", "2024-06-01"),
        ("三天前的部署", "2024-06-09", "2024-06-10"),
        ("上周的问题", "2024-06-03", "2024-06-10"),
        ("昨天", "2024-06-11", "2024-06-12"),
        ("5月的会议", "2024-05-01", "2024-06-01"),
        ("上个月", "2024-05-01", "2024-06-01"),
    ],
)
def test_common_expressions(query, start, end):
    assert days(query) == (start, end)


# The classes the IDE benchmark found unresolved or resolved wrongly.
@pytest.mark.parametrize(
    "query, start, end",
    [
        ("Two weeks ago the orders job kept dying", "2024-05-26", "2024-06-02"),  # capitalised number word
        ("TWO WEEKS AGO", "2024-05-26", "2024-06-02"),
        ("上上周 Airflow 升级遇到了什么问题", "2024-05-27", "2024-06-03"),  # not 上周
        ("上上个星期", "2024-05-27", "2024-06-03"),
        ("A few days ago Hana asked me", "2024-06-07", "2024-06-11"),  # 2-5 days back, not 3
        ("a couple of days ago", "2024-06-09", "2024-06-11"),
        ("前几天", "2024-06-06", "2024-06-13"),
        ("What did we change last Tuesday?", "2024-06-11", "2024-06-12"),
        ("last Wednesday", "2024-06-05", "2024-06-06"),  # today is Wednesday
        ("上周二发布了什么", "2024-06-04", "2024-06-05"),
        ("What happened over the weekend?", "2024-06-08", "2024-06-10"),
        ("这个周末", "2024-06-08", "2024-06-10"),
        ("前天 terraform apply 为什么报错", "2024-06-10", "2024-06-11"),
        ("大前天", "2024-06-09", "2024-06-10"),
        ("the day before yesterday", "2024-06-10", "2024-06-11"),
        ("the 14 May outage", "2024-05-14", "2024-05-15"),
        ("on May 14th", "2024-05-14", "2024-05-15"),
        ("on 2024-05-14", "2024-05-14", "2024-05-15"),
        ("5月14日的事故", "2024-05-14", "2024-05-15"),
        ("three months ago", "2024-02-28", "2024-03-30"),
        ("过去两周", "2024-05-29", "2024-06-12"),
    ],
)
def test_the_classes_that_were_wrong(query, start, end):
    assert days(query) == (start, end)


def test_weekend_asked_on_monday_is_the_one_just_past():
    assert days("over the weekend", MON) == ("2026-05-30", "2026-06-01")
    assert days("last Tuesday", MON) == ("2026-05-26", "2026-05-27")


def test_days_are_the_users_days():
    """09:00 on the 15th in Singapore is 01:00 UTC: "yesterday" is the Singapore 14th."""
    as_of = datetime(2024, 6, 15, 1, 0, tzinfo=timezone.utc)
    got = timeparse.resolve("what broke yesterday?", as_of, SINGAPORE)
    assert got.start == datetime(2024, 6, 13, 16, 0, tzinfo=timezone.utc)
    assert got.end == datetime(2024, 6, 14, 16, 0, tzinfo=timezone.utc)
    assert timeparse.resolve("what broke yesterday?", as_of).start.day == 14  # UTC days by default


@pytest.mark.parametrize(
    "query",
    [
        "Mayday procedure",
        "how do I reset the router",
        "plain words only",
        "Should I go ahead and commit?",
        "marching orders",
        "May I ask something",
        "a few notes on caching",
        "每周一开会吗？",
        "每个周末谁值班？",
        "每周末的备份几点跑？",
        "每周五下午开会吗",
        "每逢周一上午开会",
        "Is the report due every June 3rd?",
        "Is the audit each 3 May, 2027?",
        "Do we ship every other June 3rd?",
        "Every 五月 we plan",
    ],
)
def test_no_time_expression(query):
    assert timeparse.resolve(query, WED) is None


@pytest.mark.parametrize(
    "query", ["3000 years ago", "9999999天前", "999999 days ago", "十三月", "in month 13", "on 31 February", "2月30日"]
)
def test_impossible_times_resolve_to_nothing(query):
    assert timeparse.resolve(query, WED) is None


@pytest.mark.parametrize(
    "as_of", [datetime(1, 1, 1, tzinfo=timezone.utc), datetime(9999, 12, 31, 23, 59, tzinfo=timezone.utc)]
)
@pytest.mark.parametrize(
    "query", ["last week", "yesterday", "this month", "今年", "in December", "明天", "over the weekend"]
)
def test_the_calendars_ends_never_raise(as_of, query):
    for tz in (None, SINGAPORE, ZoneInfo("America/Los_Angeles")):
        got = timeparse.resolve(query, as_of, tz)
        assert got is None or got.start < got.end


def test_the_longest_expression_wins():
    assert timeparse.resolve("the day before yesterday", WED).matched == "the day before yesterday"
    assert timeparse.resolve("上上周", WED).matched == "上上周"


@pytest.mark.parametrize(
    "query, matched",
    [
        ("per last week's notes, what did we decide?", "last week"),
        ("As per yesterday's standup, who owns it?", "yesterday"),
        ("Every Monday we deploy; what went out last week?", "last week"),
        ("每周一开会，上周一讨论了什么？", "上周一"),
    ],
)
def test_a_recurring_time_beside_one_that_names_a_window(query, matched):
    window = timeparse.resolve(query, WED)
    assert window is not None and window.matched == matched
