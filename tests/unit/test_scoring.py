"""Ranking rules, pure: relevance leads, evidence reorders and rescues, never lifts the
irrelevant above the relevant."""

from datetime import datetime, timedelta, timezone

import pytest

from hindsight.rules import plans, scoring
from hindsight.rules.scoring import Candidate

T0 = datetime(2026, 5, 1, tzinfo=timezone.utc)


def rank(cands, similar=None, **kw):
    return [c.id for c in scoring.rank(cands, query_cjk=0.0, similar=similar or (lambda a, b: 0.0), **kw)]


def test_relevance_mixes_meaning_and_words():
    both = Candidate("both", similarity=0.88, keyword=5.0)
    words = Candidate("words", similarity=0.80, keyword=6.0)
    meaning = Candidate("meaning", similarity=0.89, keyword=0.0)
    assert rank([words, meaning, both])[0] == "both"


@pytest.mark.parametrize(
    "evidence", [dict(uses_tool=True, tool_failed=True), dict(same_session=True), dict(in_window=True)]
)
def test_evidence_cannot_lift_an_irrelevant_memory(evidence):
    relevant = Candidate("relevant", similarity=0.90, keyword=8.0)
    filler = [Candidate(f"f{i}", similarity=0.78 + 0.002 * i, keyword=0.5) for i in range(5)]
    noise = Candidate("noise", similarity=0.79, keyword=0.0, **evidence)
    assert rank([relevant, noise, *filler])[0] == "relevant"


def test_evidence_reorders_comparably_relevant_memories():
    plain = Candidate("plain", similarity=0.86, keyword=5.0)
    failed = Candidate("failed", similarity=0.85, keyword=4.8, uses_tool=True, tool_failed=True)
    used = Candidate("used", similarity=0.85, keyword=4.8, uses_tool=True)
    assert rank([plain, used, failed, Candidate("low", similarity=0.75)]) == ["failed", "used", "plain", "low"]


def test_time_window_boosts_only_candidates_close_to_the_best():
    best = Candidate("best", similarity=0.90, keyword=8.0)
    near = Candidate("near", similarity=0.88, keyword=6.0, in_window=True)
    weak = Candidate("weak", similarity=0.80, keyword=0.5, in_window=True)
    floor = Candidate("floor", similarity=0.76)
    ranked = scoring.rank([best, near, weak, floor], query_cjk=0.0, similar=lambda a, b: 0.0)
    assert [c.id for c in ranked][:2] == ["near", "best"]
    assert "time" not in next(c for c in ranked if c.id == "weak").parts


def test_no_length_prior_and_small_priors():
    short = Candidate("short", similarity=0.86, keyword=5.0, importance=3)
    vital = Candidate("vital", similarity=0.84, keyword=4.0, importance=5, decay=1.0)
    faded = Candidate("faded", similarity=0.86, keyword=5.0, decay=0.31)
    assert rank([vital, short]) == ["short", "vital"]  # importance nudges, does not decide
    assert rank([faded, short])[0] == "short"  # equal relevance: the stronger memory first
    undecayed = scoring.rank(
        [
            Candidate("faded", similarity=0.86, keyword=5.0, decay=0.31),
            Candidate("short", similarity=0.86, keyword=5.0),
        ],
        query_cjk=0.0,
        similar=lambda a, b: 0.0,
        use_decay=False,
    )
    assert undecayed[0].score == undecayed[1].score  # a question about the past ignores today's fading


def test_low_trust_memories_sink_a_little():
    trusted = Candidate("trusted", similarity=0.85, keyword=5.0)
    poisoned = Candidate("poisoned", similarity=0.855, keyword=5.0, low_trust=True)
    assert rank([poisoned, trusted, Candidate("x", similarity=0.7)])[0] == "trusted"


