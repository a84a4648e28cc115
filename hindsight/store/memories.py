"""The write path and single-memory reads.

A live write (store_memory, record_interaction, `hindsight store`) goes through the write
policy, in this order: validate; redact secrets and personal data (sealing the original
when HINDSIGHT_ENCRYPTION_KEY is set); the guard's flags; expiry from importance; embed;
then, in one transaction holding the agent's write lock: supersede what the caller named
(`supersedes`, or the memory in `slot`), reinforce a duplicate instead of inserting, or
insert — and report similar memories as possible conflicts. Triggers write the history.
The steps are in store/write.py (store) and store/prepare.py (the pure ones).
"""

from __future__ import annotations

import dataclasses
import uuid
from functools import partial
from typing import Any

import anyio

from ..data import lexicon
from ..data.columns import MemoryUpdate
from ..data.db import Database, Reader
from ..data.records import Listing, Memory, iso, row_to_dict
from ..embedders.base import AsyncEmbedder
from ..errors import InvalidInput, NotFound
from ..rules import bilingual, changes, privacy
from ..rules import validate as v
from ..rules.text import content_hash
from . import requests, write
from .prepare import Prepared, WritePolicy, prepare, prepare_with_key, search_text
from .result import StoreResult
from .unit import Unit, unit_of_work
from .write import MAX_TTL_SECONDS as MAX_TTL_SECONDS  # the largest ttl_seconds, for the tools' schema


async def _translator(content: str):
    """Words' glosses in the other language, for telling whether this memory says an older
    one changed across scripts (rules/changes.py); the lexicon is built off the event loop
    the first time, and only for a memory that says something changed."""
    if not changes.states_change(content):
        return None
    return bilingual.glosses(await anyio.to_thread.run_sync(lexicon.load))


