"""Bulk import (a restore path): JSONL records written as given, in one transaction.

A plain line: {"content" | "text", "timestamp" | "created_at"?, "memory_type"?,
"importance"?, "metadata"?, "tags"?, "id"?, "session_id"?, "slot"?, "supersedes"?,
"invalidated_at"?, "invalidation_reason"?, "project"?} ("project": the repository it belongs
to; absent, null or "": global). `timestamp` (alias `created_at`) becomes
created_at; `id` (an external id) is kept as metadata.external_id and identifies the line
on a second import. `slot` and `supersedes` (an external id, or a memory id) rebuild a
timeline: the memory a line replaces is invalidated when the line was created, with
`invalidated_by` pointing at it; `invalidated_at` marks a line no longer true since then.
Lines written by `hindsight export` restore exactly (see transfer.py).

Every line is checked, and the whole timeline planned (`plan`, pure), before anything is
written. A line whose external id (or exported memory id) the agent already has is
skipped, or with on_conflict="replace" written in its place.
"""

from __future__ import annotations

import uuid
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from ..data.columns import HistoryRow, ImportedMemory
from ..data.db import Database
from ..embedders.base import Embedder
from ..embedders.pipeline import embedded_batches
from ..errors import InvalidInput
from ..rules import privacy
from ..rules import validate as v
from ..rules.text import content_hash, indexed_text
from . import transfer
from .unit import locked

ON_CONFLICT = ("skip", "replace")


@dataclass
class Known:
    """A memory the agent already has, as the plan needs to know it."""

    id: uuid.UUID
    external_id: str | None
    slot: str | None
    created_at: datetime
    current: bool
    archived: bool


@dataclass
class Plan:
    rows: list[dict[str, Any]]  # records to write, with id and final state
    delete_live: list[uuid.UUID] = field(default_factory=list)
    delete_archived: list[uuid.UUID] = field(default_factory=list)
    supersede: list[tuple[uuid.UUID, datetime, uuid.UUID]] = field(default_factory=list)  # known id, at, by
    skipped: int = 0
    replaced: int = 0


def plan(records: list[dict[str, Any]], known: list[Known], on_conflict: str, now: datetime) -> Plan:
    """Decide every line's id, whether it is written, and the timeline: what each line
    supersedes (by `supersedes` or by a later line in its slot) and when."""
    by_external = {k.external_id: k for k in known if k.external_id is not None}
    out = Plan(rows=[])
    seen: dict[str, int] = {}
    for r in records:
        ext = r["external_id"]
        if ext is not None and ext in seen:
            raise InvalidInput(f"line {r['line']}: id", f"{ext!r} is also the id of line {seen[ext]}")
        if ext is not None:
            seen[ext] = r["line"]
        old = by_external.get(ext) if ext is not None else None
        if old is not None and on_conflict == "skip":
            out.skipped += 1
            continue
        row = dict(r, id=old.id if old else uuid.uuid4(), created_at=r["created_at"] or now, invalidated_by=None)
        if old is not None:
            out.replaced += 1
            (out.delete_archived if old.archived else out.delete_live).append(old.id)
        out.rows.append(row)
    replaced = set(out.delete_live) | set(out.delete_archived)
    _supersessions(out, [k for k in known if k.id not in replaced], by_external)
    _slot_chains(out, [k for k in known if k.id not in replaced and k.current and k.slot])
    return out


def _target(r: dict[str, Any], in_file: dict[str, dict], known: list[Known], by_external: dict[str, Known]):
    ref = r["supersedes"]
    if ref in in_file:
        return in_file[ref]
    if ref in by_external:
        return by_external[ref]
    try:
        ref_id = uuid.UUID(ref)
    except ValueError:
        ref_id = None
    found = next((k for k in known if k.id == ref_id), None)
    if found is None:
        raise InvalidInput(
            f"line {r['line']}: supersedes",
            f"{ref!r} is neither the id of a line in this file nor an external id or memory id of this agent",
        )
    return found


