"""Relative and calendar time in a query ("yesterday", "two weeks ago", "last Tuesday",
"over the weekend", "in May", "上上周", "前天", "三天前"), resolved against `as_of` into a
[start, end) window. Pure: no I/O, no clock.

Days, weeks and months are the user's: boundaries are computed in `tz` (the server's
HINDSIGHT_TIMEZONE, by default the machine's own zone), so "yesterday" asked at 09:00 in
Singapore is the Singapore yesterday. Weeks start on Monday.

Vague amounts are windows, not points: "a few days ago" is two to six days back, "two
weeks ago" the week around that day. An expression that cannot be resolved (a year out
of the calendar, "9999999天前") resolves to nothing rather than to a wrong window.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any, Callable, Iterator

from .text import ascii_lower

MATCHES_PER_RULE = 32  # a question names its time once or twice; a rule's later matches add nothing
MAX_DAYS_BACK = 36_600  # a century: anything further is not a window a memory store can hold

_EN_NUM = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_VAGUE = {
    "few": (2, 5),
    "a few": (2, 5),
    "couple of": (2, 3),
    "a couple of": (2, 3),
    "several": (3, 7),
    "几": (2, 5),
    "数": (2, 5),
    "好几": (3, 7),
}
_ZH_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_UNIT_DAYS = {
    "day": 1,
    "week": 7,
    "month": 30,
    "year": 365,
    "天": 1,
    "日": 1,
    "周": 7,
    "星期": 7,
    "礼拜": 7,
    "月": 30,
    "年": 365,
}


@dataclass(frozen=True)
class Window:
    start: datetime  # inclusive, UTC
    end: datetime  # exclusive, UTC
    matched: str  # the words that named it

    def __iter__(self) -> Iterator[Any]:  # (start, end, matched), as callers unpack it
        return iter((self.start, self.end, self.matched))

    def __getitem__(self, i: int) -> Any:
        return (self.start, self.end, self.matched)[i]


class _Clock:
    """Calendar arithmetic in the user's zone, answers in UTC. `back` counts days before
    today (0 = today, -1 = tomorrow); a window of days is [oldest day, newest day + 1)."""

    def __init__(self, as_of: datetime, tz: tzinfo):
        self.now = as_of.astimezone(tz)
        self.today = _midnight(self.now)

    def day(self, back: int) -> datetime:
        if not -7 <= back <= MAX_DAYS_BACK:
            raise OverflowError(back)
        return _midnight(self.today - timedelta(days=back))

    def days(self, newest: int, oldest: int) -> tuple[datetime, datetime]:
        return self.day(oldest), self.day(newest - 1)

    def week(self, back: int) -> tuple[datetime, datetime]:
        monday = self.today.weekday() + 7 * back
        return self.day(monday), self.day(monday - 7)

    def month(self, back: int) -> tuple[datetime, datetime]:
        y, m = divmod(self.today.year * 12 + self.today.month - 1 - back, 12)
        return self.named_month(m + 1, y)

    def named_month(self, month: int, year: int | None) -> tuple[datetime, datetime]:
        """A month by name: this year's if it has begun, else last year's (unless given)."""
        if year is None:
            year = self.today.year if month <= self.today.month else self.today.year - 1
        start = self.today.replace(year=year, month=month, day=1)
        end = start.replace(year=year + 1, month=1) if month == 12 else start.replace(month=month + 1)
        return _midnight(start), _midnight(end)

    def year(self, back: int) -> tuple[datetime, datetime]:
        y = self.today.year - back
        return _midnight(self.today.replace(year=y, month=1, day=1)), _midnight(
            self.today.replace(year=y + 1, month=1, day=1)
        )

    def date(self, day: int, month: int, year: int | None) -> tuple[datetime, datetime]:
        """A calendar date; without a year the latest one that is not in the future."""
        if year is None:
            year = self.today.year - ((month, day) > (self.today.month, self.today.day))
        start = _midnight(self.today.replace(year=year, month=month, day=day))
        return start, _midnight(start + timedelta(days=1))

    def weekday(self, wd: int, *, last_week: bool = False, strictly_before: bool = True) -> tuple[datetime, datetime]:
        """The latest such weekday before today (today too when not strict); with
        `last_week`, that day of the previous calendar week."""
        back = self.today.weekday() + 7 - wd if last_week else (self.today.weekday() - wd) % 7
        if back == 0 and strictly_before:
            back = 7
        return self.days(back, back)

    def weekend(self, weeks_back: int = 0) -> tuple[datetime, datetime]:
        """The latest Saturday-Sunday that has begun (the current one on a weekend)."""
        saturday = (self.today.weekday() - 5) % 7 + 7 * weeks_back
        return self.days(saturday - 1, saturday)

    def ago(self, lo: int, hi: int, unit_days: int) -> tuple[datetime, datetime]:
        """ "N units ago": that day for days (a span for vague amounts); for weeks and
        longer, a window one unit wide around it."""
        half = unit_days // 2 if unit_days > 1 else 0
        return self.days(max(lo * unit_days - half, 0), hi * unit_days + half)

    def span(self, n: int, unit_days: int) -> tuple[datetime, datetime]:
        """ "the last N days": from N units before now until now."""
        if not 0 < n * unit_days <= MAX_DAYS_BACK:
            raise OverflowError(n)
        return self.now - timedelta(days=n * unit_days), self.now + timedelta(seconds=1)


def _midnight(d: datetime) -> datetime:
    """Midnight of `d`'s date in its zone (the offset re-resolved: a DST change between two
    dates moves it)."""
    return d.replace(tzinfo=None, hour=0, minute=0, second=0, microsecond=0).replace(tzinfo=d.tzinfo)


def _en_amount(word: str) -> tuple[int, int] | None:
    word = " ".join(word.lower().split())
    if word in _VAGUE:
        return _VAGUE[word]
    n = int(word) if word.isdigit() else _EN_NUM.get(word)
    return None if n is None else (n, n)


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if "十" in text:
        tens, _, ones = text.partition("十")
        if (tens and tens not in _ZH_DIGIT) or (ones and ones not in _ZH_DIGIT):
            return None
        return (_ZH_DIGIT[tens] if tens else 1) * 10 + (_ZH_DIGIT[ones] if ones else 0)
    if len(text) == 1:
        return _ZH_DIGIT.get(text)
    return None


def _zh_amount(text: str) -> tuple[int, int] | None:
    if text in _VAGUE:
        return _VAGUE[text]
    n = _zh_number(text)
    return None if n is None else (n, n)


_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], _Clock], tuple[datetime, datetime]]]
_NUM_EN = r"(\d{1,6}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"  # noqa: E501
_UNIT_EN = r"(day|week|month|year)s?"
_MONTH_EN = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WD_EN = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUM_ZH = r"(\d{1,6}|[零〇一二两三四五六七八九十]{1,3}|好几|几|数)"


def _month_no(name: str) -> int:
    return next(i + 1 for i, m in enumerate(_MONTHS) if m.startswith(name.lower()[:3]))


def _amount_ago(amount: tuple[int, int] | None, unit: str, c: _Clock) -> tuple[datetime, datetime]:
    if amount is None:
        raise ValueError(unit)
    return c.ago(amount[0], amount[1], _UNIT_DAYS[unit])


def _en(pattern: str) -> re.Pattern[str]:
    """An English rule: matched against the query in lower case (rules.text.ascii_lower)."""
    return re.compile(pattern)


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


_EN_RULES: list[_Rule] = [
    (_en(r"\b(?:the\s+)?day\s+before\s+yesterday\b"), lambda m, c: (c.day(2), c.day(1))),
    (_en(r"\byesterday\b|\blast\s+night\b"), lambda m, c: (c.day(1), c.day(0))),
    (
        _en(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b|\bearlier\s+today\b"),
        lambda m, c: (c.day(0), c.day(0) + timedelta(days=1)),
    ),
    (
        _en(r"\b" + _NUM_EN + r"\s+" + _UNIT_EN + r"\s+(?:ago|back|earlier)\b"),
        lambda m, c: _amount_ago(_en_amount(m.group(1)), m.group(2).lower(), c),
    ),
    (
        _en(r"\b(?:in\s+|during\s+|over\s+|for\s+)?the\s+(?:last|past)\s+" + _NUM_EN + r"\s+" + _UNIT_EN),
        lambda m, c: c.span((_en_amount(m.group(1)) or (0, 0))[1], _UNIT_DAYS[m.group(2).lower()]),
    ),
    (
        _en(r"\b(?:in\s+|during\s+|over\s+)?the\s+(?:last|past)\s+(day|week|month|year)\b"),
        lambda m, c: c.span(1, _UNIT_DAYS[m.group(1).lower()]),
    ),
    (_en(r"\bthe\s+week\s+before\s+last\b"), lambda m, c: c.week(2)),
    (_en(r"\b(?:last|previous)\s+week\b"), lambda m, c: c.week(1)),
    (_en(r"\bthis\s+week\b"), lambda m, c: c.week(0)),
    (_en(r"\bthe\s+month\s+before\s+last\b"), lambda m, c: c.month(2)),
    (_en(r"\b(?:last|previous)\s+month\b"), lambda m, c: c.month(1)),
    (_en(r"\bthis\s+month\b"), lambda m, c: c.month(0)),
    (_en(r"\b(?:last|previous)\s+year\b"), lambda m, c: c.year(1)),
    (_en(r"\bthis\s+year\b"), lambda m, c: c.year(0)),
    (_en(r"\b(?:last|previous)\s+weekend\b"), lambda m, c: c.weekend(1 if c.today.weekday() >= 5 else 0)),
    (_en(r"\b(?:over|during|on|at|this)\s+(?:the\s+)?weekend\b|\bthe\s+weekend\b"), lambda m, c: c.weekend()),
    (_en(r"\b(?:last|previous)\s+" + _WD_EN + r"\b"), lambda m, c: c.weekday(_WEEKDAYS.index(m.group(1).lower()))),
    (
        _en(r"\b(?:on|this\s+past)\s+" + _WD_EN + r"\b"),
        lambda m, c: c.weekday(_WEEKDAYS.index(m.group(1).lower()), strictly_before=False),
    ),
    (
        _en(r"\b(?:recently|lately|in\s+the\s+last\s+few\s+days|these\s+(?:last\s+)?few\s+days)\b"),
        lambda m, c: c.span(7, 1),
    ),
    (
        _en(r"\b(?:on\s+)?(\d{4})-(\d{2})-(\d{2})\b"),
        lambda m, c: c.date(int(m.group(3)), int(m.group(2)), int(m.group(1))),
    ),
    (
        _en(r"\b(?:on\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH_EN + r"\b(?:,?\s+(\d{4}))?"),
        lambda m, c: c.date(int(m.group(1)), _month_no(m.group(2)), int(m.group(3)) if m.group(3) else None),
    ),
    (
        _en(r"\b(?:on\s+)?" + _MONTH_EN + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b(?!:)(?:,?\s+(\d{4}))?"),
        lambda m, c: c.date(int(m.group(2)), _month_no(m.group(1)), int(m.group(3)) if m.group(3) else None),
    ),
    (
        _en(r"\b(?:in|during|since|throughout)\s+(?:early\s+|late\s+|mid[-\s])?" + _MONTH_EN + r"\b(?:\s+(\d{4}))?"),
        lambda m, c: c.named_month(_month_no(m.group(1)), int(m.group(2)) if m.group(2) else None),
    ),
]
_ZH_RULES: list[_Rule] = [
    (re.compile(r"大前天"), lambda m, c: (c.day(3), c.day(2))),
    (re.compile(r"前天"), lambda m, c: (c.day(2), c.day(1))),
    (re.compile(r"昨天|昨日|昨晚|昨儿"), lambda m, c: (c.day(1), c.day(0))),
    (
        re.compile(r"今天|今日|今早|今晚|今儿|今天上午|今天下午|上午|下午|早上"),
        lambda m, c: (c.day(0), c.day(0) + timedelta(days=1)),
    ),
    (re.compile(r"前几天|这几天|最近几天"), lambda m, c: (c.day(6), c.day(0) + timedelta(days=1))),
    (
        re.compile(r"(?:过去|最近|近)" + _NUM_ZH + r"\s*(天|日|周|个星期|个礼拜|个月|年)"),
        lambda m, c: c.span((_zh_amount(m.group(1)) or (0, 0))[1], _UNIT_DAYS[m.group(2).lstrip("个")]),
    ),
    (
        re.compile(_NUM_ZH + r"\s*(天|日|周|个星期|个礼拜|星期|礼拜|个月|年)(?:以|之)?前"),
        lambda m, c: _amount_ago(_zh_amount(m.group(1)), m.group(2).lstrip("个"), c),
    ),
    (re.compile(r"上上(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末])"), lambda m, c: c.week(2)),
    (
        re.compile(r"上(?:个)?(?:周|星期|礼拜)([一二三四五六日天])"),
        lambda m, c: c.weekday(_ZH_WEEKDAY[m.group(1)], last_week=True),
    ),
    (re.compile(r"上(?:个)?周末"), lambda m, c: c.weekend(1 if c.today.weekday() >= 5 else 0)),
    (re.compile(r"上(?:个)?(?:周|星期|礼拜)"), lambda m, c: c.week(1)),
    (re.compile(r"(?:本|这|这个)(?:周|星期|礼拜)(?![一二三四五六日天末])"), lambda m, c: c.week(0)),
    (re.compile(r"(?:这个|这|本)?周末"), lambda m, c: c.weekend()),
    (
        re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])"),
        lambda m, c: c.weekday(_ZH_WEEKDAY[m.group(1)], strictly_before=False),
    ),
    (re.compile(r"上上(?:个)?月"), lambda m, c: c.month(2)),
    (re.compile(r"上(?:个)?月"), lambda m, c: c.month(1)),
    (re.compile(r"(?:本|这个)月"), lambda m, c: c.month(0)),
    (re.compile(r"前年"), lambda m, c: c.year(2)),
    (re.compile(r"去年"), lambda m, c: c.year(1)),
    (re.compile(r"今年"), lambda m, c: c.year(0)),
    (re.compile(r"最近|近来|近期"), lambda m, c: c.span(7, 1)),
    (
        re.compile(
            r"(?:(\d{4})\s*年\s*)?(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*(?:日|号)"
        ),
        lambda m, c: c.date(
            _zh_number(m.group(3)) or 0, _zh_number(m.group(2)) or 0, int(m.group(1)) if m.group(1) else None
        ),
    ),
    (
        re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2}|[一二三四五六七八九十]{1,3})\s*(?:月份|月)(?!前|以前|之前)"),
        lambda m, c: c.named_month(_zh_number(m.group(2)) or 0, int(m.group(1)) if m.group(1) else None),
    ),
]


# A time that recurs names no window: "every June 3rd", "each last Friday", 每周一, 每个周末
# ask how things go, not what happened then ("per" is left alone: "per last week's notes").
_RECURS = re.compile(r"(?:\b(?:every|each)\s+(?:other\s+|single\s+)?|每(?:个|逢)?)$", re.IGNORECASE)


def resolve(query: str, as_of: datetime, tz: tzinfo | None = None) -> Window | None:
    """The time the query names, as a window in UTC, or None. When several expressions
    match, the longest wins (ties: the first in the text); one that recurs ("every
    Monday", 每周一) names none."""
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=timezone.utc)
    try:
        clock = _Clock(as_of, tz or timezone.utc)
    except (OverflowError, ValueError):  # as_of at the calendar's very ends
        return None
    found: list[tuple[int, int, re.Match[str], Callable[..., tuple[datetime, datetime]]]] = []
    recurring: list[tuple[int, int]] = []
    passes = [(_EN_RULES, ascii_lower(query))]
    if _CJK.search(query):  # the Chinese rules only where there is Chinese
        passes.append((_ZH_RULES, query))
    for rules, text in passes:
        for pattern, window in rules:
            for m in itertools.islice(pattern.finditer(text), MATCHES_PER_RULE):
                if _RECURS.search(text, max(0, m.start() - 16), m.start()):
                    recurring.append(m.span())
                else:
                    found.append((-(m.end() - m.start()), m.start(), m, window))
    failed: list[tuple[int, int]] = []  # an impossible date does not fall back to a part of it
    for _, _, m, window in sorted(found, key=lambda f: (f[0], f[1])):
        if any(m.start() < e and s < m.end() for s, e in failed):
            continue
        if any(s < m.end() and m.start() <= e + 1 for s, e in recurring):
            continue  # inside a recurring time, or what goes on from it (每周五下午: not this afternoon)
        try:
            start, end = window(m, clock)
        except (ValueError, OverflowError, KeyError, TypeError, IndexError):
            failed.append(m.span())
            continue
        try:
            start, end = start.astimezone(timezone.utc), end.astimezone(timezone.utc)
        except (OverflowError, ValueError):
            continue
        if end > start:
            return Window(start, end, query[m.start() : m.end()].strip())
    return None
