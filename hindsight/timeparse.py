"""Relative time in a query ("yesterday", "last week", "in May", "上周", "三天前"),
resolved against `as_of` into a [start, end) window. Pure: no I/O, no clock."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "few": 3,
           "couple of": 2, "a couple of": 2}
_ZH_DIGIT = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {m: i + 1 for i, m in enumerate(_MONTHS)}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text in ("几", "数"):
        return 3
    if text == "十":
        return 10
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGIT.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGIT.get(ones, 0) if ones else 0)
    return _ZH_DIGIT.get(text)


def _day(d: datetime) -> datetime:
    return d.replace(hour=0, minute=0, second=0, microsecond=0)


def _week_start(d: datetime) -> datetime:
    return _day(d) - timedelta(days=d.weekday())


def _month_start(d: datetime, back: int = 0) -> datetime:
    y, m = d.year, d.month - back
    while m <= 0:
        y, m = y - 1, m + 12
    return _day(d).replace(year=y, month=m, day=1)


def _next_month(d: datetime) -> datetime:
    return d.replace(year=d.year + 1, month=1) if d.month == 12 else d.replace(month=d.month + 1)


def _month_window(as_of: datetime, month: int, year: int | None) -> tuple[datetime, datetime]:
    """A named month: this year's if it has begun, else last year's (unless the year is given)."""
    if year is None:
        year = as_of.year if month <= as_of.month else as_of.year - 1
    start = _day(as_of).replace(year=year, month=month, day=1)
    return start, _next_month(start)


_EN_PATTERNS = [
    (r"\bthe day before yesterday\b", lambda m, t: (_day(t) - timedelta(days=2), _day(t) - timedelta(days=1))),
    (r"\byesterday\b", lambda m, t: (_day(t) - timedelta(days=1), _day(t))),
    (r"\b(?:today|this morning|this afternoon|tonight)\b", lambda m, t: (_day(t), _day(t) + timedelta(days=1))),
    (r"\b(\d+|a couple of|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few)\s+"
     r"(day|week|month|year)s?\s+ago\b",
     lambda m, t: _ago(t, _EN_NUM.get(m.group(1), None) or int(m.group(1)), _UNIT_DAYS[m.group(2)])),
    (r"\b(?:in\s+the\s+)?(?:last|past)\s+(\d+|two|three|four|five|six|seven|ten|few)\s+(day|week|month)s\b",
     lambda m, t: (t - timedelta(days=(_EN_NUM.get(m.group(1)) or int(m.group(1))) * _UNIT_DAYS[m.group(2)]),
                   t + timedelta(seconds=1))),
    (r"\blast week\b", lambda m, t: (_week_start(t) - timedelta(days=7), _week_start(t))),
    (r"\bthis week\b", lambda m, t: (_week_start(t), _week_start(t) + timedelta(days=7))),
    (r"\blast month\b", lambda m, t: (_month_start(t, 1), _month_start(t))),
    (r"\bthis month\b", lambda m, t: (_month_start(t), _next_month(_month_start(t)))),
    (r"\blast year\b", lambda m, t: (_day(t).replace(year=t.year - 1, month=1, day=1),
                                     _day(t).replace(month=1, day=1))),
    (r"\bthis year\b", lambda m, t: (_day(t).replace(month=1, day=1), _day(t).replace(year=t.year + 1, month=1, day=1))),
    (r"\brecently\b|\blately\b", lambda m, t: (t - timedelta(days=7), t + timedelta(seconds=1))),
    (r"\b(?:in|during)\s+(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
     r"aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?:\s+(\d{4}))?\b",
     lambda m, t: _month_window(t, _MONTH_ABBR[m.group(1)[:3].lower()], int(m.group(2)) if m.group(2) else None)),
]

_ZH_NUM = r"(\d+|[一二两三四五六七八九十几数]+)"
_ZH_PATTERNS = [
    (r"前天", lambda m, t: (_day(t) - timedelta(days=2), _day(t) - timedelta(days=1))),
    (r"昨天|昨日|昨晚", lambda m, t: (_day(t) - timedelta(days=1), _day(t))),
    (r"今天|今日|今早|今晚", lambda m, t: (_day(t), _day(t) + timedelta(days=1))),
    (_ZH_NUM + r"\s*天(?:以)?前", lambda m, t: _ago(t, _zh_number(m.group(1)), 1)),
    (_ZH_NUM + r"\s*(?:个)?(?:周|星期|礼拜)(?:以)?前", lambda m, t: _ago(t, _zh_number(m.group(1)), 7)),
    (_ZH_NUM + r"\s*个?月(?:以)?前", lambda m, t: _ago(t, _zh_number(m.group(1)), 30)),
    (r"上(?:个)?(?:周|星期|礼拜)", lambda m, t: (_week_start(t) - timedelta(days=7), _week_start(t))),
    (r"(?:本|这)(?:个)?(?:周|星期|礼拜)", lambda m, t: (_week_start(t), _week_start(t) + timedelta(days=7))),
    (r"上(?:个)?月", lambda m, t: (_month_start(t, 1), _month_start(t))),
    (r"(?:本|这个)月", lambda m, t: (_month_start(t), _next_month(_month_start(t)))),
    (r"去年", lambda m, t: (_day(t).replace(year=t.year - 1, month=1, day=1), _day(t).replace(month=1, day=1))),
    (r"今年", lambda m, t: (_day(t).replace(month=1, day=1), _day(t).replace(year=t.year + 1, month=1, day=1))),
    (r"最近|近来", lambda m, t: (t - timedelta(days=7), t + timedelta(seconds=1))),
    (r"(?:(\d{4})年)?(\d{1,2}|[一二三四五六七八九十]{1,2})月(?!前)",
     lambda m, t: _month_window(t, _zh_number(m.group(2)), int(m.group(1)) if m.group(1) else None)),
]

_COMPILED = [(re.compile(p, re.IGNORECASE), f) for p, f in _EN_PATTERNS + _ZH_PATTERNS]


def _ago(as_of: datetime, n: int | None, unit_days: int) -> tuple[datetime, datetime]:
    """"N days ago" is that day; "N weeks/months ago" a window one unit wide around it."""
    centre = _day(as_of - timedelta(days=(n or 1) * unit_days))
    if unit_days == 1:
        return centre, centre + timedelta(days=1)
    half = timedelta(days=unit_days // 2)
    return centre - half, centre + half + timedelta(days=1)


def resolve(query: str, as_of: datetime) -> tuple[datetime, datetime, str] | None:
    """The first relative-time expression in `query` as (start, end, matched text), or None."""
    for pattern, window in _COMPILED:
        m = pattern.search(query)
        if m:
            try:
                start, end = window(m, as_of)
            except (TypeError, ValueError):  # e.g. month 13
                continue
            return start, end, m.group(0)
    return None