def _supersessions(out: Plan, known: list[Known], by_external: dict[str, Known]) -> None:
    in_file = {row["external_id"]: row for row in out.rows if row["external_id"] is not None}
    taken: dict[Any, int] = {}
    for row in out.rows:
        if row["supersedes"] is None:
            continue
        target = _target(row, in_file, known, by_external)
        where = f"line {row['line']}: supersedes"
        key = target["id"] if isinstance(target, dict) else target.id
        if key == row["id"]:
            raise InvalidInput(where, "names the line itself")
        if key in taken:
            raise InvalidInput(where, f"{row['supersedes']!r} is already superseded by line {taken[key]}")
        taken[key] = row["line"]
        created = target["created_at"] if isinstance(target, dict) else target.created_at
        if created > row["created_at"]:
            raise InvalidInput(
                where, f"{row['supersedes']!r} was created after this line; a memory can only replace an older one"
            )
        if isinstance(target, dict):
            target["invalidated_by"] = row["id"]
            target["invalidated_at"] = target["invalidated_at"] or row["created_at"]
            slot = target["slot"]
        else:
            if target.archived or not target.current:
                raise InvalidInput(
                    where,
                    f"memory {target.id} is no longer current ({'archived' if target.archived else 'invalidated'})",
                )
            out.supersede.append((target.id, row["created_at"], row["id"]))
            slot = target.slot
        if row["slot"] is None and slot is not None:
            row["slot"] = slot  # the new memory takes over the old one's slot


def _slot_chains(out: Plan, holders: list[Known]) -> None:
    """In each slot, every memory still current is superseded by the next one created."""
    superseded = {known_id for known_id, _, _ in out.supersede}
    slots: dict[str, list] = {}
    for k in holders:
        if k.id not in superseded:
            slots.setdefault(k.slot, []).append(k)
    for row in out.rows:
        if row["slot"] is not None:
            slots.setdefault(row["slot"], []).append(row)
    for members in slots.values():
        members.sort(key=lambda m: (m["created_at"], m["line"]) if isinstance(m, dict) else (m.created_at, 0))
        for earlier, later in zip(members, members[1:]):
            later_id, at = (
                (later["id"], later["created_at"]) if isinstance(later, dict) else (later.id, later.created_at)
            )
            if isinstance(earlier, dict):
                if earlier["invalidated_at"] is None:
                    earlier.update(invalidated_at=at, invalidated_by=later_id)
            else:
                out.supersede.append((earlier.id, at, later_id))


# ---- writing ---------------------------------------------------------------------------------


