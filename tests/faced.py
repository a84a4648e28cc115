"""Memories' single-memory verbs as a face calls them: the request built by its services
builder (every argument checked there), the verb, the answer turned into JSON (Memory.json,
Listing.json) — what get_memory, update_memory, invalidate_memory, delete_memory and
list_memories return. For the tests that check those answers through the part."""

from __future__ import annotations

from typing import Any

from hindsight import services


class faced:
    def __init__(self, memories: Any):
        self.memories = memories

    async def get(self, agent: Any, memory_id: Any, reveal: Any = False) -> dict[str, Any]:
        return (await self.memories.get(services.get_request(agent, memory_id, reveal))).json()

    async def update(self, agent: Any, memory_id: Any, **changes: Any) -> dict[str, Any]:
        return (await self.memories.update(services.update_request(agent, memory_id, **changes))).json()

    async def invalidate(self, agent: Any, memory_id: Any, reason: Any, replaced_by: Any = None, **kw: Any) -> dict:
        asked = services.invalidate_request(agent, memory_id, reason, replaced_by, **kw)
        return (await self.memories.invalidate(asked)).json()

    async def delete(self, agent: Any, memory_id: Any, **kw: Any) -> dict[str, Any]:
        deleted = await self.memories.delete(services.delete_request(agent, memory_id, **kw))
        return {"deleted": True, "id": str(deleted)}

    async def list(self, agent: Any, **filters: Any) -> dict[str, Any]:
        return (await self.memories.list(services.list_request(agent, **filters))).json()