@pytest.mark.parametrize(
    "text, asking",
    [
        ("Caroline: What did you paint last weekend?", True),
        ("你试过重启吗？", True),
        ("Is the staging VPN still up?  ", True),
        ('Kwame asked: "Can we move courier to EKS?"', True),
        ("（要不要先回滚？）", True),
        ("What? No, it moved to vpn-new.", False),
        ("The build uses Python 3.12.", False),
        ("", False),
    ],
)
def test_a_memory_that_ends_by_asking(text, asking):
    assert scoring.asks(text) is asking


def test_a_memory_that_asks_yields_to_a_comparable_one_that_tells():
    def ranked(**weights):
        asked = Candidate("asked", similarity=0.86, keyword=5.0, text="Did you paint anything last weekend?")
        told = Candidate("told", similarity=0.855, keyword=4.8, text="I painted a sunset over the lake.")
        clear = Candidate("clear", similarity=0.90, keyword=8.0, text="Which brush do you use for skies?")
        filler = [Candidate(f"f{i}", similarity=0.78 + 0.002 * i, keyword=0.5) for i in range(5)]
        return rank([asked, told, clear, *filler], weights=scoring.Weights(**weights))

    assert ranked()[:3] == ["clear", "told", "asked"]  # a clearly better question still leads
    assert ranked(asking=1.0)[:3] == ["clear", "asked", "told"]


def test_a_reply_borrows_from_its_question():
    question = Candidate("q", similarity=0.90, keyword=9.0, next="a", next_minutes=0.0)
    answer = Candidate("a", similarity=0.82, keyword=0.0, prev="q", prev_minutes=0.0)
    other = Candidate("o", similarity=0.83, keyword=0.5)
    far = Candidate("far", similarity=0.82, keyword=0.0, prev="q", prev_minutes=600.0)
    ranked = scoring.rank([question, answer, other, far], query_cjk=0.0, similar=lambda a, b: 0.0)
    order = [c.id for c in ranked]
    assert order.index("a") < order.index("o")
    parts = {c.id: c.parts.get("context", 0) for c in ranked}
    assert parts["a"] > parts["far"] > 0  # a close neighbour lends more than a distant one


def test_a_speakers_turn_borrows_from_their_own_two_turns_away():
    def lent(**answer_fields):
        said = Candidate(
            "said", similarity=0.90, keyword=9.0, next="reply", next2="more", next_minutes=1.0, speaker="Ana"
        )
        reply = Candidate("reply", similarity=0.80, keyword=1.0, prev="said", next="more", speaker="Ben")
        more = Candidate("more", similarity=0.80, keyword=0.0, prev="reply", prev2="said", **answer_fields)
        ranked = scoring.rank([said, reply, more], query_cjk=0.0, similar=lambda a, b: 0.0)
        return {c.id: c.parts.get("context", 0.0) for c in ranked}["more"]

    from_reply = lent(speaker="Ben")  # another speaker's: only what the reply next to it lends
    assert lent(speaker="Ana") > from_reply  # the same speaker's words, across the reply
    assert lent(speaker=None) == from_reply  # no speaker recorded: nothing across a turn
    assert lent(speaker="Ana") - from_reply == pytest.approx(scoring.Weights().second_context * 1.0, rel=0.2)


def test_a_newer_memory_that_says_it_changed_outranks_the_old_fact():
    old = Candidate(
        "old", similarity=0.905, keyword=12.0, memory_type="semantic", created_at=T0, text="Errors go to Rollbar"
    )
    new = Candidate(
        "new",
        similarity=0.895,
        keyword=11.5,
        memory_type="semantic",
        created_at=T0 + timedelta(days=40),
        text="Errors moved to Sentry now",
    )
    others = [Candidate(f"o{i}", similarity=0.80 + 0.01 * i, keyword=2.0) for i in range(4)]
    sim = {frozenset({"old", "new"}): 0.91}
    ranked = scoring.rank([old, new, *others], query_cjk=0.0, similar=lambda a, b: sim.get(frozenset({a, b}), 0.5))
    assert ranked[0] is new and old.score <= 0.3 * new.score and old.outdated_by == "new"


