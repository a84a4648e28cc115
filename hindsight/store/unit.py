"""One live write of one agent, as every write path makes it (store, update, restore, import,
the page's dismissal): its own transaction, the agent's write lock (one live write per agent
at a time, so each write's checks see the others' results; released at commit), and the
checks made before a memory becomes current: no equal memory current, no other holder of its
slot."""

from __future__ import annotations

import contextlib
import uuid
from typing import AsyncIterator

from ..data.db import Database, Tx


class Unit:
    """A transaction holding the agent's write lock (`unit_of_work`, or `locked` inside a
    transaction already open)."""

    def __init__(self, tx: Tx, agent_id: str):
        self.tx = tx
        self.agent_id = agent_id

    async def equal(self, memory_type: str, dedup_key: str | None) -> uuid.UUID | None:
        """The agent's current memory of this type with this dedup key (the same content)."""
        if dedup_key is None:
            return None
        found: uuid.UUID | None = await self.tx.fetchval("find_exact_duplicate", self.agent_id, memory_type, dedup_key)
        return found

    async def slot_holder(self, slot: str | None) -> uuid.UUID | None:
        """The agent's current memory in this slot."""
        if slot is None:
            return None
        found: uuid.UUID | None = await self.tx.fetchval("slot_holder", self.agent_id, slot)
        return found


async def locked(tx: Tx, agent_id: str, call: str, reason: str | None = None) -> Unit:
    """Take the agent's write lock in the open transaction `tx`, naming the call (and why)
    for the history rows its triggers write."""
    await tx.fetchrow("begin_write", agent_id, call, reason)
    return Unit(tx, agent_id)


@contextlib.asynccontextmanager
async def unit_of_work(
    db: Database, agent_id: str, what: str, call: str, reason: str | None = None
) -> AsyncIterator[Unit]:
    """A transaction of its own (`what` names it in errors) holding the agent's write lock."""
    async with db.transaction(what) as tx:
        yield await locked(tx, agent_id, call, reason)
