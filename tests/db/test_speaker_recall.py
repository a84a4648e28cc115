"""A question that names a person finds what that person said (metadata `speaker`, as a chat
log is imported), not the turn in which someone else talks to them about it; a question that
names nobody keeps the plain order (rules/speakers.py)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)

CHAT = [
    ("Caroline", "Wow, Mel, sounds like the kids had a blast! What else are they into these days?"),
    ("Melanie", "They were stoked for the dinosaur exhibit at the museum; they love learning about animals."),
    ("Caroline", "I started volunteering at the LGBTQ youth centre on Saturdays."),
    ("Melanie", "I signed up for a pottery class yesterday, it's like therapy for me."),
    ("Caroline", "My grandma gave me this necklace in Sweden when I was young."),
]


async def test_a_question_naming_a_person_finds_what_they_said(memories, recall):
    ids = []
    for i, (speaker, text) in enumerate(CHAT):
        stored = await memories.store(
            "a",
            f"{speaker}: {text}",
            session_id="chat-1",
            metadata={"speaker": speaker},
            created_at=NOW - timedelta(days=30, minutes=-3 * i),
        )
        ids.append(stored["id"])
    asked = await recall.retrieve("a", "What do Melanie's kids like?", as_of=NOW)
    first = asked["memories"][0]
    assert first["id"] == ids[1] and "speaker" in first["score_parts"], [m["content"] for m in asked["memories"]]
    assert not any("speaker" in m["score_parts"] for m in asked["memories"] if m["id"] in (ids[0], ids[2], ids[4]))
    plain = await recall.retrieve("a", "What do the kids enjoy?", as_of=NOW)
    assert not any("speaker" in m["score_parts"] for m in plain["memories"])
    # the rule is what puts it first: without it, the question that talks about the kids leads
    recall.weights = dataclasses.replace(recall.weights, speaker=0.0)
    unweighted = await recall.retrieve("a", "What do Melanie's kids like?", as_of=NOW)
    assert unweighted["memories"][0]["id"] == ids[0]
