"""What ranking reads of a candidate's row (rules/scoring.py's Candidate): pure, the row and
the request in, a Candidate out (its cosine to the query is set when the vector channel has
answered). A candidate, and every memory it names (its session neighbours, what it said it
replaces), is known by its key, (agent, id): another agent's shared memory may carry the same
id as one of the agent's own (an export imported into a second agent keeps its ids)."""

from __future__ import annotations

from typing import Any

from ..rules import asks, deixis, scoring, speakers, timeparse, tools, trouble
from ..rules.text import cjk_share
from .request import Request


def candidate(row, req: Request, keyword_found: dict, window: timeparse.Window | None) -> scoring.Candidate:
    """What ranking reads of a row, but its cosine to the query (_Held.candidate sets it)."""
    meta = row["metadata"] or {}
    agent = row["agent_id"]
    key = (agent, row["id"])
    channel, keyword = keyword_found.get(key, (None, 0.0))
    tools_used = meta.get("tools_used") if isinstance(meta.get("tools_used"), list) else []
    uses_tool = bool(req.tools) and any(isinstance(t, str) and t.lower() in req.tools for t in tools_used)
    same_session = bool(
        (req.session_id and row["session_id"] == req.session_id)
        or (req.task_type and meta.get("task_type") == req.task_type)
    )
    in_window = window is not None and window.start <= row["created_at"] < window.end
    channels = {
        name
        for name, on in (
            ("time", in_window),
            ("tools", uses_tool),
            ("recent", same_session),
        )
        if on
    }
    if channel:
        channels.add(channel)
    failed = uses_tool and trouble.records_failure(meta)
    named = row["project"] is not None and deixis.names_project(req.query, row["project"])
    return scoring.Candidate(
        id=key,
        similarity=0.0,
        keyword=keyword,
        created_at=row["created_at"],
        memory_type=row["memory_type"],
        importance=row["importance"],
        decay=float(row["decay_score"]),
        cjk=cjk_share(row["content"]),
        text=row["content"],
        low_trust="low_trust" in (row["flags"] or ()),
        in_window=in_window,
        recap=in_window and req.recap,
        unfinished=req.unfinished and row["memory_type"] == "working",
        uses_tool=uses_tool,
        tool_failed=failed,
        same_session=same_session,
        prev=_key(agent, row["prev"]),
        prev_minutes=_minutes(row["prev_minutes"]),
        next=_key(agent, row["next"]),
        next_minutes=_minutes(row["next_minutes"]),
        prev2=_key(agent, row["prev2"]),
        next2=_key(agent, row["next2"]),
        speaker=_speaker(meta.get("speaker")),
        channels=channels,
        replaces=frozenset((agent, old) for old in row["likely_replaces"] or ()),
        project=row["project"],
        other_project=bool(req.open_projects) and row["project"] not in (None, *req.open_projects) and not named,
        pointed=row["project"] is not None and (row["project"] == req.pointed_at or named),
        trouble=req.troubled and trouble.records_trouble(meta),
        holds_value=(req.asks_for in asks.TELLING and asks.holds(req.asks_for, row["content"]))
        or tools.named_in(row["content"], req.asks_which),
        said=speakers.said_by_named(req.query, meta),
    )


def _key(agent: str, memory_id: Any) -> tuple | None:
    """A memory the row names (always one of the row's own agent), by its key."""
    return None if memory_id is None else (agent, memory_id)


def _speaker(value: Any) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None  # who said it, if anyone


def _minutes(value: Any) -> float | None:
    return None if value is None else float(value)


def link_neighbours(cands: list[scoring.Candidate]) -> None:
    """The statement names each seed's neighbours (and the ones two away); a neighbour
    learns the seed is its own."""
    by_id = {c.id: c for c in cands}
    for c in cands:
        before = by_id.get(c.prev)
        if before is not None and before.next is None:
            before.next, before.next_minutes = c.id, c.prev_minutes
        after = by_id.get(c.next)
        if after is not None and after.prev is None:
            after.prev, after.prev_minutes = c.id, c.next_minutes
        if before is not None and after is not None:  # the seed between them: they are two apart
            before.next2 = before.next2 if before.next2 is not None else after.id
            after.prev2 = after.prev2 if after.prev2 is not None else before.id
        second_before = by_id.get(c.prev2)
        if second_before is not None and second_before.next2 is None:
            second_before.next2 = c.id
        second_after = by_id.get(c.next2)
        if second_after is not None and second_after.prev2 is None:
            second_after.prev2 = c.id
