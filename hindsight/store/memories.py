"""The write path and single-memory reads.

A live write (store_memory, record_interaction, `hindsight store`) goes through the write
policy, in this order: validate; redact secrets and personal data (sealing the original
when HINDSIGHT_ENCRYPTION_KEY is set); the guard's flags; expiry from importance; embed;
then, in one transaction holding the agent's write lock: supersede what the caller named
(`supersedes`, or the memory in `slot`), reinforce a duplicate instead of inserting, or
insert — and report similar memories as possible conflicts. Triggers write the history.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import anyio

from ..data.db import Database, Tx
from ..embedders.base import AsyncEmbedder
from ..errors import InvalidInput, NotFound
from ..rules import dedup, guard, policy, privacy, scoring
from ..rules import validate as v
from ..rules.text import content_hash, indexed_text, normalised

MAX_TTL_SECONDS = 100 * 365 * 24 * 3600
NEIGHBOURS = 8  # candidates read for near-duplicates and conflicts
MAX_CONFLICTS = 3


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


CONFLICT_HINT = (
    "Recall already ranks this newer memory above older similar ones it says changed. If it "
    "replaces one of them, confirm it: invalidate_memory(memory_id=<old id>, reason=..., "
    "replaced_by='{id}') (CLI: hindsight invalidate <old id> --reason ... --replaced-by {id})."
)


def _likely_replaced(near: list, content: str, created: datetime, threshold: float, targets) -> list:
    """Older current facts and procedures about the same thing (cosine >= the conflict
    threshold) that a new memory saying something changed probably replaces."""
    if not scoring.states_change(content):
        return []
    return [
        n["id"]
        for n in near
        if n["similarity"] >= threshold
        and n["id"] not in targets
        and n["memory_type"] in ("semantic", "procedural")
        and n["created_at"] < created
    ]


def _conflicts(near: list, row) -> list[dict[str, Any]]:
    """Similar current memories the new one may contradict, most similar first: older ones
    are marked `older` (the new memory outranks them when it says something changed:
    `likely_outdated`)."""
    changes = scoring.states_change(row["content"])
    out = []
    for n in near:
        older = n["created_at"] < row["created_at"]
        out.append(
            {
                "id": str(n["id"]),
                "content": n["content"],
                "memory_type": n["memory_type"],
                "slot": n["slot"],
                "similarity": round(float(n["similarity"]), 3),
                "created_at": n["created_at"].isoformat(),
                "older": older,
                "likely_outdated": bool(older and changes and n["memory_type"] in ("semantic", "procedural")),
            }
        )
    return out


def _search_text(state, p: "_Prepared | None", tags: list[str] | None) -> str | None:
    """The keyword text after an update, when content, metadata or tags changed."""
    if p is None and tags is None:
        return None
    return indexed_text(
        p.content if p else state["content"],
        p.metadata if p else state["metadata"],
        tags if tags is not None else state["tags"],
    )


def row_to_dict(row) -> dict[str, Any]:
    """A memory as tools and the CLI return it: JSON-ready, ids and times as strings."""
    out: dict[str, Any] = {}
    for key, value in dict(row).items():
        if isinstance(value, uuid.UUID):
            value = str(value)
        elif isinstance(value, datetime):
            value = value.isoformat()
        out[key] = value
    return out


@dataclass(frozen=True)
class WritePolicy:
    dedup_threshold: float = dedup.DEFAULT_THRESHOLD
    conflict_threshold: float = dedup.DEFAULT_CONFLICT_THRESHOLD
    sealer: privacy.Sealer | None = None

    @classmethod
    def from_settings(cls, settings) -> "WritePolicy":
        return cls(
            settings.dedup_threshold,
            settings.conflict_threshold,
            privacy.Sealer(settings.encryption_key) if settings.encryption_key else None,
        )


@dataclass
class _Prepared:
    """A write after the pure steps: what goes into the row."""

    content: str
    metadata: dict[str, Any]
    redacted: list[str]
    sealed: bytes | None
    flags: list[str]
    strength: float
    dedup_key: bytes


class Memories:
    def __init__(self, db: Database, embedder: AsyncEmbedder, write_policy: WritePolicy | None = None):
        self.db = db
        self.embedder = embedder
        self.policy = write_policy or WritePolicy()

    def _prepare(
        self,
        content: str,
        metadata: dict[str, Any],
        sensitive: list[str],
        memory_type: str,
        session_id: str | None,
        from_tool: bool,
    ) -> _Prepared:
        scrubbed = privacy.scrub(content, metadata, sensitive)
        sealer = self.policy.sealer
        sealed = sealer.seal(content, metadata) if scrubbed.changed and sealer else None
        verdict = guard.assess(scrubbed.content, from_tool=from_tool)
        scope = f"{session_id or ''}\x00" if memory_type == "working" else ""
        if sealed is not None:  # a keyed hash: an unkeyed one would let secrets be guessed
            key = sealer.keyed_hash((scope + normalised(content)).encode("utf-8"))
        else:
            key = content_hash(scope + scrubbed.content)
        return _Prepared(
            scrubbed.content, scrubbed.metadata, scrubbed.kinds, sealed, list(verdict.flags), verdict.strength, key
        )

    def _prepare_with_key(self, *args: Any) -> tuple[_Prepared, tuple[str, ...]]:
        p = self._prepare(*args)
        return p, dedup.lexical_key(p.content)

    async def store(
        self,
        agent_id: str,
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
        from_tool: bool = False,
        call: str = "store_memory",
        reason: str | None = None,
    ) -> dict[str, Any]:
        """Store one memory through the write policy. Returns {id, status, memory, ...}:
        status created, duplicate (an existing memory was reinforced) or superseded."""
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
        now = datetime.now(timezone.utc)
        expires = policy.expires_at(importance, memory_type, ttl, now)

        # Redaction, the guard and the lexical key take tens of ms on 32 KB: off the event loop.
        p, words = await anyio.to_thread.run_sync(
            self._prepare_with_key, content, metadata, sensitive, memory_type, session_id, from_tool
        )
        vector = await self.embedder.passage(p.content)
        new_id = uuid.uuid4()

        async with self.db.transaction("storing a memory") as tx:
            await tx.fetchrow("begin_write", agent_id, call, reason)
            targets = await self._targets(tx, agent_id, supersedes, slot)
            if supersedes is not None and slot is None:
                slot = targets[supersedes]  # the new memory takes over the old one's slot
            candidates = await tx.fetch("write_candidates", agent_id, memory_type, p.dedup_key, vector, NEIGHBOURS)
            dup_id = next((c["id"] for c in candidates if c["exact"]), None)
            near = [c for c in candidates if not c["exact"]]
            if dup_id is None and p.sealed is None:
                dup_id = next(
                    (
                        n["id"]
                        for n in near
                        if n["memory_type"] == memory_type
                        and not n["sealed"]
                        and (memory_type != "working" or n["session_id"] == session_id)
                        and n["similarity"] >= self.policy.dedup_threshold  # the key only when it matters
                        and dedup.is_near_duplicate(
                            n["similarity"], words, dedup.lexical_key(n["content"]), self.policy.dedup_threshold
                        )
                    ),
                    None,
                )
            keep_id = dup_id or new_id
            superseded = [t for t in targets if t != keep_id]
            for old in superseded:
                await tx.fetchrow("invalidate_memory", agent_id, old, f"superseded by {keep_id}", keep_id)
            if dup_id is not None:
                row = await tx.fetchrow("reinforce_memory", agent_id, dup_id, importance, expires, p.strength, slot)
                await tx.fetchval("reinforce_state", agent_id, dup_id)
            else:
                likely = _likely_replaced(near, p.content, created or now, self.policy.conflict_threshold, targets)
                row = await tx.fetchrow(
                    "insert_memory",
                    agent_id,
                    new_id,
                    session_id,
                    memory_type,
                    p.content,
                    content_hash(p.content),
                    vector,
                    indexed_text(p.content, p.metadata, tags),
                    p.metadata,
                    tags,
                    importance,
                    created,
                    expires,
                    shared,
                    p.dedup_key,
                    slot,
                    p.flags,
                    p.sealed,
                    p.strength,
                )
                if row is not None and likely:
                    await tx.fetchval("mark_likely_replaces", agent_id, new_id, likely)
                if row is None:  # the unique index found a current twin (a writer outside the lock)
                    dup_id = keep_id = await tx.fetchval("find_exact_duplicate", agent_id, memory_type, p.dedup_key)
                    row = await tx.fetchrow("reinforce_memory", agent_id, dup_id, importance, expires, p.strength, slot)
                    await tx.fetchval("reinforce_state", agent_id, dup_id)

        result: dict[str, Any] = {"id": str(row["id"])}
        if superseded:
            result["status"] = "superseded"
            result["superseded"] = [str(t) for t in superseded]
        else:
            result["status"] = "duplicate" if dup_id is not None else "created"
        if dup_id is not None:
            result["duplicate_of"] = str(dup_id)
        skip = {keep_id, *targets}
        conflicts = _conflicts(
            [n for n in near if n["id"] not in skip and n["similarity"] >= self.policy.conflict_threshold], row
        )
        if conflicts:
            result["possible_conflicts"] = conflicts[:MAX_CONFLICTS]
            result["conflict_hint"] = CONFLICT_HINT.format(id=row["id"])
        if row["flags"]:
            result["flags"] = list(row["flags"])
        if p.redacted:
            result["redacted"] = p.redacted
            result["sealed"] = p.sealed is not None
        result["memory"] = row_to_dict(row)
        return result

    async def _targets(
        self, tx: Tx, agent_id: str, supersedes: uuid.UUID | None, slot: str | None
    ) -> dict[uuid.UUID, str | None]:
        """The current memories this write replaces: {id: its slot}."""
        targets: dict[uuid.UUID, str | None] = {}
        if supersedes is not None:
            state = await tx.fetchrow("own_memory_state", agent_id, supersedes)
            if state is None:
                raise InvalidInput("supersedes", f"no memory with id {supersedes} belongs to agent {agent_id!r}")
            if state["invalidated_at"] is not None:
                raise InvalidInput(
                    "supersedes",
                    f"memory {supersedes} is no longer current (invalidated at "
                    f"{_iso(state['invalidated_at'])}: {state['invalidation_reason']})",
                )
            if slot is not None and state["slot"] not in (None, slot):
                raise InvalidInput("slot", f"memory {supersedes} holds slot {state['slot']!r}, not {slot!r}")
            targets[supersedes] = state["slot"]
        if slot is not None:
            holder = await tx.fetchval("slot_holder", agent_id, slot)
            if holder is not None:
                targets[holder] = slot
        return targets

    async def get(self, agent_id: str, memory_id: Any, reveal: Any = False) -> dict[str, Any]:
        """One memory. `reveal`: put the decrypted original content and metadata in place of
        the redacted ones (needs HINDSIGHT_ENCRYPTION_KEY)."""
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        reveal = v.boolean("reveal", reveal)
        row = await self.db.fetchrow("get_memory", agent_id, mid)
        if row is None:
            raise NotFound("memory_id", str(mid), agent_id)
        out = row_to_dict(row)
        if reveal and row["sealed"]:
            original = self._sealer("reveal").open(await self.db.fetchval("get_sealed", agent_id, mid))
            out.update(content=original["content"], metadata=original["metadata"], revealed=True)
        return out

    def _sealer(self, field: str) -> privacy.Sealer:
        if self.policy.sealer is None:
            raise InvalidInput(
                field,
                "this memory's original content is sealed and HINDSIGHT_ENCRYPTION_KEY "
                "is not set in this server's environment",
            )
        return self.policy.sealer

    async def update(
        self,
        agent_id: str,
        memory_id: Any,
        *,
        content: Any = None,
        importance: Any = None,
        metadata: Any = None,
        tags: Any = None,
        call: str = "update_memory",
    ) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        new_content = None if content is None else v.content(content)
        importance = v.importance(importance, required=False)
        metadata = v.metadata(metadata)
        tags = v.tags(tags)
        if all(x is None for x in (new_content, importance, metadata, tags)):
            raise InvalidInput("update_memory", "give at least one of content, importance, metadata, tags")
        state = await self._own(agent_id, mid)
        p = vector = None
        if new_content is not None or metadata is not None:
            original = {"content": state["content"], "metadata": state["metadata"]}
            if state["sealed"] is not None:
                original = self._sealer("memory_id").open(state["sealed"])
            p = await anyio.to_thread.run_sync(
                self._prepare,
                new_content if new_content is not None else original["content"],
                metadata if metadata is not None else original["metadata"],
                [],
                state["memory_type"],
                state["session_id"],
                "from_tool" in state["flags"],
            )
            if new_content is not None:
                vector = await self.embedder.passage(p.content)
        async with self.db.transaction("updating a memory") as tx:
            await tx.fetchrow("begin_write", agent_id, call, None)
            if new_content is not None:
                twin = await tx.fetchval("find_exact_duplicate", agent_id, state["memory_type"], p.dedup_key)
                if twin is not None and twin != mid:
                    raise InvalidInput(
                        "content",
                        f"is the same as memory {twin}; invalidate or delete one of them instead of making them equal",
                    )
            row = await tx.fetchrow(
                "update_memory",
                agent_id,
                mid,
                p.content if new_content is not None else None,
                content_hash(p.content) if new_content is not None else None,
                vector,
                _search_text(state, p, tags),
                importance,
                p.metadata if metadata is not None else None,
                tags,
                p.dedup_key if new_content is not None else None,
                p is not None,
                p.sealed if p else None,
                p.flags if new_content is not None else None,
            )
        if row is None:  # deleted between the check and the update
            raise NotFound("memory_id", str(mid), agent_id)
        return row_to_dict(row)

    async def invalidate(
        self, agent_id: str, memory_id: Any, reason: Any, replaced_by: Any = None, call: str = "invalidate_memory"
    ) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        reason, redacted = privacy.redact(v.text("reason", reason, max_bytes=2048))
        replacement = v.memory_id(replaced_by, "replaced_by", required=False)
        if replacement == mid:
            raise InvalidInput("replaced_by", "must be another memory, not the one being invalidated")
        state = await self._own(agent_id, mid)
        if state["invalidated_at"] is not None:
            raise InvalidInput(
                "memory_id",
                f"memory {mid} was already invalidated at "
                f"{_iso(state['invalidated_at'])} ({state['invalidation_reason']})",
            )
        if replacement is not None and await self.db.fetchrow("own_memory_state", agent_id, replacement) is None:
            raise InvalidInput("replaced_by", f"no memory with id {replacement} belongs to agent {agent_id!r}")
        async with self.db.transaction("invalidating a memory", call) as tx:
            row = await tx.fetchrow("invalidate_memory", agent_id, mid, reason, replacement)
        if row is None:  # raced with another invalidate or a delete
            raise InvalidInput("memory_id", f"memory {mid} was invalidated or deleted meanwhile")
        return row_to_dict(row) | ({"redacted": redacted} if redacted else {})

    async def delete(self, agent_id: str, memory_id: Any, call: str = "delete_memory") -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        async with self.db.transaction("deleting a memory", call) as tx:
            deleted = await tx.fetchval("delete_memory", agent_id, mid)
        if deleted is None:
            await self._own(agent_id, mid)  # says why: another agent's shared memory, or none
            raise NotFound("memory_id", str(mid), agent_id)
        return {"deleted": True, "id": str(mid)}

    async def history(self, agent_id: str, memory_id: Any) -> list[dict[str, Any]]:
        """What happened to one of the agent's memories, oldest first (deleted ones too)."""
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        rows = await self.db.fetch("memory_history", agent_id, mid)
        if not rows:
            raise NotFound("memory_id", str(mid), agent_id)
        return [row_to_dict(r) for r in rows]

    async def list(
        self,
        agent_id: str,
        *,
        memory_type: Any = None,
        session_id: Any = None,
        tags: Any = None,
        metadata: Any = None,
        include_shared: Any = False,
        include_invalidated: Any = False,
        limit: Any = 20,
        offset: Any = 0,
    ) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        memory_type = v.memory_type(memory_type, required=False)
        session_id = v.text("session_id", session_id, max_bytes=256, required=False)
        tags = v.tags(tags)
        metadata = v.metadata(metadata)
        for name, flag in (("include_shared", include_shared), ("include_invalidated", include_invalidated)):
            if not isinstance(flag, bool):
                raise InvalidInput(name, "must be true or false")
        limit = v.integer("limit", limit, 1, v.MAX_LIST_LIMIT)
        offset = v.integer("offset", offset, 0, 10_000_000)
        rows = await self.db.fetch(
            "list_memories",
            agent_id,
            include_shared,
            memory_type,
            session_id,
            tags,
            metadata,
            include_invalidated,
            limit,
            offset,
        )
        return {"memories": [row_to_dict(r) for r in rows], "limit": limit, "offset": offset}

    async def _own(self, agent_id: str, mid: uuid.UUID):
        """The memory's state if the agent owns it; NotFound otherwise (shared ones included:
        only the owner may change a memory)."""
        state = await self.db.fetchrow("own_memory_state", agent_id, mid)
        if state is None:
            visible = await self.db.fetchrow("get_memory", agent_id, mid)
            if visible is not None:
                raise InvalidInput(
                    "memory_id",
                    f"memory {mid} is shared by agent {visible['agent_id']!r}; only its owner may change it",
                )
            raise NotFound("memory_id", str(mid), agent_id)
        return state
