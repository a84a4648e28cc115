"""A question that asks how often, how long, what time or how much is answered by a memory that
holds such a value: ranking puts it first among comparably relevant memories (rules.scoring's
`value`), so the answer is there, and recall does not say nothing is relevant because the
nearer notes lack one (rules.relevance.lacking). The same memories asked about something else
keep their order."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)


async def test_a_question_that_asks_how_often_finds_the_memory_that_says_how_often(memories, recall):
    schedule = await memories.store(
        "a",
        "feature_push 每 15 分钟跑一次：从 Trino 读 marts.courier_features，给每个门店往 Redis 写一个 hash。",
        memory_type="semantic",
        created_at=NOW - timedelta(days=20),
    )
    for text in (  # nearer to the question, and neither says how often
        "feature_push 往 Redis 推特征之前先做新鲜度检查："
        "marts.courier_features 超过 3 小时没更新就让任务失败，不推旧特征。",
        "feature_push 往 Redis 推特征用的是 redis-py 的集群客户端，key 是 feat:store:<store_id>。",
        "The user prefers polars over pandas",
    ):
        await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=10))
    asked = await recall.retrieve("a", "feature_push 每隔多久往 Redis 推一次特征？", as_of=NOW)
    first = asked["memories"][0]
    assert first["id"] == schedule["id"] and "value" in first["score_parts"], asked["memories"][:2]
    assert not asked.get("nothing_relevant")
    plain = await recall.retrieve("a", "feature_push 推特征之前检查什么？", as_of=NOW)
    assert plain["memories"][0]["id"] != schedule["id"]
    assert not any("value" in m["score_parts"] for m in plain["memories"])


async def test_a_version_of_something_else_does_not_answer_which_version(memories, recall):
    """ "Which Postgres version does courier store its orders in?" asks the version of Postgres:
    the notes that courier is on Go 1.24 and that its orders live in Postgres hold a version and
    the name, but not the one next to the other (rules.asks.version_of)."""
    for text in (
        "courier is on Go 1.24 now (go.mod `go 1.24.0`, CI image golang:1.24-bookworm).",
        "courier keeps its orders in Postgres; the schema lives in migrations/ and sqlc writes the queries.",
        "basket 3.5 开始调用 courier 的 /v2/eta，旧的 /v1/eta 要等 3.5 以前的版本下线后才能删。",
    ):
        await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=5))
    for question in (
        "Which Postgres version does courier store its orders in?",
        "courier 的订单存在哪个版本的 Postgres 里？",
    ):
        asked = await recall.retrieve("a", question, as_of=NOW, top_k=10)
        assert all(m["evidence"]["lacks"] == 1.0 for m in asked["memories"]), asked["memories"]
        assert asked["nothing_relevant"], asked
    go = await recall.retrieve("a", "Which Go version is courier on?", as_of=NOW)
    assert "nothing_relevant" not in go and "Go 1.24" in go["memories"][0]["content"], go
    assert go["memories"][0]["evidence"]["lacks"] == 0.0


async def test_a_question_that_asks_which_channel_finds_the_note_that_names_one(memories, recall):
    """ "这里出问题的时候告警发到哪个频道？" (which channel do alerts go to) is answered by the note that
    names a channel (#plat-alerts), not by the nearer Chinese note on the dashboard that shows trouble."""
    channel = await memories.store(
        "a",
        "courier alerting moved to PagerDuty: service courier-prod pages the platform on-call, "
        "and the Slack channel is #plat-alerts.",
        memory_type="semantic",
        created_at=NOW - timedelta(days=12),
    )
    for text in (
        "courier 的 Grafana 看板加了“特征缺失率”面板：超过 5% 一般说明 feature_push 出问题了，要告警。",
        "courier 出问题的时候先看 Nomad 的 allocation 日志，再看 Grafana 的延迟面板。",
        "The user prefers polars over pandas",
    ):
        await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=5))
    asked = await recall.retrieve("a", "courier 出问题的时候告警发到哪个频道？", as_of=NOW)
    first = asked["memories"][0]
    assert first["id"] == channel["id"] and "value" in first["score_parts"], asked["memories"][:2]
    assert not asked.get("nothing_relevant")
