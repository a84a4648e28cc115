"""A session's outcome from its transcript: at Stop the server waits (a little) for the
client to write the turn's answer; at PreCompact it takes what is written, since a compaction
comes mid-turn, often right after a tool's result."""

from __future__ import annotations

import json

import pytest

from hindsight.hooks import service
from hindsight.hooks.events import from_fields
from hindsight.hooks.service import Hooks

TURN = [
    {"type": "user", "message": {"role": "user", "content": "Make the courier tests pass; use table-driven tests"}},
    {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "go test ./..."}}]}},
    {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "FAIL: TestEta timeout", "is_error": True}]}},
]  # fmt: skip


@pytest.mark.parametrize("event, waits", [("Stop", True), ("PreCompact", False)])
async def test_only_stop_waits_for_the_answer_to_be_written(db, memories, recall, tmp_path, monkeypatch, event, waits):
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("".join(json.dumps(e) + "\n" for e in TURN))  # ends on a tool's result
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(service.asyncio, "sleep", sleep)
    found = from_fields(
        {"hook_event_name": event, "session_id": "s1", "cwd": str(tmp_path), "transcript_path": str(transcript)}
    )
    await Hooks(db, memories, recall).handle("a", found, None)
    assert (sum(slept) >= service.TRANSCRIPT_WAIT - 0.05) == waits, slept