class Memories:
    """`db`: the primary, for writes and the reads a write makes; `reads` (default: db):
    where get, list and history read (read replicas, hindsight.data.replicas)."""

    def __init__(
        self,
        db: Database,
        embedder: AsyncEmbedder,
        write_policy: WritePolicy | None = None,
        reads: Reader | None = None,
    ):
        self.db = db
        self.reads = reads or db
        self.embedder = embedder
        self.policy = write_policy or WritePolicy()

    async def store(self, agent_id: str, content: Any, **options: Any) -> dict[str, Any]:
        """keep(write.check(agent_id, content, **options)) in its JSON form: a store_memory
        call's arguments checked here, its answer as the tool returns it (the hooks,
        record_interaction, consolidation, the tests)."""
        return (await self.keep(write.check(agent_id, content, **options))).json()

    async def keep(self, w: write.Write) -> StoreResult:
        """Store one checked memory (store.write.check builds it; the faces build it as
        services.store_request) through the write policy: its id, status (created, duplicate:
        an existing memory was reinforced, or superseded) and the Memory."""
        # Redaction, the guard and the lexical key take tens of ms on 32 KB: off the event loop.
        p, words, search = await anyio.to_thread.run_sync(
            partial(prepare_with_key, tags=w.tags),
            self.policy,
            w.content,
            w.metadata,
            w.sensitive,
            w.memory_type,
            w.session_id,
            w.from_tool,
        )
        vector = await self.embedder.passage(p.content)
        translate = await _translator(p.content)
        async with unit_of_work(self.db, w.agent_id, "storing a memory", w.call, w.reason) as unit:
            stored = await self._write(unit, w, p, words, search, vector, translate)
        return await anyio.to_thread.run_sync(write.report, stored, p, self.policy.conflict_threshold, translate)

    async def _write(
        self, unit: Unit, w: write.Write, p: Prepared, words: tuple[str, ...], search: str, vector, translate=None
    ) -> write.Stored:
        """Under the agent's write lock: supersede, then reinforce a duplicate or insert."""
        tx, new_id = unit.tx, uuid.uuid4()
        replaced = await write.targets(unit, w.supersedes, w.slot)
        if w.supersedes is not None and w.slot is None:  # the new memory takes over the old one's slot
            w = dataclasses.replace(w, slot=replaced[w.supersedes])
        candidates = await tx.fetch(
            "write_candidates", w.agent_id, w.memory_type, p.dedup_key, vector, write.NEIGHBOURS
        )
        dup_id, near = write.duplicate(w, p, words, candidates, self.policy.dedup_threshold)
        keep_id = dup_id or new_id
        superseded = await write.supersede(tx, w.agent_id, replaced, keep_id)
        if dup_id is not None:
            row = await write.reinforce(tx, w, p, dup_id)
        else:
            likely = await anyio.to_thread.run_sync(
                write.likely_replaced, near, p.content, w.created or w.now, replaced, translate
            )
            row = await write.insert(tx, w, p, search, vector, new_id, likely)
            if row is None:  # the unique index found a current twin (a writer outside the lock)
                dup_id = keep_id = await unit.equal(w.memory_type, p.dedup_key)
                row = await write.reinforce(tx, w, p, dup_id)
        return write.Stored(row, dup_id, keep_id, replaced, superseded, near)

    async def dismiss_conflict(self, r: requests.Dismiss) -> None:
        """The newer memory does not replace the older one (the page's "not a conflict"):
        recall stops ranking the older under it. Under the agent's write lock."""
        agent_id, new, old = r.agent_id, r.new_id, r.old_id
        async with unit_of_work(
            self.db, agent_id, "dismissing a possible conflict", r.call, "dismissed a possible conflict"
        ) as unit:
            if await unit.tx.fetchval("dismiss_conflict", agent_id, new, old) is None:
                raise InvalidInput(
                    "old_id", f"memory {new} of agent {agent_id!r} does not name {old} as a memory it likely replaces"
                )

    async def get(self, r: requests.Get) -> Memory:
        """One memory. `reveal`: the decrypted original content and metadata in place of the
        redacted ones (needs HINDSIGHT_ENCRYPTION_KEY)."""
        row = await self.reads.fetchrow("get_memory", r.agent_id, r.memory_id)
        if row is None:
            raise NotFound("memory_id", str(r.memory_id), r.agent_id)
        memory = Memory.of(row)
        if r.reveal and row["sealed"]:
            original = self._sealer("reveal").open(await self.reads.fetchval("get_sealed", r.agent_id, r.memory_id))
            memory = dataclasses.replace(memory, content=original["content"], metadata=original["metadata"])
            memory = memory.noted(revealed=True)
        return memory

    def _sealer(self, field: str) -> privacy.Sealer:
        if self.policy.sealer is None:
            raise InvalidInput(
                field,
                "this memory's original content is sealed and HINDSIGHT_ENCRYPTION_KEY "
                "is not set in this server's environment",
            )
        return self.policy.sealer

    async def update(self, r: requests.Update) -> Memory:
        agent_id, mid, new_content, metadata = r.agent_id, r.memory_id, r.content, r.metadata
        state = await self._own(agent_id, mid)
        p, vector = await self._prepare_update(state, new_content, metadata)
        changed = new_content is not None
        change = MemoryUpdate(
            agent_id=agent_id,
            id=mid,
            content=p.content if changed else None,
            content_hash=content_hash(p.content) if changed else None,
            embedding=vector,
            search_vector=search_text(state, p, r.tags),
            importance=r.importance,
            metadata=p.metadata if metadata is not None else None,
            tags=r.tags,
            dedup_key=p.dedup_key if changed else None,
            reseal=p is not None,
            sealed=p.sealed if p else None,
            flags=p.flags if changed else None,
        )
        async with unit_of_work(self.db, agent_id, "updating a memory", r.call) as unit:
            if changed:
                twin = await unit.equal(state["memory_type"], p.dedup_key)
                if twin is not None and twin != mid:
                    raise InvalidInput(
                        "content",
                        f"is the same as memory {twin}; invalidate or delete one of them instead of making them equal",
                    )
            row = await unit.tx.fetchrow("update_memory", *change)
        if row is None:  # deleted between the check and the update
            raise NotFound("memory_id", str(mid), agent_id)
        memory = Memory.of(row)
        return memory.noted(warning=write.not_current(state)) if state["invalidated_at"] is not None else memory

    async def _prepare_update(self, state, new_content: str | None, metadata: dict | None) -> tuple:
        """The pure steps again when content or metadata change (from the sealed original,
        if there is one), and the new content's vector: (prepared or None, vector or None)."""
        if new_content is None and metadata is None:
            return None, None
        original = {"content": state["content"], "metadata": state["metadata"]}
        if state["sealed"] is not None:
            original = self._sealer("memory_id").open(state["sealed"])
        p = await anyio.to_thread.run_sync(
            prepare,
            self.policy,
            new_content if new_content is not None else original["content"],
            metadata if metadata is not None else original["metadata"],
            [],
            state["memory_type"],
            state["session_id"],
            "from_tool" in state["flags"],
        )
        vector = await self.embedder.passage(p.content) if new_content is not None else None
        return p, vector

    async def invalidate(self, r: requests.Invalidate) -> Memory:
        agent_id, mid, replacement = r.agent_id, r.memory_id, r.replaced_by
        state = await self._own(agent_id, mid)
        if state["invalidated_at"] is not None:
            raise InvalidInput(
                "memory_id",
                f"memory {mid} was already invalidated at "
                f"{iso(state['invalidated_at'])} ({state['invalidation_reason']})",
            )
        if replacement is not None and await self.db.fetchrow("own_memory_state", agent_id, replacement) is None:
            raise InvalidInput("replaced_by", f"no memory with id {replacement} belongs to agent {agent_id!r}")
        async with self.db.transaction("invalidating a memory", r.call) as tx:
            row = await tx.fetchrow("invalidate_memory", agent_id, mid, r.reason, replacement)
        if row is None:  # raced with another invalidate or a delete
            raise InvalidInput("memory_id", f"memory {mid} was invalidated or deleted meanwhile")
        return Memory.of(row, **({"redacted": list(r.redacted)} if r.redacted else {}))

    async def delete(self, r: requests.Delete) -> uuid.UUID:
        """Forget one memory for good: its id."""
        async with self.db.transaction("deleting a memory", r.call) as tx:
            deleted = await tx.fetchval("delete_memory", r.agent_id, r.memory_id)
        if deleted is None:
            await self._own(r.agent_id, r.memory_id)  # says why: another agent's shared memory, or none
            raise NotFound("memory_id", str(r.memory_id), r.agent_id)
        return r.memory_id

    async def history(self, agent_id: str, memory_id: Any) -> list[dict[str, Any]]:
        """What happened to one of the agent's memories, oldest first (deleted ones too)."""
        agent_id = v.agent_id(agent_id)
        mid = v.memory_id(memory_id)
        rows = await self.reads.fetch("memory_history", agent_id, mid)
        if not rows:
            raise NotFound("memory_id", str(mid), agent_id)
        return [row_to_dict(r) for r in rows]

    async def list(self, r: requests.List) -> Listing:
        rows = await self.reads.fetch(
            "list_memories",
            r.agent_id,
            r.include_shared,
            r.memory_type,
            r.session_id,
            r.tags,
            r.metadata,
            r.include_invalidated,
            r.limit,
            r.offset,
            r.project,
        )
        return Listing(tuple(Memory.of(row) for row in rows), r.limit, r.offset)

    async def roots_seen(self, agent_id: str, roots: list[tuple[str, str, str]]) -> None:
        """Record the client's root folders: (root URI, project name, where the name came from)."""
        await self.db.executemany("project_root_seen", [(agent_id, *root) for root in roots])

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