def test_each_candidates_words_of_change_are_read_once_however_many_pairs_it_is_in(monkeypatch):
    """The outdated step weighs every pair of its best candidates: whether a newer text says
    something changed is read once per candidate, not once per pair (a long note's scan
    ran ~100 times a recall), and the pairs it marks are the same."""

    def fact(name: str, similarity: float, day: int, text: str) -> Candidate:
        created = T0 + timedelta(days=day)
        return Candidate(name, similarity, keyword=10.0, memory_type="semantic", created_at=created, text=text)

    olds = [fact(f"old{i}", 0.90 - 0.001 * i, i, f"Errors of service {i} go to Rollbar") for i in range(8)]
    news = [fact(f"new{i}", 0.895 - 0.001 * i, 40 + i, f"Errors of service {i} moved to Sentry now") for i in range(8)]
    read: list[str] = []
    real = scoring.states_change
    monkeypatch.setattr(scoring, "states_change", lambda text: read.append(text) or real(text))
    same = {frozenset({f"old{i}", f"new{i}"}) for i in range(8)}
    scoring.rank([*olds, *news], query_cjk=0.0, similar=lambda a, b: 0.95 if frozenset({a, b}) in same else 0.5)
    assert len(read) == len(set(read))  # 89 reads when each pair read its newer text
    assert [old.outdated_by for old in olds] == [f"new{i}" for i in range(8)]


def test_a_similar_newer_memory_about_something_else_does_not_outdate():
    """e5 puts unrelated Chinese sentences above 0.90: the test server's change is not the
    Nginx procedure's (the case a newcomer hit)."""
    old = Candidate(
        "old",
        similarity=0.91,
        keyword=10.0,
        memory_type="procedural",
        created_at=T0,
        text="Nginx 改完配置以后要执行 systemctl restart nginx 重启。",
        cjk=0.6,
    )
    new = Candidate(
        "new",
        similarity=0.90,
        keyword=10.0,
        memory_type="semantic",
        created_at=T0 + timedelta(days=3),
        text="项目的测试服务器地址已经换成 test-02.example.cn。",
        cjk=0.7,
    )
    ranked = scoring.rank([old, new], query_cjk=0.8, similar=lambda a, b: 0.907)
    assert old.outdated_by is None and "outdated" not in old.channels
    assert {c.id for c in ranked} == {"old", "new"}


def test_similar_memories_that_do_not_say_they_changed_are_left_alone():
    old = Candidate("old", similarity=0.905, keyword=12.0, memory_type="semantic", created_at=T0)
    new = Candidate("new", similarity=0.86, keyword=11.0, memory_type="semantic", created_at=T0 + timedelta(days=40))
    event = Candidate(
        "event",
        similarity=0.90,
        keyword=12.0,
        memory_type="episodic",
        created_at=T0,
    )
    changed = Candidate(
        "changed", similarity=0.89, keyword=11.5, created_at=T0 + timedelta(days=1), text="it is gone now"
    )
    assert rank([old, new], similar=lambda a, b: 0.95) == ["old", "new"]
    assert rank([event, changed], similar=lambda a, b: 0.95)[0] == "event"  # an episode cannot become untrue


@pytest.mark.parametrize(
    "text, changed",
    [
        ("basket reports crashes to Sentry now", True),
        ("courier alerting moved to PagerDuty", True),
        ("trino-adhoc is gone: folded into the main cluster", True),
        ("崩溃现在去 Sentry 看", True),
        ("特征存储已经换成 redis-feat 集群", True),
        ("Crash reporting in basket is Firebase Crashlytics", False),
        ("courier alerts post to Slack #courier-alerts", False),
        ("Kwame is the Vault admin.", False),
    ],
)
def test_change_statements(text, changed):
    assert scoring.states_change(text) is changed


