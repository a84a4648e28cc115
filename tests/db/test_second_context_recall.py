"""A person's next words continue what they said: in a chat log (metadata `speaker`), a turn
borrows a little from the same speaker's turn two before or after it, across the other
person's reply ("I went to a poetry reading" / "What was it about?" / "It was ..."); turns
without a speaker, and another speaker's, borrow nothing across a turn (rules/scoring.py)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)

SESSION = [
    ("Caroline", "By the way, I went to a poetry reading last Friday and it was really powerful!"),
    ("Melanie", "Never been to something like that. What made it so special?"),
    ("Caroline", "Trans people shared their own stories on stage, and everyone listened so warmly."),
    ("Melanie", "That sounds so moving, I'm glad you found that community."),
]
ELSEWHERE = [  # each in a talk of its own
    ("Melanie", "I read a poem to the kids before bed; they love rhymes about animals."),
    ("Caroline", "The library near me has an open mic for poetry every month."),
    ("Melanie", "Reading is my favourite way to relax after a long week."),
]
QUESTION = "What was the poetry reading last Friday like?"


async def _chat(memories, with_speakers: bool) -> list:
    ids = []
    talks = [("chat-1", SESSION, 30)] + [(f"chat-{2 + n}", [turn], 20 - n) for n, turn in enumerate(ELSEWHERE)]
    for session, turns, days in talks:
        for i, (speaker, text) in enumerate(turns):
            stored = await memories.store(
                "a",
                f"{speaker}: {text}",
                session_id=session,
                metadata={"speaker": speaker} if with_speakers else {},
                created_at=NOW - timedelta(days=days, minutes=-3 * i),
            )
            ids.append(stored["id"])
    return ids


async def test_a_speakers_next_turn_borrows_across_the_reply(memories, recall):
    ids = await _chat(memories, with_speakers=True)
    answer = ids[2]
    asked = await recall.retrieve("a", QUESTION, as_of=NOW, top_k=7)
    order = [m["id"] for m in asked["memories"]]
    lent = {m["id"]: m["score_parts"].get("context", 0.0) for m in asked["memories"]}
    recall.weights = dataclasses.replace(recall.weights, second_context=0.0)
    plain = await recall.retrieve("a", QUESTION, as_of=NOW, top_k=7)
    plain_order = [m["id"] for m in plain["memories"]]
    plain_lent = {m["id"]: m["score_parts"].get("context", 0.0) for m in plain["memories"]}
    contents = [m["content"] for m in asked["memories"]]
    assert lent[answer] > plain_lent[answer], contents  # it borrowed from the turn two before it
    assert order.index(answer) < plain_order.index(answer), (contents, [m["content"] for m in plain["memories"]])


async def test_turns_without_speakers_borrow_only_from_their_neighbours(memories, recall):
    await _chat(memories, with_speakers=False)
    asked = await recall.retrieve("a", QUESTION, as_of=NOW, top_k=7)
    recall.weights = dataclasses.replace(recall.weights, second_context=0.0)
    plain = await recall.retrieve("a", QUESTION, as_of=NOW, top_k=7)
    assert [(m["id"], m["score"]) for m in asked["memories"]] == [(m["id"], m["score"]) for m in plain["memories"]]
