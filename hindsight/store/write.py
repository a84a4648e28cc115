"""store_memory step by step (Memories.store runs them): check the call; then, in the
transaction holding the agent's write lock, find what it supersedes, find a duplicate,
supersede, reinforce the duplicate or insert (falling back to reinforcing when the unique
index finds a twin a writer outside the lock stored); and report what happened."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..data.columns import NewMemory
from ..data.db import Tx
from ..data.records import Memory, iso
from ..errors import InvalidInput
from ..rules import changes, dedup, policy, projects
from ..rules import validate as v
from ..rules.changes import Translate
from ..rules.text import content_hash
from .prepare import Prepared
from .result import StoreResult
from .unit import Unit

MAX_TTL_SECONDS = 100 * 365 * 24 * 3600
NEIGHBOURS = 8  # candidates read for near-duplicates and conflicts
MAX_CONFLICTS = 3


@dataclass(frozen=True)
class Write:
    """A checked store_memory call (check builds it; services.StoreRequest)."""

    agent_id: str
    content: str
    memory_type: str
    session_id: str | None
    importance: int
    metadata: dict[str, Any]
    tags: list[str]
    shared: bool
    created: datetime | None
    slot: str | None  # the slot named, or the one of the memory it supersedes
    supersedes: uuid.UUID | None
    sensitive: list[str]
    now: datetime
    expires: datetime | None
    from_tool: bool
    call: str
    reason: str | None
    project: str | None = None  # None: global


def check(
    agent_id: Any,
    content: Any,
    *,
    memory_type: Any = "episodic",
    session_id: Any = None,
    importance: Any = 3,
    metadata: Any = None,
    tags: Any = None,
    ttl_seconds: Any = None,
    shared: Any = False,
    created_at: Any = None,
    slot: Any = None,
    supersedes: Any = None,
    sensitive: Any = None,
    project: Any = None,
    open_project: str | None = None,
    from_tool: bool = False,
    call: str = "store_memory",
    reason: str | None = None,
) -> Write:
    """Validate a store_memory call; InvalidInput names the first bad field. `project`: the
    call's ("" for none); `open_project`: the client's (rules.projects.for_write decides)."""
    agent_id = v.agent_id(agent_id)
    content = v.content(content)
    memory_type = v.memory_type(memory_type)
    session_id = v.identifier("session_id", session_id)
    importance = v.importance(importance)
    metadata = v.metadata(metadata) or {}
    tags = v.tags(tags) or []
    ttl = v.integer("ttl_seconds", ttl_seconds, 1, MAX_TTL_SECONDS, required=False)
    if not isinstance(shared, bool):
        raise InvalidInput("shared", "must be true or false")
    created = v.timestamp("created_at", created_at)
    slot = v.slot(slot)
    supersedes = v.memory_id(supersedes, "supersedes", required=False)
    sensitive = v.sensitive(sensitive, metadata)
    project = projects.for_write(v.project(project), open_project, memory_type, slot, reason, content)
    now = datetime.now(timezone.utc)
    expires = policy.expires_at(importance, memory_type, ttl, now)
    return Write(
        agent_id=agent_id,
        content=content,
        memory_type=memory_type,
        session_id=session_id,
        importance=importance,
        metadata=metadata,
        tags=tags,
        shared=shared,
        created=created,
        slot=slot,
        supersedes=supersedes,
        sensitive=sensitive,
        now=now,
        expires=expires,
        from_tool=from_tool,
        call=call,
        reason=reason,
        project=project,
    )


async def targets(unit: Unit, supersedes: uuid.UUID | None, slot: str | None) -> dict[uuid.UUID, str | None]:
    """The current memories this write replaces: {id: its slot}."""
    tx, agent_id = unit.tx, unit.agent_id
    found: dict[uuid.UUID, str | None] = {}
    if supersedes is not None:
        state = await tx.fetchrow("own_memory_state", agent_id, supersedes)
        if state is None:
            raise InvalidInput("supersedes", f"no memory with id {supersedes} belongs to agent {agent_id!r}")
        if state["invalidated_at"] is not None:
            raise InvalidInput(
                "supersedes",
                f"memory {supersedes} is no longer current (invalidated at "
                f"{iso(state['invalidated_at'])}: {state['invalidation_reason']})",
            )
        if slot is not None and state["slot"] not in (None, slot):
            raise InvalidInput("slot", f"memory {supersedes} holds slot {state['slot']!r}, not {slot!r}")
        found[supersedes] = state["slot"]
    holder = await unit.slot_holder(slot)
    if holder is not None:
        found[holder] = slot
    return found


def duplicate(
    w: Write, p: Prepared, words: tuple[str, ...], candidates: list, threshold: float
) -> tuple[uuid.UUID | None, list]:
    """The memory this write repeats, if any (the same dedup key, or, unless sealed, a
    near-duplicate in the same layer and session), and the other candidates: (dup_id, near)."""
    dup_id = next((c["id"] for c in candidates if c["exact"]), None)
    near = [c for c in candidates if not c["exact"]]
    if dup_id is None and p.sealed is None:
        dup_id = next(
            (
                n["id"]
                for n in near
                if n["memory_type"] == w.memory_type
                and not n["sealed"]
                and (w.memory_type != "working" or n["session_id"] == w.session_id)
                and n["similarity"] >= threshold  # the key only when it matters
                and dedup.is_near_duplicate(n["similarity"], words, dedup.lexical_key(n["content"]), threshold)
            ),
            None,
        )
    return dup_id, near


async def supersede(tx: Tx, agent_id: str, replaced: dict[uuid.UUID, str | None], keep_id: uuid.UUID) -> list:
    """Invalidate what the write replaces (but not the memory it keeps); returns their ids."""
    superseded = [t for t in replaced if t != keep_id]
    for old in superseded:
        await tx.fetchrow("invalidate_memory", agent_id, old, f"superseded by {keep_id}", keep_id)
    return superseded


async def reinforce(tx: Tx, w: Write, p: Prepared, dup_id: uuid.UUID):
    """The duplicate strengthened instead of a second copy; returns its row."""
    row = await tx.fetchrow("reinforce_memory", w.agent_id, dup_id, w.importance, w.expires, p.strength, w.slot)
    await tx.fetchval("reinforce_state", w.agent_id, dup_id)
    return row


async def insert(tx: Tx, w: Write, p: Prepared, search: str, vector, new_id: uuid.UUID, likely: list):
    """The new memory; None when the unique index found a current twin. `search`: its keyword
    text (prepare_with_key's); `likely`: the older memories it probably replaces."""
    new = NewMemory(
        agent_id=w.agent_id,
        id=new_id,
        session_id=w.session_id,
        memory_type=w.memory_type,
        content=p.content,
        content_hash=content_hash(p.content),
        embedding=vector,
        search_vector=search,
        metadata=p.metadata,
        tags=w.tags,
        importance=w.importance,
        created_at=w.created,
        expires_at=w.expires,
        shared=w.shared,
        dedup_key=p.dedup_key,
        slot=w.slot,
        flags=p.flags,
        sealed=p.sealed,
        strength=p.strength,
        project=w.project,
    )
    row = await tx.fetchrow("insert_memory", *new)
    if row is not None and likely:
        await tx.fetchval("mark_likely_replaces", w.agent_id, new_id, likely)
    return row


def likely_replaced(near: list, content: str, created: datetime, replaced, translate: Translate | None) -> list:
    """Older current facts and procedures that a new memory saying something changed
    probably replaces (hindsight/rules/changes.py: a cosine floor for the pair's scripts,
    shared subject words)."""
    if not changes.states_change(content):
        return []
    return [n["id"] for n in near if n["id"] not in replaced and _outdates(n, content, created, translate)]


def _outdates(n, content: str, created: datetime, translate: Translate | None) -> bool:
    """Whether the new memory (`content`, written at `created`) says that the older fact or
    procedure `n` changed."""
    return (
        n["memory_type"] in ("semantic", "procedural")
        and n["created_at"] < created
        and changes.says_changed(n["content"], content, float(n["similarity"]), RULE, translate)
    )


def conflicts(near: list, row, threshold: float, translate: Translate | None) -> list[dict[str, Any]]:
    """Similar current memories the new one may contradict, most similar first: at least
    `threshold` similar and about the same thing (shared subject words), or likely replaced
    by it. Older ones are marked `older` (the new memory outranks them when it says they
    changed: `likely_outdated`)."""
    out = []
    for n in near:
        older = n["created_at"] < row["created_at"]
        outdated = _outdates(n, row["content"], row["created_at"], translate)
        if not outdated:
            if n["similarity"] < threshold or not changes.about_the_same(n["content"], row["content"], RULE, translate):
                continue  # similar wording about something else (e5 rates unrelated Chinese pairs high)
        out.append(
            {
                "id": str(n["id"]),
                "content": n["content"],
                "memory_type": n["memory_type"],
                "slot": n["slot"],
                "similarity": round(float(n["similarity"]), 3),
                "created_at": n["created_at"].isoformat(),
                "older": older,
                "likely_outdated": bool(outdated),
            }
        )
    return out


RULE = changes.ChangeRule()


def not_current(state) -> str:
    """What update_memory says when it changed a memory that is no longer current."""
    how = f"superseded by {state['invalidated_by']}" if state["invalidated_by"] else "invalidated"
    return (
        f"this memory was {how} on {iso(state['invalidated_at'])[:10]} ({state['invalidation_reason']}); "
        "the change is kept in its history, but recall does not return it: to change what is true now, "
        "update the current memory or store a new one"
    )


@dataclass
class Stored:
    """What a write did: its row, the duplicate it reinforced, what it superseded."""

    row: Any
    dup_id: uuid.UUID | None
    keep_id: uuid.UUID
    replaced: dict[uuid.UUID, str | None]
    superseded: list
    near: list


def report(s: Stored, p: Prepared, conflict_threshold: float, translate: Translate | None = None) -> StoreResult:
    """store_memory's answer: its id and status, the memory, what it replaced or duplicated,
    what it may contradict, the guard's flags and what was redacted."""
    row = s.row
    skip = {s.keep_id, *s.replaced}
    found = conflicts([n for n in s.near if n["id"] not in skip], row, conflict_threshold, translate)
    return StoreResult(
        id=row["id"],
        status="superseded" if s.superseded else "duplicate" if s.dup_id is not None else "created",
        memory=Memory.of(row),
        superseded=tuple(s.superseded),
        duplicate_of=s.dup_id,
        possible_conflicts=tuple(found[:MAX_CONFLICTS]),
        flags=tuple(row["flags"] or ()),
        redacted=tuple(p.redacted or ()),
        sealed=p.sealed is not None,
    )
