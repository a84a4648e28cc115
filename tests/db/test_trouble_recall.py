"""A question about what went wrong finds the record of the failure (its `error`, its
`outcome`), not a note that merely describes the same service; the same memories asked
about something else keep their order (rules/trouble.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)


async def test_a_question_about_trouble_finds_the_record_of_the_failure(memories, recall):
    note = await memories.store(
        "a",
        "courier-worker is a separate Nomad job: it reads delivery events from the Kafka brokers "
        "and writes them to S3.",
        memory_type="semantic",
        created_at=NOW - timedelta(days=20),
    )
    record = await memories.store(
        "a",
        "courier-worker crash-looped, the Kafka brokers unreachable: the MSK security group did not allow "
        "the new Nomad subnet; adding it fixed it.",
        memory_type="procedural",
        metadata={"tools_used": ["nomad"], "outcome": "failure", "error": "kafka: client has run out of brokers"},
        created_at=NOW - timedelta(days=10),
    )
    for text in (
        "Deploys go out on Thursdays",
        "The user prefers polars over pandas",
        "courier serves ETAs over gRPC; dispatch calls BatchEta with a 150 ms timeout",
        "Kafka topics are named <domain>.<event>, for example delivery.completed",
    ):
        await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=30))
    asked = await recall.retrieve("a", "Why can't courier-worker reach Kafka?", as_of=NOW)
    first = asked["memories"][0]
    assert first["id"] == record["id"] and "trouble" in first["score_parts"], asked["memories"][:2]
    plain = await recall.retrieve("a", "What does courier-worker do with Kafka events?", as_of=NOW)
    assert plain["memories"][0]["id"] == note["id"]
    assert not any("trouble" in m["score_parts"] for m in plain["memories"])