def test_a_memory_in_the_other_language_is_not_penalised_for_it():
    en = Candidate("en", similarity=0.83, keyword=0.0, cjk=0.0)
    zh = Candidate("zh", similarity=0.85, keyword=0.0, cjk=0.9)
    floor = Candidate("floor", similarity=0.75, cjk=0.9)
    assert [c.id for c in scoring.rank([zh, en, floor], query_cjk=0.9, similar=lambda a, b: 0)][0] == "en"


def test_a_memory_named_as_replaced_at_write_time_sinks_under_its_successor():
    old = Candidate("old", similarity=0.86, keyword=5.0, memory_type="semantic", created_at=T0)
    new = Candidate(
        "new",
        similarity=0.82,
        keyword=1.5,
        memory_type="semantic",
        created_at=T0 + timedelta(days=9),
        replaces=frozenset({"old"}),
    )
    ranked = scoring.rank([old, new, Candidate("x", similarity=0.75)], query_cjk=0.0, similar=lambda a, b: 0.0)
    assert ranked[0] is new and old.outdated_by == "new"
    unrelated = Candidate(
        "u", similarity=0.76, keyword=0.0, created_at=T0 + timedelta(days=9), replaces=frozenset({"old2"})
    )
    old2 = Candidate("old2", similarity=0.90, keyword=6.0, memory_type="semantic", created_at=T0)
    assert [c.id for c in scoring.rank([old2, unrelated], query_cjk=0.0, similar=lambda a, b: 0.0)][0] == "old2"


def test_a_replacement_is_as_near_as_what_it_replaced():
    """ "Prefers ruff over flake8." is far from "Which linter does granary use?"; the memory it
    replaced ("granary's Python is linted with flake8 ...") was near: the current value of
    the same thing answers the question."""
    terse = Candidate("terse", similarity=0.78, keyword=1.0, replaced=((0.88, 0.0, "flake8"), (0.70, 0.0, "pylint")))
    other = Candidate("other", similarity=0.85, keyword=1.0)
    filler = [Candidate(f"f{i}", similarity=0.80 + 0.002 * i) for i in range(4)]
    ranked = scoring.rank([other, terse, *filler], query_cjk=0.0, similar=lambda a, b: 0.0)
    assert ranked[0].id == "terse"
    assert ranked[0].parts["replaced"] == pytest.approx(0.88 - scoring.Weights().replaced_margin)
    assert ranked[0].similarity == 0.78  # its own cosine is still what it reports
    assert ranked[0].lent == (pytest.approx(0.88 - scoring.Weights().replaced_margin), "flake8")  # judged by it too
    # what it replaced was farther than itself: nothing changes
    plain = [
        Candidate("terse", similarity=0.78, keyword=1.0, replaced=((0.70, 0.0, "old"),)),
        Candidate("other", 0.85, keyword=1.0),
    ]
    ranked = scoring.rank(plain, query_cjk=0.0, similar=lambda a, b: 0.0)
    assert [c.id for c in ranked] == ["other", "terse"] and "replaced" not in ranked[1].parts
    assert ranked[1].lent is None
    # a near tie with what it replaced goes to the memory that is near on its own
    tie = [Candidate("terse", similarity=0.70, replaced=((0.855, 0.0, "old"),)), Candidate("other", similarity=0.85)]
    assert rank(tie) == ["other", "terse"]
    # across languages each keeps its own allowance: an English successor of a Chinese note,
    # for a Chinese question, lends the note's cosine once, not again with its own allowance
    zh = [Candidate("en", similarity=0.70, replaced=((0.86, 1.0, "旧的"),)), Candidate("zh", similarity=0.857, cjk=1.0)]
    ranked = scoring.rank(zh, query_cjk=1.0, similar=lambda a, b: 0.0)
    assert [c.id for c in ranked] == ["zh", "en"]
    assert ranked[1].parts["replaced"] == pytest.approx(0.86 - scoring.Weights().replaced_margin)


