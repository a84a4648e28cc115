"""A question that asks what happened in a time it names (hindsight/rules/recap.py), and
what ranking and the prompt hook make of it: every memory written then gets the time boost
whatever its relevance, and the hook shows those, and only those, however low the verdict on
the question's few words."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hindsight.rules import injection, recap, scoring, timeparse
from hindsight.rules.scoring import Candidate

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc)


def _asks(question: str) -> bool:
    window = timeparse.resolve(question, NOW, timezone.utc)
    return recap.asks_what_happened(question, window.matched if window else "")


@pytest.mark.parametrize(
    "question",
    [
        "What did I finish on Friday?",
        "What did we get done on basket last week?",
        "Remind me what I worked on last Thursday",
        "What was I in the middle of this afternoon?",
        "What happened during on-call over the weekend?",
        "What have we been working on this week?",
        "Give me a recap of last week",
        "What got merged last week?",
        "上周 courier 有哪些变动？",
        "昨天我做了什么？",
        "前天改了什么？",
        "这周在忙什么？",
        "上周修复了哪些问题？",
    ],
)
def test_questions_that_ask_what_happened(question):
    assert _asks(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Kwame propose at last week's sync?",
        "Which Kubernetes version did we upgrade the EKS cluster to last week?",
        "What is our SOC 2 audit date this year?",
        "How do I finish the release checklist?",
        "上周 basket 的 Android 埋点问题是怎么修的？",
        "今年的安全审计是哪一天？",
        "What did we finish?",  # no time named
        # they ask about something; the time only narrows it (the usual time boost)
        "Remind me what port the API used last week",
        "What did we decide about the cache TTL last week?",
        "What did we decide yesterday about the infra tooling?",
        "What happened to the old config file after the migration yesterday?",
        "昨天改了什么导致构建失败？",
        "What changed since last week?",  # more than the week it names
    ],
)
def test_questions_that_ask_something_else(question):
    assert not _asks(question)


def test_every_memory_written_then_gets_the_time_boost_for_a_recap():
    best = Candidate("best", similarity=0.90, keyword=8.0)
    then = dict(similarity=0.86, keyword=3.0, in_window=True)  # under the floor (0.6 of the best)
    filler = [Candidate(f"f{i}", similarity=0.78 + 0.002 * i, keyword=0.5) for i in range(5)]
    asked = scoring.rank([best, Candidate("then", **then, recap=True), *filler], query_cjk=0.0, similar=lambda a, b: 0)
    assert asked[0].id == "then" and asked[0].parts["time"] == scoring.Weights().recap
    other = scoring.rank([best, Candidate("then", **then), *filler], query_cjk=0.0, similar=lambda a, b: 0)
    assert other[0].id == "best" and "time" not in next(c for c in other if c.id == "then").parts


def _answer(relevance, recap_asked):
    window = {"start": "2026-05-29T00:00:00+00:00", "end": "2026-05-30T00:00:00+00:00", "matched": "on Friday"}
    if recap_asked:
        window["recap"] = True
    return {"relevance": relevance, "time_window": window}


def test_the_hook_shows_what_was_written_then_for_a_recap_whatever_the_verdict():
    then = {"id": "m1", "relevant": True, "relevance": 0.007, "channels": ["time", "vector"]}
    other = {"id": "m2", "relevant": True, "relevance": 0.3, "channels": ["vector"]}
    assert injection.worth_showing(_answer(0.01, True), then, set(), None)
    assert not injection.worth_showing(_answer(0.01, True), other, set(), None)
    assert not injection.worth_showing(_answer(0.01, True), then, {"m1"}, None)  # shown in this session
    assert not injection.worth_showing(_answer(0.01, False), then, set(), None)  # not a recap: the verdict decides
    assert not injection.worth_showing({**_answer(0.01, True), "nothing_relevant": True}, then, set(), None)


@pytest.mark.parametrize(
    ("question", "unfinished"),
    [
        ("What was I in the middle of on basket this afternoon?", True),
        ("Where did I leave off with the dbt-trino port?", True),
        ("Where was I on the EtaRange crash?", True),
        ("What am I working on in courier?", True),
        ("Anything unfinished in granary?", True),
        ("dbt-trino 的迁移上次做到哪了？", True),
        ("我手头的事情进行到哪一步了？", True),
        ("What did I finish on Friday?", False),  # finished work
        ("Where does courier keep its secrets?", False),
        ("这周在做的 courier 重构是谁提的？", False),
    ],
)
def test_a_question_about_unfinished_work(question, unfinished):
    assert recap.asks_unfinished(question) is unfinished


def test_a_working_memory_leads_for_a_question_about_unfinished_work():
    """The working layer holds a task's scratch state: for "What was I in the middle of?" it
    counts `unfinished` over an equally relevant note of what was done."""
    filler = [Candidate(f"f{i}", similarity=0.78 + 0.002 * i, keyword=0.5) for i in range(5)]
    done = dict(similarity=0.86, keyword=3.0, memory_type="episodic")
    scratch = dict(similarity=0.85, keyword=3.0, memory_type="working")
    asked = scoring.rank(
        [Candidate("done", **done), Candidate("scratch", **scratch, unfinished=True), *filler],
        query_cjk=0.0,
        similar=lambda a, b: 0,
    )
    assert asked[0].id == "scratch" and asked[0].parts["unfinished"] == scoring.Weights().unfinished
    plain = scoring.rank(
        [Candidate("done", **done), Candidate("scratch", **scratch), *filler], query_cjk=0.0, similar=lambda a, b: 0
    )
    assert plain[0].id == "done" and "unfinished" not in plain[1].parts


def test_the_page_explains_the_unfinished_boost():
    """The search page's explanation names every boost recall reports (hindsight/ui/explain.py)."""
    from hindsight.ui import explain

    hit = {"score": 1.2, "score_parts": {"dense": 1.0, "keyword": 0.5, "relevance": 0.8, "unfinished": 0.5}}
    assert "unfinished" in [part for part, _, _ in explain.score_lines(hit)]
    assert "× (1 + unfinished 0.5)" in explain.formula(hit)
