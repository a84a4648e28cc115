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