def test_vector_plan_scans_small_agents_exactly_and_uses_the_index_for_large_ones():
    plan = plans.vector_plan
    assert plan(0, 0) == "exact" and plan(150, 1_000_000) == "exact"
    assert plan(plans.EXACT_ALWAYS, plans.EXACT_ALWAYS) == "exact"  # alone, but cheap to scan
    assert plan(5_000, 1_000_000) == "exact"  # a small share of a shared index: the index would starve
    assert plan(5_000, 5_000) == "index" and plan(10_000, 12_000) == "index"  # most of the index is its own
    assert plan(plans.EXACT_MAX, 1_000_000) == "exact"
    assert plan(plans.EXACT_MAX + 1, 1_000_000) == "index"  # the capped count says "more"
    assert plan(100_000, 1_000_000) == "index" and plan(100_000, 100_000) == "index"
    assert plan(3_000, 0) == "index"  # reltuples unknown (never analysed): the agent is all there is


def test_a_recall_plans_its_statement_ahead_only_when_it_runs_alone():
    assert plans.plan_ahead(1)
    assert not plans.plan_ahead(2) and not plans.plan_ahead(8)


def test_window_plan_orders_a_windows_latest_rows_unless_the_index_serves_a_wider_one():
    plan, latest = plans.window_plan, plans.WINDOW_LATEST
    assert plan("index", 0, 100_000) == "latest" and plan("index", latest, 100_000) == "latest"  # ordered exactly
    assert plan("index", latest + 1, 100_000) == "index"  # the capped count says "more": the index, filtered
    assert plan("exact", latest + 1, 100_000) == "latest"  # an agent scanned exactly is never searched by the index
    assert plan("index", latest + 1, 100_000, filtered=True) == "latest"  # a caller's filter thins it further
    # a window too small a share of the index would starve the filtered scan (max_scan_tuples)
    assert plan("index", latest + 1, 2_000_000) == "latest" and plan("index", 20_000, 2_000_000) == "index"
    assert plans.window_count_cap(100_000) == latest + 1  # enough to tell "more than the latest"
    assert plans.window_count_cap(2_000_000) == 20_001  # ... and "a share of the index"


def test_confidence_never_rises_down_the_list():
    hits = [{"relevance": 0.9}, {"relevance": 0.14}, {"relevance": 0.35}]
    scoring.monotone_confidence(hits)
    assert [h["confidence"] for h in hits] == [0.9, 0.14, 0.14]


def test_an_empty_prompt_block_says_nothing_is_relevant():
    assert scoring.prompt_block([], lambda t: len(t), 100) == (scoring.NOTHING_RELEVANT, [])


def _memory(id_, content, **more):
    return {"id": id_, "content": content, "memory_type": "semantic", "confidence": 0.9,
            "created_at": "2026-11-01T00:00:00+00:00", **more}  # fmt: skip


def test_the_prompt_block_marks_a_changed_fact_with_what_the_newer_one_says():
    old = _memory("a", "The test server is test-01", possibly_outdated_by="b")
    new = _memory("b", "The test server moved to test-02")
    block, ids = scoring.prompt_block([old], len, 1000, {"b": new})  # the newer one below the floor
    line = next(x for x in block.splitlines() if "test-01" in x)
    assert "possibly outdated" in line and "test-02" in line and ids == ["a"]
    block, ids = scoring.prompt_block([new, old], len, 1000, {"a": old, "b": new})  # both shown: the older left out
    assert "test-01" not in block and ids == ["b"]
    block, _ = scoring.prompt_block([old], len, 1000, {})  # the newer one not recalled at all
    assert "possibly outdated: a newer memory says it changed" in block


def test_the_prompt_block_ids_are_the_memories_it_shows():
    many = [_memory(str(n), "word " * 40) for n in range(10)]
    block, ids = scoring.prompt_block(many, len, 700)
    assert ids == [str(n) for n in range(len(ids))] and 0 < len(ids) < 10
    assert block.count("\n") == len(ids) + 1  # the head, the lines, the tail
