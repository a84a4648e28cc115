"""A question that asks what happened in the time it names ("What did I finish yesterday?")
is answered by what was written then: those memories rank first and count as relevant, and
the prompt hook shows them, though the question's few other words match an older note better
(rules/recap.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hindsight.hooks.events import from_fields
from hindsight.hooks.service import Hooks
from hindsight.recall import search

OLD = (
    "Finish the release checklist before tagging: smoke tests, changelog, then the tag.",
    "Ines reviews basket MRs; Ethan reviews courier and infra.",
    "Deploys go out on Thursdays.",
    "The user prefers polars over pandas.",
)
THEN = (
    "Migrated the last Redux slice (cart) to Zustand; react-redux is no longer a dependency of basket.",
    "Wrote the Nomad vs EKS cost comparison for Kwame: EKS is about 18 % dearer at our size.",
)


async def _store(memories):
    now = datetime.now(timezone.utc)
    old = [
        (await memories.store("a", t, memory_type="semantic", created_at=now - timedelta(days=30)))["id"] for t in OLD
    ]
    return old, [(await memories.store("a", text, created_at=now - timedelta(days=1)))["id"] for text in THEN]


async def test_what_was_written_then_answers_a_question_about_what_happened(db, memories, recall, tmp_path):
    _, then = await _store(memories)
    found = await recall.retrieve("a", "What did I finish yesterday?")
    assert found["time_window"]["recap"] is True
    first = found["memories"][:2]
    assert {m["id"] for m in first} == set(then), [
        (m["content"][:30], m["score_parts"], m["channels"]) for m in found["memories"]
    ]
    assert all(m["relevant"] and "time" in m["channels"] for m in first)

    prompt = from_fields(
        {"hook_event_name": "UserPromptSubmit", "session_id": "s9", "cwd": str(tmp_path),
         "prompt": "What did I finish yesterday?"}
    )  # fmt: skip
    block = await Hooks(db, memories, recall).handle("a", prompt, None)
    assert set(then) <= set(block.ids), block.context


async def test_a_question_that_names_a_time_but_asks_something_else_keeps_the_relevance_floor(
    memories, recall, monkeypatch
):
    old, then = await _store(memories)
    monkeypatch.setattr(search.recap, "asks_what_happened", lambda question, time_words: False)
    found = await recall.retrieve("a", "What did I finish yesterday?")
    assert "recap" not in found["time_window"]
    relevant = {m["id"] for m in found["memories"] if m["relevant"]}
    assert old[0] in relevant and not relevant >= set(then)  # the release checklist leads


async def test_a_question_about_unfinished_work_is_answered_by_the_working_layer(memories, recall):
    """ "Where did I leave off on the EtaRange crash?" asks for a task's scratch state (memory_type
    working), not the nearer note of what the crash was (rules.recap.asks_unfinished)."""
    now = datetime.now(timezone.utc)
    crash = await memories.store(
        "a",
        "Left the EtaRange crash on Android for now: a null arrival window from /v2/eta makes EtaRange throw.",
        memory_type="episodic",
        created_at=now - timedelta(hours=3),
    )
    scratch = await memories.store(
        "a",
        "Bisecting EtaRange: good at 3f1a2c9, bad at HEAD, about 5 steps left; keep the emulator open.",
        memory_type="working",
        created_at=now - timedelta(hours=2),
    )
    for text in OLD:  # the rest of what the agent remembers
        await memories.store("a", text, memory_type="semantic", created_at=now - timedelta(days=30))
    for question in ("Where did I leave off on the EtaRange crash?", "EtaRange 那个崩溃我上次做到哪了？"):
        found = await recall.retrieve("a", question)
        assert found["memories"][0]["id"] == scratch["id"], (question, found["memories"][:2])
        assert "unfinished" in found["memories"][0]["score_parts"]
    what = await recall.retrieve("a", "What makes EtaRange crash on Android?")
    assert what["memories"][0]["id"] == crash["id"] and "unfinished" not in what["memories"][0]["score_parts"]