async def import_records(
    db: Database,
    embedder: Embedder,
    agent_id: str,
    records: list[dict[str, Any]],
    batch_size: int = 64,
    progress: Callable[[int], None] | None = None,
    sealer: privacy.Sealer | None = None,
    on_conflict: str = "skip",
) -> dict[str, int]:
    """Write `records` in one transaction, embedding the next batch while one is written.
    Returns {"imported", "skipped", "replaced", "trails"} (trails: deleted memories'
    history restored from an export).

    A restore keeps records as given: no should_store, no dedup, no expiry from importance.
    Privacy still holds: secrets are redacted (sealed with a key)."""
    agent_id = v.agent_id(agent_id)
    if on_conflict not in ON_CONFLICT:
        raise InvalidInput("on_conflict", f"{on_conflict!r} is not allowed; use skip or replace")
    exact = [r for r in records if r.get("restore")]
    if exact:  # lines written by `hindsight export`: every column as given
        if len(exact) != len(records):
            raise InvalidInput("file", "mixes exported lines (with memory_id) and plain lines; import them separately")
        return await transfer.restore(db, embedder, agent_id, records, batch_size, progress, sealer, on_conflict)
    now = datetime.now(timezone.utc)
    refs = [uuid.UUID(r["supersedes"]) for r in records if r["supersedes"] and _is_uuid(r["supersedes"])]
    async with db.transaction("importing memories", "import") as tx:
        await locked(tx, agent_id, "import")  # what is planned below stays true until commit
        known = [Known(**dict(k)) for k in await tx.fetch("import_known", agent_id, refs)]
        todo = plan(records, known, on_conflict, now)
        rows = [_private(r, sealer) for r in todo.rows]
        await tx.fetchval("skip_history")  # history is written below, at the times it happened
        await tx.execute("import_delete_live", agent_id, todo.delete_live)
        await tx.execute("import_delete_archived", agent_id, todo.delete_archived)
        for known_id, at, by in todo.supersede:  # before the inserts: one current memory per slot
            await tx.fetchval("import_supersede", agent_id, known_id, at, f"superseded by {by}", by)
            await tx.fetchval("import_history_at", agent_id, known_id, at)
        async with aclosing(embedded_batches(embedder, rows, batch_size)) as batches:
            async for batch, vectors in batches:
                await tx.executemany("import_memory", [_row(agent_id, r, vec) for r, vec in zip(batch, vectors)])
                trail = sorted(
                    (h for r in batch for h in _history(agent_id, r)), key=lambda h: (h.at, h.action != "create")
                )
                await tx.executemany("restore_history", trail)
                if progress:
                    progress(len(batch))
    if progress:
        progress(todo.skipped)
    return {"imported": len(rows), "skipped": todo.skipped, "replaced": todo.replaced, "trails": 0}


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
        return True
    except ValueError:
        return False


def _reason(r: dict[str, Any]) -> str | None:
    if r["invalidated_at"] is None:
        return None
    if r["invalidated_by"] is not None:
        return f"superseded by {r['invalidated_by']}"
    return r["invalidation_reason"] or "invalidated before import"


def _row(agent_id: str, r: dict[str, Any], vec) -> ImportedMemory:
    return ImportedMemory(
        agent_id=agent_id,
        id=r["id"],
        session_id=r["session_id"],
        memory_type=r["memory_type"],
        content=r["content"],
        content_hash=content_hash(r["content"]),
        embedding=vec,
        search_vector=indexed_text(r["content"], r["metadata"], r["tags"]),
        metadata=r["metadata"],
        tags=r["tags"],
        importance=r["importance"],
        created_at=r["created_at"],
        slot=r["slot"],
        invalidated_at=r["invalidated_at"],
        invalidation_reason=_reason(r),
        invalidated_by=r["invalidated_by"],
        sealed=r["sealed"],
        project=r["project"],
    )


def _history(agent_id: str, r: dict[str, Any]) -> list[HistoryRow]:
    """The trail of an imported memory: created when it happened, superseded or
    invalidated when that happened; `call` = import."""

    def row(action: str, at: datetime, reason: str | None, related_id: uuid.UUID | None) -> HistoryRow:
        return HistoryRow(
            agent_id=agent_id,
            memory_id=r["id"],
            action=action,
            at=at,
            call="import",
            reason=reason,
            related_id=related_id,
            memory_type=r["memory_type"],
            content=r["content"],
            metadata=r["metadata"],
            importance=r["importance"],
            slot=r["slot"],
            expires_at=None,
        )

    out = [row("create", r["created_at"], None, None)]
    if r["invalidated_at"] is not None:
        action = "supersede" if r["invalidated_by"] is not None else "invalidate"
        out.append(row(action, r["invalidated_at"], _reason(r), r["invalidated_by"]))
    return out


def _private(record: dict[str, Any], sealer: privacy.Sealer | None) -> dict[str, Any]:
    scrubbed = privacy.scrub(record["content"], record["metadata"] or {})
    if not scrubbed.changed:
        return dict(record, sealed=None)
    sealed = sealer.seal(record["content"], record["metadata"] or {}) if sealer else None
    return dict(record, content=scrubbed.content, metadata=scrubbed.metadata, sealed=sealed)
