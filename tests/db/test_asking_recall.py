"""A memory that ends by asking yields to a comparably relevant one that tells: the question
"does anyone know where the staging database is hosted?" shares the words of a question
about it, the answer holds what was asked (scoring.Weights.asking)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
OTHERS = (
    "Deploys go out on Thursdays",
    "The user prefers polars over pandas",
    "Kafka topics are named <domain>.<event>",
    "The team lunch is on Fridays at noon",
)


async def test_a_memory_that_asks_yields_to_the_one_that_answers(memories, recall):
    for text in OTHERS:
        await memories.store("a", text, created_at=NOW - timedelta(days=20))
    asked = await memories.store(
        "a",
        "Quick one: does anyone know where the staging database is hosted these days?",
        session_id="chat",
        created_at=NOW - timedelta(days=3),
    )
    told = await memories.store(
        "a",
        "The staging database is hosted on db-stg-02 in eu-west-1.",
        session_id="chat",
        created_at=NOW - timedelta(days=3, minutes=-2),
    )
    found = await recall.retrieve("a", "Where is the staging database hosted?", as_of=NOW)
    ids = [m["id"] for m in found["memories"]]
    assert ids[:2] == [told["id"], asked["id"]], [m["content"] for m in found["memories"][:2]]
    assert found["memories"][1]["score_parts"]["asking"] == 0.9
    assert "asking" not in found["memories"][0]["score_parts"]
    # the rule is what orders them: the question shares more of the question's words
    recall.weights = dataclasses.replace(recall.weights, asking=1.0)
    plain = await recall.retrieve("a", "Where is the staging database hosted?", as_of=NOW)
    assert [m["id"] for m in plain["memories"][:2]] == [asked["id"], told["id"]]
