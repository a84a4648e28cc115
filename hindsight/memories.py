"""The write path and single-memory reads: validate, embed, one SQL statement each."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from . import validate as v
from .db import Database
from .embed import AsyncEmbedder
from .errors import InvalidInput, NotFound
from .text import content_hash, indexed_text

MAX_TTL_SECONDS = 100 * 365 * 24 * 3600


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


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


class Memories:
    def __init__(self, db: Database, embedder: AsyncEmbedder):
        self.db = db
        self.embedder = embedder

    async def store(
        self, agent_id: str, content: Any, *, memory_type: Any = "episodic", session_id: Any = None,
        importance: Any = 3, metadata: Any = None, tags: Any = None, ttl_seconds: Any = None,
        shared: Any = False, created_at: Any = None,
    ) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        content = v.content(content)
        memory_type = v.memory_type(memory_type)
        session_id = v.text("session_id", session_id, max_bytes=256, required=False)
        importance = v.importance(importance)
        metadata = v.metadata(metadata) or {}
        tags = v.tags(tags) or []
        ttl = v.integer("ttl_seconds", ttl_seconds, 1, MAX_TTL_SECONDS, required=False)
        if not isinstance(shared, bool):
            raise InvalidInput("shared", "must be true or false")
        created = v.timestamp("created_at", created_at)
        expires = datetime.now(timezone.utc) + timedelta(seconds=ttl) if ttl else None

        vector = await self.embedder.passage(content)
        row = await self.db.fetchrow(
            "insert_memory", agent_id, session_id, memory_type, content, content_hash(content),
            vector, indexed_text(content, metadata), metadata, tags, importance, created, expires, shared,
        )
        return row_to_dict(row)

    async def get(self, agent_id: str, memory_id: Any) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        row = await self.db.fetchrow("get_memory", agent_id, mid)
        if row is None:
            raise NotFound("memory_id", str(mid), agent_id)
        return row_to_dict(row)

    async def update(
        self, agent_id: str, memory_id: Any, *, content: Any = None, importance: Any = None,
        metadata: Any = None, tags: Any = None,
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
        vector = await self.embedder.passage(new_content) if new_content is not None else None
        reindex = new_content is not None or metadata is not None
        row = await self.db.fetchrow(
            "update_memory", agent_id, mid, new_content,
            content_hash(new_content) if new_content is not None else None, vector,
            indexed_text(new_content if new_content is not None else state["content"],
                         metadata if metadata is not None else state["metadata"]) if reindex else None,
            importance, metadata, tags,
        )
        if row is None:  # deleted between the check and the update
            raise NotFound("memory_id", str(mid), agent_id)
        return row_to_dict(row)

    async def invalidate(self, agent_id: str, memory_id: Any, reason: Any,
                         replaced_by: Any = None) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        reason = v.text("reason", reason, max_bytes=2048)
        replacement = v.memory_id(replaced_by, "replaced_by", required=False)
        if replacement == mid:
            raise InvalidInput("replaced_by", "must be another memory, not the one being invalidated")
        state = await self._own(agent_id, mid)
        if state["invalidated_at"] is not None:
            raise InvalidInput("memory_id", f"memory {mid} was already invalidated at "
                                            f"{_iso(state['invalidated_at'])} ({state['invalidation_reason']})")
        if replacement is not None and await self.db.fetchrow("own_memory_state", agent_id, replacement) is None:
            raise InvalidInput("replaced_by", f"no memory with id {replacement} belongs to agent {agent_id!r}")
        row = await self.db.fetchrow("invalidate_memory", agent_id, mid, reason, replacement)
        if row is None:  # raced with another invalidate or a delete
            raise InvalidInput("memory_id", f"memory {mid} was invalidated or deleted meanwhile")
        return row_to_dict(row)

    async def delete(self, agent_id: str, memory_id: Any) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        if await self.db.fetchval("delete_memory", agent_id, mid) is None:
            await self._own(agent_id, mid)  # says why: another agent's shared memory, or none
            raise NotFound("memory_id", str(mid), agent_id)
        return {"deleted": True, "id": str(mid)}

    async def list(
        self, agent_id: str, *, memory_type: Any = None, session_id: Any = None, tags: Any = None,
        metadata: Any = None, include_shared: Any = False, include_invalidated: Any = False,
        limit: Any = 20, offset: Any = 0,
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
            "list_memories", agent_id, include_shared, memory_type, session_id, tags,
            metadata, include_invalidated, limit, offset,
        )
        return {"memories": [row_to_dict(r) for r in rows], "limit": limit, "offset": offset}

    async def _own(self, agent_id: str, mid: uuid.UUID):
        """The memory's state if the agent owns it; NotFound otherwise (shared ones included:
        only the owner may change a memory)."""
        state = await self.db.fetchrow("own_memory_state", agent_id, mid)
        if state is None:
            visible = await self.db.fetchrow("get_memory", agent_id, mid)
            if visible is not None:
                raise InvalidInput("memory_id", f"memory {mid} is shared by agent {visible['agent_id']!r}; "
                                                "only its owner may change it")
            raise NotFound("memory_id", str(mid), agent_id)
        return state
